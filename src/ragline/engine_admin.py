"""The Engine's bookkeeping operations: tenants, API keys, collections, documents
and the job queue. The CLI and the server call these (through ``Engine``), never
a store: every call lands on the one scoped store API."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .errors import NotFoundError
from .models import Hit, Scope
from .store.types import ApiKeyInfo, CollectionInfo, DocumentInfo, JobInfo, TenantUsage

if TYPE_CHECKING:
    from .settings import Settings
    from .store import Store

MAX_JOB_TRIES = 3
"""Tries of one job, counted across restarts: a file that kills its worker fails for good after this many."""


class EngineAdmin:
    """Mixed into ``Engine``; needs ``self.store`` and ``self.settings``."""

    settings: Settings

    @property
    def store(self) -> Store:
        raise NotImplementedError  # the Engine's (opened on first use)

    # -- tenants and keys (operators) ----------------------------------------
    def tenants(self) -> list[str]:
        return self.store.tenants()

    def tenant_created(self, tenant: str) -> float | None:
        return self.store.tenant_created(tenant)

    def ensure_tenant(self, tenant: str) -> bool:
        """Create the tenant; False if it existed already."""
        existed = self.store.tenant_created(tenant) is not None
        self.store.ensure_tenant(tenant)
        return not existed

    def create_api_key(self, tenant: str, label: str | None = None,
                       owner: str | None = None) -> tuple[ApiKeyInfo, str]:
        """A new key for an existing tenant (``NotFoundError`` otherwise): (record, secret).
        With ``owner``, every request made with the key acts as that user of the tenant."""
        if self.store.tenant_created(tenant) is None:
            raise NotFoundError(f"tenant {tenant!r} not found")
        return self.store.create_api_key(tenant, label, owner or None)

    def verify_api_key(self, secret: str) -> ApiKeyInfo | None:
        """The live key for ``secret``, or None. Never writes: ``last_used`` is recorded
        in the background, so a busy, read-only or full store still authenticates."""
        return self.store.verify_api_key(secret)

    def note_api_key_use(self, key_id: str) -> None:
        """Record a use of a key the caller verified moments ago (its ``last_used``, in the background)."""
        self.store.note_key_use(key_id)

    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]:
        return self.store.list_api_keys(tenant)

    def stored(self, tenant: str) -> TenantUsage:
        """What the tenant stores (documents, chunks, bytes), for its quotas."""
        return self.store.usage(tenant)

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        return self.store.revoke_api_key(tenant, key_id)

    # -- collections and documents -------------------------------------------
    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        return self.store.list_collections(tenant)

    def get_collection(self, scope: Scope) -> CollectionInfo:
        return self.store.get_collection(scope)

    def collections_seen_by(self, tenant: str, owner: str | None,
                            names: tuple[str, ...] | None = None) -> list[CollectionInfo]:
        """The tenant's collections (or those ``names``) as a caller bound to ``owner``
        sees them: its ``documents`` and ``chunks`` count the shared documents and the
        owner's own, what it may read; with no owner (a tenant key, which may read every
        owner's) every document counts. Counting every owner's told a user how many
        private documents the others have (issue 29)."""
        infos = [c for c in self.store.list_collections(tenant) if names is None or c.name in names]
        if owner is None:
            return infos
        seen = []
        for info in infos:
            docs = self.store.list_documents(Scope(tenant, (info.name,), owner))
            seen.append(replace(info, documents=len(docs), chunks=sum(d.chunks for d in docs)))
        return seen

    def delete_collection(self, scope: Scope) -> None:
        """Delete the collection with its documents, chunks and jobs."""
        self.store.delete_collection(scope)
        self.store.delete_jobs(scope.tenant, collection=scope.collection)

    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None:
        return self.store.get_document(scope, doc_id)

    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]:
        return self.store.list_documents(scope, origin_prefix=origin_prefix)

    def passage(self, scope: Scope, chunk_id: str) -> Hit | None:
        """One stored chunk visible in the scope (for a cited passage), or None."""
        hits = self.store.get_hits(scope, [(chunk_id, 0.0)])
        return hits[0] if hits else None

    def passages(self, scope: Scope, doc_id: str) -> list[Hit]:
        """Every stored chunk of a document visible in the scope, in document order."""
        hits = self.store.get_hits(scope, [(c, 0.0) for c in self.store.document_chunk_ids(scope, doc_id)])
        return sorted(hits, key=lambda h: (h.start, h.end))

    def delete(self, scope: Scope, doc_ids: list[str]) -> int:
        """Delete documents the scope's owner owns exactly; returns how many."""
        return self.store.delete_documents(scope, doc_ids)

    def rebuild_indexes(self, tenant: str | None = None) -> list[dict[str, Any]]:
        """Rebuild the derived search indexes from the catalog now (``ragline store reindex``)."""
        return self.store.rebuild_indexes(tenant)

    # -- jobs ------------------------------------------------------------------
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo:
        return self.store.create_job(scope, doc_id=doc_id, source=source, kind=kind, path=path)

    def claim_job(self, worker: str, *, idle_tenants_only: bool = False) -> JobInfo | None:
        """The next job for ``worker``, leased for ``server.job_lease_s``: fair across
        tenants, and within each tenant's ``quotas.concurrent_jobs``. With
        ``idle_tenants_only``, only a job of a tenant with none running (the lane that
        lets another tenant's small job pass a long one)."""
        if idle_tenants_only:
            return self.store.claim_job(worker, self.settings.server.job_lease_s, MAX_JOB_TRIES, max_running=1)
        quotas = self.settings.quotas
        overrides = {tenant: quotas.for_tenant(tenant).concurrent_jobs for tenant in quotas.tenants}
        return self.store.claim_job(worker, self.settings.server.job_lease_s, MAX_JOB_TRIES,
                                    max_running=quotas.concurrent_jobs, max_running_for=overrides)

    def renew_lease(self, job: JobInfo, worker: str) -> bool:
        return self.store.renew_lease(job.tenant, job.id, worker, self.settings.server.job_lease_s)

    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool:
        return self.store.update_job(tenant, job_id, **fields)

    def get_job(self, tenant: str, job_id: str) -> JobInfo | None:
        return self.store.get_job(tenant, job_id)

    def list_jobs(self, tenant: str, **filters: Any) -> list[JobInfo]:
        """See ``Admin.list_jobs`` for the filters."""
        return self.store.list_jobs(tenant, **filters)

    def requeue_job(self, tenant: str, job_id: str) -> bool:
        return self.store.requeue_job(tenant, job_id)

    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int:
        return self.store.delete_jobs(tenant, collection=collection, doc_id=doc_id)

    def job_counts(self, tenant: str | None = None) -> dict[str, int]:
        return self.store.job_counts(tenant)

    def probe_store_write(self, timeout_s: float) -> None:
        """Readiness: ``StoreUnavailableError`` if a write could not start within
        ``timeout_s`` (another process holding SQLite's write lock)."""
        self.store.probe_write(timeout_s)

    def schema_behind(self) -> str | None:
        """Readiness: why the store's schema differs from this code's, or None."""
        return self.store.schema_behind()

    # -- what replicas share ---------------------------------------------------------
    def draw_tokens(self, tenant: str, bucket: str, amount: float, *, capacity: float, rate: float,
                    debt: bool = False) -> float:
        """A rate bucket shared by every process on the store (``Store.draw_tokens``)."""
        return self.store.draw_tokens(tenant, bucket, amount, capacity=capacity, rate=rate, debt=debt)

    def put_upload(self, scope: Scope, doc_id: str, name: str, parts: Iterable[bytes]) -> int:
        return self.store.put_upload(scope, doc_id, name, parts)

    def read_upload(self, scope: Scope, doc_id: str, name: str) -> Iterator[bytes] | None:
        return self.store.read_upload(scope, doc_id, name)

    def delete_uploads(self, tenant: str, *, collection: str, doc_id: str | None = None,
                       name: str | None = None) -> int:
        return self.store.delete_uploads(tenant, collection=collection, doc_id=doc_id, name=name)
