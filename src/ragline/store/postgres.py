"""PostgreSQL as catalog, admin tables and search index (psycopg 3 + pgvector).

- Dense search: cosine (``<=>``) on ``chunks.embedding``; each collection has a
  partial HNSW index on ``embedding::vector(D)`` for ``collection_id = N``, which
  queries of collections above ``exact_below`` chunks use (``hnsw.iterative_scan``
  keeps owner and filter predicates from starving results); smaller ones are
  searched exactly. Scores are ``1 - distance``.
- Keyword search: BM25 computed in SQL exactly as SQLite FTS5's ``bm25()`` does,
  over a ``tsvector`` built from ragline's own analyzed terms (never re-parsed),
  with N and the average length kept per collection in ``collections``, so one
  tenant's text never shifts another's scores. A collection created with
  ``config={"language": "<regconfig>"}`` (e.g. ``"spanish"``) instead builds the
  tsvector from title + text with ``to_tsvector(<regconfig>, …)`` and maps the
  query terms through the same configuration.
- Every transaction is scoped (``ragline.tenant``) for Row-Level Security; see
  ``postgres_schema``.

``index=False`` keeps the catalog only (an external index, Qdrant, searches):
no tsvector and no HNSW index is built.
"""

from __future__ import annotations

import json
import logging
import math
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from ..errors import ConfigError, ModelMismatchError, NotFoundError, RaglineError, StoreError, StoreUnavailableError
from ..models import Hit, Scope
from . import redact
from .filters import Filter
from .postgres_admin import AdminMixin
from .postgres_filters import compile_postgres
from .postgres_schema import BYPASS, RLS_ROLE, can_use_rls_role, migrate, rls_enforced
from .types import ChunkRecord, CollectionInfo, CollectionRef, DocumentInfo, DocumentRecord, StoredDocument

log = logging.getLogger(__name__)

HNSW_MAX_DIM = 2000  # pgvector's limit for an HNSW index on ``vector``; above it, exact search only
MAX_LEXEME_BYTES = 2046  # PostgreSQL refuses longer tsvector/tsquery lexemes
MAX_POSITION = 16383  # largest tsvector position
MAX_POSITIONS = 256  # positions kept per lexeme: term frequencies are exact up to this
K1, B = 1.2, 0.75  # FTS5's bm25() constants
_ANN_LOCK = 1 << 62  # + collection id: advisory lock of one collection's index build


class PostgresStore(AdminMixin):
    """``Catalog``, ``Admin`` and ``SearchIndex`` on one PostgreSQL database. Thread-safe:
    every call borrows a pooled connection for one transaction."""

    external = False
    exact_below = 10_000
    """Collections with fewer chunks are searched exactly (a scan is cheap and exact)."""

    def __init__(self, url: str, settings: Any, *, index: bool = True) -> None:
        self.url = url
        self.index_enabled = index
        store = settings.store
        self._ef_search = store.ef_search
        self._timeout_ms = int(store.statement_timeout_s * 1000)
        self._ann_ready: set[int] = set()
        kwargs = {"connect_timeout": max(1, math.ceil(store.connect_timeout)), "application_name": "ragline"}
        self._use_role, self.rls_enforced = _prepare(url, kwargs)
        role = f"set_config('role', '{RLS_ROLE}', true), " if self._use_role else ""
        self._scope_sql = f"SELECT {role}set_config('ragline.tenant', %s, true)"
        self._pool = ConnectionPool(
            url, kwargs=kwargs, min_size=1, max_size=store.pool_size, name="ragline",
            timeout=store.connect_timeout,  # a request waits this long for a connection, then 503
            # Give up a reconnection run soon: the next request starts a fresh one at once,
            # so a restarted server is used again within seconds, not after a long backoff.
            reconnect_timeout=max(10.0, 4 * store.connect_timeout),
            configure=self._configure, check=ConnectionPool.check_connection, open=True,
        )
        if not self.rls_enforced:
            log.warning("row-level security does not bind this connection (superuser or BYPASSRLS without the "
                        "%s role): the scoped queries remain the only tenant wall", RLS_ROLE)

    def _configure(self, conn: psycopg.Connection) -> None:
        register_vector(conn)
        conn.execute("SELECT set_config('statement_timeout', %s, false)", (f"{self._timeout_ms}ms",))
        conn.commit()

    @contextmanager
    def _tx(self, tenant: str | None) -> Iterator[psycopg.Cursor]:
        """One transaction on a pooled connection, scoped to ``tenant`` for RLS (None:
        the operator/worker bypass). Driver errors leave as ragline errors."""
        if tenant == BYPASS:
            raise StoreError(f"invalid tenant name {tenant!r}")
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                cur.execute(self._scope_sql, (BYPASS if tenant is None else tenant,))
                yield cur
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            raise _mapped(exc, self._pool.timeout) from exc

    def close(self) -> None:
        self._pool.close()

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
        config = dict(config or {})
        with self._tx(scope.tenant) as cur:
            if config.get("language") is not None:
                _check_language(cur, config["language"])
            cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (scope.tenant, time.time()))
            # A new id per insert attempt: uid (the index key) is never reused by a re-created collection.
            cur.execute(
                "INSERT INTO collections (id, uid, tenant, name, model_id, dimension, config, created) "
                "SELECT n, n || '.' || substr(md5(random()::text), 1, 12), %s, %s, %s, %s, %s, %s "
                "FROM (SELECT nextval(pg_get_serial_sequence('collections', 'id')) AS n) s "
                "ON CONFLICT (tenant, name) DO NOTHING",
                (scope.tenant, scope.collection, model_id, dimension, Jsonb(config), time.time()))
            cid, found_model, found_dim = cur.execute(
                "SELECT id, model_id, dimension FROM collections WHERE tenant = %s AND name = %s",
                (scope.tenant, scope.collection)).fetchone()
            if (found_model, found_dim) != (model_id, dimension):
                raise ModelMismatchError(
                    f"collection {scope.collection!r} was built with {found_model} (dim {found_dim}); "
                    f"it cannot be opened with {model_id} (dim {dimension}). Use another collection or re-create it."
                )
        self._ensure_ann_index(cid, dimension)
        return self.get_collection(scope)

    def resolve(self, scope: Scope) -> list[CollectionRef]:
        with self._tx(scope.tenant) as cur:
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
                        (scope.tenant, [_cid(r) for r in refs]))
        for ref in refs:
            self._drop_ann_index(_cid(ref))
        return refs

    # -- documents -----------------------------------------------------------
    _DOC_COLUMNS = ("d.id, col.name, d.owner, d.source, d.origin, d.title, d.media_type, d.content_hash, "
                    "d.metadata, d.state, d.error, d.chunk_count, d.created, d.updated")

    def _doc_rows(self, scope: Scope, where: str, params: list[Any]) -> list[DocumentInfo]:
        owner_sql, owner_params = _owner_sql(scope, "d")
        with self._tx(scope.tenant) as cur:
            ids = [_cid(r) for r in _resolve(cur, scope)]
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
        owner_sql, owner_params = _owner_sql(scope, "c")
        with self._tx(scope.tenant) as cur:
            ids = [_cid(r) for r in _resolve(cur, scope)]
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
        owner_sql, owner_params = _owner_sql(scope, "c")
        with self._tx(scope.tenant) as cur:
            ids = [_cid(r) for r in _resolve(cur, scope)]
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
            cid = _cid(ref)
            # The upsert comes first: its row lock serialises writers of one document.
            self._upsert_document(cur, scope, cid, document, len(chunks))
            old = cur.execute("DELETE FROM chunks WHERE doc_id = %s RETURNING id, length", (document.id,)).fetchall()
            self._insert_chunks(cur, scope, ref, document, chunks, vectors)
            added, length = cur.execute("SELECT count(*), coalesce(sum(length), 0) FROM chunks WHERE doc_id = %s",
                                        (document.id,)).fetchone()
            cur.execute("UPDATE collections SET version = version + 1, chunk_total = chunk_total + %s, "
                        "length_total = length_total + %s WHERE id = %s",
                        (added - len(old), length - sum(r[1] for r in old), cid))
        return sorted({r[0] for r in old} - {c.id for c in chunks})

    @staticmethod
    def _upsert_document(cur: psycopg.Cursor, scope: Scope, cid: int, document: DocumentRecord, n: int) -> None:
        now = time.time()
        try:
            row = cur.execute(
                "INSERT INTO documents (id, collection_id, tenant, owner, source, origin, title, media_type, "
                "content_hash, metadata, state, error, chunk_count, created, updated) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 'indexed', NULL, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET source = excluded.source, origin = excluded.origin, "
                "title = excluded.title, media_type = excluded.media_type, content_hash = excluded.content_hash, "
                "metadata = excluded.metadata, state = 'indexed', error = NULL, chunk_count = excluded.chunk_count, "
                "updated = excluded.updated WHERE documents.tenant = excluded.tenant "
                "AND documents.collection_id = excluded.collection_id "
                "AND documents.owner IS NOT DISTINCT FROM excluded.owner RETURNING id",
                (document.id, cid, scope.tenant, scope.owner, _text(document.source), _text(document.origin),
                 _text(document.title), document.media_type, document.content_hash,
                 Jsonb(_clean(document.metadata), dumps=_dumps), n, now, now)).fetchone()
        except psycopg.errors.InsufficientPrivilege:
            row = None  # RLS: the id exists for another tenant
        if row is None:
            raise StoreError(f"document id {document.id} belongs to another scope")

    def _insert_chunks(self, cur: psycopg.Cursor, scope: Scope, ref: CollectionRef, document: DocumentRecord,
                       chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        language = ref.config.get("language")
        if not self.index_enabled:
            tsv = "NULL, %s"
        elif language is not None:
            tsv = "to_tsvector(%s::regconfig, %s), ragline_tsv_length(to_tsvector(%s::regconfig, %s))"
        else:
            tsv = "%s::tsvector, %s"
        rows = []
        for chunk, vector in zip(chunks, vectors):
            row = [chunk.id, document.id, _cid(ref), scope.tenant, scope.owner, chunk.position, _text(chunk.text),
                   chunk.content_hash, chunk.page, _text(chunk.section), chunk.start, chunk.end, vector]
            if not self.index_enabled:
                row.append(len(chunk.terms.split()))
            elif language is not None:
                text = _text(f"{document.title or ''} {chunk.text}")
                row += [language, text, language, text]
            else:
                row += list(tsvector_literal(chunk.terms))
            rows.append(row)
        if rows:
            cur.executemany(
                'INSERT INTO chunks (id, doc_id, collection_id, tenant, owner, position, text, content_hash, page, '
                f'section, start, "end", embedding, tsv, length) VALUES ({", ".join(["%s"] * 13)}, {tsv})', rows)

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> list[str]:
        if not doc_ids:
            return []
        # Writes touch exactly the scope's owner: an owner deletes only its own
        # documents, an owner-less scope only shared ones.
        owner_sql, owner_params = (" AND owner IS NULL", []) if scope.owner is None else (" AND owner = %s",
                                                                                            [scope.owner])
        with self._tx(scope.tenant) as cur:
            ids = [_cid(r) for r in _resolve(cur, scope)]
            # Sorted locks: two deleters of overlapping sets cannot deadlock.
            visible = [r[0] for r in cur.execute(
                f"SELECT id FROM documents WHERE tenant = %s AND collection_id = ANY(%s) AND id = ANY(%s)"
                f"{owner_sql} ORDER BY id FOR UPDATE", [scope.tenant, ids, list(doc_ids), *owner_params])]
            if not visible:
                return []
            gone = cur.execute("DELETE FROM chunks WHERE doc_id = ANY(%s) RETURNING collection_id, length",
                               (visible,)).fetchall()
            cur.execute("DELETE FROM documents WHERE id = ANY(%s)", (visible,))
            for cid in sorted(ids):
                lengths = [r[1] for r in gone if r[0] == cid]
                cur.execute("UPDATE collections SET version = version + 1, chunk_total = chunk_total - %s, "
                            "length_total = length_total - %s WHERE id = %s", (len(lengths), sum(lengths), cid))
        return visible

    def get_hits(self, scope: Scope, scored: list[tuple[str, float]]) -> list[Hit]:
        if not scored:
            return []
        owner_sql, owner_params = _owner_sql(scope, "c")
        with self._tx(scope.tenant) as cur:
            ids = [_cid(r) for r in _resolve(cur, scope)]
            rows = cur.execute(
                'SELECT c.id, c.doc_id, d.source, c.text, c.page, c.section, c.position, c.start, c."end", '
                "d.title, d.metadata, col.name, c.owner FROM chunks c JOIN documents d ON d.id = c.doc_id "
                "JOIN collections col ON col.id = c.collection_id "
                f"WHERE c.id = ANY(%s) AND c.tenant = %s AND c.collection_id = ANY(%s){owner_sql}",
                [[cid for cid, _ in scored], scope.tenant, ids, *owner_params]).fetchall()
        found = {r[0]: r for r in rows}
        hits = []
        for chunk_id, score in scored:
            r = found.get(chunk_id)
            if r is not None:
                hits.append(Hit(chunk_id=r[0], doc_id=r[1], source=r[2], score=score, text=r[3], page=r[4],
                                section=r[5], position=r[6], start=r[7], end=r[8], title=r[9], metadata=r[10],
                                collection=r[11], owner=r[12]))
        return hits

    def counts(self) -> dict[str, int]:
        with self._tx(None) as cur:
            tenants, collections, documents, chunks = cur.execute(
                "SELECT (SELECT count(*) FROM tenants), (SELECT count(*) FROM collections), "
                "(SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)").fetchone()
        return {"tenants": tenants, "collections": collections, "documents": documents, "chunks": chunks}

    def export_documents(self, tenant: str, collection: str, *, batch: int = 100) -> Iterator[StoredDocument]:
        # One transaction per batch: the consumer may call the store between yields.
        after, cid = "", None
        while True:
            with self._tx(tenant) as cur:
                if cid is None:
                    cid = _cid(_resolve(cur, Scope(tenant, (collection,)))[0])
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

    # -- search (SearchIndex) ------------------------------------------------
    def dense_search(self, scope: Scope, collections: list[CollectionRef], vector: np.ndarray, k: int,
                     filters: Filter = ()) -> list[tuple[str, float]]:
        query = np.asarray(vector, dtype=np.float32).ravel()
        where, params = compile_postgres(filters)
        owner_sql, owner_params = _owner_sql(scope, "c")
        join = " JOIN documents d ON d.id = c.doc_id" if where else ""
        results: list[tuple[str, float]] = []
        with self._tx(scope.tenant) as cur:
            # ef_search below k would cap what one HNSW pass can return.
            cur.execute("SELECT set_config('hnsw.ef_search', %s, true), "
                        "set_config('hnsw.iterative_scan', 'relaxed_order', true)",
                        (str(min(1000, max(self._ef_search, k))),))
            for ref in collections:
                _check_ref(scope, ref)
                if query.shape[0] != ref.dimension:
                    raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection {ref.name!r} "
                                             f"has {ref.dimension}")
                cid = _cid(ref)
                row = cur.execute("SELECT chunk_total FROM collections WHERE id = %s", (cid,)).fetchone()
                if not row or row[0] == 0:
                    continue
                # The ANN form repeats the index's expression and predicate (literals, so the
                # planner can match the partial index even under a generic plan).
                ann = self.index_enabled and ref.dimension <= HNSW_MAX_DIM and row[0] >= self.exact_below
                expr = f"c.embedding::vector({int(ref.dimension)})" if ann else "c.embedding"
                rows = cur.execute(
                    f"SELECT id, dist FROM (SELECT c.id, {expr} <=> %s AS dist FROM chunks c{join} "
                    f"WHERE c.collection_id = {cid} AND c.tenant = %s{owner_sql}{where} "
                    f"ORDER BY dist LIMIT %s) nn ORDER BY dist, id",  # re-sorted: relaxed_order is approximate
                    [query, scope.tenant, *owner_params, *params, k]).fetchall()
                results.extend((cid_, _cosine(dist)) for cid_, dist in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> list[tuple[str, float]]:
        if not terms:
            return []
        where, params = compile_postgres(filters)
        owner_sql, owner_params = _owner_sql(scope, "c")
        join = " JOIN documents d ON d.id = c.doc_id" if where else ""
        results: list[tuple[str, float]] = []
        with self._tx(scope.tenant) as cur:
            for ref in collections:
                _check_ref(scope, ref)
                lexemes = _query_lexemes(cur, ref, terms)
                if not lexemes:
                    continue
                queries = [_quoted(lex) for lex in lexemes]
                rows = cur.execute(
                    _BM25_SQL.format(cid=_cid(ref), join=join, owner=owner_sql, where=where),
                    [lexemes, queries, scope.tenant, *owner_params, *params, " | ".join(queries), k]).fetchall()
                results.extend((r[0], float(r[1])) for r in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    # The catalog's own tables are the index: nothing to write separately.
    def upsert(self, collection: CollectionRef, owner: str | None, document: DocumentRecord,
               chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        return None

    def delete_chunks(self, collection: CollectionRef, chunk_ids: list[str]) -> None:
        return None

    def remove_documents(self, collection: CollectionRef, doc_ids: list[str]) -> None:
        return None

    def drop(self, collection: CollectionRef) -> None:
        return None

    # -- ANN index DDL -------------------------------------------------------
    def _ensure_ann_index(self, cid: int, dimension: int) -> None:
        """Build the collection's partial HNSW index unless it exists and is valid.
        CONCURRENTLY (outside any transaction) so writers of other collections are
        never blocked; a failure only costs speed, so it is logged, not raised."""
        if not self.index_enabled or dimension > HNSW_MAX_DIM or cid in self._ann_ready:
            return
        name = f"chunks_hnsw_{cid}"
        ddl = [f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON chunks USING hnsw "
               f"((embedding::vector({int(dimension)})) vector_cosine_ops) WHERE collection_id = {int(cid)}"]
        valid = self._ddl(cid, "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)", name, ddl)
        if valid:
            self._ann_ready.add(cid)

    def _drop_ann_index(self, cid: int) -> None:
        self._ann_ready.discard(cid)
        self._ddl(cid, None, None, [f"DROP INDEX CONCURRENTLY IF EXISTS chunks_hnsw_{int(cid)}"])

    def _ddl(self, cid: int, probe: str | None, name: str | None, statements: list[str]) -> bool:
        try:
            with self._pool.connection() as conn:
                conn.autocommit = True  # CONCURRENTLY cannot run in a transaction block
                try:
                    # Try-lock, never wait: a concurrent build in another process would
                    # wait for our snapshot while we waited for its lock.
                    if not conn.execute("SELECT pg_try_advisory_lock(%s)", (_ANN_LOCK + cid,)).fetchone()[0]:
                        return False
                    try:
                        row = conn.execute(probe, (name,)).fetchone() if probe else None
                        if row is not None and row[0]:
                            return True
                        conn.execute("SET statement_timeout = 0")  # a build may take longer than a query
                        if row is not None:  # left invalid by an interrupted build
                            conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                        for sql in statements:
                            conn.execute(sql)
                        return True
                    finally:
                        conn.execute(f"SET statement_timeout = {self._timeout_ms}")
                        conn.execute("SELECT pg_advisory_unlock(%s)", (_ANN_LOCK + cid,))
                finally:
                    conn.autocommit = False
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            log.warning("HNSW index maintenance for collection %s failed (search stays exact): %s", cid, exc)
            return False


# -- SQL and helpers ---------------------------------------------------------------
_BM25_SQL = """
WITH q AS (
    SELECT t.lexeme, t.query FROM unnest(%s::text[], %s::tsquery[]) AS t(lexeme, query)
), stats AS (
    SELECT chunk_total::float8 AS n, greatest(length_total, 1)::float8 / greatest(chunk_total, 1) AS avgdl
    FROM collections WHERE id = {cid}
), idf AS (  -- FTS5: idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6
    SELECT q.lexeme, greatest(ln((s.n - h.hits + 0.5) / (h.hits + 0.5)), 1e-6) AS idf
    FROM q CROSS JOIN stats s
    CROSS JOIN LATERAL (SELECT count(*)::float8 AS hits FROM chunks x
                        WHERE x.collection_id = {cid} AND x.tsv @@ q.query) h
), matched AS (
    SELECT c.id, c.tsv, c.length FROM chunks c{join}
    WHERE c.collection_id = {cid} AND c.tenant = %s{owner}{where} AND c.tsv @@ %s::tsquery
)
SELECT m.id, sum(i.idf * (f.tf * (%(k1)s + 1)) / (f.tf + %(k1)s * (1 - %(b)s + %(b)s * m.length / s.avgdl))) AS score
FROM matched m CROSS JOIN stats s
CROSS JOIN LATERAL (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
                    FROM unnest(m.tsv) u) f
JOIN idf i ON i.lexeme = f.lexeme
GROUP BY m.id ORDER BY score DESC, m.id LIMIT %s
""".replace("%(k1)s", repr(K1)).replace("%(b)s", repr(B))


def tsvector_literal(terms: str) -> tuple[str, int]:
    """ragline's analyzed terms (space-separated) → (a tsvector literal with positions,
    the number of terms). No text-search parser touches the terms, so term
    frequencies are exact (up to ``MAX_POSITIONS`` per term and chunk)."""
    words = terms.split()
    positions: dict[str, list[int]] = {}
    for i, word in enumerate(words, 1):
        lexeme = _lexeme(word)
        if lexeme is not None:
            positions.setdefault(lexeme, []).append(i)
    # Positions past PostgreSQL's limit would collapse into one; renumber so counts survive.
    renumber = len(words) > MAX_POSITION
    parts = []
    for lexeme, pos in positions.items():
        kept = range(1, min(len(pos), MAX_POSITIONS) + 1) if renumber else pos[:MAX_POSITIONS]
        parts.append(_quoted(lexeme) + ":" + ",".join(map(str, kept)))
    return " ".join(parts), len(words)


def _query_lexemes(cur: psycopg.Cursor, ref: CollectionRef, terms: list[str]) -> list[str]:
    """The lexemes a query's terms stand for in this collection's tsvectors
    (duplicates kept: FTS5 scores a repeated phrase twice)."""
    language = ref.config.get("language")
    if language is None:
        return [lex for lex in map(_lexeme, terms) if lex is not None]
    rows = cur.execute("SELECT u.lexeme FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, ord) "
                       "CROSS JOIN LATERAL unnest(to_tsvector(%s::regconfig, t.term)) u ORDER BY t.ord, u.lexeme",
                       ([_text(t) for t in terms], language)).fetchall()
    return [r[0] for r in rows if len(r[0].encode()) <= MAX_LEXEME_BYTES]


def _lexeme(term: str) -> str | None:
    term = _fold(term)
    if not term or len(term.encode()) > MAX_LEXEME_BYTES or "\x00" in term:
        return None
    return term


def _fold(term: str) -> str:
    """Drop diacritics from Latin letters, as FTS5's unicode61 tokenizer does by
    default (``remove_diacritics``), so "café" and "cafe" meet as in SQLite."""
    if term.isascii():
        return term
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", term):
        if unicodedata.combining(ch) and out and out[-1] < "\u0250":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _quoted(lexeme: str) -> str:
    """A lexeme quoted for tsvector/tsquery input: taken literally, whatever it holds."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _check_language(cur: psycopg.Cursor, language: Any) -> None:
    if not isinstance(language, str) or cur.execute("SELECT to_regconfig(%s)", (language,)).fetchone()[0] is None:
        names = ", ".join(r[0] for r in cur.execute("SELECT cfgname FROM pg_ts_config ORDER BY 1"))
        raise ConfigError(f"collection language {language!r} is not a PostgreSQL text search configuration; "
                          f"use one of: {names}")


def _resolve(cur: psycopg.Cursor, scope: Scope) -> list[CollectionRef]:
    rows = cur.execute("SELECT name, uid, dimension, config FROM collections WHERE tenant = %s AND name = ANY(%s)",
                       (scope.tenant, list(scope.collections))).fetchall()
    found = {r[0]: CollectionRef(scope.tenant, r[0], r[1], r[2], r[3]) for r in rows}
    for name in scope.collections:
        if name not in found:
            raise NotFoundError(f"collection {name!r} not found for tenant {scope.tenant!r}")
    return [found[name] for name in dict.fromkeys(scope.collections)]


def _owner_sql(scope: Scope, alias: str) -> tuple[str, list[Any]]:
    if scope.owner is None:
        return f" AND {alias}.owner IS NULL", []
    return f" AND ({alias}.owner IS NULL OR {alias}.owner = %s)", [scope.owner]


def _cid(ref: CollectionRef) -> int:
    """The collection's row id, the first part of the key ``<id>.<random>``."""
    return int(ref.key.split(".", 1)[0])


def _check_ref(scope: Scope, ref: CollectionRef) -> None:
    if ref.tenant != scope.tenant:
        raise StoreError("a collection of another tenant was passed to a scoped search")


def _cosine(distance: float) -> float:
    # pgvector answers NaN for a zero vector: no direction, scored as orthogonal.
    return 0.0 if distance is None or math.isnan(distance) else 1.0 - float(distance)


def _stored(collection: str, d: tuple, rows: list[tuple]) -> StoredDocument:
    record = DocumentRecord(id=d[0], source=d[2], origin=d[3], title=d[4], media_type=d[5], content_hash=d[6],
                            metadata=d[7])
    chunks = [ChunkRecord(id=r[1], position=r[2], text=r[3], content_hash=r[4], start=r[5], end=r[6], terms="",
                          page=r[7], section=r[8]) for r in rows]
    vectors = (np.stack([np.asarray(r[9], dtype=np.float32) for r in rows]) if rows
               else np.zeros((0, 0), dtype=np.float32))
    return StoredDocument(collection=collection, owner=d[1], record=record, chunks=chunks, vectors=vectors)


def _text(value: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL; U+FFFD keeps every offset where it was."""
    return value.replace("\x00", "\ufffd") if value and "\x00" in value else value


def _clean(value: Any) -> Any:
    """User metadata made storable as jsonb (no NUL in strings)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {_text(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str)  # as SQLite stores it


# -- opening and errors -------------------------------------------------------------
_CONFIG_HINTS = ("authentication failed", "does not exist", "invalid ", "no password supplied", "not permitted",
                 "permission denied")


def _prepare(url: str, kwargs: dict[str, Any]) -> tuple[bool, bool]:
    """Connect once, apply migrations and probe the RLS role; every failure becomes a
    ``ConfigError`` or ``StoreUnavailableError`` naming the setting to check."""
    where = f"RAGLINE_STORE__URL ({redact(url)})"
    try:
        psycopg.conninfo.conninfo_to_dict(url)
        conn = psycopg.connect(url, **kwargs)
    except psycopg.Error as exc:
        text = _first_line(exc)
        if isinstance(exc, psycopg.ProgrammingError) or any(h in text.lower() for h in _CONFIG_HINTS):
            raise ConfigError(f"{where}: cannot connect to PostgreSQL: {text}") from None
        raise StoreUnavailableError(f"the PostgreSQL store at {where} is unreachable: {text}") from None
    try:
        available = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        conn.rollback()
        if available is None:
            raise ConfigError(f"the PostgreSQL server at {where} does not have the pgvector extension "
                              "('vector') installed; install pgvector 0.8 or newer on the server")
        try:
            migrate(conn)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise ConfigError(f"cannot initialise the database at {where}: {_first_line(exc)}. If this is "
                              "about the extension, run CREATE EXTENSION vector as a superuser once") from None
        use_role = can_use_rls_role(conn)
        return use_role, rls_enforced(conn, use_role)
    except RaglineError:
        raise
    except psycopg.Error as exc:
        text = _first_line(exc)
        if isinstance(exc, psycopg.OperationalError):
            raise StoreUnavailableError(f"the PostgreSQL store at {where} is unreachable: {text}") from None
        raise ConfigError(f"cannot initialise the database at {where}: {text}") from None
    finally:
        conn.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _mapped(exc: BaseException, timeout: float) -> StoreError:
    """Driver errors → ragline's: the ones that mean "try again later" become
    ``StoreUnavailableError`` (HTTP 503)."""
    text = _first_line(exc)
    if isinstance(exc, PoolClosed):
        return StoreError("the store is closed")
    if isinstance(exc, PoolTimeout):
        return StoreUnavailableError(f"the PostgreSQL store is unreachable (no connection within {timeout:g} s); "
                                     "check RAGLINE_STORE__URL and the server, or retry later")
    if isinstance(exc, psycopg.errors.TransactionRollback):
        return StoreUnavailableError(f"the PostgreSQL store was busy (retry): {text}")
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return StoreUnavailableError(f"a PostgreSQL statement timed out (store.statement_timeout_s): {text}")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return StoreUnavailableError(f"the PostgreSQL store is unreachable (retry later): {text}")
    if isinstance(exc, psycopg.errors.UniqueViolation):
        return StoreError(f"store write refused, duplicate id: {text}")
    return StoreError(f"store operation failed: {text}")


def open_backend(url: str | None, settings: Any) -> Any:
    """The registry's entry: PostgreSQL as catalog, admin and index."""
    from .facade import Store

    if not url:
        raise ConfigError("RAGLINE_STORE__URL: the PostgreSQL backend needs a postgresql:// URL")
    store = PostgresStore(url, settings)
    return Store(store, store, store, url=redact(url))
