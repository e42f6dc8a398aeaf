"""The embedded default store: SQLite (WAL) as catalog, admin tables and search
index in one file. Keyword search is one FTS5 table per collection; dense search
is an in-memory vector matrix per collection, rebuilt from SQLite whenever the
collection's version moves (exact cosine). Collections of ``store.ann_above`` chunks
or more are searched through HNSW and tantivy side indexes in ``<db>.ann/`` instead
(``side``), kept in step with these tables, which stay the system of record.

Keyword statistics (IDF, average length) are per collection, so one tenant's
text never shifts another tenant's scores. Paired with an external index
(Qdrant), ``index=False`` keeps the catalog only: no FTS5 rows are written.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelMismatchError, NotFoundError, StoreError
from ...models import Hit, Scope
from ..base import Roles, VectorLookup
from ..facade import Store
from ..sql.common import SwitchIncomplete, check_switch, lookup_batches, owned_exactly, owner_visibility, row_id
from ..sql.records import CATEGORY_SOURCE_COLUMN, SCHEMA_BALANCES, SCHEMA_CATEGORIES, SCHEMA_RECORDS, RecordsTables
from ..sql.usage import COUNTED, HIT_COUNTERS, SCHEMA_USAGE, UsageTables
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
from .admin import INDEXES_ADMIN, SCHEMA_ADMIN, AdminTables
from .conn import SQLiteDatabase
from .conversations import SCHEMA_CONVERSATIONS, SQLiteConversations
from .search import SQLiteSearch
from .side import SideIndexes

SCHEMA = """
CREATE TABLE IF NOT EXISTS tenants (
    name TEXT PRIMARY KEY,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS collections (
    id INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    model_id TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    config TEXT NOT NULL DEFAULT '{}',
    version INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    uid TEXT,
    UNIQUE (tenant, name)
);
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    tenant TEXT NOT NULL,
    owner TEXT,
    source TEXT NOT NULL,
    origin TEXT,
    title TEXT,
    media_type TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL DEFAULT 'indexed',
    error TEXT,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    bytes INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_scope ON documents (collection_id, owner);
CREATE INDEX IF NOT EXISTS documents_origin ON documents (collection_id, origin);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    collection_id INTEGER NOT NULL,
    tenant TEXT NOT NULL,
    owner TEXT,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    page INTEGER,
    section TEXT,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_id);
CREATE INDEX IF NOT EXISTS chunks_collection ON chunks (collection_id);
"""


class SQLiteStore(AdminTables):
    """The ``Catalog`` and ``Admin`` roles on one SQLite file, and the owner of the
    file's other roles (``roles()``): search, conversations, records and usage, each an
    object over the one ``SQLiteDatabase`` they share. Thread-safe: a connection per
    thread, writes serialised by SQLite's own lock (``BEGIN IMMEDIATE``)."""

    def __init__(self, path: Path | str, *, index: bool = True, ann_above: int = 50_000, ef_search: int = 400,
                 keyword_above: int | None = None, side_indexes_loaded: int = 16,
                 matrices_mb: int = 256, busy_timeout_s: float = 5.0) -> None:
        self.path = Path(path)
        self.index_enabled = index
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create data directory {self.path.parent}: {exc}") from exc
        self.db = SQLiteDatabase(self.path, busy_timeout_s)
        # Larger collections: tantivy (keyword_above chunks; None: ann_above) and HNSW (ann_above)
        # side indexes beside the file (side).
        self.search = SQLiteSearch(self.db, SideIndexes(self.path, self.db.read, ann_above=ann_above,
                                                        ef_search=ef_search, keyword_above=keyword_above,
                                                        max_loaded=side_indexes_loaded) if index else None,
                                   matrices_mb=matrices_mb)
        self.conversations = SQLiteConversations(self.db)
        self.records = RecordsTables(self.db)
        self.counters = UsageTables(self.db, self.resolve)
        try:
            conn = self.db.conn()
            conn.executescript(SCHEMA)  # executescript manages its own transaction
            conn.executescript(SCHEMA_ADMIN)
            conn.executescript(SCHEMA_RECORDS)
            conn.executescript(SCHEMA_BALANCES)
            conn.executescript(SCHEMA_CATEGORIES)
            conn.executescript(SCHEMA_USAGE)
            self._migrate(conn)
            conn.executescript(INDEXES_ADMIN)
            conn.executescript(SCHEMA_CONVERSATIONS)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot initialise the store at {self.path}: {exc}") from exc

    def probe_write(self, timeout_s: float) -> None:
        """See ``SQLiteDatabase.probe_write`` (readiness under another process's lock)."""
        self.db.probe_write(timeout_s)

    def roles(self) -> Roles:
        """This file's roles, for the ``Store`` facade."""
        return Roles(catalog=self, admin=self, index=self.search, conversations=self.conversations,
                     records=self.records, counters=self.counters)

    def close(self) -> None:
        self.db.close()

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Columns added since the first release, for stores created before them."""
        added = set()
        for table, column, ddl in (("collections", "uid", "TEXT"), ("jobs", "worker", "TEXT"),
                                   ("jobs", "lease_until", "REAL"), ("api_keys", "owner", "TEXT"),
                                   ("documents", "bytes", "INTEGER NOT NULL DEFAULT 0")):
            names = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            if column not in names:
                try:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {ddl}")
                    added.add(column)
                except sqlite3.OperationalError as exc:  # another process opening the file added it first
                    if "duplicate column" not in str(exc):
                        raise
        if "category_source" not in {r[1] for r in conn.execute("PRAGMA table_info(transactions)")}:
            try:
                conn.execute(CATEGORY_SOURCE_COLUMN)
            except sqlite3.OperationalError as exc:  # another process opening the file added it first
                if "duplicate column" not in str(exc):
                    raise
        conn.execute("UPDATE collections SET uid = id || '.' || lower(hex(randomblob(6))) WHERE uid IS NULL")
        if "bytes" in added:  # sizes of documents written before quotas, once (as stored_bytes counts them)
            conn.execute("UPDATE documents SET bytes = (SELECT coalesce(sum(length(CAST(c.text AS BLOB)) "
                         "+ length(c.vector)), 0) FROM chunks c WHERE c.doc_id = documents.id)")

    # -- tenants and collections ---------------------------------------------
    def tenants(self) -> list[str]:
        return [r[0] for r in self._read("SELECT name FROM tenants ORDER BY name")]

    def ensure_tenant(self, tenant: str) -> None:
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO tenants VALUES (?, ?)", (tenant, time.time()))

    def tenant_created(self, tenant: str) -> float | None:
        rows = self._read("SELECT created FROM tenants WHERE name = ?", (tenant,))
        return rows[0][0] if rows else None

    def ensure_collection(self, scope: Scope, *, model_id: str, dimension: int,
                          config: dict[str, Any] | None = None) -> CollectionInfo:
        with self._write() as conn:
            row = conn.execute("SELECT model_id, dimension FROM collections WHERE tenant = ? AND name = ?",
                               (scope.tenant, scope.collection)).fetchone()
            if row is None:
                now = time.time()
                conn.execute("INSERT OR IGNORE INTO tenants VALUES (?, ?)", (scope.tenant, now))
                cur = conn.execute(
                    "INSERT INTO collections (tenant, name, model_id, dimension, config, created) VALUES (?, ?, ?, ?, ?, ?)",
                    (scope.tenant, scope.collection, model_id, dimension, json.dumps(config or {}), now),
                )
                cid = cur.lastrowid
                conn.execute("UPDATE collections SET uid = ? WHERE id = ?", (f"{cid}.{uuid.uuid4().hex[:12]}", cid))
                conn.execute(f"CREATE VIRTUAL TABLE fts_{cid} USING fts5(terms, tokenize='unicode61')")
            elif (row[0], row[1]) != (model_id, dimension):
                raise ModelMismatchError.between(scope.collection, row[0], row[1], model_id, dimension)
        return self.get_collection(scope)

    def settle_language(self, scope: Scope, language: str) -> str:
        with self._write() as conn:
            conn.execute("UPDATE collections SET config = json_set(config, '$.language', ?) WHERE tenant = ? "
                         "AND name = ? AND json_extract(config, '$.language') IS NULL",
                         (language, scope.tenant, scope.collection))
            row = conn.execute("SELECT json_extract(config, '$.language') FROM collections WHERE tenant = ? "
                               "AND name = ?", (scope.tenant, scope.collection)).fetchone()
        if row is None:
            raise NotFoundError(f"collection {scope.collection!r} not found for tenant {scope.tenant!r}")
        return row[0]

    def resolve(self, scope: Scope) -> list[CollectionRef]:
        marks = ",".join("?" * len(scope.collections))
        rows = self._read(f"SELECT name, uid, dimension, config, model_id FROM collections "
                          f"WHERE tenant = ? AND name IN ({marks})", [scope.tenant, *scope.collections])
        found = {r[0]: CollectionRef(scope.tenant, r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows}
        for name in scope.collections:
            if name not in found:
                raise NotFoundError(f"collection {name!r} not found for tenant {scope.tenant!r}")
        return [found[name] for name in dict.fromkeys(scope.collections)]

    def _collection_ids(self, scope: Scope) -> dict[str, int]:
        return {ref.name: row_id(ref) for ref in self.resolve(scope)}

    def _info(self, row: tuple) -> CollectionInfo:
        cid, tenant, name, model_id, dimension, config, created = row
        docs, chunks = self._read(
            "SELECT count(*), coalesce(sum(chunk_count), 0) FROM documents WHERE collection_id = ?", (cid,)
        )[0]
        return CollectionInfo(tenant=tenant, name=name, model_id=model_id, dimension=dimension,
                              config=json.loads(config), documents=docs, chunks=chunks, created=created)

    _INFO_COLUMNS = "id, tenant, name, model_id, dimension, config, created"

    def get_collection(self, scope: Scope) -> CollectionInfo:
        rows = self._read(f"SELECT {self._INFO_COLUMNS} FROM collections WHERE tenant = ? AND name = ?",
                          (scope.tenant, scope.collection))
        if not rows:
            raise NotFoundError(f"collection {scope.collection!r} not found for tenant {scope.tenant!r}")
        return self._info(rows[0])

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        rows = self._read(f"SELECT {self._INFO_COLUMNS} FROM collections WHERE tenant = ? ORDER BY name", (tenant,))
        return [self._info(r) for r in rows]

    def delete_collection(self, scope: Scope) -> list[CollectionRef]:
        refs = self.resolve(scope)
        with self._write() as conn:
            for ref in refs:
                cid = row_id(ref)
                conn.execute("DELETE FROM chunks WHERE collection_id = ?", (cid,))
                conn.execute("DELETE FROM collections WHERE id = ?", (cid,))
                conn.execute(f"DROP TABLE IF EXISTS fts_{cid}")
        self.search.forget([row_id(ref) for ref in refs], [ref.key for ref in refs])
        return refs

    # -- documents -----------------------------------------------------------
    _DOC_COLUMNS = ("d.id, col.name, d.owner, d.source, d.origin, d.title, d.media_type, d.content_hash, "
                    "d.metadata, d.state, d.error, d.chunk_count, d.created, d.updated")

    def _doc_rows(self, scope: Scope, where: str, params: list[Any]) -> list[DocumentInfo]:
        ids = self._collection_ids(scope)
        owner_sql, owner_params = _owner_sql(scope, "d")
        marks = ",".join("?" * len(ids))
        rows = self._read(
            f"SELECT {self._DOC_COLUMNS} FROM documents d JOIN collections col ON col.id = d.collection_id "
            f"WHERE d.tenant = ? AND d.collection_id IN ({marks}){owner_sql}{where} ORDER BY d.source",
            [scope.tenant, *ids.values(), *owner_params, *params],
        )
        return [DocumentInfo(id=r[0], collection=r[1], owner=r[2], source=r[3], origin=r[4], title=r[5],
                             media_type=r[6], content_hash=r[7], metadata=json.loads(r[8]), state=r[9],
                             error=r[10], chunks=r[11], created=r[12], updated=r[13]) for r in rows]

    def get_document(self, scope: Scope, doc_id: str) -> DocumentInfo | None:
        rows = self._doc_rows(scope, " AND d.id = ?", [doc_id])
        return rows[0] if rows else None

    def list_documents(self, scope: Scope, *, origin_prefix: str | None = None) -> list[DocumentInfo]:
        if origin_prefix is None:
            return self._doc_rows(scope, "", [])
        escaped = origin_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._doc_rows(scope, " AND d.origin LIKE ? ESCAPE '\\'", [escaped + "%"])

    def chunk_vectors(self, scope: Scope, doc_id: str) -> dict[str, tuple[str, np.ndarray]]:
        if self.get_document(scope, doc_id) is None:
            return {}
        rows = self._read("SELECT content_hash, id, vector FROM chunks WHERE doc_id = ? AND tenant = ?",
                          (doc_id, scope.tenant))
        return {h: (cid, np.frombuffer(v, dtype=np.float32)) for h, cid, v in rows}

    def vectors(self, scope: Scope, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        if not chunk_ids:
            return {}
        ids = self._collection_ids(scope)
        owner_sql, owner_params = _owner_sql(scope, "c")
        found: dict[str, np.ndarray] = {}
        for i in range(0, len(chunk_ids), 500):
            batch = chunk_ids[i:i + 500]
            rows = self._read(
                f"SELECT c.id, c.vector FROM chunks c WHERE +c.tenant = ? "
                f"AND +c.collection_id IN ({','.join('?' * len(ids))}){owner_sql} AND c.id IN ({','.join('?' * len(batch))})",
                [scope.tenant, *ids.values(), *owner_params, *batch],
            )
            found.update((cid, np.frombuffer(v, dtype=np.float32)) for cid, v in rows)
        return found

    def document_chunk_ids(self, scope: Scope, doc_id: str) -> list[str]:
        if self.get_document(scope, doc_id) is None:
            return []
        rows = self._read("SELECT id FROM chunks WHERE doc_id = ? AND tenant = ? ORDER BY position",
                          (doc_id, scope.tenant))
        return [r[0] for r in rows]

    def put_document(self, scope: Scope, document: DocumentRecord, chunks: list[ChunkRecord],
                     vectors: np.ndarray) -> list[str]:
        if len(chunks) != len(vectors):
            raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors for {document.source}")
        cid = self._collection_ids(Scope(scope.tenant, (scope.collection,)))[scope.collection]
        now = time.time()
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self._write() as conn:
            existing = conn.execute("SELECT tenant, collection_id, owner FROM documents WHERE id = ?",
                                    (document.id,)).fetchone()
            if existing is not None and existing != (scope.tenant, cid, scope.owner):
                raise StoreError(f"document id {document.id} belongs to another scope")
            old_ids = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE doc_id = ?", (document.id,))}
            if self.index_enabled:
                conn.execute(f"DELETE FROM fts_{cid} WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)",
                             (document.id,))
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (document.id,))
            conn.execute(
                "INSERT INTO documents (id, collection_id, tenant, owner, source, origin, title, media_type, "
                "content_hash, metadata, state, error, chunk_count, created, updated, bytes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'indexed', NULL, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET source=excluded.source, origin=excluded.origin, title=excluded.title, "
                "media_type=excluded.media_type, content_hash=excluded.content_hash, metadata=excluded.metadata, "
                "state='indexed', error=NULL, chunk_count=excluded.chunk_count, updated=excluded.updated, "
                "bytes=excluded.bytes",
                (document.id, cid, scope.tenant, scope.owner, document.source, document.origin, document.title,
                 document.media_type, document.content_hash, json.dumps(document.metadata, default=str),
                 len(chunks), now, now, stored_bytes(chunks, vectors)),
            )
            for chunk, vector in zip(chunks, vectors):
                cur = conn.execute(
                    'INSERT INTO chunks (id, doc_id, collection_id, tenant, owner, position, text, content_hash, '
                    'page, section, start, "end", vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
                    (chunk.id, document.id, cid, scope.tenant, scope.owner, chunk.position, chunk.text,
                     chunk.content_hash, chunk.page, chunk.section, chunk.start, chunk.end, vector.tobytes()),
                )
                if self.index_enabled:
                    conn.execute(f"INSERT INTO fts_{cid} (rowid, terms) VALUES (?, ?)", (cur.lastrowid, chunk.terms))
            conn.execute("UPDATE collections SET version = version + 1 WHERE id = ?", (cid,))
        return sorted(old_ids - {c.id for c in chunks})

    def delete_documents(self, scope: Scope, doc_ids: list[str]) -> list[str]:
        if not doc_ids:
            return []
        ids = self._collection_ids(scope)
        # Writes touch exactly the scope's owner: an owner deletes only its own
        # documents, an owner-less scope only shared ones.
        owner_sql, owner_params = owned_exactly(scope, "owner", "?")
        deleted: list[str] = []
        with self._write() as conn:
            for cid in ids.values():
                for i in range(0, len(doc_ids), 500):
                    batch = doc_ids[i:i + 500]
                    marks = ",".join("?" * len(batch))
                    visible = [r[0] for r in conn.execute(
                        f"SELECT id FROM documents WHERE tenant = ? AND collection_id = ? AND id IN ({marks}){owner_sql}",
                        [scope.tenant, cid, *batch, *owner_params]).fetchall()]
                    if not visible:
                        continue
                    vmarks = ",".join("?" * len(visible))
                    if self.index_enabled:
                        conn.execute(f"DELETE FROM fts_{cid} WHERE rowid IN "
                                     f"(SELECT rowid FROM chunks WHERE doc_id IN ({vmarks}))", visible)
                    conn.execute(f"DELETE FROM documents WHERE id IN ({vmarks})", visible)
                    deleted += visible
                conn.execute("UPDATE collections SET version = version + 1 WHERE id = ?", (cid,))
        return deleted

    def get_hits(self, scope: Scope, scored: list[tuple[str, float]]) -> list[Hit]:
        if not scored:
            return []
        ids = self._collection_ids(scope)
        owner_sql, owner_params = _owner_sql(scope, "c")
        chunk_ids = [cid for cid, _ in scored]
        found: dict[str, tuple] = {}
        for i in range(0, len(chunk_ids), 500):
            batch = chunk_ids[i:i + 500]
            rows = self._read(
                f"SELECT c.id, c.doc_id, d.source, c.text, c.page, c.section, c.position, c.start, c.\"end\", "
                f"d.title, d.metadata, col.name, c.owner, {HIT_COUNTERS} FROM chunks c "
                f"JOIN documents d ON d.id = c.doc_id JOIN collections col ON col.id = c.collection_id {COUNTED} "
                # '+' keeps the planner on the id index (not a scan of the whole collection).
                f"WHERE +c.tenant = ? AND +c.collection_id IN ({','.join('?' * len(ids))}){owner_sql} "
                f"AND c.id IN ({','.join('?' * len(batch))})",
                [scope.tenant, *ids.values(), *owner_params, *batch],
            )
            found.update((r[0], r) for r in rows)
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
        tenants, collections, documents, chunks = self._read(
            "SELECT (SELECT count(*) FROM tenants), (SELECT count(*) FROM collections), "
            "(SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)"
        )[0]
        return {"tenants": tenants, "collections": collections, "documents": documents, "chunks": chunks}

    def usage(self, tenant: str) -> TenantUsage:
        row = self._read("SELECT count(*), coalesce(sum(chunk_count), 0), coalesce(sum(bytes), 0) FROM documents "
                         "WHERE collection_id IN (SELECT id FROM collections WHERE tenant = ?)", (tenant,))[0]
        return TenantUsage(*row)

    def export_documents(self, tenant: str, collection: str, *, batch: int = 100) -> Iterator[StoredDocument]:
        cid = self._collection_ids(Scope(tenant, (collection,)))[collection]
        after = ""
        while True:
            docs = self._read(
                "SELECT id, owner, source, origin, title, media_type, content_hash, metadata FROM documents "
                "WHERE collection_id = ? AND id > ? ORDER BY id LIMIT ?", (cid, after, batch))
            if not docs:
                return
            after = docs[-1][0]
            marks = ",".join("?" * len(docs))
            rows = self._read(
                f'SELECT doc_id, id, position, text, content_hash, start, "end", page, section, vector FROM chunks '
                f"WHERE doc_id IN ({marks}) ORDER BY doc_id, position, rowid", [d[0] for d in docs])
            by_doc: dict[str, list[tuple]] = {}
            for r in rows:
                by_doc.setdefault(r[0], []).append(r)
            for d in docs:
                record = DocumentRecord(id=d[0], source=d[2], origin=d[3], title=d[4], media_type=d[5],
                                        content_hash=d[6], metadata=json.loads(d[7]))
                chunk_rows = by_doc.get(d[0], [])
                chunks = [ChunkRecord(id=r[1], position=r[2], text=r[3], content_hash=r[4], start=r[5], end=r[6],
                                      terms="", page=r[7], section=r[8]) for r in chunk_rows]
                vectors = (np.stack([np.frombuffer(r[9], dtype=np.float32) for r in chunk_rows])
                           if chunk_rows else np.zeros((0, 0), dtype=np.float32))
                yield StoredDocument(collection=collection, owner=d[1], record=record, chunks=chunks, vectors=vectors)

    def switch_model(self, tenant: str, collection: str, *, old_model: str, model_id: str, dimension: int,
                     vectors: VectorLookup, key: str | None = None) -> list[str]:
        try:
            with self._write() as conn:
                row = conn.execute("SELECT id, model_id, dimension FROM collections WHERE tenant = ? AND name = ?",
                                   (tenant, collection)).fetchone()
                if row is None:
                    raise NotFoundError(f"collection {collection!r} not found for tenant {tenant!r}")
                cid, current, old_dimension = row
                check_switch(collection, current, old_model)
                chunks = conn.execute("SELECT rowid, id, content_hash FROM chunks WHERE collection_id = ? "
                                      "ORDER BY rowid", (cid,)).fetchall()
                missing: list[str] = []
                for part, found in lookup_batches(chunks, vectors, dimension, missing):
                    if not missing:  # once one is missing, all is rolled back: stop writing
                        conn.executemany("UPDATE chunks SET vector = ? WHERE rowid = ?",
                                         [(found[r[1]].tobytes(), r[0]) for r in part])
                if missing:
                    raise SwitchIncomplete(missing)
                conn.execute("UPDATE documents SET bytes = bytes + chunk_count * ? WHERE collection_id = ?",
                             (4 * (dimension - old_dimension), cid))
                conn.execute("UPDATE collections SET model_id = ?, dimension = ?, version = version + 1, "
                             "uid = coalesce(?, uid) WHERE id = ?", (model_id, dimension, key, cid))
        except SwitchIncomplete as exc:
            return exc.missing
        return []


def _owner_sql(scope: Scope, alias: str) -> tuple[str, list[Any]]:
    """The rows of ``alias`` the scope may read (``visibility``), in SQLite's placeholders."""
    return owner_visibility(scope, alias, "?")


def open_backend(url: str | None, settings: Any) -> Store:
    """The registry's entry: SQLite as catalog, admin and index."""
    from .. import sqlite_path

    store = SQLiteStore(sqlite_path(url, settings), ann_above=settings.store.ann_above,
                        ef_search=settings.store.ann_ef, keyword_above=settings.store.keyword_index_above,
                        side_indexes_loaded=settings.store.side_indexes_loaded,
                        matrices_mb=settings.store.exact_matrices_mb,
                        busy_timeout_s=settings.store.sqlite_busy_timeout_s)
    return Store(store.roles(), url=str(store.path))
