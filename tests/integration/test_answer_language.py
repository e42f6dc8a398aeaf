"""With an LLM (the fake OpenAI-compatible server over real HTTP), the fixed parts
of an answer are in the user's language too: the model's "the sources do not
contain the answer" line, the general policy's "not from your documents" note,
and the REST API's answer carries ``language``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, ServerSettings, Settings

from tests.fakes import FakeLLMServer, Reply
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

TIENDA = Scope("tienda", ("politicas",))
ENVIOS = ("Envíos y entregas. Los pedidos a la península se entregan en dos o tres días laborables. El envío "
          "cuesta 4,95 euros y es gratuito a partir de 50 euros.")
NO_ANSWER = "The provided sources do not contain the answer to this question."  # what the prompt tells the model


def engine_with(home: Path, *, floor: float, base_url: str | None = None) -> Engine:
    generator = (GeneratorSettings(name="openai", base_url=base_url, model="m", api_key="k", retry_backoff=0.01,
                                   max_retries=0) if base_url else GeneratorSettings())
    engine = Engine(Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                             answer=AnswerSettings(relevance_floor=floor), generator=generator))
    engine.conversations.background = False
    return engine


@pytest.fixture
def tienda(tmp_path: Path):
    engine = engine_with(tmp_path / "home", floor=0.0)
    engine.add_documents([Document(source="envios.md", title="Envíos", blocks=[Block(ENVIOS)])], TIENDA)
    yield tmp_path / "home"
    engine.close()


def test_the_models_no_answer_line_is_said_in_the_users_language(tienda: Path) -> None:
    with FakeLLMServer("openai", default=Reply(NO_ANSWER)) as server:
        engine = engine_with(tienda, floor=0.0, base_url=server.base_url)
        try:
            spanish = engine.ask("¿Cuánto tarda un pedido a la península?", TIENDA)
            english = engine.ask("How long does a parcel take?", TIENDA)
        finally:
            engine.close()
    assert server.requests  # the model was asked, and said it could not answer
    assert spanish.abstained and spanish.generator == "openai" and spanish.language == "es"
    assert spanish.answer == "La base de conocimiento no parece contener la respuesta a esta pregunta."
    assert english.abstained and english.language == "en"
    assert english.answer == "The knowledge base does not seem to contain the answer to this question."


def test_the_general_policys_note_is_in_spanish(tienda: Path) -> None:
    with FakeLLMServer("openai", default=Reply("Canberra es la capital de Australia.")) as server:
        engine = engine_with(tienda, floor=0.99, base_url=server.base_url)  # nothing clears the floor
        try:
            engine.conversations.set_policy("tienda", "politicas", "general")
            data = engine.conversations.ask("¿Cuál es la capital de Australia?", TIENDA).data
        finally:
            engine.close()
    assert data["general"] and not data["abstained"] and data["language"] == "es"
    assert data["answer"] == ("No procede de tus documentos: no se ha encontrado en ellos nada relevante, así que "
                              "esta es una respuesta general.\n\nCanberra es la capital de Australia.")


def test_the_api_answer_carries_its_language(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        answer=AnswerSettings(relevance_floor=0.99), server=ServerSettings(admin_key=ADMIN_KEY))
    engine = Engine(settings)
    try:
        with LiveServer(settings, engine) as server:
            key = create_tenant(server, "tienda")
            engine.add_documents([Document(source="envios.md", title="Envíos", blocks=[Block(ENVIOS)])], TIENDA)
            with server.client(key) as client:
                reply = client.post("/v1/ask", json={"collection": "politicas",
                                                     "question": "¿Hacéis envíos a Canarias?"})
                schema = client.get("/openapi.json").json()
    finally:
        engine.close()
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["abstained"] and body["language"] == "es"
    assert body["answer"] == "La base de conocimiento no parece contener la respuesta a esta pregunta."
    assert "language" in schema["components"]["schemas"]["AskOut"]["properties"]
