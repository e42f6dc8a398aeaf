"""``Store``: the one scoped store API the engine uses, over a catalog, an admin
store and a search index (three roles that may be one object).

It parses filters once (``filters.parse_filters``), resolves a scope's
collections once per search, and keeps an external index in step with the
catalog: new points are written before the catalog commits and stale ones removed
after, so a reader, which always hydrates hits through the catalog, never sees
a half-written document; a failure in between leaves only invisible orphans that
the next write of the same document removes. It also keeps API keys' ``last_used``
off the request path (``key_usage``): authentication never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..analyzer import check_language
from ..models import Hit, Scope
from ..usage.model import MatchStat, UsageRecord
from .base import Admin, Catalog, MatchCounts, Records, Scored, SearchIndex, Usage, VectorLookup
from .conversations import ConversationStore
from .filters import Filter, parse_filters
from .key_usage import KeyUsage
from .types import ApiKeyInfo, ChunkRecord, CollectionInfo, CollectionRef, DocumentInfo, DocumentRecord, TenantUsage


class Store:
    """Catalog + admin + index, as one object. ``catalog``, ``admin`` and ``index``
    are public for operators' tools (migrate, rebuild); request paths use the
    methods below, all scoped."""

    def __init__(self, catalog: Catalog, admin: Admin, index: SearchIndex, *, url: str = "") -> None:
        self.catalog = catalog
        self.admin = admin
        self.index = index
        self.url = url
        self.key_usage = KeyUsage(admin)
        self.conversations: ConversationStore = catalog  # type: ignore[assignment]  (the catalog's tables)
        self.records: Records = catalog  # type: ignore[assignment]  (the relational catalog's tables)
        self.counters: Usage = catalog  # type: ignore[assignment]  (match counters and usage rows, ragline.usage)

    # -- API keys ------------------------------------------------------------
    def verify_api_key(self, secret: str) -> ApiKeyInfo | None:
        """The live key for ``secret`` (a read only); its use is written later, in the background."""
        info = self.admin.verify_api_key(secret)
        if info is not None:
            self.key_usage.note(info.id)
        return info

    def note_key_use(self, key_id: str) -> None:
        """A use of a key checked earlier (a caller's short-lived cache), written later like any."""
        self.key_usage.note(key_id)

    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]:
        """The tenant's live keys, with uses not yet written already in ``last_used``."""
        keys = []
        for info in self.admin.list_api_keys(tenant):
            pending = self.key_usage.pending(info.id)
            if pending is not None and (info.last_used is None or pending > info.last_used):
                info = replace(info, last_used=pending)
            keys.append(info)
        return keys

    def usage(self, tenant: str) -> TenantUsage:
        return self.catalog.usage(tenant)

    # -- collections ---------------------------------------------------------
    def ensure_collection(self, scope: Scope, *, model_id: str, dimension: int,
                          config: dict[str, Any] | None = None) -> CollectionInfo:
        if config and config.get("language") is not None:  # the keyword analysis of every backend
            config = {**config, "language": check_language(config["language"])}
        return self.catalog.ensure_collection(scope, model_id=model_id, dimension=dimension, config=config)

    def settle_language(self, scope: Scope, language: str) -> str:
        return self.catalog.settle_language(scope, check_language(language))

    def get_collection(self, scope: Scope) -> CollectionInfo:
        return self.catalog.get_collection(scope)

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        return self.catalog.list_collections(tenant)

    def rebuild_indexes(self, tenant: str | None = None) -> list[dict[str, Any]]:
        """Rebuild derived search indexes from the catalog now (SQLite's side indexes of
        large collections; other backends keep their own indexes and report nothing)."""
        rebuild = getattr(self.index, "rebuild_side_indexes", None)
        return rebuild(tenant) if rebuild is not None else []

    def delete_collection(self, scope: Scope) -> None:
        for ref in self.catalog.delete_collection(scope):
            if self.index.external:
                self.index.drop(ref)

    # -- documents -----------------------------------------------------------
    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None:
        return self.catalog.get_document(scope, doc_id)

    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]:
        return self.catalog.list_documents(scope, origin_prefix=origin_prefix)

    def chunk_vectors(self, scope: Scope, doc_id: str) -> dict[str, tuple[str, np.ndarray]]:
        return self.catalog.chunk_vectors(scope, doc_id)

    def vectors(self, scope: Scope, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        return self.catalog.vectors(scope, chunk_ids)

    def document_chunk_ids(self, scope: Scope, doc_id: str) -> list[str]:
        return self.catalog.document_chunk_ids(scope, doc_id)

    def put_document(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord],
                     vectors: np.ndarray) -> None:
        if not self.index.external:
            self.catalog.put_document(scope, document, chunks, vectors)
            return
        ref = self.catalog.resolve(Scope(scope.tenant, (scope.collection,)))[0]
        self.index.upsert(ref, scope.owner, document, chunks, vectors)
        try:
            stale = self.catalog.put_document(scope, document, chunks, vectors)
        except BaseException:
            # The catalog kept the previous version: drop the points it does not have, so
            # they do not take search slots until the next write of this document.
            kept = set(self.catalog.document_chunk_ids(scope, document.id))
            self.index.delete_chunks(ref, scope.owner, [c.id for c in chunks if c.id not in kept])
            raise
        if stale:
            self.index.delete_chunks(ref, scope.owner, stale)

    def reindex(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        """Write a stored document's chunks into an external index again (no-op when the
        catalog is the index): for a new index beside an existing catalog."""
        if self.index.external:
            ref = self.catalog.resolve(Scope(scope.tenant, (scope.collection,)))[0]
            self.index.upsert(ref, scope.owner, document, chunks, vectors)

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> int:
        deleted = self.catalog.delete_documents(scope, doc_ids)
        if deleted and self.index.external:
            for ref in self.catalog.resolve(scope):
                self.index.remove_documents(ref, deleted)
        return len(deleted)

    def switch_model(self, tenant: str, collection: str, *, old_model: str, model_id: str, dimension: int,
                     vectors: VectorLookup, key: str | None = None) -> list[str]:
        """``Catalog.switch_model``. With an external index the caller has filled the
        index under the new ``key`` first; once switched, the old key's points go."""
        old = self.catalog.resolve(Scope(tenant, (collection,)))[0]
        missing = self.catalog.switch_model(tenant, collection, old_model=old_model, model_id=model_id,
                                            dimension=dimension, vectors=vectors, key=key)
        if not missing and self.index.external and key is not None and key != old.key:
            self.index.drop(old)
        return missing

    # -- usage (written in batches by ragline.usage.meter) ---------------------
    def record_matches(self, tenant: str, matches: MatchCounts) -> None:
        self.counters.record_matches(tenant, matches)

    def record_usage(self, records: list[UsageRecord]) -> None:
        self.counters.record_usage(records)

    def chunk_matches(self, scope: Scope, chunk_ids: list[str]) -> MatchCounts:
        return self.counters.chunk_matches(scope, chunk_ids)

    def match_stats(self, scope: Scope, *, level: str = "chunk", order: str = "most",
                    limit: int = 20) -> list[MatchStat]:
        return self.counters.match_stats(scope, level=level, order=order, limit=limit)

    def usage_records(self, tenant: str, *, since: str | None = None) -> list[UsageRecord]:
        return self.counters.usage_records(tenant, since=since)

    # -- search --------------------------------------------------------------
    def scoped(self, scope: Scope, filters: Any = None) -> ScopedSearch:
        """The searches of one query: the scope's collections are resolved and the filters
        parsed once (``NotFoundError`` / ``ConfigError`` here, before any search)."""
        return ScopedSearch(self.index, scope, self.catalog.resolve(scope), parse_filters(filters))

    def dense_search(self, scope: Scope, vector: np.ndarray, k: int, filters: Any = None) -> Scored:
        return self.scoped(scope, filters).dense(vector, k)

    def keyword_search(self, scope: Scope, terms: list[str], k: int, filters: Any = None) -> Scored:
        return self.scoped(scope, filters).keyword(terms, k)

    def get_hits(self, scope: Scope, scored: Scored) -> list[Hit]:
        return self.catalog.get_hits(scope, scored)

    def close(self) -> None:
        self.key_usage.close()  # before the admin closes: its last write needs it
        seen: set[int] = set()
        for part in (self.index, self.admin, self.catalog):
            if id(part) not in seen:
                seen.add(id(part))
                part.close()


@dataclass(frozen=True)
class ScopedSearch:
    """Dense and keyword search over collections resolved once for one query."""

    index: SearchIndex
    scope: Scope
    collections: list[CollectionRef]
    filters: Filter

    def dense(self, vector: np.ndarray, k: int) -> Scored:
        return self.index.dense_search(self.scope, self.collections, vector, k, self.filters)

    def keyword(self, terms: list[str], k: int) -> Scored:
        return self.index.keyword_search(self.scope, self.collections, terms, k, self.filters)
