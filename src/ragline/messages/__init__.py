"""An answer's fixed messages in the user's language: abstentions, small talk, the
"not from your documents" label, "the documents cover X instead", the notice of
a fallback to quoted sentences.

    from ragline.messages import choose_language, message, not_from_documents

    language = choose_language("¿y en Canarias?", fallback="spanish")  # "es"
    message("not_mentioned", language, terms=quoted(["Canarias"], language))
    not_from_documents(language)  # "No procede de tus documentos"

The text comes from gettext catalogs (``catalog.py``: ``locale/<code>/LC_MESSAGES/
ragline.po``, compiled to ``.mo`` and shipped in the wheel), one per language;
English is the reference and the fallback. The language is the question's own
when it can be told (``detect.py``), else the collection's configured language,
else English (``choose_language``). Placeholders are ``str.format`` names
(``{terms}``, ``{asked}``, ``{covered}``); a key's placeholders are the same in
every language (``tests/unit/test_messages.py``).

Sits low in the layers (beside ``providers``), so ``answer/``, ``records/`` and
``conversations/`` can all import it; it imports only the analyzer (the language
detector and stopword lists) and the standard library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..analyzer import iso_code
from ..errors import ConfigError
from .catalog import DEFAULT_LANGUAGE, languages, lookup
from .detect import question_language

__all__ = ["DEFAULT_LANGUAGE", "catalog_language", "choose_language", "languages", "message", "not_from_documents",
           "question_language", "quoted"]


def message(key: str, language: str | None = None, /, **values: object) -> str:
    """The message ``key`` in ``language`` (a catalog code, a language name or
    ``None`` for English), its placeholders filled from ``values``. A key missing
    in that language is given in English."""
    text = lookup(key, catalog_language(language) or DEFAULT_LANGUAGE)
    return text.format(**values) if values else text


def not_from_documents(language: str | None = None) -> str:
    """The label of an answer sentence that no source supports (``not_from_documents``)."""
    return message("not_from_documents", language)


def quoted(items: Iterable[str], language: str | None = None) -> str:
    """Each item between the language's quotation marks, joined by commas: the
    ``{terms}`` of ``not_mentioned``."""
    return ", ".join(message("quoted", language, text=item) for item in items)


def catalog_language(language: object) -> str | None:
    """``language`` (an ISO 639-1 code or a name such as a collection's
    ``"spanish"``, any case) as the code of a catalog, or ``None`` when none has it."""
    if not language:
        return None
    name = str(language).strip().lower()
    if name in languages():
        return name
    try:
        code = iso_code(name)
    except ConfigError:
        return None
    return code if code in languages() else None


def choose_language(question: str, fallback: str | Callable[[], str | None] | None = None) -> str:
    """The catalog language to answer ``question`` in: its own when it can be told,
    else ``fallback`` (a language, or a function giving one, called only then: the
    collection's configured language), else English."""
    found = question_language(question)
    if found is not None:
        return found
    configured = fallback() if callable(fallback) else fallback
    return catalog_language(configured) or DEFAULT_LANGUAGE
