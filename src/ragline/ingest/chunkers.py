"""Chunkers split a Document into Chunks that keep page, section and offsets.

All three strategies share one mechanism: cut the text into atoms (pieces no
longer than the budget), then merge neighbouring atoms greedily up to ``size``,
starting each new chunk with up to ``overlap`` worth of the previous atoms.
They differ only in what an atom is: the largest separator-delimited piece
(recursive), a sentence, or a paragraph.

With ``unit: tokens`` (an option; characters are the default) sizes are counted in
the embedding model's own tokens and a chunk is capped at what the model reads (its
window less the title and section lines embedded with it): a document that fits is
one chunk, and overlap is only paid where a document is really split.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from ..models import Chunk, Document, index_text
from ..settings import ChunkingSettings

Span = tuple[int, int]
LengthFn = Callable[[str], int]

RECURSIVE_SEPARATORS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9À-Ý])|\n\s*\n|\n(?=[-*•]\s)")
_PARAGRAPH_END = re.compile(r"\n\s*\n")
MIN_BUDGET = 16  # tokens: a chunk budget never drops below this, however long the title


class Chunker(Protocol):
    """Document → Chunks."""

    def chunk(self, document: Document) -> list[Chunk]: ...


def _pieces(text: str, span: Span, separator: str) -> list[Span]:
    """Split ``span`` after each ``separator`` (the separator stays with the left piece)."""
    start, end = span
    out: list[Span] = []
    cursor = start
    while True:
        found = text.find(separator, cursor, end)
        if found < 0:
            break
        cut = found + len(separator)
        out.append((cursor, cut))
        cursor = cut
    if cursor < end:
        out.append((cursor, end))
    return out


def _recursive_atoms(text: str, span: Span, size: int, length: LengthFn, separators: tuple[str, ...]) -> list[Span]:
    if length(text[span[0]:span[1]]) <= size:
        return [span]
    for index, separator in enumerate(separators):
        if text.find(separator, span[0], span[1]) >= 0:
            atoms: list[Span] = []
            for piece in _pieces(text, span, separator):
                atoms.extend(_recursive_atoms(text, piece, size, length, separators[index + 1:]))
            return atoms
    # No separator left: cut by characters, proportionally to the measured length.
    width = max(1, (span[1] - span[0]) * size // max(1, length(text[span[0]:span[1]])))
    return [(s, min(s + width, span[1])) for s in range(span[0], span[1], width)]


def _regex_atoms(text: str, span: Span, pattern: re.Pattern[str], size: int, length: LengthFn) -> list[Span]:
    atoms: list[Span] = []
    cursor = span[0]
    for match in pattern.finditer(text, span[0], span[1]):
        atoms.append((cursor, match.end()))
        cursor = match.end()
    if cursor < span[1]:
        atoms.append((cursor, span[1]))
    out: list[Span] = []
    for atom in atoms:  # an over-long sentence or paragraph is split recursively
        out.extend(_recursive_atoms(text, atom, size, length, RECURSIVE_SEPARATORS))
    return out


def _merge(text: str, atoms: list[Span], size: int, overlap: int, length: LengthFn) -> list[Span]:
    """Greedy merge of contiguous atoms. Each atom is measured once and a run of atoms
    is measured as the sum of its atoms: exact for characters, and for a wordpiece
    tokenizer too, since atoms end at whitespace or punctuation (separators, sentence
    ends); re-tokenizing every growing chunk cost more than embedding on long texts."""
    sizes = [length(text[a:b]) for a, b in atoms]
    chunks: list[Span] = []
    current: list[int] = []  # indices into atoms
    total = 0
    for index, atom_size in enumerate(sizes):
        if current and total + atom_size > size:
            chunks.append((atoms[current[0]][0], atoms[current[-1]][1]))
            # Carry over trailing atoms worth at most `overlap`, leaving room for this atom.
            carried: list[int] = []
            kept = 0
            for previous in reversed(current):
                if kept + sizes[previous] > overlap or kept + sizes[previous] + atom_size > size:
                    break
                carried.insert(0, previous)
                kept += sizes[previous]
            current, total = carried, kept
        current.append(index)
        total += atom_size
    if current:
        chunks.append((atoms[current[0]][0], atoms[current[-1]][1]))
    return chunks


def _strip(text: str, span: Span) -> Span | None:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


@dataclass
class SpanChunker:
    """Splits each block of a document into chunks of at most ``size`` (measured by
    ``length``), overlapping by up to ``overlap``. ``method`` picks the atoms.

    With a ``window`` (the model's input limit, in ``length`` units) a block's budget
    is also capped at the window less the heading lines embedded with each chunk
    (``index_text``), so no chunk is cut by the model or split again afterwards."""

    method: str = "recursive"
    size: int = 1000
    overlap: int = 200
    length: LengthFn = len
    window: int | None = None

    def spans(self, text: str, size: int | None = None, overlap: int | None = None) -> list[Span]:
        size = self.size if size is None else size
        overlap = self.overlap if overlap is None else overlap
        whole = (0, len(text))
        if self.method == "none":
            atoms = [whole]
            return [s for s in (_strip(text, whole),) if s]
        if self.method == "sentence":
            atoms = _regex_atoms(text, whole, _SENTENCE_END, size, self.length)
        elif self.method == "paragraph":
            atoms = _regex_atoms(text, whole, _PARAGRAPH_END, size, self.length)
        else:
            atoms = _recursive_atoms(text, whole, size, self.length, RECURSIVE_SEPARATORS)
        merged = _merge(text, atoms, size, overlap, self.length)
        return [s for s in (_strip(text, span) for span in merged) if s]

    def budget(self, title: str | None, section: str | None) -> tuple[int, int]:
        """(size, overlap) for a block under this title and section."""
        if self.window is None:
            return self.size, self.overlap
        head = index_text(title, "", section)  # "Title\nSection\n": embedded before each chunk
        size = max(MIN_BUDGET, min(self.size, self.window - (self.length(head) if head else 0)))
        return size, min(self.overlap, size // 4) if size < self.size else self.overlap

    def chunk(self, document: Document) -> list[Chunk]:
        chunks: list[Chunk] = []
        offset = 0
        budgets: dict[str | None, tuple[int, int]] = {}
        for block in document.blocks:
            if block.section not in budgets:
                budgets[block.section] = self.budget(document.title, block.section)
            for start, end in self.spans(block.text, *budgets[block.section]):
                chunks.append(Chunk(text=block.text[start:end], position=len(chunks), start=offset + start,
                                    end=offset + end, page=block.page, section=block.section))
            offset += len(block.text) + 2  # blocks are joined by a blank line in Document.text
        return chunks


@dataclass(frozen=True)
class LengthLimit:
    """The embedder's input limit, applied to chunks after any chunker: a chunk whose
    embedded text (title line included) holds more than ``max_tokens`` tokens (as
    ``count`` counts them) would be cut by the model. ``mode``:

    - ``split``: split into pieces that fit, with a message giving the counts;
    - ``warn``: kept whole (the model reads its head), with a message;
    - ``head``: kept whole by choice (the fast preset: the dense side reads the head,
      the keyword side the whole chunk), counted instead of reported per document.

    Never a silent cut: the caller always gets the counts."""

    max_tokens: int
    count: LengthFn
    mode: Literal["split", "warn", "head"] = "split"
    model_id: str = "the embedding model"

    def apply(self, title: str | None, chunks: list[Chunk]) -> tuple[list[Chunk], str | None, int]:
        """(the chunks, fitted; a message with the counts, or None; how many chunks the
        model reads only the head of)."""
        budget = max(1, self.max_tokens - (self.count(f"{title}\n") if title else 0))
        # A wordpiece covers at least one character: text no longer than the budget fits.
        over = [(c, n) for c in chunks if len(c.text) > budget and (n := self.count(c.text)) > budget]
        if not over:
            return chunks, None, 0
        if self.mode == "head":
            return chunks, None, len(over)
        longest = max(n for _, n in over)
        head = (f"{len(over)} of {len(chunks)} chunks exceed {self.model_id}'s input of {self.max_tokens} tokens "
                f"(longest {longest})")
        if self.mode == "warn":
            return chunks, (f"{head}: the model reads only the first {budget} tokens of each; lower chunking.size "
                            "or set RAGLINE_EMBEDDER__OVERFLOW=split"), len(over)
        splitter = SpanChunker("recursive", budget, 0, self.count)
        too_long = {id(c) for c, _ in over}
        fitted: list[Chunk] = []
        for chunk in chunks:
            spans = splitter.spans(chunk.text) if id(chunk) in too_long else [(0, len(chunk.text))]
            fitted.extend(Chunk(text=chunk.text[a:b], position=0, start=chunk.start + a, end=chunk.start + b,
                                page=chunk.page, section=chunk.section) for a, b in spans)
        for position, chunk in enumerate(fitted):
            chunk.position = position
        return fitted, f"{head}: split, {len(chunks)} → {len(fitted)} chunks", 0


BLOCKS_AS_CHUNKS = SpanChunker(method="none")
"""One chunk per block, unsplit: for documents whose blocks already are chunks."""


def make_chunker(settings: ChunkingSettings, token_length: LengthFn | None = None,
                 window: int | None = None) -> SpanChunker:
    """Build the chunker a collection's settings describe. ``token_length`` is the
    embedder's tokenizer (``count_tokens``) and ``window`` its input limit in those
    tokens: with ``unit: tokens`` chunks never exceed it. Token chunking without a
    tokenizer (the hashing embedder, remote APIs) is a configuration error: a guessed
    token count would not be what the setting says."""
    if settings.unit == "tokens":
        if token_length is None:
            raise ValueError("chunking.unit='tokens' needs the embedder's tokenizer; this embedder has none")
        return SpanChunker(method=settings.method, size=settings.size, overlap=settings.overlap,
                           length=token_length, window=window)
    return SpanChunker(method=settings.method, size=settings.size, overlap=settings.overlap, length=len)
