"""The REST API's response shapes (docs/api.md), defined once.

The server's response models (``server/schemas.py``) and the Python client's
results (``client/types.py``) both derive from these: the server subclasses them
under its schema names (``HitOut``…) and narrows open strings to its enums; the
client subclasses them to keep fields a newer server adds (``extra="allow"``).
Only pydantic is imported here, so the client stays free of the server's
dependencies. The engine's own objects (``models.Hit``, ``answer.types.Answer``)
produce these shapes with their ``to_dict()`` (``test_wire.py`` holds them
to it). Field descriptions here reach the OpenAPI document; class docstrings do
not (a subclass's schema takes only its own)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Answer", "Citation", "Collection", "Conversation", "Document", "Hit", "Job", "JobProgress", "Match",
           "Me", "Passage", "SearchResult"]


class Me(BaseModel):
    tenant: str
    key_id: str
    owner: str | None = Field(default=None, description="The owner the key is bound to (absent: any)")


class Collection(BaseModel):
    name: str
    model: str
    dimension: int
    chunking: dict[str, Any]
    language: str | None = None  # None until the first document decides it
    documents: int
    chunks: int
    created: float


class JobProgress(BaseModel):
    done: int
    total: int


class Job(BaseModel):
    id: str
    collection: str
    document_id: str
    source: str
    owner: str | None
    kind: str  # server.schemas.JobOut: one of store.types.JOB_KINDS
    state: str  # server.schemas.JobOut: one of store.types.JOB_STATES
    progress: JobProgress
    eta_s: float | None = Field(description="Seconds left, estimated from the rate so far")
    error: str | None
    tries: int


class Document(BaseModel):
    id: str
    collection: str
    source: str
    title: str | None
    media_type: str | None
    owner: str | None
    state: str  # server.schemas.DocumentOut: one of store.types.JOB_STATES
    error: str | None
    chunks: int
    metadata: dict[str, Any]
    created: float | None
    updated: float | None  # when its content last changed
    job: Job | None


class Hit(BaseModel):
    chunk_id: str
    doc_id: str
    source: str
    score: float
    text: str
    collection: str
    title: str | None
    page: int | None
    section: str | None
    position: int
    start: int
    end: int
    owner: str | None
    metadata: dict[str, Any] = Field(description="The document's user metadata only")
    match_count: int = Field(default=0, description="Times returned before (search hits and answer sources)")
    last_matched_at: float | None = None


class SearchResult(BaseModel):
    hits: Sequence[Hit]  # a Sequence: subclasses narrow it to their own Hit
    mode: str
    degraded: str | None
    timings_ms: dict[str, float]


class Passage(BaseModel):
    id: str
    doc_id: str
    collection: str
    source: str
    title: str | None
    text: str
    page: int | None
    section: str | None
    position: int
    start: int
    end: int


class Citation(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int
    chunk_id: str
    doc_id: str
    source: str
    page: int | None = None
    score: float | None = None
    transaction_ids: list[str] | None = None  # a figure of the records, or a statement line: the transactions behind it


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")
    answer: str
    citations: Sequence[Citation]
    abstained: bool
    generator: str | None = None
    fallback_reason: str | None = None
    language: str | None = Field(default=None, description=(
        "ISO 639-1 code of the language chosen for this question (its own, else the collection's, else English): "
        "the language of the answer's fixed messages (abstentions, small talk, labels)"))
    grounding: Any = None
    context: dict[str, Any] | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


class Conversation(BaseModel):
    id: str
    title: str
    owner: str | None
    collections: list[str]
    created: float
    updated: float
    messages: int


class Match(BaseModel):
    level: str
    id: str
    doc_id: str
    source: str
    title: str | None
    page: int | None
    preview: str
    match_count: int
    last_matched_at: float | None
