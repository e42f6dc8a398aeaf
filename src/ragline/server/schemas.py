"""Request and response bodies of the REST API (the OpenAPI schema is built from
these). Shapes follow the CLI's ``--json`` output where both exist; the response
shapes the Python client reads too are defined once in ``ragline.wire`` and
subclassed here under their schema names."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import wire
from ..conversations.options import AnswerOptions, RAGOptions
from ..models import NAME_PATTERN, NAME_RULE, OWNER_PATTERN, SOURCE_PATTERN, JobState
from ..settings import SearchMode

# Request limits (docs/api.md). A question's cost (keyword terms, embedding, grounding)
# grows with its length; chat history is only counted, but must stay bounded too.
QUESTION_MAX_CHARS = 10_000
CHAT_MESSAGE_MAX_CHARS = 32_000
CHAT_TOTAL_MAX_CHARS = 256_000
CHAT_MAX_MESSAGES = 200

def _name() -> Any:
    return Field(pattern=NAME_PATTERN, description=NAME_RULE)




class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# -- tenants and keys --------------------------------------------------------
class TenantIn(_Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "acme"}]})
    name: str = _name()


class TenantOut(BaseModel):
    name: str
    created: float


class TenantList(BaseModel):
    tenants: list[TenantOut]


class KeyIn(_Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"label": "web app", "owner": "alice"}]})
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


class MeOut(wire.Me):
    pass


# -- collections -------------------------------------------------------------
class ChunkingIn(_Strict):
    """Overrides of the server's default chunking (missing fields keep the default)."""

    method: Literal["recursive", "sentence", "paragraph", "none"] | None = None
    size: int | None = Field(default=None, ge=50, le=20000)
    overlap: int | None = Field(default=None, ge=0, le=19999)
    unit: Literal["chars", "tokens"] | None = None


class CollectionIn(_Strict):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "handbook", "chunking": {"method": "recursive", "size": 1000, "overlap": 200}}]})
    name: str = _name()
    chunking: ChunkingIn | None = None
    model: str | None = Field(default=None, max_length=200,
                              description="Embedding model; when given it must be the server's")
    language: str | None = Field(default=None, max_length=40, description="Keyword analysis language (e.g. "
                                 "'spanish' or 'es'); default: the server's, else detected from the first document")


class CollectionOut(wire.Collection):
    pass


class CollectionList(BaseModel):
    collections: list[CollectionOut]


# -- jobs and documents ------------------------------------------------------
JobProgress = wire.JobProgress


class JobOut(wire.Job):
    kind: Literal["file", "text"]
    state: JobState
    retryable: bool = Field(description="A failed job whose retry can succeed: it failed on transient errors "
                                        "after every try; false for a file that cannot be parsed or bad "
                                        "configuration, which fail the same way again")
    created: float
    updated: float
    started: float | None
    finished: float | None


class JobList(BaseModel):
    jobs: list[JobOut]


class DocumentOut(wire.Document):
    state: JobState
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
    model_config = ConfigDict(json_schema_extra={"examples": [{"documents": [{"text": "Staff get 25 days of paid holiday a year.", "source": "holidays.md", "title": "Holidays", "metadata": {"team": "people", "year": 2026}}]}]})
    documents: list[TextDocumentIn] = Field(min_length=1, max_length=1000)
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)


class ChunkOut(wire.Passage):
    """One stored passage (what a citation points at)."""


# -- search and ask ----------------------------------------------------------
class _Retrieval(_Strict):
    collection: str = Field(default="default", pattern=NAME_PATTERN)
    collections: list[Annotated[str, Field(pattern=NAME_PATTERN)]] | None = Field(default=None, min_length=1, max_length=20,
                                          description="Several collections at once (overrides `collection`)")
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)

    def collection_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.collections or [self.collection]))


class SearchIn(_Retrieval):
    model_config = ConfigDict(json_schema_extra={"examples": [{"collection": "bank", "query": "lost card", "k": 5, "mode": "hybrid"}]})
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


class HitOut(wire.Hit):
    pass


class SearchOut(wire.SearchResult):
    hits: list[HitOut]


class AskIn(_Retrieval):
    model_config = ConfigDict(json_schema_extra={"examples": [{"collection": "bank", "question": "How much is the fee for an unarranged overdraft?"}]})
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


class CitationOut(wire.Citation):
    pass


class AskOut(wire.Answer):
    """The answer object (same as ``ragline ask --json``)."""

    citations: list[CitationOut]


# -- health ------------------------------------------------------------------
class HealthOut(BaseModel):
    status: Literal["ok"]


class ReadyOut(BaseModel):
    status: Literal["ready"]
    store: str
    workers: int
    jobs: dict[str, int]
    checks: dict[str, str] = {}  # each dependency /readyz checks: "ok" (or, in a 503/507 body, its problem)
