"""``Store``: the one scoped store API the engine uses, over one backend's roles
(``base.Roles``: catalog, admin, search index, conversations, records, counters;
one object may play several).

It parses filters once (``filters.parse_filters``), resolves a scope's
collections once per search, and keeps an external index in step with the
catalog: new points are written before the catalog commits and stale ones removed
after, so a reader, which always hydrates hits through the catalog, never sees
a half-written document; a failure in between leaves only invisible orphans that
the next write of the same document removes. It also keeps API keys' ``last_used``
off the request path (``key_usage``): authentication never writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..analyzer import check_language
from ..models import Hit, Scope
from ..models.usage import MatchStat, UsageRecord
from .base import Admin, Catalog, MatchCounts, Records, Roles, Scored, SearchIndex, Usage, VectorLookup
from .conversations import ConversationStore
from .filters import Filter, parse_filters
from .key_usage import KeyUsage
from .types import (
    ApiKeyInfo,
    ChunkRecord,
    CollectionInfo,
    CollectionRef,
    DocumentInfo,
    DocumentRecord,
    JobInfo,
    StoredDocument,
    TenantUsage,
)


class Store:
    """One backend's roles behind one object. Request paths and the engine use the
    methods below (scoped where they touch tenant data); ``conversations``,
    ``records`` and ``counters`` are the typed roles their features take. ``catalog``,
    ``admin`` and ``index`` stay public for operators' tools only (``migrate``)."""

    def __init__(self, roles: Roles, *, url: str = "") -> None:
        self.catalog: Catalog = roles.catalog
        self.admin: Admin = roles.admin
        self.index: SearchIndex = roles.index
        self.conversations: ConversationStore = roles.conversations
        self.records: Records = roles.records
        self.counters: Usage = roles.counters  # match counters and usage rows (ragline.usage)
        self.url = url
        self.key_usage = KeyUsage(roles.admin)

    # -- what replicas share -------------------------------------------------------
    def draw_tokens(self, tenant: str, bucket: str, amount: float, *, capacity: float, rate: float,
                    debt: bool = False) -> float:
        """See ``Admin.draw_tokens``: a rate bucket every process on this store shares."""
        return self.admin.draw_tokens(tenant, bucket, amount, capacity=capacity, rate=rate, debt=debt)

    def put_upload(self, scope: Scope, doc_id: str, name: str, parts: Iterable[bytes]) -> int:
        return self.admin.put_upload(scope, doc_id, name, parts)

    def read_upload(self, scope: Scope, doc_id: str, name: str) -> Iterator[bytes] | None:
        return self.admin.read_upload(scope, doc_id, name)

    def delete_uploads(self, tenant: str, *, collection: str, doc_id: str | None = None,
                       name: str | None = None) -> int:
        return self.admin.delete_uploads(tenant, collection=collection, doc_id=doc_id, name=name)

    def schema_behind(self) -> str | None:
        """Readiness: why the database's schema is not the one this code expects (migrations
        missing, or a newer ragline migrated it), or None. Only a versioned backend has
        this to check (PostgreSQL); SQLite's tables are created as the file is opened."""
        check = getattr(self.catalog, "schema_behind", None)
        return check() if check is not None else None

    # -- tenants (operators) ---------------------------------------------------
    def tenants(self) -> list[str]:
        return self.catalog.tenants()

    def tenant_created(self, tenant: str) -> float | None:
        """When the tenant was created, or None if it does not exist."""
        return self.catalog.tenant_created(tenant)

    def ensure_tenant(self, tenant: str) -> None:
        self.catalog.ensure_tenant(tenant)

    def counts(self) -> dict[str, int]:
        """Totals across tenants (tenants, collections, documents, chunks), for operators."""
        return self.catalog.counts()

    def probe_write(self, timeout_s: float) -> None:
        """Readiness: raise ``StoreUnavailableError`` if a write could not start within
        ``timeout_s``. Only a backend whose file another process can lock (SQLite) has
        this to check; the others' readiness is their reads."""
        probe = getattr(self.admin, "probe_write", None)
        if probe is not None:
            probe(timeout_s)

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

    def create_api_key(self, tenant: str, label: str | None = None,
                       owner: str | None = None) -> tuple[ApiKeyInfo, str]:
        """``Admin.create_api_key``: (the key's record, its secret, shown once)."""
        return self.admin.create_api_key(tenant, label, owner)

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        return self.admin.revoke_api_key(tenant, key_id)

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

    # -- jobs (``Admin``'s queue) ---------------------------------------------
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo:
        return self.admin.create_job(scope, doc_id=doc_id, source=source, kind=kind, path=path)

    def claim_job(self, worker: str, lease_s: float, max_tries: int, *, max_running: int | None = None,
                  max_running_for: Mapping[str, int | None] | None = None) -> JobInfo | None:
        """``Admin.claim_job``: the next job for ``worker``, fair across tenants."""
        return self.admin.claim_job(worker, lease_s, max_tries, max_running=max_running,
                                    max_running_for=max_running_for)

    def renew_lease(self, tenant: str, job_id: str, worker: str, lease_s: float) -> bool:
        return self.admin.renew_lease(tenant, job_id, worker, lease_s)

    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool:
        return self.admin.update_job(tenant, job_id, **fields)

    def get_job(self, tenant: str, job_id: str) -> JobInfo | None:
        return self.admin.get_job(tenant, job_id)

    def list_jobs(self, tenant: str, *, collection: str | None = None, state: str | None = None,
                  doc_id: str | None = None, latest_per_document: bool = False, limit: int = 1000,
                  all_owners: bool = True, owner: str | None = None) -> list[JobInfo]:
        """``Admin.list_jobs``: newest first; with ``all_owners=False`` only the jobs
        ``owner`` may see (``visibility``)."""
        return self.admin.list_jobs(tenant, collection=collection, state=state, doc_id=doc_id,
                                    latest_per_document=latest_per_document, limit=limit, all_owners=all_owners,
                                    owner=owner)

    def requeue_job(self, tenant: str, job_id: str) -> bool:
        return self.admin.requeue_job(tenant, job_id)

    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int:
        return self.admin.delete_jobs(tenant, collection=collection, doc_id=doc_id)

    def job_counts(self, tenant: str | None = None) -> dict[str, int]:
        return self.admin.job_counts(tenant)

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

    def collection_ref(self, tenant: str, collection: str) -> CollectionRef:
        """A collection as the search index knows it (``NotFoundError`` if it does not exist)."""
        return self.catalog.resolve(Scope(tenant, (collection,)))[0]

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
        ref = self.collection_ref(scope.tenant, scope.collection)
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
            ref = self.collection_ref(scope.tenant, scope.collection)
            self.index.upsert(ref, scope.owner, document, chunks, vectors)

    @property
    def external_index(self) -> bool:
        """Whether the search index lives outside the catalog (Qdrant) and is written apart."""
        return self.index.external

    def export_documents(self, tenant: str, collection: str, *, batch: int = 100) -> Iterator[StoredDocument]:
        """``Catalog.export_documents``: every document of a collection (all owners) with
        its chunks and vectors, in batches. Operator paths only (``ragline reembed``)."""
        return self.catalog.export_documents(tenant, collection, batch=batch)

    def index_under(self, ref: CollectionRef, owner: str | None, document: DocumentRecord,
                    chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        """Write chunks into an external index under ``ref``, which may carry a key the
        catalog does not have yet (``ragline reembed`` fills the new key before the
        switch). No-op when the catalog is the index."""
        if self.index.external:
            self.index.upsert(ref, owner, document, chunks, vectors)

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
        old = self.collection_ref(tenant, collection)
        missing = self.catalog.switch_model(tenant, collection, old_model=old_model, model_id=model_id,
                                            dimension=dimension, vectors=vectors, key=key)
        if not missing and self.index.external and key is not None and key != old.key:
            self.index.drop(old)
        return missing

    # -- usage (written in batches by ragline.usage.meter) ---------------------
    def record_matches(self, tenant: str, matches: Mapping[str, tuple[int, float | None]]) -> None:
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
