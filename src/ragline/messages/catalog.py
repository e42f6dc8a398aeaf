"""The message catalogs: gettext ``.mo`` files shipped as package data, read
through ``importlib.resources`` (so they load from a wheel, a zip or a source tree)
with the standard library's ``gettext``; no dependency at run time.

Sources are ``locale/<code>/LC_MESSAGES/ragline.po`` beside this file, keyed by
message key (``msgid "nothing_found"``); ``make messages`` compiles them with
Babel into the ``.mo`` files committed beside them (a test checks both agree).
"""

from __future__ import annotations

import gettext
import io
from functools import cache, lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable

DOMAIN = "ragline"
DEFAULT_LANGUAGE = "en"
"""The reference catalog: every key is defined here first, and a key missing in
another language falls back to it."""


def _locale() -> Traversable:
    return files(__package__) / "locale"


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """The ISO 639-1 codes that have a compiled catalog, sorted."""
    return tuple(sorted(entry.name for entry in _locale().iterdir()
                        if entry.is_dir() and (entry / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()))


@cache
def translations(language: str) -> gettext.GNUTranslations:
    """The compiled catalog of ``language`` (one of ``languages()``)."""
    if language not in languages():
        raise KeyError(f"no message catalog for language {language!r}; there are: {', '.join(languages())}")
    data = (_locale() / language / "LC_MESSAGES" / f"{DOMAIN}.mo").read_bytes()
    return gettext.GNUTranslations(io.BytesIO(data))


def lookup(key: str, language: str) -> str:
    """The text of ``key`` in ``language``, else in English; ``KeyError`` for a key
    the English catalog does not define (a bug: keys are fixed in the code)."""
    for code in dict.fromkeys((language, DEFAULT_LANGUAGE)):
        if code in languages():
            text = translations(code).gettext(key)
            if text != key:  # gettext hands back the key itself when it has no entry
                return text
    raise KeyError(f"no message {key!r} in the catalogs")
