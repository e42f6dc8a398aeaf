"""The context builder: ranked hits → numbered sources within a token budget.

It keeps hits in rank order while they fit, and reports every hit it leaves out
with the reason: ``threshold`` (relevance below the floor), ``duplicate`` (its
text overlaps a kept source), or ``budget`` (no room left: tokens or
``max_sources``). Kept sources are numbered [1]..[n] in the order given to the
generator; the numbers are the ones cited in the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Literal

from ..models import Hit, content_hash
from ..pause import pause_point
from .sanitize import inline, plain
from .tokens import TokenCounter, default_counter

DropReason = Literal["budget", "threshold", "duplicate"]
# Two spans of one document that share at least this share of the shorter one are duplicates.
OVERLAP_DUPLICATE = 0.5
# A first source longer than the whole budget is cut rather than leaving the context empty.
MIN_TRUNCATED_TOKENS = 32
# The prompt wraps each source in delimiter lines with a random tag (prompt.py). The
# budget counts them so that it bounds what the model is sent: 38–54 wordpiece tokens
# per source over 500 random tags, so the upper end.
FRAMING_TOKENS = 54

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

NeighbourFetcher = Callable[[Hit], Sequence[Hit]]
"""Given a hit, the other chunks of its document (any order), with ``position``,
``start`` and ``end`` in their metadata."""


@dataclass
class Source:
    """One numbered source in the context."""

    n: int
    hit: Hit
    text: str
    tokens: int
    relevance: float | None = None  # cosine(question, chunk) when known
    span: tuple[int, int] | None = None  # document offsets covered by ``text``
    truncated: bool = False

    @property
    def chunk_id(self) -> str:
        return self.hit.chunk_id

    @property
    def doc_id(self) -> str:
        return self.hit.doc_id

    @property
    def page(self) -> int | None:
        return self.hit.page

    @property
    def title(self) -> str | None:
        return self.hit.title

    @property
    def section(self) -> str | None:
        return self.hit.section

    def label(self) -> str:
        """``Title — corpus.jsonl#12, p. 3, § Methods``: what the generator sees. One
        inert line (``sanitize.inline``): titles, sources and record ids are uploaded data."""
        parts = [_place(self.hit.source)]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.section:
            parts.append(f"§ {self.section}")
        place = ", ".join(parts)
        return inline(f"{self.title} — {place}" if self.title else place)

    def to_dict(self, *, text: bool = False) -> dict[str, Any]:
        # Sources, titles and sections are echoed to UIs and chat clients: one plain line
        # each; markdown is escaped where it is rendered (``sanitize.inline``).
        data: dict[str, Any] = {"n": self.n, "chunk_id": self.chunk_id, "doc_id": self.doc_id,
                                "source": plain(self.hit.source), "title": plain(self.title) or None,
                                "page": self.page, "section": plain(self.section) or None,
                                "score": round(float(self.hit.score), 6),
                                "relevance": None if self.relevance is None else round(self.relevance, 4),
                                "tokens": self.tokens, "truncated": self.truncated}
        if text:
            data["text"] = self.text
        return data


@dataclass
class DroppedHit:
    hit: Hit
    reason: DropReason
    detail: str
    relevance: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.hit.chunk_id, "doc_id": self.hit.doc_id, "source": plain(self.hit.source),
                "score": round(float(self.hit.score), 6),
                "relevance": None if self.relevance is None else round(self.relevance, 4),
                "reason": self.reason, "detail": self.detail}


@dataclass
class RAGContext:
    """What the generator is given, and what was left out and why.

    ``enabled`` is False when retrieval was not attempted or failed; ``context`` is
    then empty. ``kept`` is ``sources`` (the name the UI and seed use)."""

    context: str = ""
    sources: list[Source] = field(default_factory=list)
    dropped: list[DroppedHit] = field(default_factory=list)
    enabled: bool = True
    tokens: int = 0

    @property
    def kept(self) -> list[Source]:
        return self.sources

    def source(self, n: int) -> Source | None:
        return self.sources[n - 1] if 1 <= n <= len(self.sources) else None

    def report(self) -> dict[str, Any]:
        """``{"kept": [...], "dropped": [...], "tokens": n}`` for the answer's JSON."""
        return {"kept": [s.to_dict() for s in self.sources], "dropped": [d.to_dict() for d in self.dropped],
                "tokens": self.tokens}


class ContextBuilder:
    """Builds a ``RAGContext`` from ranked hits.

    ``floor`` drops hits whose relevance (given per chunk id) is below it;
    ``neighbours`` adds up to that many adjacent chunks on each side of a hit (via
    ``fetch_neighbours``) when they fit in the budget.
    """

    def __init__(self, *, max_tokens: int = 2000, max_sources: int = 5, floor: float | None = None,
                 neighbours: int = 0, counter: TokenCounter | None = None) -> None:
        if not 1 <= max_sources:
            raise ValueError(f"max_sources must be at least 1, got {max_sources}")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {max_tokens}")
        self.max_tokens = max_tokens
        self.max_sources = max_sources
        self.floor = floor
        self.neighbours = neighbours
        self.counter = counter or default_counter()

    def build(self, hits: Sequence[Hit], relevance: dict[str, float] | None = None,
              fetch_neighbours: NeighbourFetcher | None = None) -> RAGContext:
        relevance = relevance or {}
        ctx = RAGContext()
        used = 0
        seen_text: dict[str, int] = {}  # normalised text hash → source n
        spans: dict[str, list[tuple[int, int, int]]] = {}  # doc_id → (start, end, n)
        for hit in hits:
            pause_point()  # fitting a source reads its neighbours and counts its tokens
            rel = relevance.get(hit.chunk_id)
            if self.floor is not None and rel is not None and rel < self.floor:
                ctx.dropped.append(DroppedHit(hit, "threshold", f"relevance {rel:.3f} < floor {self.floor:.3f}", rel))
                continue
            duplicate = self._duplicate_of(hit, seen_text, spans)
            if duplicate is not None:
                ctx.dropped.append(DroppedHit(hit, "duplicate", f"overlaps source [{duplicate}]", rel))
                continue
            if len(ctx.sources) >= self.max_sources:
                ctx.dropped.append(DroppedHit(hit, "budget", f"max_sources ({self.max_sources}) reached", rel))
                continue
            n = len(ctx.sources) + 1
            source = self._fit(hit, n, rel, self.max_tokens - used, fetch_neighbours, first=not ctx.sources)
            if source is None:
                needed = self._cost(n, hit, hit.text)
                ctx.dropped.append(DroppedHit(hit, "budget", f"needs {needed} tokens, {self.max_tokens - used} left", rel))
                continue
            ctx.sources.append(source)
            used += self._cost(n, hit, source.text)
            seen_text[_norm_hash(hit.text)] = n
            if source.span is not None:
                spans.setdefault(hit.doc_id, []).append((*source.span, n))
        ctx.context = "\n\n".join(self.render(s) for s in ctx.sources)
        ctx.tokens = self.counter.count(ctx.context)
        return ctx

    # -- helpers -----------------------------------------------------------
    @staticmethod
    def render(source: Source) -> str:
        return f"[{source.n}] {source.label()}\n{source.text}"

    def _cost(self, n: int, hit: Hit, text: str) -> int:
        probe = Source(n=n, hit=hit, text=text, tokens=0)
        return self.counter.count(self.render(probe)) + FRAMING_TOKENS + 2  # + the blank line between sources

    def _fit(self, hit: Hit, n: int, rel: float | None, room: int, fetch: NeighbourFetcher | None,
             first: bool) -> Source | None:
        span = _span(hit)
        if self.neighbours and fetch is not None and span is not None:
            text, wide = self._with_neighbours(hit, span, fetch)
            if wide != span and self._cost(n, hit, text) <= room:
                return Source(n, hit, text, self.counter.count(text), rel, wide)
        cost = self._cost(n, hit, hit.text)
        if cost <= room:
            return Source(n, hit, hit.text, self.counter.count(hit.text), rel, span)
        if first:  # better a cut first source than no context at all
            header = cost - self.counter.count(hit.text)
            limit = room - header
            if limit >= MIN_TRUNCATED_TOKENS:
                text = self.counter.truncate(hit.text, limit)
                end = span[0] + len(text) if span else None
                return Source(n, hit, text, self.counter.count(text), rel,
                              (span[0], end) if span and end is not None else None, truncated=True)
        return None

    def _with_neighbours(self, hit: Hit, span: tuple[int, int], fetch: NeighbourFetcher) -> tuple[str, tuple[int, int]]:
        near = [h for h in fetch(hit) if h.chunk_id != hit.chunk_id and _span(h) is not None
                and abs(h.position - hit.position) <= self.neighbours]
        pieces = sorted([(span[0], span[1], hit.text)]
                        + [(near_span[0], near_span[1], h.text) for h in near if (near_span := _span(h)) is not None])
        text, start, end = pieces[0][2], pieces[0][0], pieces[0][1]
        for s, e, t in pieces[1:]:
            if s > end:  # a gap: the chunker dropped whitespace between chunks
                text += "\n" + t
            elif e > end:  # overlapping chunks: append only the new tail
                text += t[end - s:]
            end = max(end, e)
        return text, (start, end)

    @staticmethod
    def _duplicate_of(hit: Hit, seen_text: dict[str, int],
                      spans: dict[str, list[tuple[int, int, int]]]) -> int | None:
        same = seen_text.get(_norm_hash(hit.text))
        if same is not None:
            return same
        span = _span(hit)
        if span is None:
            return None
        for start, end, n in spans.get(hit.doc_id, []):
            shared = min(end, span[1]) - max(start, span[0])
            shorter = min(end - start, span[1] - span[0])
            if shorter > 0 and shared / shorter >= OVERLAP_DUPLICATE:
                return n
        return None


def _place(source: str) -> str:
    """The file name of a source, keeping a record id: ``/data/corpus.jsonl#12`` →
    ``corpus.jsonl#12``, ``https://host/docs/page`` → ``page`` (an id may hold slashes)."""
    path, mark, record = _SCHEME.sub("", source).partition("#")
    return (PurePath(path).name or path) + mark + record or source


def _span(hit: Hit) -> tuple[int, int] | None:
    return (hit.start, hit.end) if hit.end > hit.start else None


def _norm_hash(text: str) -> str:
    return content_hash(" ".join(text.lower().split()))
