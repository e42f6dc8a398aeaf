"""Untrusted document metadata (sources, record ids, titles, sections) made safe to
echo: into a prompt's source header, into citations, and into the text the chat
endpoint and the CLI print under an answer.

Such values come from uploads (a JSON Lines ``_id`` becomes part of the source), so
a hostile one can hold a markdown link, an HTML tag, or a line break followed by
"SYSTEM: …". ``plain`` turns any of them into one line of text without control
characters: what JSON carries (a client renders it as it renders text).
``inline`` is ``plain`` with markdown escaped, for where markdown is rendered or
read (a prompt's source header, the chat endpoint's ``Sources:`` footer); ordinary
file names, paths and URLs pass through both unchanged.
"""

from __future__ import annotations

import re
import unicodedata

LIMIT = 300
"""Characters of the original value kept; longer values end with "…"."""

# Characters that make markdown live: links and images need [ ], autolinks and raw
# HTML need < >, code spans a backtick, emphasis *. The backslash comes first so a
# value cannot cancel our escapes with its own. ( ) _ # are left alone: they are
# common in file names and inert once the brackets are escaped and the value is one line.
_MARKDOWN = re.compile(r"([\\`*\[\]<>])")
# Bidirectional overrides and isolates can make a name display as something else.
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"))


def plain(value: str | None, limit: int = LIMIT) -> str:
    """``value`` as one line of plain text: every run of whitespace (newlines,
    U+2028, U+0085, tabs …) becomes one space, control and bidi characters go, and at
    most ``limit`` characters of it are kept. No markdown escapes: for JSON."""
    if not value:
        return ""
    text = " ".join(str(value).split()).translate(_BIDI)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cc")
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def markdown(text: str) -> str:
    """``text`` with the characters that make markdown live backslash-escaped."""
    return _MARKDOWN.sub(r"\\\1", text)


def inline(value: str | None, limit: int = LIMIT) -> str:
    """``plain(value)`` made inert where markdown is rendered: links, images, HTML and
    code spans are backslash-escaped."""
    return markdown(plain(value, limit))

