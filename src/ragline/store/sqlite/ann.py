"""Side indexes for large SQLite collections: what they hold, how they are kept in
step with the catalog, and the HNSW vector index (hnswlib).

A collection of at least ``store.ann_above`` chunks is searched through indexes that
live beside the SQLite file (``<db>.ann/<collection uid>.*``) instead of an exact
in-memory matrix: an HNSW graph for dense search (this module) and a tantivy index
for keyword search (``keyword_index``). Both are labelled by the chunk's SQLite
rowid and are *caches*: the catalog keeps every vector and every term, so a side
index can always be rebuilt (``ragline store reindex``), and every hit is read
back through the catalog with the scope's tenant, collection and owner checks, so
a stale or corrupt file can cost recall but never return another tenant's or a
deleted chunk.

Keeping in step: ``Members`` is what an index holds, as (rowid, key) pairs where
the key is taken from the chunk id. SQLite reuses the highest rowids after a
delete, so a rowid alone does not say the chunk is the same; the pair does. When
the collection's version moves, the catalog's pairs are diffed against the
index's: new pairs are added, vanished ones deleted (HNSW ``mark_deleted``), and
the index is rebuilt when the file is missing or unreadable, the model changed,
or more than a fifth of its entries are deleted ones.

Files are written atomically: the data file under a fresh name, then the small
``.npz`` manifest that names it is swapped in with ``os.replace``; a reader loads
either the old pair or the new one.
"""

from __future__ import annotations

import os
import re
import threading
import uuid
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

REBUILD_DELETED_SHARE = 0.2  # rebuild once this share of the index's entries are deleted ones


def chunk_key(chunk_id: str) -> int:
    """A 60-bit key from a chunk id (ids are hex digests; anything else is hashed)."""
    try:
        return int(chunk_id[:15], 16)
    except ValueError:
        return zlib.crc32(chunk_id.encode("utf-8"))


@dataclass
class Members:
    """What a side index holds: sorted rowids and the key of the chunk at each."""

    rowids: np.ndarray  # int64, ascending
    keys: np.ndarray  # int64

    @classmethod
    def empty(cls) -> Members:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def of(cls, pairs: Iterable[tuple[int, str]]) -> Members:
        rows = list(pairs)
        rowids = np.fromiter((r for r, _ in rows), np.int64, len(rows))
        keys = np.fromiter((chunk_key(c) for _, c in rows), np.int64, len(rows))
        order = np.argsort(rowids, kind="stable")
        return cls(rowids[order], keys[order])

    def diff(self, current: Members) -> tuple[np.ndarray, np.ndarray]:
        """(rowids to add, rowids to remove) to turn this into ``current``."""
        _, mine, theirs = np.intersect1d(self.rowids, current.rowids, assume_unique=True, return_indices=True)
        same = self.keys[mine] == current.keys[theirs]
        kept = self.rowids[mine[same]]
        return (np.setdiff1d(current.rowids, kept, assume_unique=True),
                np.setdiff1d(self.rowids, kept, assume_unique=True))


IndexT = TypeVar("IndexT")


@dataclass
class Side(Generic[IndexT]):
    """One collection's side index as loaded: the index object (``HnswIndex`` or
    ``keyword_index.TantivyIndex``) and what it holds."""

    index: IndexT
    members: Members
    version: tuple | None
    unsaved: int = 0
    model: str = ""  # the embedding model whose vectors it holds (dense only)


def side_dir(db_path: Path) -> Path:
    """The directory of a SQLite store's side indexes."""
    return db_path.with_name(db_path.name + ".ann")


def safe_name(uid: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", uid)


class Manifest:
    """The small file naming a side index's data file and what it holds."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict | None:
        try:
            with np.load(self.path, allow_pickle=False) as data:
                return {k: data[k] for k in data.files}
        except (OSError, ValueError, KeyError, EOFError, zlib.error):
            return None

    def write(self, members: Members, version: int, model: str, data_file: str) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex[:8]}.tmp")
        with tmp.open("wb") as handle:
            np.savez(handle, rowids=members.rowids, keys=members.keys, version=np.int64(version),
                     model=np.str_(model), data=np.str_(data_file))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def new_data_name(stem: str, suffix: str) -> str:
    return f"{stem}.{uuid.uuid4().hex[:10]}{suffix}"


def remove_others(directory: Path, stem: str, suffix: str, keep: str) -> None:
    """Delete this index's superseded data files (another process may still hold one
    open: on POSIX its reads go on)."""
    for old in directory.glob(f"{stem}.*{suffix}"):
        if old.name != keep:
            _unlink(old)


def _unlink(path: Path) -> None:
    import shutil

    try:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def remove_index_files(directory: Path, stem: str) -> None:
    """Every file of one collection's side indexes (the collection was deleted)."""
    for path in directory.glob(f"{stem}.*"):
        _unlink(path)


class HnswIndex:
    """One collection's HNSW graph (inner product on unit vectors, so the score is the
    cosine the exact path gives). Labels are chunk rowids. Thread-safe through one lock:
    queries take well under a millisecond, so they simply queue behind an update."""

    def __init__(self, dim: int, *, capacity: int = 1024, m: int = 16, ef_construction: int = 100,
                 index=None) -> None:
        import hnswlib

        self.dim = dim
        self.lock = threading.RLock()
        if index is None:
            index = hnswlib.Index(space="ip", dim=dim)
            index.init_index(max_elements=max(capacity, 16), M=m, ef_construction=ef_construction)
        self.index = index

    @classmethod
    def load(cls, path: Path, dim: int) -> HnswIndex | None:
        """The graph saved at ``path``, or None when it is missing or unreadable."""
        import hnswlib

        if not path.is_file():
            return None
        index = hnswlib.Index(space="ip", dim=dim)
        try:
            index.load_index(str(path), max_elements=0)
        except (RuntimeError, ValueError, OSError, MemoryError):
            return None
        return cls(dim, index=index)

    @property
    def entries(self) -> int:
        """Labels in the graph, deleted ones included."""
        return self.index.element_count

    def add(self, labels: np.ndarray, vectors: np.ndarray, threads: int = 1) -> None:
        if not len(labels):
            return
        with self.lock:
            need = self.index.element_count + len(labels)
            if need > self.index.get_max_elements():
                self.index.resize_index(max(need, int(self.index.get_max_elements() * 1.5)))
            # An existing label (a rowid SQLite reused) is updated in place and undeleted.
            self.index.add_items(np.ascontiguousarray(vectors, dtype=np.float32), labels, num_threads=threads)

    def remove(self, labels: np.ndarray) -> None:
        with self.lock:
            for label in labels.tolist():
                try:
                    self.index.mark_deleted(label)
                except RuntimeError:  # not there, or deleted already
                    pass

    def search(self, query: np.ndarray, k: int, ef: int, allowed: bytes | None = None,
               ) -> tuple[np.ndarray, np.ndarray]:
        """(labels, scores), best first: at most ``k`` live labels, only those whose byte
        in ``allowed`` (indexed by label) is non-zero when given."""
        with self.lock:
            live = self.index.get_current_count()
            k = min(k, live)
            if k <= 0:
                return np.zeros(0, np.int64), np.zeros(0, np.float32)
            self.index.set_ef(max(ef, k))
            keep = None
            if allowed is not None:
                size = len(allowed)

                def keep(label: int) -> bool:
                    return label < size and allowed[label] != 0
            try:
                labels, distances = self.index.knn_query(query.reshape(1, -1), k=k, num_threads=1, filter=keep)
            except RuntimeError:  # fewer than k reachable (heavy filtering or deletions)
                return self._fewer(query, k, keep)
        return labels[0].astype(np.int64), 1.0 - distances[0]

    def _fewer(self, query: np.ndarray, k: int, keep) -> tuple[np.ndarray, np.ndarray]:
        while k > 1:
            k //= 2
            try:
                labels, distances = self.index.knn_query(query.reshape(1, -1), k=k, num_threads=1, filter=keep)
                return labels[0].astype(np.int64), 1.0 - distances[0]
            except RuntimeError:
                continue
        return np.zeros(0, np.int64), np.zeros(0, np.float32)

    def save(self, path: Path) -> None:
        with self.lock:
            self.index.save_index(str(path))
