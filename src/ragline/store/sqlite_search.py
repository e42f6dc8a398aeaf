"""SQLite's ``SearchIndex`` read half: exact dense search over an in-memory float32
matrix per collection, rebuilt from the ``chunks`` table whenever the collection's
version moves, and BM25 keyword search over its FTS5 table. A mixin for
``SQLiteStore`` (it uses the store's ``_read``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ModelMismatchError
from ..models import Scope
from .filters import Filter
from .sql import check_ref, owner_visibility, row_id
from .sqlite_filters import compile_sqlite
from .types import CollectionRef


@dataclass
class _VectorIndex:
    version: tuple[int, float]
    rowids: np.ndarray
    chunk_ids: list[str]
    owner_codes: np.ndarray  # int32 per row: 0 = shared, else 1 + the owner's place in ``owners``
    owners: dict[str, int]
    matrix: np.ndarray

    def visible(self, owner: str | None) -> np.ndarray | None:
        """The rows an owner may see, or None when that is every row (no mask needed)."""
        code = self.owners.get(owner, -1) if owner is not None else -1
        if not self.owners or (code > 0 and len(self.owners) == 1):
            return None
        shared = self.owner_codes == 0
        return shared | (self.owner_codes == code) if code > 0 else shared


class SQLiteSearch:
    """Dense and keyword search for ``SQLiteStore``."""

    _read: Callable[..., list[tuple]]  # SQLiteStore's

    def _init_search(self) -> None:
        self._indexes: dict[int, _VectorIndex] = {}  # collection row id → its matrix
        self._index_lock = threading.Lock()

    def _forget(self, cids: list[int]) -> None:
        """Drop deleted collections' matrices (a re-created one may reuse the row id)."""
        with self._index_lock:
            for cid in cids:
                self._indexes.pop(cid, None)

    # -- search (SearchIndex) ------------------------------------------------
    def _vector_index(self, cid: int) -> _VectorIndex:
        # SQLite may reuse a deleted collection's id; the creation time tells them apart
        # even when another process did the delete.
        version = tuple(self._read("SELECT version, created FROM collections WHERE id = ?", (cid,))[0])
        with self._index_lock:
            index = self._indexes.get(cid)
            if index is not None and index.version == version:
                return index
        rows = self._read("SELECT rowid, id, owner, vector FROM chunks WHERE collection_id = ? ORDER BY rowid", (cid,))
        if rows:
            matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        else:
            matrix = np.zeros((0, 1), dtype=np.float32)
        owners: dict[str, int] = {}
        codes = np.fromiter((0 if r[2] is None else owners.setdefault(r[2], len(owners) + 1) for r in rows),
                            dtype=np.int32, count=len(rows))
        index = _VectorIndex(version=version, rowids=np.array([r[0] for r in rows], dtype=np.int64),
                             chunk_ids=[r[1] for r in rows], owner_codes=codes, owners=owners, matrix=matrix)
        with self._index_lock:
            self._indexes[cid] = index
        return index

    def _allowed_rowids(self, scope: Scope, cid: int, filters: Filter) -> np.ndarray:
        where, params = compile_sqlite(filters)
        owner_sql, owner_params = owner_visibility(scope, "c", "?")
        rows = self._read(
            f"SELECT c.rowid FROM chunks c JOIN documents d ON d.id = c.doc_id "
            f"WHERE c.tenant = ? AND c.collection_id = ?{owner_sql}{where}",
            [scope.tenant, cid, *owner_params, *params],
        )
        return np.array([r[0] for r in rows], dtype=np.int64)

    def dense_search(self, scope: Scope, collections: list[CollectionRef], vector: np.ndarray, k: int,
                     filters: Filter = ()) -> list[tuple[str, float]]:
        results: list[tuple[str, float]] = []
        query = np.asarray(vector, dtype=np.float32)
        for ref in collections:
            check_ref(scope, ref)
            cid = row_id(ref)
            index = self._vector_index(cid)
            if not index.chunk_ids:
                continue
            if index.matrix.shape[1] != query.shape[0]:
                raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection has {index.matrix.shape[1]}")
            mask = index.visible(scope.owner)
            if filters:
                allowed = np.isin(index.rowids, self._allowed_rowids(scope, cid, filters))
                mask = allowed if mask is None else mask & allowed
            results.extend(_top(index, query, mask, k))
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> list[tuple[str, float]]:
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        where, params = compile_sqlite(filters)
        owner_sql, owner_params = owner_visibility(scope, "c", "?")
        join_docs = " JOIN documents d ON d.id = c.doc_id" if where else ""
        results: list[tuple[str, float]] = []
        for ref in collections:
            check_ref(scope, ref)
            cid = row_id(ref)
            rows = self._read(
                f"SELECT c.id, -bm25(fts_{cid}) AS score FROM fts_{cid} JOIN chunks c ON c.rowid = fts_{cid}.rowid"
                f"{join_docs} WHERE fts_{cid} MATCH ? AND c.tenant = ? AND c.collection_id = ?{owner_sql}{where} "
                f"ORDER BY bm25(fts_{cid}) LIMIT ?",
                [match, scope.tenant, cid, *owner_params, *params, k],
            )
            results.extend((r[0], float(r[1])) for r in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]


def _top(index: _VectorIndex, query: np.ndarray, mask: np.ndarray | None, k: int) -> list[tuple[str, float]]:
    """The k best visible rows by inner product. Scoring every row and masking beats
    copying the visible rows out (a 1.5 GB copy per query at a million chunks) unless
    few rows are visible."""
    if mask is not None and not mask.any():
        return []
    if mask is not None and mask.sum() < len(mask) // 4:
        rows = np.flatnonzero(mask)
        scores = index.matrix[rows] @ query
    else:
        rows = None
        scores = index.matrix @ query
        if mask is not None:
            scores[~mask] = -np.inf
    visible = scores.size if mask is None else int(mask.sum())
    top = min(k, visible)
    best = np.argpartition(-scores, top - 1)[:top]
    return [(index.chunk_ids[i if rows is None else rows[i]], float(scores[i])) for i in best]
