"""Request and response bodies of the REST API (the OpenAPI schema is built from
these). Shapes follow the CLI's ``--json`` output where both exist."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..conversations.options import AnswerOptions, RAGOptions
from ..settings import SearchMode
from ..models import NAME_PATTERN, NAME_RULE, OWNER_PATTERN, SOURCE_PATTERN
from ..store.types import JOB_STATES

# Request limits (docs/api.md). A question's cost (keyword terms, embedding, grounding)
# grows with its length; chat history is only counted, but must stay bounded too.
QUESTION_MAX_CHARS = 10_000
CHAT_MESSAGE_MAX_CHARS = 32_000
CHAT_TOTAL_MAX_CHARS = 256_000
CHAT_MAX_MESSAGES = 200

def _name() -> Any:
    return Field(pattern=NAME_PATTERN, description=NAME_RULE)


JobState = Literal[JOB_STATES]  # type: ignore[valid-type]  (each state)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# -- tenants and keys --------------------------------------------------------
class TenantIn(_Strict):
    name: str = _name()


class TenantOut(BaseModel):
    name: str
    created: float


class TenantList(BaseModel):
    tenants: list[TenantOut]


class KeyIn(_Strict):
    label: str | None = Field(default=None, max_length=100)
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN,
                              description="Bind the key to this user of the tenant: every request made with it "
                                          "acts as this owner (shared documents plus the owner's own); a request "
                                          "naming another owner gets 403")


class KeyOut(BaseModel):
    id: str
    tenant: str
    label: str | None
    owner: str | None = Field(default=None, description="The owner the key is bound to (null: any)")
    prefix: str = Field(description="The key's first characters, to tell keys apart")
    created: float
    last_used: float | None = Field(default=None, description="Recorded in the background, at most once a minute")


class NewKeyOut(KeyOut):
    key: str = Field(description="The secret; shown only in this response")


class KeyList(BaseModel):
    keys: list[KeyOut]


class MeOut(BaseModel):
    tenant: str
    key_id: str
    owner: str | None = Field(default=None, description="The owner the key is bound to (absent: any)")


# -- collections -------------------------------------------------------------
class ChunkingIn(_Strict):
    """Overrides of the server's default chunking (missing fields keep the default)."""

    method: Literal["recursive", "sentence", "paragraph", "none"] | None = None
    size: int | None = Field(default=None, ge=50, le=20000)
    overlap: int | None = Field(default=None, ge=0, le=19999)
    unit: Literal["chars", "tokens"] | None = None


class CollectionIn(_Strict):
    name: str = _name()
    chunking: ChunkingIn | None = None
    model: str | None = Field(default=None, max_length=200,
                              description="Embedding model; when given it must be the server's")
    language: str | None = Field(default=None, max_length=40, description="Keyword analysis language (e.g. "
                                 "'spanish' or 'es'); default: the server's, else detected from the first document")


class CollectionOut(BaseModel):
    name: str
    model: str
    dimension: int
    chunking: dict[str, Any]
    language: str | None = None  # None until the first document decides it
    documents: int
    chunks: int
    created: float


class CollectionList(BaseModel):
    collections: list[CollectionOut]


# -- jobs and documents ------------------------------------------------------
class JobProgress(BaseModel):
    done: int
    total: int


class JobOut(BaseModel):
    id: str
    collection: str
    document_id: str
    source: str
    owner: str | None
    kind: Literal["file", "text"]
    state: JobState
    progress: JobProgress
    eta_s: float | None = Field(description="Seconds left, estimated from the rate so far")
    error: str | None
    tries: int
    created: float
    updated: float
    started: float | None
    finished: float | None


class JobList(BaseModel):
    jobs: list[JobOut]


class DocumentOut(BaseModel):
    id: str
    collection: str
    source: str
    title: str | None
    media_type: str | None
    owner: str | None
    state: JobState
    error: str | None
    chunks: int
    metadata: dict[str, Any]
    created: float | None
    updated: float | None
    job: JobOut | None


class DocumentList(BaseModel):
    documents: list[DocumentOut]


class TextDocumentIn(_Strict):
    text: str = Field(min_length=1, max_length=5_000_000)
    source: str | None = Field(default=None, pattern=SOURCE_PATTERN,
                               description="Name of the document (default: text-<hash>); same name = same document")
    title: str | None = Field(default=None, max_length=1000)
    metadata: dict[str, Any] = Field(default_factory=dict)


class TextDocumentsIn(_Strict):
    documents: list[TextDocumentIn] = Field(min_length=1, max_length=1000)
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)


class ChunkOut(BaseModel):
    """One stored passage (what a citation points at)."""

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


# -- search and ask ----------------------------------------------------------
class _Retrieval(_Strict):
    collection: str = Field(default="default", pattern=NAME_PATTERN)
    collections: list[Annotated[str, Field(pattern=NAME_PATTERN)]] | None = Field(default=None, min_length=1, max_length=20,
                                          description="Several collections at once (overrides `collection`)")
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)

    def collection_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.collections or [self.collection]))


class SearchIn(_Retrieval):
    query: str = Field(min_length=1, max_length=QUESTION_MAX_CHARS)
    mode: SearchMode | None = None
    k: int | None = Field(default=None, ge=1, le=1000)
    threshold: float | None = Field(default=None, description=(
        "Drop hits whose cosine similarity to the query is below this, in every mode"))
    filters: dict[str, Any] | None = Field(default=None, description="Metadata filters (see the CLI's --filter)")
    sort: Literal["score", "match_count", "last_matched_at"] | None = Field(
        default=None, description="Order by score (default), or by how often / how recently hits were returned")
    min_matches: int | None = Field(default=None, ge=0, description="Keep hits returned at least this often")
    max_matches: int | None = Field(default=None, ge=0, description="Keep hits returned at most this often")


class HitOut(BaseModel):
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


class SearchOut(BaseModel):
    hits: list[HitOut]
    mode: str
    degraded: str | None
    timings_ms: dict[str, float]


class AskIn(_Retrieval):
    question: str = Field(min_length=1, max_length=QUESTION_MAX_CHARS)
    mode: SearchMode | None = None
    filters: dict[str, Any] | None = Field(default=None, description="Metadata filters (see the CLI's --filter)")
    generator: str | None = Field(default=None, max_length=100, description="Override the configured generator")
    stream: bool = Field(default=False, description="Server-sent events: delta… then done")
    conversation_id: str | None = Field(default=None, max_length=64, description=(
        "Continue this conversation (follow-ups are rewritten from it); none: a new one. "
        "The answer returns it, and both turns are stored with their citations"))
    rag_options: RAGOptions | None = Field(default=None, description="Retrieval over the user's past messages")
    options: AnswerOptions | None = Field(default=None, description="This request's answer bounds and switches")


class CitationOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    n: int
    chunk_id: str
    doc_id: str
    source: str
    page: int | None = None
    score: float | None = None


class AskOut(BaseModel):
    """The answer object (same as ``ragline ask --json``)."""

    model_config = ConfigDict(extra="allow")
    answer: str
    citations: list[CitationOut]
    abstained: bool
    generator: str | None = None
    fallback_reason: str | None = None
    grounding: Any = None
    context: dict[str, Any] | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


# -- health ------------------------------------------------------------------
class HealthOut(BaseModel):
    status: Literal["ok"]


class ReadyOut(BaseModel):
    status: Literal["ready"]
    store: str
    workers: int
    jobs: dict[str, int]
