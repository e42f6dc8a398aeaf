"""An answer's fixed messages speak the user's language: a Spanish shop's
collection abstains and greets in Spanish, an English one stays English, and the
question's own language wins over the collection's when it can be told (issue 27:
"Spanish collections answer in Spanish but refuse and greet in English")."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, Settings

TIENDA = Scope("tienda", ("politicas",))
BANK = Scope("bank", ("policies",))
ENVIOS = ("Envíos y entregas. Los pedidos a la península se entregan en dos o tres días laborables. El envío "
          "cuesta 4,95 euros y es gratuito a partir de 50 euros. La tarjeta regalo Clásica se envía por correo "
          "electrónico el mismo día.")
DEVOLUCIONES = ("Devoluciones. Tienes treinta días naturales desde la entrega para devolver un producto sin usar. "
                "El reembolso se hace con el mismo medio de pago en un plazo de catorce días.")
FEES = ("Overdraft fees. An unarranged overdraft costs 5 euros a day, capped at 30 euros a month. The Classic card "
        "has no monthly fee.")
NADA_ES = "No he encontrado nada sobre esto en la base de conocimiento."
NO_CONTIENE_ES = "La base de conocimiento no parece contener la respuesta a esta pregunta."
NOT_CONTAINED_EN = "The knowledge base does not seem to contain the answer to this question."


def engine_at(home: Path, floor: float | None) -> Engine:
    return Engine(Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                           answer=AnswerSettings(relevance_floor=floor)))


def fill(engine: Engine) -> Engine:
    engine.add_documents([Document(source="envios.md", title="Envíos", blocks=[Block(ENVIOS)]),
                          Document(source="devoluciones.md", title="Devoluciones", blocks=[Block(DEVOLUCIONES)])],
                         TIENDA)
    engine.add_documents([Document(source="fees.md", title="Fees", blocks=[Block(FEES)])], BANK)
    return engine


@pytest.fixture
def strict(tmp_path: Path):
    """A floor nothing clears: every question over the documents abstains."""
    engine = fill(engine_at(tmp_path / "strict", 0.99))
    yield engine
    engine.close()


@pytest.fixture
def lenient(tmp_path: Path):
    """No floor: abstaining is left to the constraint check."""
    engine = fill(engine_at(tmp_path / "lenient", 0.0))
    yield engine
    engine.close()


def test_the_first_documents_set_the_collections_language(strict: Engine) -> None:
    assert strict.store.collection_ref("tienda", "politicas").config["language"] == "spanish"
    assert strict.store.collection_ref("bank", "policies").config["language"] == "english"


def test_a_spanish_question_over_the_spanish_collection_abstains_in_spanish(strict: Engine) -> None:
    answer = strict.ask("¿Cuál es la capital de Australia?", TIENDA)
    assert answer.abstained and answer.answer == NO_CONTIENE_ES
    data = answer.to_dict()
    assert data["language"] == "es" and data["answer"] == NO_CONTIENE_ES


def test_nothing_found_in_spanish(tmp_path: Path) -> None:
    engine = engine_at(tmp_path / "empty", None)
    try:
        engine.collection(TIENDA, language="es")  # configured, and still empty
        answer = engine.ask("¿Hacéis envíos a Canarias?", TIENDA)
    finally:
        engine.close()
    assert answer.abstained and answer.answer == NADA_ES and answer.language == "es"


def test_the_missing_name_is_said_in_spanish_with_spanish_quotes(lenient: Engine) -> None:
    answer = lenient.ask("¿Cuánto cuesta la tarjeta regalo Premium Metal?", TIENDA)
    assert answer.abstained and answer.language == "es"
    assert answer.answer == f"{NO_CONTIENE_ES[:-1]}: no dice nada sobre «Premium Metal»."


def test_a_short_spanish_question_that_cannot_be_told_takes_the_collections_language(strict: Engine) -> None:
    for question in ("¿y en Canarias?", "precio", "EMI"):
        answer = strict.ask(question, TIENDA)
        assert answer.abstained and answer.answer == NO_CONTIENE_ES and answer.language == "es", question


def test_english_stays_english(strict: Engine) -> None:
    answer = strict.ask("What is the capital of Australia?", BANK)
    assert answer.abstained and answer.answer == NOT_CONTAINED_EN and answer.language == "en"
    assert strict.ask("fees?", BANK).language == "en"  # cannot be told: the collection's, English


def test_the_question_language_wins_over_the_collections(strict: Engine) -> None:
    assert strict.ask("¿Cuánto cuesta el descubierto?", BANK).answer == NO_CONTIENE_ES
    assert strict.ask("How much does shipping cost?", TIENDA).answer == NOT_CONTAINED_EN


def test_an_answer_from_the_documents_reports_its_language(lenient: Engine) -> None:
    answer = lenient.ask("¿Cuántos días tengo para devolver un producto?", TIENDA)
    assert not answer.abstained and "treinta días" in answer.answer and answer.language == "es"
    events = list(lenient.ask_stream("¿Cuántos días tengo para devolver un producto?", TIENDA))
    assert events[-1]["answer"]["language"] == "es"


@pytest.mark.parametrize("message, reply", [
    ("hola", "¡Hola! Pregúntame lo que quieras sobre tus documentos."),
    ("Buenas tardes", "¡Hola! Pregúntame lo que quieras sobre tus documentos."),
    ("¡muchas gracias!", "¡De nada! ¿Quieres saber algo más?"),
    ("adiós", "¡Adiós!"),
    ("vale", "Estoy aquí para responder preguntas sobre tus documentos. ¿Qué te gustaría saber?"),
])
def test_small_talk_over_the_spanish_collection_is_in_spanish(strict: Engine, message: str, reply: str) -> None:
    data = strict.conversations.ask(message, TIENDA).data
    assert data["gate"]["retrieve"] is False
    assert data["answer"] == reply and data["language"] == "es"


def test_small_talk_in_english_stays_english_whatever_the_collection(strict: Engine) -> None:
    data = strict.conversations.ask("Hello there!", TIENDA).data
    assert data["answer"] == "Hello! Ask me anything about your documents." and data["language"] == "en"
    assert strict.conversations.ask("ok", BANK).data["language"] == "en"
    assert strict.conversations.ask("ok", TIENDA).data["language"] == "es"  # cannot be told: the collection's


def test_a_greeting_before_any_document_is_answered_in_the_question_language(tmp_path: Path) -> None:
    engine = engine_at(tmp_path / "new", None)
    try:
        data = engine.conversations.ask("hola", Scope("nuevo", ("vacia",))).data
    finally:
        engine.close()
    assert data["answer"].startswith("¡Hola!") and data["language"] == "es"


def test_a_spanish_follow_up_in_a_chat_abstains_in_spanish(strict: Engine) -> None:
    first = strict.conversations.ask("¿Cuánto cuesta el envío a la península?", TIENDA)
    follow = strict.conversations.ask("¿y en Canarias?", TIENDA, conversation_id=first.conversation_id)
    assert follow.data["abstained"] and follow.data["answer"] == NO_CONTIENE_ES and follow.data["language"] == "es"


def test_retrieval_off_is_said_in_spanish(strict: Engine) -> None:
    data = strict.conversations.ask("¿Cuánto cuesta el envío?", TIENDA, options={"rag": False}).data
    assert data["answer"].startswith("La búsqueda en los documentos está desactivada") and data["language"] == "es"
