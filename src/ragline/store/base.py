"""The Store protocol: the one place data is read or written.

Every method takes a ``Scope`` and the backend applies it inside its own query,
so no caller can forget the tenant. Search methods return (chunk_id, score)
pairs; ``get_hits`` turns them into Hits, again through the scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..models import Hit, Scope

Filters = dict[str, Any]
"""Metadata filters: ``{"source": "a.pdf", "page": {"gte": 2}, "year": [2020, 2021]}``.
Keys ``doc_id``, ``source``, ``page``, ``section``, ``title``, ``media_type`` are
columns; any other key is looked up in the document's metadata. Values: a scalar
(equality), a list (any of), or a dict of operators ``eq ne gt gte lt lte in``."""


@dataclass(frozen=True)
class CollectionInfo:
    tenant: str
    name: str
    model_id: str
    dimension: int
    config: dict[str, Any]
    documents: int = 0
    chunks: int = 0
    created: float = 0.0


@dataclass
class ChunkRecord:
    """A chunk ready to store: its id, text, position, index terms and vector."""

    id: str
    position: int
    text: str
    content_hash: str
    start: int
    end: int
    terms: str
    page: int | None = None
    section: str | None = None


@dataclass
class DocumentRecord:
    id: str
    source: str
    origin: str | None
    title: str | None
    media_type: str
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DocumentInfo:
    id: str
    collection: str
    owner: str | None
    source: str
    origin: str | None
    title: str | None
    media_type: str
    content_hash: str
    metadata: dict[str, Any]
    state: str
    error: str | None
    chunks: int
    created: float
    updated: float


class Store(Protocol):
    # -- catalog -----------------------------------------------------------
    def ensure_collection(self, scope: Scope, *, model_id: str, dimension: int,
                          config: dict[str, Any] | None = None) -> CollectionInfo:
        """Create the scope's write collection, or check the existing one was filled by
        the same model (``ModelMismatchError`` otherwise)."""
        ...

    def get_collection(self, scope: Scope) -> CollectionInfo: ...
    def list_collections(self, tenant: str) -> list[CollectionInfo]: ...
    def delete_collection(self, scope: Scope) -> None: ...
    def tenants(self) -> list[str]: ...

    # -- documents ---------------------------------------------------------
    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None: ...
    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]: ...
    def chunk_vectors(self, scope: Scope, doc_id: str) -> dict[str, tuple[str, np.ndarray]]:
        """content_hash → (chunk_id, vector) for a stored document's chunks."""
        ...

    def vectors(self, scope: Scope, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """chunk_id → stored vector, for the given chunks visible in the scope."""
        ...

    def document_chunk_ids(self, scope: Scope, doc_id: str) -> list[str]:
        """A visible document's chunk ids in reading order (empty if not visible)."""
        ...

    def put_document(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord],
                     vectors: np.ndarray) -> None:
        """Atomically replace a document and all its chunks."""
        ...

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> int: ...

    # -- search ------------------------------------------------------------
    def dense_search(self, scope: Scope, vector: np.ndarray, k: int,
                     filters: Filters | None = None) -> list[tuple[str, float]]: ...
    def keyword_search(self, scope: Scope, terms: list[str], k: int,
                       filters: Filters | None = None) -> list[tuple[str, float]]: ...
    def get_hits(self, scope: Scope, scored: list[tuple[str, float]]) -> list[Hit]: ...

    def close(self) -> None: ...


# -- server bookkeeping (API keys, ingestion jobs) ---------------------------
@dataclass(frozen=True)
class ApiKeyInfo:
    """A tenant's API key as stored: never the secret itself."""

    id: str
    tenant: str
    label: str | None
    prefix: str
    created: float
    last_used: float | None = None


@dataclass(frozen=True)
class JobInfo:
    """One background ingestion job (one uploaded file or text document)."""

    id: str
    tenant: str
    collection: str
    owner: str | None
    doc_id: str
    source: str
    kind: str  # "file" or "text"
    path: str  # the kept upload the job reads
    state: str  # queued, parsing, embedding, indexed, failed
    done: int
    total: int
    error: str | None
    tries: int
    not_before: float
    created: float
    updated: float
    started: float | None
    finished: float | None


class AdminStore(Protocol):
    """What the server needs beyond ``Store``: hashed API keys and a job table.
    Job reads and writes take the tenant; ``claim_job`` and ``resume_unfinished``
    serve the workers, which work for every tenant."""

    def ensure_tenant(self, tenant: str) -> None: ...
    def tenant_created(self, tenant: str) -> float | None: ...
    def create_api_key(self, tenant: str, label: str | None = None) -> tuple[ApiKeyInfo, str]: ...
    def verify_api_key(self, secret: str) -> ApiKeyInfo | None: ...
    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]: ...
    def revoke_api_key(self, tenant: str, key_id: str) -> bool: ...
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo: ...
    def claim_job(self) -> JobInfo | None: ...
    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool: ...
    def get_job(self, tenant: str, job_id: str) -> JobInfo | None: ...
    def list_jobs(self, tenant: str, *, collection: str | None = None, state: str | None = None,
                  doc_id: str | None = None, latest_per_document: bool = False, limit: int = 1000,
                  all_owners: bool = True, owner: str | None = None) -> list[JobInfo]: ...
    def requeue_job(self, tenant: str, job_id: str) -> bool: ...
    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int: ...
    def resume_unfinished(self) -> int: ...
    def job_counts(self, tenant: str | None = None) -> dict[str, int]: ...
