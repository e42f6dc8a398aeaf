"""Typed results of the REST API, as the client reads them (shapes in docs/api.md).

Every model keeps fields the server adds later (``extra="allow"``), so an older
client still reads a newer server; ``model_dump()`` gives back the JSON object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

FINISHED_STATES = ("indexed", "failed")
"""Job states after which nothing more happens to a job."""


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow")


class Me(_Result):
    tenant: str
    key_id: str
    owner: str | None = None


class Collection(_Result):
    name: str
    model: str
    dimension: int
    chunking: dict[str, Any] = Field(default_factory=dict)
    language: str | None = None
    documents: int = 0
    chunks: int = 0
    created: float | None = None


class JobProgress(_Result):
    done: int = 0
    total: int = 0


class Job(_Result):
    """An ingestion job: ``state`` runs queued → parsing → embedding → indexed, or failed."""

    id: str
    collection: str
    document_id: str
    source: str
    owner: str | None = None
    kind: str = "file"
    state: str
    progress: JobProgress = Field(default_factory=JobProgress)
    eta_s: float | None = None
    error: str | None = None
    tries: int = 0

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES


class Document(_Result):
    id: str
    collection: str
    source: str
    title: str | None = None
    media_type: str | None = None
    owner: str | None = None
    state: str
    error: str | None = None
    chunks: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)
    created: float | None = None
    updated: float | None = None  # when its content last changed
    job: Job | None = None


class Hit(_Result):
    """One search result; ``metadata`` is the document's own metadata only."""

    chunk_id: str
    doc_id: str
    source: str
    score: float
    text: str
    collection: str
    title: str | None = None
    page: int | None = None
    section: str | None = None
    position: int = 0
    start: int = 0
    end: int = 0
    owner: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class SearchResult(_Result):
    hits: list[Hit]
    mode: str
    degraded: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


class Passage(_Result):
    """One stored chunk: what a citation points at."""

    id: str
    doc_id: str
    collection: str
    source: str
    title: str | None = None
    text: str
    page: int | None = None
    section: str | None = None
    position: int = 0
    start: int = 0
    end: int = 0


class Citation(_Result):
    n: int
    chunk_id: str
    doc_id: str
    source: str
    page: int | None = None
    score: float | None = None


class Answer(_Result):
    """A grounded answer (the object ``ragline ask --json`` prints): text with [n]
    markers, the citations they refer to, and how it was made."""

    answer: str
    citations: list[Citation] = Field(default_factory=list)
    abstained: bool = False
    generator: str | None = None
    fallback_reason: str | None = None
    grounding: Any = None
    context: dict[str, Any] | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    conversation_id: str | None = None


class Conversation(_Result):
    id: str
    title: str
    owner: str | None = None
    collections: list[str] = Field(default_factory=list)
    created: float
    updated: float
    messages: int = 0
    history: list[dict[str, Any]] | None = None  # with ``conversation(id)``: the messages, oldest first


class Usage(_Result):
    """The tenant's tokens embedded, questions, LLM tokens and estimated cost
    (``by_model`` and ``by_day`` break them down)."""

    tenant: str
    since: str | None = None
    currency: str = ""
    texts_embedded: int = 0
    tokens_embedded: int = 0
    questions: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    cost: float = 0.0
    by_model: list[dict[str, Any]] = Field(default_factory=list)
    by_day: list[dict[str, Any]] = Field(default_factory=list)


class Match(_Result):
    """A chunk or document with how often searches and answers returned it."""

    level: str
    id: str
    doc_id: str
    source: str
    title: str | None = None
    page: int | None = None
    preview: str = ""
    match_count: int = 0
    last_matched_at: float | None = None


# -- streamed answers (``ask_stream``) ----------------------------------------
@dataclass(frozen=True)
class Delta:
    """More answer text."""

    text: str


@dataclass(frozen=True)
class Restart:
    """The answer provider failed mid-answer: discard the text so far; a fallback follows."""

    reason: str


@dataclass(frozen=True)
class Done:
    """The full answer; its text is authoritative (grounding may drop streamed sentences)."""

    answer: Answer


AskEvent = Delta | Restart | Done
