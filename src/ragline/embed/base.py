"""The Embedder protocol and the embedding cache keyed by (model id, content hash)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    Documents and queries are separate calls so task-aware models can treat them
    differently; symmetric models (MiniLM) embed both the same way.
    """

    model_id: str
    dimension: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, rows in the caller's order."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32."""
        ...


class EmbeddingCache:
    """Vectors by (model id, content hash) in a small SQLite file of their own.

    Not tenant data: a vector says nothing a tenant could read, and sharing it
    means identical text is never embedded twice.
    """

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )
        self._lock = threading.Lock()

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for i in range(0, len(unique), 500):
                batch = unique[i:i + 500]
                marks = ",".join("?" * len(batch))
                rows = self._conn.execute(
                    f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})", [model_id, *batch]
                ).fetchall()
                found.update((h, np.frombuffer(v, dtype=np.float32)) for h, v in rows)
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(model_id, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()],
            )
            self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()


class CountingEmbedder:
    """Wraps an embedder and counts texts embedded and time spent (used to prove
    no wasted work, and by the benchmarks)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimension = inner.dimension
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
