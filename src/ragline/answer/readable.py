"""Source text → readable sentence units for the extractive generator.

Chunks are quoted as they were ingested, which reads badly when stitched into an
answer: markdown tables arrive as pipes, heading lines ("LOST OR STOLEN CARD") get
glued to the next sentence, list items keep their ``**bold**`` markers, and a
sentence may open by pointing back at one the answer does not quote ("When that
happens, the fee…", "It is…"). This module turns a source's text into ``Unit``s:

- a markdown table row becomes one sentence naming its row and the columns that
  matter, ``Everyday Plus: monthly fee €4.50.`` (``render_row``); when the question
  names rows ("the Everyday Plus account"), only those rows;
- heading lines are dropped (``is_heading``): the section path already says them;
- a sentence opening with a back-reference is marked ``dangling``: a leading
  connective clause is cut ("When that happens, the fee…" → "The fee…"), and one
  opening with a pronoun ("It", "This", "They"…) carries the sentence before it
  (``previous``) so the generator can quote both or skip it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import content_terms, rejoin, split_sentences

# A leading clause that only links to the sentence before; cut, the rest stands alone.
_CONNECTIVE = re.compile(
    r"^(?:when that happens|if that happens|in that case|in this case|in such cases?|after that|"
    r"because of (?:this|that)|as a result|for (?:this|that) reason|however|also|in addition|moreover|"
    r"furthermore|otherwise|even so|then|so|but|and)\s*,\s*(?=\S)", re.IGNORECASE)
# Openers that refer back to something the sentence does not name.
_POINTER = re.compile(r"^(?:it|this|that|these|those|they|there|such|both|either|neither|he|she)\b"
                      r"(?!\s+(?:is|are)\s+no\b)", re.IGNORECASE)
# "There is no fee…" and "This account…" name what they talk about: not dangling.
_POINTER_OK = re.compile(r"^(?:there\s+(?:is|are|was|were)\b|(?:this|that|these|those)\s+(?!is\b|are\b|was\b|were\b|means\b|"
                         r"can\b|will\b|may\b|has\b|have\b)[a-z]+)", re.IGNORECASE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_RULE_CELL = re.compile(r"^:?-{2,}:?$")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_END = re.compile(r"[.!?:;)\"'”’]$")


@dataclass
class Unit:
    """One quotable sentence of a source. ``previous`` is the sentence before a
    pointer-dangling one (None when there is none or it is not quotable)."""

    text: str
    dangling: bool = False
    previous: str | None = None
    row: bool = False  # rendered from a table row


def units(text: str, question: str = "") -> list[Unit]:
    """The quotable sentence units of a source text, in document order."""
    out: list[Unit] = []
    for kind, block in _blocks(text):
        if kind == "table":
            out.extend(Unit(row, row=True) for row in table_rows(block, question))
            continue
        previous: str | None = None
        # A scan or a page break may cut a sentence in two paragraphs: put it back first.
        block = "\n\n".join(rejoin(re.split(r"\n\s*\n", block)))
        for sentence in split_sentences(block):
            sentence = clean(sentence)
            if not sentence or is_heading(sentence):
                previous = None
                continue
            unit = opener(sentence)
            if unit.dangling:
                unit.previous = previous
            out.append(unit)
            previous = sentence
    return out


def clean(sentence: str) -> str:
    """Whitespace collapsed, markdown emphasis removed, and a section number the next
    heading left behind cut off ("No cubre el robo. 4" → "No cubre el robo.")."""
    text = " ".join(_EMPHASIS.sub(r"\2", sentence).split())
    return _TRAILING_NUMBER.sub(r"\1", text)


_TRAILING_NUMBER = re.compile(r"([.!?])\s+\d{1,2}\.?$")


def is_heading(sentence: str) -> bool:
    """A heading line, not a sentence: no end punctuation and short, in capitals or
    title-like ("LOST OR STOLEN CARD", "Card security and fraud", "## Limits")."""
    text = sentence.strip().lstrip("#").strip()
    if not text or _END.search(text):
        return False
    words = text.split()
    if len(words) > 10:
        return False
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return True
    return sentence.lstrip().startswith("#") or len(words) <= 6


def opener(sentence: str) -> Unit:
    """The sentence as a unit: a linking clause cut off, or marked as pointing back."""
    cut = _CONNECTIVE.sub("", sentence, count=1)
    if cut != sentence:
        return Unit(cut[:1].upper() + cut[1:])
    dangling = bool(_POINTER.match(sentence)) and not _POINTER_OK.match(sentence)
    return Unit(sentence, dangling=dangling)


def starts_dangling(sentence: str) -> bool:
    """True when the sentence opens by pointing back ("When that happens, …", "It …")."""
    return bool(_CONNECTIVE.match(sentence)) or opener(sentence).dangling


def _blocks(text: str) -> list[tuple[str, str]]:
    """The text cut into ("table", lines) and ("text", paragraph) blocks, in order."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    kind = "text"
    for line in text.splitlines():
        line_kind = "table" if _TABLE_LINE.match(line) else "text"
        if line_kind != kind and current:
            blocks.append((kind, "\n".join(current)))
            current = []
        kind = line_kind
        current.append(line)
    if current:
        blocks.append((kind, "\n".join(current)))
    return blocks


def _cells(line: str) -> list[str]:
    return [clean(c) for c in line.strip().strip("|").split("|")]


def table_rows(block: str, question: str = "") -> list[str]:
    """Each body row of a markdown table as ``Name: column value, column value.``

    The first cell names the row; the other columns are the ones whose header shares
    a term with ``question`` (all of them when none does, or no question is given)."""
    lines = [_cells(line) for line in block.splitlines() if line.strip()]
    lines = [cells for cells in lines if not all(_RULE_CELL.match(c) or not c for c in cells)]
    if len(lines) < 2:
        return [render_row([], cells) for cells in lines]
    header, body = lines[0], lines[1:]
    wanted = content_terms(question) if question else set()
    chosen = [i for i in range(1, len(header)) if wanted & content_terms(header[i])]
    named = _named_rows([cells[0] for cells in body], question)
    return [render_row(header, cells, chosen or None) for cells in body if not named or cells[0] in named]


def _named_rows(names: list[str], question: str) -> set[str]:
    """The row names ``question`` mentions, longest first so that "Everyday Plus"
    does not also count as "Everyday"; empty when it names none."""
    rest, found = question.lower(), set()
    for name in sorted(set(names), key=len, reverse=True):
        pattern = re.compile(rf"\b{re.escape(name.lower())}\b") if name else None
        if pattern is not None and pattern.search(rest):
            found.add(name)
            rest = pattern.sub(" ", rest)
    return found


def render_row(header: list[str], cells: list[str], columns: list[int] | None = None) -> str:
    """``Everyday Plus: monthly fee €4.50, who it is for frequent travellers.``"""
    if not cells:
        return ""
    name = cells[0]
    columns = columns if columns is not None else list(range(1, len(cells)))
    parts = []
    for i in columns:
        if i >= len(cells) or not cells[i]:
            continue
        label = header[i].lower() if i < len(header) and header[i] else ""
        parts.append(f"{label} {cells[i]}" if label else cells[i])
    body = ", ".join(parts)
    sentence = f"{name}: {body}" if body else name
    return sentence if _END.search(sentence) else sentence + "."
