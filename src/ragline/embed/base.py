"""The Embedder protocol and the embedding cache keyed by (tenant, model id, content hash)."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

_log = logging.getLogger("ragline.embed")

@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    Documents and queries are separate calls so task-aware models can treat them
    differently (Gemini's task types, E5's prefixes); symmetric models (MiniLM)
    embed both the same way.

    Optional, read with ``getattr``: ``count_tokens(text) -> int`` (the model's own
    tokenizer), ``max_tokens`` (its input limit: longer text is cut by the model),
    ``batch_size`` (texts per call that keep it efficient),
    ``embed_documents_counted(texts) -> (vectors, tokens)`` (the tokens read, from the
    tokenization that embedded them: usage metering without counting again).
    """

    @property
    def model_id(self) -> str:
        """Which model made the vectors (recorded with a collection)."""
        ...

    @property
    def dimension(self) -> int:
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, rows in the caller's order."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32."""
        ...


class EmbeddingCache:
    """Vectors by (tenant, model id, content hash) in a small SQLite file of their own.

    Per tenant, because a shared cache is a side channel: how fast a job runs would
    tell one tenant whether another had stored an exact text (a guessed PIN ran 3x
    faster). The tenant enters the stored key as H(tenant, content hash), so the file
    holds no tenant names or text: only model ids, opaque hashes and vectors.

    A cache must never fail ingestion: SQLite errors (locked, corrupt, disk full) are
    logged as warnings and read as a miss or a skipped write.
    """

    SCHEMA_VERSION = 1  # 0: keys without the tenant (shared between tenants), cleared on upgrade

    def __init__(self, path: Path, *, busy_timeout: float = 2.0) -> None:
        self.path = path
        self._busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._retry_at = 0.0
        self._lock = threading.Lock()
        self.errors = 0  # SQLite errors absorbed so far (tests and monitoring)

    # -- connection ----------------------------------------------------------
    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is not None or time.monotonic() < self._retry_at:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                   timeout=self._busy_timeout)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, "
                             "PRIMARY KEY (model, hash)) WITHOUT ROWID")
                if conn.execute("PRAGMA user_version").fetchone()[0] < self.SCHEMA_VERSION:
                    conn.execute("DELETE FROM vectors")
                    conn.execute(f"PRAGMA user_version = {self.SCHEMA_VERSION}")
            except BaseException:
                conn.close()
                raise
        except (sqlite3.Error, OSError) as exc:
            self._retry_at = time.monotonic() + 60.0  # a corrupt file stays corrupt: do not retry every batch
            self._failed("open", exc)
            return None
        self._conn = conn
        return conn

    def _failed(self, operation: str, exc: Exception) -> None:
        self.errors += 1
        if self.errors == 1 or self.errors % 100 == 0:  # a warning, not a flood
            _log.warning("embedding cache %s failed (%s: %s) at %s; continuing without it (%d error(s) so far)",
                         operation, type(exc).__name__, exc, self.path, self.errors)

    @staticmethod
    def _key(tenant: str, content_hash: str) -> str:
        return hashlib.sha256(f"{tenant}\x1f{content_hash}".encode()).hexdigest()

    # -- public --------------------------------------------------------------
    def get_many(self, model_id: str, hashes: Sequence[str], *, tenant: str) -> dict[str, np.ndarray]:
        """The cached vectors of ``tenant`` among ``hashes`` (content hashes); any error reads as a miss."""
        keys = {self._key(tenant, h): h for h in dict.fromkeys(hashes)}
        found: dict[str, np.ndarray] = {}
        with self._lock:
            conn = self._connection()
            if conn is None:
                return found
            try:
                batch_keys = list(keys)
                for i in range(0, len(batch_keys), 500):
                    batch = batch_keys[i:i + 500]
                    marks = ",".join("?" * len(batch))
                    rows = conn.execute(
                        f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})", [model_id, *batch]
                    ).fetchall()
                    found.update((keys[k], np.frombuffer(v, dtype=np.float32)) for k, v in rows)
            except sqlite3.Error as exc:
                self._failed("read", exc)
                return {}
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray], *, tenant: str) -> None:
        """Store ``tenant``'s vectors by content hash; any error skips the write."""
        if not items:
            return
        rows = [(model_id, self._key(tenant, h), np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()]
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            try:
                conn.execute("BEGIN")
                conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                self._failed("write", exc)

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


class DelegatingEmbedder:
    """Base of every wrapper around an embedder (progress reports, counting, the
    per-question memo, the query cache): it forwards the two calls and every other
    attribute (``count_tokens``, ``max_tokens``, ``batch_size``, …) to ``inner``, so a
    wrapper never hides what the wrapped model can do. Subclasses override only the
    call they change."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def __getattr__(self, name: str):  # only called for attributes this wrapper lacks
        # "inner" not set yet (copy, unpickling): never recurse. embed_documents_counted
        # is not forwarded: it would go round this wrapper's own embed_documents.
        if name in ("inner", "embed_documents_counted"):
            raise AttributeError(name)
        return getattr(self.inner, name)


class CountingEmbedder(DelegatingEmbedder):
    """Counts texts embedded and time spent (used to prove no wasted work, and by
    the benchmarks)."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.documents_embedded = 0
        self.queries_embedded = 0
        self.seconds = 0.0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - started
        self.documents_embedded += len(texts)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.queries_embedded += 1
        return self.inner.embed_query(text)
