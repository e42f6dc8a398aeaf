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
