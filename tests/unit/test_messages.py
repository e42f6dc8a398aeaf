"""The answer messages' catalogs (``ragline.messages``): complete in every language,
the same placeholders everywhere, the committed ``.mo`` files compiled from the
``.po`` sources, loaded as package data; and the question's language told apart
on the short messages people type."""

from __future__ import annotations

import gettext
import io
import string
from importlib.resources import files

import pytest
from babel.messages.pofile import read_po

from ragline.messages import (DEFAULT_LANGUAGE, catalog_language, choose_language, languages, message,
                              not_from_documents, question_language, quoted)

from tests.paths import ROOT

LOCALE = ROOT / "src" / "ragline" / "messages" / "locale"
# The keys other parts of ragline (and other branches) ask for by name.
REQUIRED = {"nothing_found", "not_relevant", "not_mentioned", "quoted", "covers_instead", "not_from_documents",
            "general_answer_note", "fallback_extractive", "small_talk_greeting", "small_talk_thanks",
            "small_talk_bye", "small_talk_other", "retrieval_off"}


def po(language: str) -> dict[str, str]:
    path = LOCALE / language / "LC_MESSAGES" / "ragline.po"
    with path.open("rb") as handle:
        catalog = read_po(handle)
    assert not [m.id for m in catalog if m.id and m.fuzzy], f"{path}: fuzzy entries are not compiled"
    return {str(m.id): str(m.string) for m in catalog if m.id}


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def test_english_and_spanish_at_least_and_every_source_is_compiled() -> None:
    sources = sorted(p.name for p in LOCALE.iterdir() if (p / "LC_MESSAGES" / "ragline.po").is_file())
    assert {"en", "es"} <= set(sources)
    assert list(languages()) == sources


@pytest.mark.parametrize("language", languages())
def test_every_key_in_every_language_with_the_same_placeholders(language: str) -> None:
    reference, messages = po(DEFAULT_LANGUAGE), po(language)
    assert REQUIRED <= set(reference)
    assert set(messages) == set(reference), f"{language}: missing {set(reference) - set(messages)}, " \
                                            f"unknown {set(messages) - set(reference)}"
    for key, text in messages.items():
        assert text.strip(), f"{language}: {key} is empty"
        assert placeholders(text) == placeholders(reference[key]), f"{language}: {key} placeholders differ"
        message(key, language, **{name: "x" for name in placeholders(text)})  # formats without error


@pytest.mark.parametrize("language", languages())
def test_the_shipped_mo_files_are_the_po_sources_compiled(language: str) -> None:
    """Edit a .po without `make messages` and this fails: the package reads the .mo."""
    mo = gettext.GNUTranslations(io.BytesIO((LOCALE / language / "LC_MESSAGES" / "ragline.mo").read_bytes()))
    compiled = {key: mo.gettext(key) for key in po(language)}
    assert compiled == po(language)


def test_the_catalogs_load_as_package_data() -> None:
    """Through importlib.resources, as from an installed wheel (the pyproject's
    package-data patterns are checked on the built wheel in tests/e2e/test_packaging.py)."""
    root = files("ragline.messages") / "locale"
    for language in languages():
        data = (root / language / "LC_MESSAGES" / "ragline.mo").read_bytes()
        assert gettext.GNUTranslations(io.BytesIO(data)).gettext("not_relevant") != "not_relevant"


def test_messages_by_key_language_and_placeholders() -> None:
    assert message("nothing_found") == "I could not find anything about this in the knowledge base."
    assert message("nothing_found", "es") == "No he encontrado nada sobre esto en la base de conocimiento."
    assert message("nothing_found", "spanish") == message("nothing_found", "ES") == message("nothing_found", "es")
    assert message("nothing_found", "german") == message("nothing_found", "en")  # no German catalog: English
    assert not_from_documents("es") == "No procede de tus documentos"
    assert not_from_documents() == "Not from your documents"
    covered = message("covers_instead", "en", asked="car loans", covered="personal loans")
    assert covered == "The documents cover personal loans; they do not mention car loans."
    assert message("covers_instead", "es", asked="préstamos de coche", covered="préstamos personales") == \
        "Los documentos tratan de préstamos personales; no mencionan préstamos de coche."
    assert quoted(["5-year", "Premium"], "en") == "“5-year”, “Premium”"
    assert quoted(["5 años"], "es") == "«5 años»"
    # A value is inserted as it is, braces and all: never read as a placeholder.
    assert message("quoted", "en", text="{covered}") == "“{covered}”"
    with pytest.raises(KeyError):
        message("no_such_key", "es")


def test_catalog_language_takes_codes_and_collection_names() -> None:
    assert catalog_language("spanish") == "es" and catalog_language("es") == "es" and catalog_language(" EN ") == "en"
    assert catalog_language("french") is None  # a language without a catalog
    assert catalog_language("klingon") is None and catalog_language(None) is None and catalog_language("") is None


@pytest.mark.parametrize("text, language", [
    # Short Spanish: the greetings and follow-ups the detector alone gets wrong or is unsure of.
    ("hola", "es"), ("Hola!", "es"), ("buenas", "es"), ("Buenas tardes", "es"), ("gracias", "es"),
    ("adios", "es"), ("hasta luego", "es"), ("vale", "es"), ("¿y en Canarias?", "es"), ("y Canarias?", "es"),
    ("¿precio?", "es"), ("¿Premium Metal?", "es"), ("cuanto cuesta el envio", "es"),
    ("¿Cuál es el plazo para devolver un pedido?", "es"),
    # Short English.
    ("hi", "en"), ("Hi!", "en"), ("hello", "en"), ("thanks!", "en"), ("bye", "en"), ("good morning", "en"),
    ("see you", "en"), ("what about Canarias?", "en"), ("and the fee?", "en"),
    ("What is the interest rate on a 5-year fixed-term deposit?", "en"),
    # Cannot tell (the collection's language decides), or a language without a catalog.
    ("ok", None), ("no", None), ("EMI", None), ("fees?", None), ("precio", None), ("Premium Metal?", None),
    ("123", None), ("¿?", None), ("", None), ("Quelle est la commission pour un virement?", None),
])
def test_the_question_language(text: str, language: str | None) -> None:
    assert question_language(text) == language


def test_the_question_wins_then_the_collection_then_english() -> None:
    assert choose_language("¿y en Canarias?", "english") == "es"
    assert choose_language("What is the fee?", "spanish") == "en"
    assert choose_language("ok", "spanish") == "es" and choose_language("ok", "english") == "en"
    assert choose_language("ok") == "en" and choose_language("ok", "french") == "en"
    asked: list[bool] = []
    assert choose_language("hola", lambda: asked.append(True) or "english") == "es"
    assert not asked  # the collection is not read when the question tells
    assert choose_language("EMI", lambda: "spanish") == "es"



def test_the_line_before_a_handed_on_part_speaks_the_answers_language() -> None:
    """The answer to the rest of a mixed question was introduced in English whatever
    the answer's language ("On “…”:")."""
    assert message("handed_on", "en", question=quoted(["What is the fee?"], "en")) == "On “What is the fee?”:"
    assert message("handed_on", "es", question=quoted(["¿Cuál es la comisión?"], "es")) == \
        "Sobre «¿Cuál es la comisión?»:"
