"""The storage roles, each a Protocol, chosen together by one URL setting.

- ``Catalog``: the system of record (tenants, collections, documents, chunks with
  their vectors); transactional.
- ``Admin``: API keys, the job queue, request-rate buckets and kept uploads:
  what several processes share.
- ``SearchIndex``: dense and keyword search over a catalog's chunks, rebuildable
  from it at any time.
- ``Records``: typed rows (bank transactions) of one owner, queried as data; the
  relational catalogs hold them (so a Qdrant store keeps them in its catalog).
- ``Usage``: match counters and per-day usage rows, in the relational catalogs too.
- ``ConversationStore`` (``conversations``): conversations and their messages.

A backend's ``open_backend`` hands the ``Store`` facade one ``Roles`` bundle; one
object may play several roles (SQLite's ``SQLiteStore`` is catalog and admin).

Every read and write that touches tenant data takes a ``Scope`` (tenant,
collections, optional owner) and the backend applies it inside its own query:
the single tenant chokepoint. Owner visibility, everywhere (defined once in
``visibility``): an owner-less scope sees shared (owner-less) documents only; a
scope with an owner sees shared documents plus that owner's own. Writes touch
exactly the scope's owner.

Backends raise only ragline errors: ``StoreError`` (``StoreUnavailableError`` when
the database cannot be reached: retry later), ``NotFoundError`` for a tenant or
collection the scope names that does not exist, ``ModelMismatchError`` when a
collection is opened with another embedding model, ``ConfigError`` for bad filters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..models import Hit, Scope
from ..models.records import Aggregate, Balance, Transaction, TransactionQuery, WriteReport
from ..models.usage import MatchStat, UsageRecord
from .conversations import ConversationStore
from .filters import Filter
from .types import (
    ApiKeyInfo,
    ChunkRecord,
    CollectionInfo,
    CollectionRef,
    DocumentInfo,
    DocumentRecord,
    JobInfo,
    StoredDocument,
    StoredKey,
    TenantUsage,
)

Scored = list[tuple[str, float]]
"""(chunk_id, score) pairs, best first."""


class Catalog(Protocol):
    """The system of record."""

    # -- tenants and collections ---------------------------------------------
    def ensure_tenant(self, tenant: str) -> None:
        """Create the tenant if it does not exist (idempotent)."""
        ...

    def tenant_created(self, tenant: str) -> float | None:
        """When the tenant was created (epoch seconds), or None if it does not exist."""
        ...

    def tenants(self) -> list[str]:
        """Every tenant's name, sorted. For operators (CLI, admin API), never tenant-facing."""
        ...

    def ensure_collection(self, scope: Scope, *, model_id: str, dimension: int,
                          config: dict[str, Any] | None = None) -> CollectionInfo:
        """Create the scope's write collection (and its tenant), or check that the
        existing one was filled by the same model and dimension; otherwise raise
        ``ModelMismatchError`` naming both. ``config`` is kept only on creation."""
        ...

    def settle_language(self, scope: Scope, language: str) -> str:
        """Record ``language`` as the keyword language of the scope's write collection
        (``config["language"]``) unless it has one; returns the one it has now (the first
        of two racing ingestions wins, and both use it)."""
        ...

    def get_collection(self, scope: Scope) -> CollectionInfo:
        """The scope's write collection with its document and chunk counts
        (``NotFoundError`` if it does not exist)."""
        ...

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        """The tenant's collections, sorted by name (empty for an unknown tenant)."""
        ...

    def resolve(self, scope: Scope) -> list[CollectionRef]:
        """The scope's collections as index keys, in scope order; ``NotFoundError``
        names the first that does not exist. Cheap: called once per search."""
        ...

    def delete_collection(self, scope: Scope) -> list[CollectionRef]:
        """Delete the scope's collections with all their documents and chunks;
        returns what was deleted, so an external index can drop them too."""
        ...

    # -- documents and chunks ------------------------------------------------
    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None:
        """A document visible in the scope, or None (also when it exists for another
        tenant or owner: callers cannot tell the two apart)."""
        ...

    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]:
        """Visible documents sorted by source; ``origin_prefix`` keeps those whose
        origin (the file they came from) starts with it, taken literally."""
        ...

    def chunk_vectors(self, scope: Scope, doc_id: str) -> dict[str, tuple[str, np.ndarray]]:
        """content_hash → (chunk_id, vector) for a visible document's chunks, so a
        changed document re-embeds only chunks whose text is new. Empty if not visible."""
        ...

    def vectors(self, scope: Scope, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """chunk_id → stored vector (float32, as embedded) for the visible chunks among
        ``chunk_ids``; ids not visible are left out."""
        ...

    def document_chunk_ids(self, scope: Scope, doc_id: str) -> list[str]:
        """A visible document's chunk ids in reading order (empty if not visible)."""
        ...

    def put_document(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord],
                     vectors: np.ndarray) -> list[str]:
        """Atomically replace a document and all its chunks in the scope's write
        collection (owner = the scope's owner), in one transaction: readers see the
        old version or the new one, never a mix. Idempotent for the same input.
        Raises ``StoreError`` if the id belongs to another scope or the counts of
        chunks and vectors differ. Returns the chunk ids it replaced that the new
        version no longer has."""
        ...

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> list[str]:
        """Delete documents owned exactly by the scope's owner (shared ones for an
        owner-less scope) with their chunks; returns the ids deleted. Unknown ids
        and other owners' documents are skipped."""
        ...

    def get_hits(self, scope: Scope, scored: Scored) -> list[Hit]:
        """Turn (chunk_id, score) pairs into Hits, in the given order, dropping ids not
        visible in the scope. A Hit carries its text, document id and source,
        collection, title, page, section, position, offsets and owner as fields, the
        user's metadata in ``metadata``, its match counters as the last flush left them
        (``match_count``, ``last_matched_at``), and the score it was given unchanged."""
        ...

    def counts(self) -> dict[str, int]:
        """Totals across tenants (tenants, collections, documents, chunks), for operators."""
        ...

    def usage(self, tenant: str) -> TenantUsage:
        """What the tenant stores across its collections and owners: documents, chunks
        and bytes (chunk text as UTF-8 plus float32 vectors, as ``put_document`` counted
        them). Checked against quotas before an upload is accepted, so it must stay
        cheap: an aggregate over the tenant's document rows, never over chunks."""
        ...

    # -- moving and rebuilding -----------------------------------------------
    def export_documents(self, tenant: str, collection: str, *,
                         batch: int = 100) -> Iterator[StoredDocument]:
        """Every document of a collection (all owners) with its chunks and vectors,
        in batches; for ``ragline migrate`` and index rebuilds. Operator-only."""
        ...

    def switch_model(self, tenant: str, collection: str, *, old_model: str, model_id: str, dimension: int,
                     vectors: VectorLookup, key: str | None = None) -> list[str]:
        """Re-pin a collection to another embedding model in one transaction: every
        chunk (all owners) gets the vector ``vectors`` gives it, and the collection
        ``model_id``, ``dimension`` and, with ``key``, a new index key. Readers see
        the old vectors or the new ones, never a mix. If ``vectors`` has none for
        some chunks (written since the caller looked), nothing changes and their ids
        are returned, to embed and call again; ``[]`` means switched.
        ``ModelMismatchError`` if the collection is no longer filled by ``old_model``
        (another switch won). Operator-only (``ragline reembed``)."""
        ...

    def close(self) -> None:
        """Release connections (the object is unusable afterwards)."""
        ...


VectorLookup = Callable[[list[tuple[str, str]]], Mapping[str, np.ndarray]]
"""Given (chunk_id, content_hash) pairs, the new vectors it has, by chunk id."""


class SearchIndex(Protocol):
    """Dense and keyword search over the chunks of resolved collections.

    Both searches return at most ``k`` (chunk_id, score) pairs, best first, over the
    chunks visible in ``scope`` (tenant and owner applied inside the query) that
    satisfy ``filters``. Dense: the score is the cosine similarity of the stored
    vector and ``vector`` (higher is closer, at most 1), exact below the backend's
    ANN threshold and approximate (HNSW) above it. Keyword: BM25 over the analyzed
    terms (higher is better, unbounded, comparable only within one query and one
    collection's statistics, which never include another collection's text).
    """

    external: bool
    """True when the index lives outside the catalog (Qdrant) and must be written
    separately; False when the catalog's own tables are the index."""

    def dense_search(self, scope: Scope, collections: list[CollectionRef], vector: np.ndarray, k: int,
                     filters: Filter = ()) -> Scored:
        """Nearest chunks by cosine similarity; ``ModelMismatchError`` on a wrong dimension."""
        ...

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> Scored:
        """Best chunks by BM25 over ``terms`` (analyzed query terms, OR semantics)."""
        ...

    def upsert(self, collection: CollectionRef, owner: str | None, document: DocumentRecord,
               chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        """External indexes: add or replace these chunks (idempotent)."""
        ...

    def delete_chunks(self, collection: CollectionRef, owner: str | None, chunk_ids: list[str]) -> None:
        """External indexes: remove chunks of ``owner`` (missing ids are ignored). The
        owner is part of a point's identity, so one owner's write can never replace or
        remove another owner's points, whatever ids it carries."""
        ...

    def remove_documents(self, collection: CollectionRef, doc_ids: list[str]) -> None:
        """External indexes: remove every chunk of these documents."""
        ...

    def drop(self, collection: CollectionRef) -> None:
        """External indexes: remove a whole collection."""
        ...

    def close(self) -> None: ...


class Records(Protocol):
    """Typed rows kept as data: one owner's bank transactions in a tenant.

    Keyed by (tenant, owner, transaction id); the scope's tenant and owner are
    applied inside every query and its collections are not used. Transactions are
    never shared: an owner-less scope reads none, and writing with one is a
    ``ConfigError``. Amounts and sums are exact (``models.records.AMOUNT_SCALE``)."""

    def put_transactions(self, scope: Scope, transactions: Iterable[Transaction]) -> WriteReport:
        """Insert new transactions and update changed ones in place (same id, other
        content); identical ones are left alone. One transaction. Returns the counts
        and the months whose rows changed."""
        ...

    def find_transactions(self, scope: Scope, query: TransactionQuery) -> list[Transaction]:
        """The owner's transactions matching ``query``: newest first, or by amount
        (most negative first) with ``order="amount"``; ties by id."""
        ...

    def aggregate_transactions(self, scope: Scope, query: TransactionQuery, by: str) -> list[Aggregate]:
        """Count and exact sum per group (``models.records.GROUPS``) and currency, over
        the transactions matching ``query``; never sums across currencies."""
        ...

    def delete_transactions(self, scope: Scope, transaction_ids: list[str] | None = None) -> WriteReport:
        """Delete the owner's transactions with these ids (None: all of them, and the
        owner's balances, category corrections and text states); returns how many
        (``deleted``) and the months they were in."""
        ...

    def transaction_owners(self, tenant: str) -> list[str]:
        """Every owner with transactions or balances in the tenant, sorted. For operators (``ragline migrate``)."""
        ...

    def put_balances(self, scope: Scope, balances: Iterable[Balance]) -> int:
        """Keep account balances, one per (account, currency, day): a balance for a
        day already kept replaces it. One transaction. Returns how many were written."""
        ...

    def find_balances(self, scope: Scope, *, latest: bool = True) -> list[Balance]:
        """The owner's balances, by account and currency (then day): only the latest
        day of each (account, currency) unless ``latest`` is False (every day kept)."""
        ...

    def put_category_rules(self, scope: Scope, rules: Mapping[tuple[str, str], str | None]) -> None:
        """Keep the owner's category corrections: (kind, target) → category, kind one of
        ``sql.records.RULE_KINDS`` (``"merchant"`` and ``"learned"``: a merchant key,
        ``"transaction"``: an id); None removes one. One transaction."""
        ...

    def category_rules(self, scope: Scope) -> dict[tuple[str, str], str]:
        """The owner's category corrections, as ``put_category_rules`` keeps them."""
        ...

    def put_text_states(self, scope: Scope, states: Mapping[str, str | None]) -> None:
        """Record whether each month's (``YYYY-MM``) searchable text was written: None
        when it was, else the error that stopped it."""
        ...

    def text_states(self, scope: Scope) -> dict[str, str | None]:
        """Month → None (its text is written) or the error of its last attempt; months
        never recorded are absent."""
        ...


MatchCounts = dict[str, tuple[int, "float | None"]]
"""chunk_id → (match count, last matched at, epoch seconds)."""


class Usage(Protocol):
    """What a tenant used: per-chunk match counters and per-day usage rows (tokens
    embedded, questions, LLM tokens). Written in batches off the query path
    (``ragline.usage.meter``); the relational catalogs hold them."""

    def record_matches(self, tenant: str, matches: Mapping[str, tuple[int, float | None]], *, replace: bool = False) -> None:
        """Add each count to the chunk's ``match_count`` and move ``last_matched_at``
        forward; ``replace`` sets both as given (copies between stores)."""
        ...

    def chunk_matches(self, scope: Scope, chunk_ids: list[str]) -> MatchCounts:
        """The counters of those chunks the tenant has counts for (others are never matched)."""
        ...

    def export_matches(self, tenant: str) -> MatchCounts:
        """Every counter of the tenant (for ``ragline migrate``)."""
        ...

    def match_stats(self, scope: Scope, *, level: str = "chunk", order: str = "most",
                    limit: int = 20) -> list[MatchStat]:
        """The scope's visible chunks (``level="chunk"``) or documents (their chunks
        summed) matched most (``order="most"``, count > 0, most first) or never
        (``"never"``, by source). ``ConfigError`` for another level, order or limit."""
        ...

    def record_usage(self, records: Iterable[UsageRecord], *, replace: bool = False) -> None:
        """Add the records to the per-day rows (``replace``: set them, for copies)."""
        ...

    def usage_records(self, tenant: str, *, since: str | None = None) -> list[UsageRecord]:
        """The tenant's rows from day ``since`` (``YYYY-MM-DD``) on, by day, kind, model."""
        ...


class Admin(Protocol):
    """API keys and the job queue. Job reads and writes take the tenant; only the
    workers' ``claim_job``, the key bookkeeping (``verify_api_key``,
    ``touch_api_keys``: a key names its tenant) and the operators' counts span tenants."""

    # -- API keys ------------------------------------------------------------
    def create_api_key(self, tenant: str, label: str | None = None,
                       owner: str | None = None) -> tuple[ApiKeyInfo, str]:
        """A new key for an existing tenant: (its record, the secret, shown once).
        Only the secret's hash is stored. With ``owner``, the key is bound to that
        user of the tenant (``ApiKeyInfo.owner``)."""
        ...

    def verify_api_key(self, secret: str) -> ApiKeyInfo | None:
        """The live (not revoked) key matching ``secret``, or None. A pure read: it
        never writes, so a busy, read-only or full store still authenticates. Callers
        record use with ``touch_api_keys``, off the request path."""
        ...

    def touch_api_keys(self, uses: Mapping[str, float]) -> None:
        """Record when keys were last used: key id → epoch seconds, in one short
        write; ``last_used`` only moves forward and unknown ids are ignored. Keys of
        several tenants at once (operator path). Bookkeeping: callers ignore failures."""
        ...

    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]:
        """The tenant's live keys, oldest first."""
        ...

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        """Revoke one of the tenant's keys; False if it has no such live key."""
        ...

    # -- jobs ----------------------------------------------------------------
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo:
        """Queue ingestion of one kept upload. A job already queued for the same
        document is reused (its file was just replaced), so nothing runs twice."""
        ...

    def claim_job(self, worker: str, lease_s: float, max_tries: int, *, max_running: int | None = None,
                  max_running_for: Mapping[str, int | None] | None = None) -> JobInfo | None:
        """Atomically take a runnable job for ``worker``: a queued one whose
        ``not_before`` has passed, or a running one whose lease expired (its worker
        died). Marks it ``parsing``, adds a try, leases it for ``lease_s``. A job whose
        worker died ``max_tries`` times is marked failed instead. Never hands one job
        to two workers, and never runs two jobs of the same document at once.

        Fair across tenants: it picks the tenant with the fewest running (live-lease)
        jobs, then the one served least recently (its latest claim is oldest; never
        served first), then that tenant's oldest job. So one tenant's long queue
        cannot make another's single upload wait behind all of it (round robin).
        ``max_running`` caps every tenant's running jobs (None: no cap) and
        ``max_running_for`` overrides it per tenant (a None value lifts the cap): a
        tenant at its cap is skipped, even when two claimers race."""
        ...

    def renew_lease(self, tenant: str, job_id: str, worker: str, lease_s: float) -> bool:
        """Extend ``worker``'s lease; False if the job is no longer its own."""
        ...

    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool:
        """Set fields of ``JOB_UPDATABLE`` (``ConfigError`` for others). A job leaving a
        running state gives up its lease; back to queued it also forgets its worker,
        finished it keeps the worker on record. False if the job is gone."""
        ...

    def get_job(self, tenant: str, job_id: str) -> JobInfo | None:
        """One of the tenant's jobs, or None."""
        ...

    def list_jobs(self, tenant: str, *, collection: str | None = None, state: str | None = None,
                  doc_id: str | None = None, latest_per_document: bool = False, limit: int = 1000,
                  all_owners: bool = True, owner: str | None = None) -> list[JobInfo]:
        """The tenant's jobs, newest first; optionally only the newest per document.
        With ``all_owners=False``, only the jobs ``owner`` may see, as for documents."""
        ...

    def requeue_job(self, tenant: str, job_id: str) -> bool:
        """Put a finished job back in the queue (retry or re-ingest); False otherwise."""
        ...

    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int:
        """Delete a collection's (or one document's) jobs; returns how many."""
        ...

    def job_counts(self, tenant: str | None = None) -> dict[str, int]:
        """Jobs by state, every state present (one tenant's, or all for metrics)."""
        ...

    # -- moving --------------------------------------------------------------
    # -- what replicas share ------------------------------------------------------
    def draw_tokens(self, tenant: str, bucket: str, amount: float, *, capacity: float, rate: float,
                    debt: bool = False) -> float:
        """Take ``amount`` tokens from the tenant's ``bucket`` (created full; refilled at
        ``rate`` per second up to ``capacity``) in one atomic statement, so every process
        on the store draws from the same bucket. Returns 0 when taken, else the seconds
        until they would be (nothing is taken). With ``debt`` the draw is always taken
        and the balance may go below zero: the seconds until it is positive again."""
        ...

    def put_upload(self, scope: Scope, doc_id: str, name: str, parts: Iterable[bytes]) -> int:
        """Keep a file of the scope's collection and owner (``parts``: its bytes in order,
        each at most ``types.UPLOAD_PART``), replacing one of the same document and name
        in the same transaction: a failure leaves the previous one. Returns its size."""
        ...

    def read_upload(self, scope: Scope, doc_id: str, name: str) -> Iterator[bytes] | None:
        """A kept file's parts, in order, or None when the scope (tenant, collection and
        exactly its owner) has no such file."""
        ...

    def delete_uploads(self, tenant: str, *, collection: str, doc_id: str | None = None,
                       name: str | None = None) -> int:
        """Remove a collection's kept files (a document's, or one file of it); returns parts removed."""
        ...

    def export_keys(self, tenant: str) -> list[StoredKey]:
        """Every key row of a tenant, revoked ones included (hashes, never secrets)."""
        ...

    def import_key(self, key: StoredKey) -> bool:
        """Insert a key row unless its id exists; True if inserted."""
        ...

    def export_jobs(self, tenant: str) -> list[JobInfo]:
        """Every job of a tenant."""
        ...

    def import_job(self, job: JobInfo) -> bool:
        """Insert a job row unless its id exists; True if inserted."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Roles:
    """One backend's roles, as its ``open_backend`` hands them to the ``Store`` facade."""

    catalog: Catalog
    admin: Admin
    index: SearchIndex
    conversations: ConversationStore
    records: Records
    counters: Usage
