"""PostgreSQL as catalog, admin tables and search index (psycopg 3 + pgvector).

- Dense search: cosine (``<=>``) on ``chunks.embedding``; each collection has a
  partial HNSW index on ``embedding::vector(D)`` for ``collection_id = N``, which
  queries of collections above ``exact_below`` chunks use (``hnsw.iterative_scan``
  keeps owner and filter predicates from starving results); smaller ones are
  searched exactly. Scores are ``1 - distance``.
- Keyword search: BM25 as SQLite FTS5's ``bm25()`` computes it, over packed, weight-ordered
  postings of ragline's own analyzed terms (never re-parsed) written with the
  chunks, with N, lengths and document frequencies kept per collection and owner
  (``keywords``), so one tenant's text never shifts another's scores. A
  collection's language (``config["language"]``) is applied by ragline's analyzer
  before the terms get here, as on every backend. ``chunks.tsv`` (migration 1) is
  no longer written or read (migration 11 moved it into postings).
- Every transaction is scoped (``ragline.tenant``) for Row-Level Security; see
  ``schema``.

``index=False`` keeps the catalog only (an external index, Qdrant, searches):
no postings and no HNSW index are built.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from ...errors import ConfigError, ModelMismatchError, NotFoundError, StoreError
from ...models import Hit, Scope
from .. import redact
from ..base import Roles, VectorLookup
from ..facade import Store
from ..sql.common import (
    SwitchIncomplete,
    check_switch,
    lookup_batches,
    one_row,
    owned_exactly,
    owner_visibility,
    row_id,
)
from ..sql.records import RecordsTables
from ..sql.usage import HIT_COUNTERS, UsageTables
from ..types import (
    ChunkRecord,
    CollectionInfo,
    CollectionRef,
    DocumentInfo,
    DocumentRecord,
    StoredDocument,
    TenantUsage,
    stored_bytes,
)
from .admin import AdminTables
from .conn import PostgresDatabase
from .conversations import PostgresConversations
from .filters import nul_free
from .indexes import HNSW_MAX_DIM, drop_ann_index, ensure_ann_index, vacuum
from .postings import Packing, move_stats, owner_key, pack, removed_stats, write_lock, write_postings
from .schema import RLS_ROLE, prepare, schema_difference
from .search import PostgresSearch

log = logging.getLogger(__name__)

_COUNTED = ("LEFT JOIN LATERAL (SELECT match_count, last_matched_at FROM chunk_matches "
            "WHERE tenant = c.tenant AND chunk_id = c.id OFFSET 0) u ON true")
"""``sql.usage.COUNTED`` as a lookup per hit by the counters' key: as a plain join the
planner hashed the whole counters table (a SciFact hit read: 7.6 against 4.2 ms), and
hashes a tenant's millions of counters as readily. OFFSET 0 keeps it a lookup."""


class PostgresStore(AdminTables):
    """The ``Catalog`` and ``Admin`` roles on one PostgreSQL database, and the owner of
    its other roles (``roles()``): search, conversations, records and usage, each an
    object over the one ``PostgresDatabase`` they share. Thread-safe: every call
    borrows a pooled connection for one transaction."""

    def __init__(self, url: str, settings: Any, *, index: bool = True) -> None:
        self.url = url
        self.index_enabled = index
        store = settings.store
        self._timeout_ms = int(store.statement_timeout_s * 1000)
        self._ann_ready: set[int] = set()
        self._bulk: set[int] = set()  # collections inside ``bulk_load``: no HNSW index until it ends
        kwargs = {"connect_timeout": max(1, math.ceil(store.connect_timeout)), "application_name": "ragline"}
        self._use_role, self.rls_enforced = prepare(url, kwargs)
        self.db = PostgresDatabase(url, kwargs, pool_size=store.pool_size, connect_timeout=store.connect_timeout,
                                   timeout_ms=self._timeout_ms, use_role=self._use_role)
        self._pool = self.db.pool
        self.search = PostgresSearch(self.db, ef_search=store.ef_search, keyword_budget=store.keyword_budget,
                                     index_enabled=index)
        self.conversations = PostgresConversations(self.db)
        self.records = RecordsTables(self.db)
        self.counters = UsageTables(self.db, self.resolve)
        if not self.rls_enforced:
            log.warning("row-level security does not bind this connection (superuser or BYPASSRLS without the "
                        "%s role): the scoped queries remain the only tenant wall", RLS_ROLE)

    def roles(self) -> Roles:
        """This database's roles, for the ``Store`` facade."""
        return Roles(catalog=self, admin=self, index=self.search, conversations=self.conversations,
                     records=self.records, counters=self.counters)

    @property
    def exact_below(self) -> int:
        """The search role's threshold (``PostgresSearch.exact_below``), tunable from the catalog too."""
        return self.search.exact_below

    @exact_below.setter
    def exact_below(self, chunks: int) -> None:
        self.search.exact_below = chunks

    def close(self) -> None:
        self.db.close()

    def schema_behind(self) -> str | None:
        """Readiness (``Store.schema_behind``): the migrations this code knows that the
        database lacks, or a newer schema than it knows; None when they agree."""
        with self._tx(None) as cur:
            done = {r[0] for r in cur.execute("SELECT version FROM schema_migrations")}
        return schema_difference(done)

    # -- tenants and collections ---------------------------------------------
    def tenants(self) -> list[str]:
        with self._tx(None) as cur:
            return [r[0] for r in cur.execute("SELECT name FROM tenants ORDER BY name")]

    def ensure_tenant(self, tenant: str) -> None:
        with self._tx(tenant) as cur:
            cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (tenant, time.time()))

    def tenant_created(self, tenant: str) -> float | None:
        with self._tx(tenant) as cur:
            row = cur.execute("SELECT created FROM tenants WHERE name = %s", (tenant,)).fetchone()
        return row[0] if row else None

    def ensure_collection(self, scope: Scope, *, model_id: str, dimension: int,
                          config: dict[str, Any] | None = None) -> CollectionInfo:
        select = "SELECT id, model_id, dimension FROM collections WHERE tenant = %s AND name = %s"
        with self._tx(scope.tenant) as cur:
            row = cur.execute(select, (scope.tenant, scope.collection)).fetchone()
            if row is None:
                config = dict(config or {})
                now = time.time()
                cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (scope.tenant, now))
                # The key <id>.<random> is never reused by a re-created collection.
                cur.execute(
                    "INSERT INTO collections (id, uid, tenant, name, model_id, dimension, config, created) "
                    "SELECT n, n || '.' || substr(md5(random()::text), 1, 12), %s, %s, %s, %s, %s, %s "
                    "FROM (SELECT nextval(pg_get_serial_sequence('collections', 'id')) AS n) s "
                    "ON CONFLICT (tenant, name) DO NOTHING",  # a concurrent creator won: use its row
                    (scope.tenant, scope.collection, model_id, dimension, Jsonb(config), now))
                # Inserted just now, or by the concurrent creator the insert gave way to.
                row = one_row(cur, select, (scope.tenant, scope.collection))
            cid, found_model, found_dim = row
            if (found_model, found_dim) != (model_id, dimension):
                raise ModelMismatchError.between(scope.collection, found_model, found_dim, model_id, dimension)
        if (self.index_enabled and dimension <= HNSW_MAX_DIM and cid not in self._ann_ready
                and cid not in self._bulk and ensure_ann_index(self._pool, cid, dimension, self._timeout_ms)):
            self._ann_ready.add(cid)
        return self.get_collection(scope)

    def settle_language(self, scope: Scope, language: str) -> str:
        with self._tx(scope.tenant) as cur:
            cur.execute("UPDATE collections SET config = jsonb_set(config, '{language}', to_jsonb(%s::text)) "
                        "WHERE tenant = %s AND name = %s AND NOT config ? 'language'",
                        (language, scope.tenant, scope.collection))
            row = cur.execute("SELECT config->>'language' FROM collections WHERE tenant = %s AND name = %s",
                              (scope.tenant, scope.collection)).fetchone()
        if row is None:
            raise NotFoundError(f"collection {scope.collection!r} not found for tenant {scope.tenant!r}")
        return row[0]

    def resolve(self, scope: Scope) -> list[CollectionRef]:
        with self.db.tx(scope.tenant) as cur:
            return _resolve(cur, scope)

    _INFO_SQL = ("SELECT c.tenant, c.name, c.model_id, c.dimension, c.config, "
                 "(SELECT count(*) FROM documents d WHERE d.collection_id = c.id), "
                 "(SELECT coalesce(sum(chunk_count), 0) FROM documents d WHERE d.collection_id = c.id), "
                 "c.created FROM collections c WHERE c.tenant = %s")

    def get_collection(self, scope: Scope) -> CollectionInfo:
        with self._tx(scope.tenant) as cur:
            row = cur.execute(self._INFO_SQL + " AND c.name = %s", (scope.tenant, scope.collection)).fetchone()
        if row is None:
            raise NotFoundError(f"collection {scope.collection!r} not found for tenant {scope.tenant!r}")
        return CollectionInfo(*row)

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        with self._tx(tenant) as cur:
            return [CollectionInfo(*r) for r in cur.execute(self._INFO_SQL + " ORDER BY c.name", (tenant,))]

    def delete_collection(self, scope: Scope) -> list[CollectionRef]:
        with self._tx(scope.tenant) as cur:
            refs = _resolve(cur, scope)
            # Documents and chunks go by ON DELETE CASCADE.
            cur.execute("DELETE FROM collections WHERE tenant = %s AND id = ANY(%s)",
                        (scope.tenant, [row_id(r) for r in refs]))
        for ref in refs:
            self._ann_ready.discard(row_id(ref))
            if self.index_enabled:
                drop_ann_index(self._pool, row_id(ref), self._timeout_ms)
        return refs

    @contextmanager
    def bulk_load(self, scope: Scope) -> Iterator[None]:
        """Around loading many documents into the scope's collection: its HNSW index is
        dropped for the load and built once after it (one build is several times faster
        than growing the graph row by row); dense search is exact meanwhile, and
        postings and keyword statistics are written as always, but packed once at the
        end (``postings.pack``). Then the tables are vacuumed (autovacuum would get there
        later)."""
        ref = self.resolve(scope)[0]
        cid = row_id(ref)
        if self.index_enabled:
            self._bulk.add(cid)  # ensure_collection must not build it again meanwhile
            self._ann_ready.discard(cid)
            drop_ann_index(self._pool, cid, self._timeout_ms)
        try:
            yield
        finally:
            self._bulk.discard(cid)
            if (self.index_enabled and ref.dimension <= HNSW_MAX_DIM
                    and ensure_ann_index(self._pool, cid, ref.dimension, self._timeout_ms)):
                self._ann_ready.add(cid)
            if self.index_enabled:
                self._pack(scope.tenant, cid, None)
                vacuum(self._pool, ["chunks", "postings", "term_stats", "posting_blocks"], self._timeout_ms)

    # -- documents -----------------------------------------------------------
    _DOC_COLUMNS = ("d.id, col.name, d.owner, d.source, d.origin, d.title, d.media_type, d.content_hash, "
                    "d.metadata, d.state, d.error, d.chunk_count, d.created, d.updated")

    def _doc_rows(self, scope: Scope, where: str, params: list[Any]) -> list[DocumentInfo]:
        owner_sql, owner_params = owner_visibility(scope, "d", "%s")
        with self._tx(scope.tenant) as cur:
            ids = [row_id(r) for r in _resolve(cur, scope)]
            rows = cur.execute(
                f"SELECT {self._DOC_COLUMNS} FROM documents d JOIN collections col ON col.id = d.collection_id "
                f"WHERE d.tenant = %s AND d.collection_id = ANY(%s){owner_sql}{where} ORDER BY d.source",
                [scope.tenant, ids, *owner_params, *params]).fetchall()
        return [DocumentInfo(*r) for r in rows]

    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None:
        rows = self._doc_rows(scope, " AND d.id = %s", [doc_id])
        return rows[0] if rows else None

    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]:
        if origin_prefix is None:
            return self._doc_rows(scope, "", [])
        return self._doc_rows(scope, " AND starts_with(d.origin, %s)", [origin_prefix])  # literal, no LIKE escapes

    def _chunks_of(self, scope: Scope, doc_id: str, columns: str) -> list[tuple]:
        owner_sql, owner_params = owner_visibility(scope, "c", "%s")
        with self._tx(scope.tenant) as cur:
            ids = [row_id(r) for r in _resolve(cur, scope)]
            return cur.execute(
                f"SELECT {columns} FROM chunks c WHERE c.doc_id = %s AND c.tenant = %s AND c.collection_id = ANY(%s)"
                f"{owner_sql} ORDER BY c.position, c.seq", [doc_id, scope.tenant, ids, *owner_params]).fetchall()

    def chunk_vectors(self, scope: Scope, doc_id: str) -> dict[str, tuple[str, np.ndarray]]:
        return {h: (cid, v) for h, cid, v in self._chunks_of(scope, doc_id, "c.content_hash, c.id, c.embedding")}

    def document_chunk_ids(self, scope: Scope, doc_id: str) -> list[str]:
        return [r[0] for r in self._chunks_of(scope, doc_id, "c.id")]

    def vectors(self, scope: Scope, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        if not chunk_ids:
            return {}
        owner_sql, owner_params = owner_visibility(scope, "c", "%s")
        with self._tx(scope.tenant) as cur:
            ids = [row_id(r) for r in _resolve(cur, scope)]
            rows = cur.execute(
                f"SELECT c.id, c.embedding FROM chunks c WHERE c.id = ANY(%s) AND c.tenant = %s "
                f"AND c.collection_id = ANY(%s){owner_sql}", [list(chunk_ids), scope.tenant, ids, *owner_params])
            return {cid: v for cid, v in rows}

    def put_document(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord],
                     vectors: np.ndarray) -> list[str]:
        if len(chunks) != len(vectors):
            raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors for {document.source}")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._tx(scope.tenant) as cur:
            ref = _resolve(cur, Scope(scope.tenant, (scope.collection,)))[0]
            if chunks and vectors.shape[1] != ref.dimension:
                raise ModelMismatchError(f"vectors have dim {vectors.shape[1]}, collection {ref.name!r} has "
                                         f"{ref.dimension}")
            cid = row_id(ref)
            # The upsert comes first: its row lock serialises writers of one document.
            self._upsert_document(cur, scope, cid, document, len(chunks), stored_bytes(chunks, vectors))
            removed = removed_stats(cur, [document.id]).get((cid, owner_key(scope.owner))) if self.index_enabled else None
            old = cur.execute("DELETE FROM chunks WHERE doc_id = %s RETURNING id, length", (document.id,)).fetchall()
            if self.index_enabled:
                write_lock(cur, cid)  # before the new chunks get their seqs
            self._insert_chunks(cur, scope, ref, document, chunks, vectors)
            due = Packing()
            if self.index_enabled:  # postings and keyword statistics, in this transaction
                seqs: dict[str, int] = dict(cur.execute("SELECT id, seq FROM chunks WHERE doc_id = %s",
                                                        (document.id,)).fetchall())
                due = write_postings(cur, cid, scope.tenant, scope.owner, [(seqs[c.id], c.terms) for c in chunks],
                                     removed=removed, removed_chunks=len(old), removed_length=sum(r[1] for r in old))
            added, length = one_row(cur, "SELECT count(*), coalesce(sum(length), 0) FROM chunks WHERE doc_id = %s",
                                    (document.id,))
            total = one_row(cur, "UPDATE collections SET version = version + 1, chunk_total = chunk_total + %s, "
                            "length_total = length_total + %s WHERE id = %s RETURNING chunk_total",
                            (added - len(old), length - sum(r[1] for r in old), cid))[0]
        self._pack(scope.tenant, cid, due)
        if self.index_enabled and total - added + len(old) < self.exact_below <= total:
            # The collection's dense search moves to its HNSW index now: give the planner
            # statistics that say so (a new table has none until autovacuum's next round,
            # and without them it sorts every row instead), and the visibility map that
            # index-only reads of postings need.
            vacuum(self._pool, ["chunks", "postings"], self._timeout_ms)
        return sorted({r[0] for r in old} - {c.id for c in chunks})

    @staticmethod
    def _upsert_document(cur: psycopg.Cursor, scope: Scope, cid: int, document: DocumentRecord, n: int,
                         size: int) -> None:
        now = time.time()
        try:
            row = cur.execute(
                "INSERT INTO documents (id, collection_id, tenant, owner, source, origin, title, media_type, "
                "content_hash, metadata, state, error, chunk_count, created, updated, bytes) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 'indexed', NULL, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET source = excluded.source, origin = excluded.origin, "
                "title = excluded.title, media_type = excluded.media_type, content_hash = excluded.content_hash, "
                "metadata = excluded.metadata, state = 'indexed', error = NULL, chunk_count = excluded.chunk_count, "
                "updated = excluded.updated, bytes = excluded.bytes WHERE documents.tenant = excluded.tenant "
                "AND documents.collection_id = excluded.collection_id "
                "AND documents.owner IS NOT DISTINCT FROM excluded.owner RETURNING id",
                (document.id, cid, scope.tenant, scope.owner, nul_free(document.source), nul_free(document.origin),
                 nul_free(document.title), document.media_type, document.content_hash,
                 Jsonb(_clean(document.metadata), dumps=_dumps), n, now, now, size)).fetchone()
        except psycopg.errors.InsufficientPrivilege:
            row = None  # RLS: the id exists for another tenant
        if row is None:
            raise StoreError(f"document id {document.id} belongs to another scope")

    def _insert_chunks(self, cur: psycopg.Cursor, scope: Scope, ref: CollectionRef, document: DocumentRecord,
                       chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        rows = [[chunk.id, document.id, row_id(ref), scope.tenant, scope.owner, chunk.position, nul_free(chunk.text),
                 chunk.content_hash, chunk.page, nul_free(chunk.section), chunk.start, chunk.end, vector,
                 len(chunk.terms.split())] for chunk, vector in zip(chunks, vectors)]
        if rows:
            cur.executemany(
                'INSERT INTO chunks (id, doc_id, collection_id, tenant, owner, position, text, content_hash, page, '
                f'section, start, "end", embedding, length) VALUES ({", ".join(["%s"] * 14)})', rows)

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> list[str]:
        if not doc_ids:
            return []
        # Writes touch exactly the scope's owner: an owner deletes only its own
        # documents, an owner-less scope only shared ones.
        owner_sql, owner_params = owned_exactly(scope, "owner", "%s")
        with self._tx(scope.tenant) as cur:
            ids = [row_id(r) for r in _resolve(cur, scope)]
            # Sorted locks: two deleters of overlapping sets cannot deadlock.
            visible = [r[0] for r in cur.execute(
                f"SELECT id FROM documents WHERE tenant = %s AND collection_id = ANY(%s) AND id = ANY(%s)"
                f"{owner_sql} ORDER BY id FOR UPDATE", [scope.tenant, ids, list(doc_ids), *owner_params])]
            if not visible:
                return []
            removed = removed_stats(cur, visible) if self.index_enabled else {}
            due: dict[int, Packing] = {}
            gone = cur.execute("DELETE FROM chunks WHERE doc_id = ANY(%s) RETURNING collection_id, length, owner",
                               (visible,)).fetchall()
            cur.execute("DELETE FROM documents WHERE id = ANY(%s)", (visible,))
            for cid in sorted(ids):
                lengths = [r[1] for r in gone if r[0] == cid]
                if self.index_enabled:
                    change: dict[str, tuple[int, int]] = {}
                    for r in gone:
                        if r[0] == cid:
                            chunks_, length_ = change.get(owner_key(r[2]), (0, 0))
                            change[owner_key(r[2])] = (chunks_ - 1, length_ - r[1])
                    due[cid] = move_stats(cur, cid, scope.tenant, {
                        o: (Counter(), removed.get((cid, o), Counter()), c, n) for o, (c, n) in change.items()})
                cur.execute("UPDATE collections SET version = version + 1, chunk_total = chunk_total - %s, "
                            "length_total = length_total - %s WHERE id = %s", (len(lengths), sum(lengths), cid))
        for cid, packing in due.items():
            self._pack(scope.tenant, cid, packing)
        return visible

    def _pack(self, tenant: str, cid: int, due: Packing | None) -> None:
        """Pack the postings ``due`` (``postings.pack``) in a transaction of its own, after
        the write's: not inside a bulk load, which packs everything once at its end."""
        if self.index_enabled and (due is None or (due and cid not in self._bulk)):
            with self._tx(tenant) as cur:
                pack(cur, cid, due)

    def get_hits(self, scope: Scope, scored: list[tuple[str, float]]) -> list[Hit]:
        if not scored:
            return []
        owner_sql, owner_params = owner_visibility(scope, "c", "%s")
        with self.db.tx(scope.tenant) as cur:
            ids = [row_id(r) for r in _resolve(cur, scope)]
            rows = cur.execute(
                'SELECT c.id, c.doc_id, d.source, c.text, c.page, c.section, c.position, c.start, c."end", '
                # Metadata as text, decoded by json.loads as SQLite's is: psycopg's jsonb
                # loader cost 0.3-0.5 ms more for SciFact's 458 hits (4.7-5.0 against 5.1-5.3).
                f"d.title, d.metadata::text, col.name, c.owner, {HIT_COUNTERS} FROM chunks c "
                f"JOIN documents d ON d.id = c.doc_id JOIN collections col ON col.id = c.collection_id {_COUNTED} "
                f"WHERE c.id = ANY(%s) AND c.tenant = %s AND c.collection_id = ANY(%s){owner_sql}",
                [[cid for cid, _ in scored], scope.tenant, ids, *owner_params]).fetchall()
        found = {r[0]: r for r in rows}
        hits = []
        for chunk_id, score in scored:
            r = found.get(chunk_id)
            if r is not None:
                hits.append(Hit(chunk_id=r[0], doc_id=r[1], source=r[2], score=score, text=r[3], page=r[4],
                                section=r[5], position=r[6], start=r[7], end=r[8], title=r[9],
                                metadata=json.loads(r[10]), collection=r[11], owner=r[12], match_count=r[13],
                                last_matched_at=r[14]))
        return hits

    def counts(self) -> dict[str, int]:
        with self._tx(None) as cur:
            tenants, collections, documents, chunks = one_row(
                cur, "SELECT (SELECT count(*) FROM tenants), (SELECT count(*) FROM collections), "
                "(SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)")
        return {"tenants": tenants, "collections": collections, "documents": documents, "chunks": chunks}

    def usage(self, tenant: str) -> TenantUsage:
        with self._tx(tenant) as cur:
            row = one_row(cur, "SELECT count(*), coalesce(sum(chunk_count), 0), coalesce(sum(bytes), 0) FROM documents "
                          "WHERE collection_id IN (SELECT id FROM collections WHERE tenant = %s)", (tenant,))
        return TenantUsage(*(int(v) for v in row))

    def export_documents(self, tenant: str, collection: str, *, batch: int = 100) -> Iterator[StoredDocument]:
        # One transaction per batch: the consumer may call the store between yields.
        after, cid = "", None
        while True:
            with self._tx(tenant) as cur:
                if cid is None:
                    cid = row_id(_resolve(cur, Scope(tenant, (collection,)))[0])
                docs = cur.execute(
                    "SELECT id, owner, source, origin, title, media_type, content_hash, metadata FROM documents "
                    "WHERE collection_id = %s AND id > %s ORDER BY id LIMIT %s", (cid, after, batch)).fetchall()
                rows = cur.execute(
                    'SELECT doc_id, id, position, text, content_hash, start, "end", page, section, embedding '
                    "FROM chunks WHERE doc_id = ANY(%s) ORDER BY doc_id, position, seq", ([d[0] for d in docs],))
                by_doc: dict[str, list[tuple]] = {}
                for r in rows:
                    by_doc.setdefault(r[0], []).append(r)
            if not docs:
                return
            after = docs[-1][0]
            for d in docs:
                yield _stored(collection, d, by_doc.get(d[0], []))

    def switch_model(self, tenant: str, collection: str, *, old_model: str, model_id: str, dimension: int,
                     vectors: VectorLookup, key: str | None = None) -> list[str]:
        ref = self.resolve(Scope(tenant, (collection,)))[0]
        cid = row_id(ref)
        if self.index_enabled and ref.dimension != dimension:
            # The HNSW index casts to the old dimension: new vectors could not enter it.
            # Until the new one is built, dense search is exact (slower, still right).
            self._ann_ready.discard(cid)
            drop_ann_index(self._pool, cid, self._timeout_ms)
        try:
            with self._tx(tenant) as cur:
                # Writers of chunks wait until the switch commits (and it waits for those
                # in flight): no chunk can slip in with an old vector.
                cur.execute("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE")
                current, old_dimension = one_row(cur, "SELECT model_id, dimension FROM collections WHERE id = %s "
                                                 "FOR UPDATE", (cid,))
                check_switch(collection, current, old_model)
                chunks = cur.execute("SELECT seq, id, content_hash FROM chunks WHERE collection_id = %s ORDER BY seq",
                                     (cid,)).fetchall()
                missing: list[str] = []
                for part, found in lookup_batches(chunks, vectors, dimension, missing):
                    if not missing:  # once one is missing, all is rolled back: stop writing
                        cur.executemany("UPDATE chunks SET embedding = %s WHERE id = %s",
                                        [(found[r[1]], r[1]) for r in part])
                if missing:
                    raise SwitchIncomplete(missing)
                cur.execute("UPDATE documents SET bytes = bytes + chunk_count * %s WHERE collection_id = %s",
                            (4 * (dimension - old_dimension), cid))
                cur.execute("UPDATE collections SET model_id = %s, dimension = %s, version = version + 1, "
                            "uid = coalesce(%s, uid) WHERE id = %s", (model_id, dimension, key, cid))
        except SwitchIncomplete as exc:
            return exc.missing
        if self.index_enabled and dimension <= HNSW_MAX_DIM and ensure_ann_index(self._pool, cid, dimension,
                                                                                  self._timeout_ms):
            self._ann_ready.add(cid)
        return []


# -- SQL and helpers ---------------------------------------------------------------
def _resolve(cur: psycopg.Cursor, scope: Scope) -> list[CollectionRef]:
    rows = cur.execute("SELECT name, uid, dimension, config, model_id FROM collections "
                       "WHERE tenant = %s AND name = ANY(%s)", (scope.tenant, list(scope.collections))).fetchall()
    found = {r[0]: CollectionRef(scope.tenant, r[0], r[1], r[2], r[3], r[4]) for r in rows}
    for name in scope.collections:
        if name not in found:
            raise NotFoundError(f"collection {name!r} not found for tenant {scope.tenant!r}")
    return [found[name] for name in dict.fromkeys(scope.collections)]


def _stored(collection: str, d: tuple, rows: list[tuple]) -> StoredDocument:
    record = DocumentRecord(id=d[0], source=d[2], origin=d[3], title=d[4], media_type=d[5], content_hash=d[6],
                            metadata=d[7])
    chunks = [ChunkRecord(id=r[1], position=r[2], text=r[3], content_hash=r[4], start=r[5], end=r[6], terms="",
                          page=r[7], section=r[8]) for r in rows]
    vectors = (np.stack([np.asarray(r[9], dtype=np.float32) for r in rows]) if rows
               else np.zeros((0, 0), dtype=np.float32))
    return StoredDocument(collection=collection, owner=d[1], record=record, chunks=chunks, vectors=vectors)


def _clean(value: Any) -> Any:
    """User metadata made storable as jsonb (no NUL in strings)."""
    if isinstance(value, str):
        return nul_free(value)
    if isinstance(value, dict):
        return {nul_free(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str)  # as SQLite stores it


def open_backend(url: str | None, settings: Any) -> Store:
    """The registry's entry: PostgreSQL as catalog, admin and index."""
    if not url:
        raise ConfigError("RAGLINE_STORE__URL: the PostgreSQL backend needs a postgresql:// URL")
    store = PostgresStore(url, settings)
    return Store(store.roles(), url=redact(url))
