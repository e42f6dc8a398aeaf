"""The answer's data model: Citation, SentenceCheck, Grounding, Answer, and the
stream of events an answer arrives in (``AnswerStream``).

``Answer.to_dict()`` is the wire shape shared by the CLI (``--json``), the REST API
and the streaming ``done`` event::

    {"answer", "citations": [{"n", "chunk_id", "doc_id", "source", "page", "score", "transaction_ids"}],
     "abstained", "generator", "fallback_reason", "grounding": {"supported", "unsupported", "uncited"},
     "context": {"kept", "dropped", "tokens"}, "timings_ms": {"embed", "search", "generate", "total"},
     "route": {"name", "reason", …} (when the engine routes questions), "records": {…} (an exact answer),
     "usage": {"model", "input_tokens", "output_tokens", "reported"} (when an LLM answered)}
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .context import RAGContext
from .sanitize import inline

SentenceStatus = Literal["supported", "unsupported", "wrong_citation", "uncited"]

Event = dict[str, Any]
"""One answer event: ``{"type": "delta" | "restart" | "done", …}`` (``answer.service``)."""


@dataclass(frozen=True)
class Citation:
    """A numbered source the answer cites; ``n`` matches the ``[n]`` in the text.
    ``transaction_ids``: the transactions behind it, when it is a figure of the
    records or a line of a statement (null otherwise)."""

    n: int
    chunk_id: str
    doc_id: str
    source: str
    page: int | None
    score: float
    transaction_ids: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        # ``source`` is uploaded data (a record id may hold markdown or "SYSTEM:"); the
        # chat endpoint and the CLI print it under the answer, so it goes out inert.
        return {"n": self.n, "chunk_id": self.chunk_id, "doc_id": self.doc_id, "source": inline(self.source),
                "page": self.page, "score": round(float(self.score), 6),
                "transaction_ids": None if self.transaction_ids is None else [inline(t) for t in self.transaction_ids]}


@dataclass
class SentenceCheck:
    """How one answer sentence stands against the sources it cites.

    ``lexical`` is the share of the sentence's content terms found in the best cited
    source, ``semantic`` the best cosine between the sentence and that source's
    sentences. ``better`` names a source that supports the sentence when the cited
    one does not (a wrong citation)."""

    text: str
    cited: list[int]
    status: SentenceStatus
    lexical: float = 0.0
    semantic: float = 0.0
    better: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "cited": self.cited, "status": self.status, "lexical": round(self.lexical, 3),
                "semantic": round(self.semantic, 3), "better": self.better}


@dataclass
class Grounding:
    """Per-sentence support report. Wrong citations count as unsupported."""

    sentences: list[SentenceCheck] = field(default_factory=list)
    dropped: list[SentenceCheck] = field(default_factory=list)  # removed when drop_unsupported is on

    def count(self, *statuses: str) -> int:
        return sum(1 for s in self.sentences + self.dropped if s.status in statuses)

    @property
    def supported(self) -> int:
        return self.count("supported")

    @property
    def unsupported(self) -> int:
        return self.count("unsupported", "wrong_citation")

    @property
    def uncited(self) -> int:
        return self.count("uncited")

    def to_dict(self) -> dict[str, int]:
        return {"supported": self.supported, "unsupported": self.unsupported, "uncited": self.uncited}


@dataclass
class Answer:
    """A grounded answer: text with ``[n]`` citations, the sources, and how it was made.

    ``generator`` is the generator that actually produced the text: after a provider
    failure it is ``"extractive"`` and ``fallback_reason`` says what failed.
    """

    question: str
    answer: str
    citations: list[Citation]
    abstained: bool
    generator: str
    context: RAGContext
    grounding: Grounding = field(default_factory=Grounding)
    fallback_reason: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    search_mode: str | None = None
    degraded: str | None = None  # set when search itself degraded (e.g. embedder down → keyword)
    route: dict[str, Any] | None = None  # which route answered (records or retrieval) and why (records.router)
    records: dict[str, Any] | None = None  # an exact answer's table, chart and sources (records.exact)
    usage: dict[str, Any] | None = None  # an LLM's tokens as its provider reported them: model, input/output_tokens

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        """The wire shape above. ``details=True`` adds per-sentence checks and the
        kept sources' text under ``"details"`` (for UIs and debugging)."""
        data: dict[str, Any] = {
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "abstained": self.abstained,
            "generator": self.generator,
            "fallback_reason": self.fallback_reason,
            "grounding": self.grounding.to_dict(),
            "context": self.context.report(),
            "timings_ms": {key: round(self.timings_ms.get(key, 0.0), 1)
                           for key in ("embed", "search", "generate", "total")},
        }
        if self.route is not None:
            data["route"] = self.route
        if self.records is not None:
            data["records"] = self.records
        if self.usage is not None:
            data["usage"] = self.usage
        if details:
            data["details"] = {
                "question": self.question,
                "search_mode": self.search_mode,
                "degraded": self.degraded,
                "sentences": [s.to_dict() for s in self.grounding.sentences],
                "dropped_sentences": [s.to_dict() for s in self.grounding.dropped],
                "sources": [s.to_dict(text=True) for s in self.context.sources],
            }
        return data


class AnswerStream:
    """An iterator of answer events; ``answer`` holds the typed Answer once the
    ``done`` event has passed."""

    def __init__(self, events: Iterator[Event] | None = None) -> None:
        self.events: Iterator[Event] = events if events is not None else iter(())
        self.answer: Answer | None = None

    def __iter__(self) -> AnswerStream:
        return self

    def __next__(self) -> Event:
        return next(self.events)


AnswerEvents = Generator[Event, None, Answer]
"""A route's answer in the making: ``delta``/``restart`` events, then (as the
generator's return value) the finished ``Answer``."""
