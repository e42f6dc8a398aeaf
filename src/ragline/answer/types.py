"""The answer's data model: Citation, SentenceCheck, Grounding, Answer, and the
stream of events an answer arrives in (``AnswerStream``).

``Answer.to_dict()`` is the wire shape shared by the CLI (``--json``), the REST API
and the streaming ``done`` event::

    {"answer", "citations": [{"n", "chunk_id", "doc_id", "source", "page", "score", "transaction_ids"}],
     "abstained", "generator", "fallback_reason", "language",
     "grounding": {"supported", "unsupported", "uncited", "wrong_number", "wrong_entity", "action", "claims"},
     "context": {"kept", "dropped", "tokens"}, "timings_ms": {"embed", "search", "generate", "total"},
     "route": {"name", "reason", …} (when the engine routes questions), "records": {…} (an exact answer),
     "usage": {"model", "input_tokens", "output_tokens", "reported"} (when an LLM answered)}
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .context import RAGContext
from .sanitize import plain

SentenceStatus = Literal["supported", "wrong_number", "wrong_entity", "wrong_citation", "unsupported", "uncited"]
"""A sentence's verdict (``answer.grounding``, ``answer.claims``): ``supported`` — its
cited source states its facts; ``wrong_number`` — the source states another
figure; ``wrong_entity`` — the figure belongs to another thing, or a name is not
there; ``wrong_citation`` — another source states it; ``unsupported`` — no source
does; ``uncited`` — no citation and no source states it."""

FAILED: tuple[str, ...] = ("wrong_number", "wrong_entity", "wrong_citation", "unsupported")
"""The verdicts of a claim that must not ship as written."""

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
        # ``source`` is uploaded data (a record id may hold a line break and "SYSTEM:"): one
        # plain line; whoever renders markdown escapes it there (``sanitize.inline``).
        return {"n": self.n, "chunk_id": self.chunk_id, "doc_id": self.doc_id, "source": plain(self.source),
                "page": self.page, "score": round(float(self.score), 6),
                "transaction_ids": None if self.transaction_ids is None else [plain(t) for t in self.transaction_ids]}


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
    problem: str | None = None  # why it failed, in words: "source [1] states 7.00%, not 8.4%"
    note: str | None = None  # what was done about it: "citation added", "re-cited to [2]", "dropped", …

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "cited": self.cited, "status": self.status, "problem": self.problem,
                "note": self.note, "lexical": round(self.lexical, 3), "semantic": round(self.semantic, 3),
                "better": self.better}


@dataclass
class Grounding:
    """The claim check's report: each shipped sentence (``sentences``) and each
    removed one (``dropped``) with its verdict, and what was done (``action``:
    ``regenerated`` — the model was asked again with the failed claims named;
    ``dropped`` — failed sentences were removed; ``fallback`` — the answer was
    replaced by sentences quoted from the sources). ``supported`` counts the shipped
    sentences that passed; the other counts cover every claim checked, the first
    reply's included."""

    sentences: list[SentenceCheck] = field(default_factory=list)
    dropped: list[SentenceCheck] = field(default_factory=list)
    action: list[str] = field(default_factory=list)
    first: list[SentenceCheck] = field(default_factory=list)  # the model's first reply, when it was regenerated

    def count(self, *statuses: str) -> int:
        """Claims with these verdicts, the first reply's included (what the check caught)."""
        return sum(1 for s in self.first + self.sentences + self.dropped if s.status in statuses)

    @property
    def supported(self) -> int:
        return sum(1 for s in self.sentences if s.status == "supported")

    @property
    def unsupported(self) -> int:
        return self.count(*FAILED)

    @property
    def uncited(self) -> int:
        return self.count("uncited")

    @property
    def shipped_failures(self) -> list[SentenceCheck]:
        """Shipped sentences whose facts failed the check (none unless checking is off)."""
        return [s for s in self.sentences if s.status in FAILED]

    def to_dict(self) -> dict[str, Any]:
        return {"supported": self.supported, "unsupported": self.unsupported, "uncited": self.uncited,
                "wrong_number": self.count("wrong_number"), "wrong_entity": self.count("wrong_entity"),
                "action": list(self.action),
                "claims": [{"text": c.text, "status": c.status, "cited": c.cited, "problem": c.problem,
                            "note": c.note, "shipped": c in self.sentences}
                           for c in self.first + self.sentences + self.dropped]}


@dataclass
class Answer:
    """A grounded answer: text with ``[n]`` citations, the sources, and how it was made.

    ``generator`` is the generator that actually produced the text: after a provider
    failure it is ``"extractive"`` and ``fallback_reason`` says what failed.
    ``language`` is the ISO 639-1 code of the language ragline chose for this
    question (its own, else the collection's, else English: ``ragline.messages``),
    the language of the answer's fixed messages (abstentions, small talk, labels).
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
    language: str | None = None  # set by the route or the router (answer.route): "en", "es", …

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        """The wire shape above. ``details=True`` adds per-sentence checks and the
        kept sources' text under ``"details"`` (for UIs and debugging)."""
        data: dict[str, Any] = {
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "abstained": self.abstained,
            "generator": self.generator,
            "fallback_reason": self.fallback_reason,
            "language": self.language,
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
