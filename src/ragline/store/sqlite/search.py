"""SQLite's ``SearchIndex`` read half: exact dense search over an in-memory float32
matrix per collection, rebuilt from the ``chunks`` table whenever the collection's
version moves, and BM25 keyword search over its FTS5 table. The ``SearchIndex`` role
of the SQLite backend: an object over the file's ``SQLiteDatabase``, which
``SQLiteStore`` builds and tells when collections go (``forget``).

Larger collections are searched through side indexes instead (``side``):
tantivy for keyword from ``store.keyword_index_above`` chunks, HNSW for dense (without
the matrix) from ``store.ann_above``. Their hits are labelled by rowid and read back through the catalog here
with the scope's tenant, collection, owner and filters, so nothing a side index
holds can widen what a scope sees."""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...analyzer import strip_accents
from ...errors import ModelMismatchError
from ...models import Scope
from ..filters import Filter
from ..sql.common import TablesAreTheIndex, check_ref, owner_visibility, row_id
from ..types import CollectionRef
from .conn import SQLiteDatabase
from .filters import compile_sqlite
from .side import SideIndexes, Snapshot, owner_mask

EXACT_VISIBLE = 2_000  # at most this many visible rows: exact over them (read by rowid) beats a filtered graph walk


@dataclass
class _VectorIndex:
    version: tuple[int, float]
    rowids: np.ndarray
    chunk_ids: list[str]
    owner_codes: np.ndarray  # int32 per row: 0 = shared, else 1 + the owner's place in ``owners``
    owners: dict[str, int]
    matrix: np.ndarray

    @property
    def nbytes(self) -> int:
        """What the index holds in memory, near enough: the arrays, and ~80 bytes a chunk id
        (the str and its list slot)."""
        return self.matrix.nbytes + self.rowids.nbytes + self.owner_codes.nbytes + 80 * len(self.chunk_ids)

    def visible(self, owner: str | None) -> np.ndarray | None:
        """The rows an owner may see, or None when that is every row (no mask needed)."""
        return owner_mask(self.owner_codes, self.owners, owner)


class SQLiteSearch(TablesAreTheIndex):
    """Dense and keyword search over one SQLite file's tables."""

    def __init__(self, db: SQLiteDatabase, side: SideIndexes | None = None, matrices_mb: int = 256) -> None:
        self.db = db
        # collection row id → its matrix, least recently searched first; together at most
        # ``matrices_mb`` (the one just searched is kept even when it alone is larger).
        self._indexes: OrderedDict[int, _VectorIndex] = OrderedDict()
        self._matrices_budget = matrices_mb * 2**20
        self._index_lock = threading.Lock()
        self._seen_counts: OrderedDict[tuple, tuple[bool, int, int]] = OrderedDict()  # ``_seen``'s, newest last
        self._side = side  # None: exact search at every size

    def loaded_matrices(self) -> list[int]:
        """The collections (row ids) whose exact-search matrices are in memory, oldest first."""
        with self._index_lock:
            return list(self._indexes)

    @property
    def path(self) -> Path:
        """The SQLite file searched (its side indexes live beside it)."""
        return self.db.path

    def close(self) -> None:
        """Nothing of its own to release: the store closes the shared connections."""

    def forget(self, cids: list[int], uids: list[str] | None = None) -> None:
        """Drop deleted collections' matrices (a re-created one may reuse the row id) and side indexes."""
        with self._index_lock:
            for cid in cids:
                self._indexes.pop(cid, None)
        if self._side is not None:
            self._side.forget(cids, uids)

    @property
    def _sides(self) -> SideIndexes:
        """The side indexes, for code that runs only for a collection they serve (one
        ``_served`` found a state for, which it never does without side indexes)."""
        assert self._side is not None, "side indexes used by a store without them"
        return self._side

    def _collection_state(self, cid: int) -> tuple[tuple[int, float], str, str, int]:
        """(version, uid, model id, dimension). SQLite may reuse a deleted collection's id;
        the creation time tells them apart even when another process did the delete."""
        version, created, uid, model, dim = self.db.read(
            "SELECT version, created, uid, model_id, dimension FROM collections WHERE id = ?", (cid,))[0]
        return (version, created), str(uid), model, dim

    def _large(self, cid: int) -> tuple[tuple[int, float], str, str, int] | None:
        """The collection's state when the HNSW graph serves its dense search, else None."""
        return self._served(cid, "large")

    def _wordy(self, cid: int) -> tuple[tuple[int, float], str, str, int] | None:
        """The collection's state when tantivy serves its keyword search, else None."""
        return self._served(cid, "wordy")

    def _served(self, cid: int, *tests: str) -> tuple[tuple[int, float], str, str, int] | None:
        """The collection's state when any of the side indexes' ``tests`` holds for it, else None."""
        if self._side is None:
            return None
        state = self._collection_state(cid)
        return state if any(getattr(self._side, test)(cid, state[0]) for test in tests) else None

    def rebuild_side_indexes(self, tenant: str | None = None) -> list[dict]:
        """Rebuild every large collection's side indexes (of one tenant, or all) from the
        catalog; returns one line per collection rebuilt (``ragline store reindex``)."""
        out = []
        where, params = (" WHERE tenant = ?", [tenant]) if tenant else ("", [])
        for cid, name, owner_tenant in self.db.read(f"SELECT id, name, tenant FROM collections{where} ORDER BY id",
                                                  params):
            state = self._served(cid, "large", "wordy")  # one read of the collection's state
            if state is not None:
                out.append({"tenant": owner_tenant, "collection": name,
                            **self._sides.rebuild(cid, state[0], state[1], state[2], state[3])})
        return out

    # -- search (SearchIndex) ------------------------------------------------
    def _vector_index(self, cid: int) -> _VectorIndex:
        # SQLite may reuse a deleted collection's id; the creation time tells them apart
        # even when another process did the delete.
        version = tuple(self.db.read("SELECT version, created FROM collections WHERE id = ?", (cid,))[0])
        with self._index_lock:
            index = self._indexes.get(cid)
            if index is not None and index.version == version:
                self._indexes.move_to_end(cid)
                return index
        rows = self.db.read("SELECT rowid, id, owner, vector FROM chunks WHERE collection_id = ? ORDER BY rowid", (cid,))
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
            self._indexes.pop(cid, None)
            self._indexes[cid] = index
            held = sum(i.nbytes for i in self._indexes.values())
            while held > self._matrices_budget and len(self._indexes) > 1:
                held -= self._indexes.popitem(last=False)[1].nbytes  # read back from the table when searched again
        return index

    def _allowed_rowids(self, scope: Scope, cid: int, filters: Filter) -> np.ndarray:
        where, params = compile_sqlite(filters)
        owner_sql, owner_params = owner_visibility(scope, "d", "?")
        # Documents first, then their chunks' rowids from the doc_id index (covering):
        # driving from chunks would read every chunk row, vectors included. A chunk has
        # its document's tenant, collection and owner; hits are checked again on read-back.
        rows = self.db.read(
            f"SELECT c.rowid FROM documents d JOIN chunks c ON c.doc_id = d.id "
            f"WHERE d.tenant = ? AND d.collection_id = ?{owner_sql}{where}",
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
            large = self._large(cid)
            if large is not None:
                results.extend(self._dense_side(scope, cid, large, query, k, filters))
                continue
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
            if scope.owner is not None and self._seen(scope, cid)[0]:
                results.extend(self._keyword_seen(scope, cid, terms, k, filters))
                continue
            wordy = self._wordy(cid)
            words = self._sides.words(cid, wordy[0], wordy[1]) if wordy is not None else None
            if wordy is not None and words is not None:
                private = bool(self._sides.snapshot(cid, wordy[0]).owners)  # some rows hidden from some scopes
                results.extend(self._keyword_side(scope, cid, words.index, terms, k, filters, private))
                continue
            visible = f"c.tenant = ? AND c.collection_id = ?{owner_sql}{where}"
            scoped = [scope.tenant, cid, *owner_params, *params]
            # The k best of the whole FTS table first, then their chunk rows: joining every
            # match before the sort read a chunk row per matching term (half the keyword
            # time at SciFact size). Exact when all k are visible to the scope; when the
            # owner or filters hid some, the top k visible ones may lie deeper: then the
            # join-first query, which filters before it cuts.
            rows = self.db.read(
                f"SELECT c.id, f.score, f.rid FROM (SELECT rowid AS rid, -bm25(fts_{cid}) AS score FROM fts_{cid} "
                f"WHERE fts_{cid} MATCH ? ORDER BY bm25(fts_{cid}) LIMIT ?) f JOIN chunks c ON c.rowid = f.rid"
                f"{join_docs} WHERE {visible} ORDER BY f.score DESC, f.rid",
                [match, k, *scoped],
            )
            if len(rows) < k and self.db.read(f"SELECT count(*) FROM (SELECT 1 FROM fts_{cid} WHERE fts_{cid} "
                                            f"MATCH ? LIMIT ?)", [match, k])[0][0] == k:
                rows = self.db.read(
                    f"SELECT c.id, -bm25(fts_{cid}) AS score FROM fts_{cid} JOIN chunks c ON c.rowid = fts_{cid}.rowid"
                    f"{join_docs} WHERE fts_{cid} MATCH ? AND {visible} ORDER BY bm25(fts_{cid}) LIMIT ?",
                    [match, *scoped, k],
                )
            results.extend((r[0], float(r[1])) for r in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    # -- an owner's view of a collection other owners keep private rows in ------------
    def _seen(self, scope: Scope, cid: int) -> tuple[bool, int, int]:
        """For the scope's owner: whether the collection holds rows of another owner, and
        the number and total FTS5 length of the rows it may read. Kept per collection
        version (every write moves it), so a query pays the pass over the rows once."""
        key = (cid, self._collection_state(cid)[0], scope.tenant, scope.owner)
        with self._index_lock:
            if key in self._seen_counts:
                return self._seen_counts[key]
        others = bool(self.db.read("SELECT EXISTS (SELECT 1 FROM chunks WHERE collection_id = ? AND owner IS NOT NULL "
                                   "AND owner <> ?)", (cid, scope.owner))[0][0])
        n = total = 0
        if others:
            owner_sql, owner_params = owner_visibility(scope, "c", "?")
            for (size,) in self.db.read(f"SELECT s.sz FROM fts_{cid}_docsize s JOIN chunks c ON c.rowid = s.id "
                                        f"WHERE c.tenant = ? AND c.collection_id = ?{owner_sql}",
                                        [scope.tenant, cid, *owner_params]):
                n, total = n + 1, total + _varint(size)
        with self._index_lock:
            self._seen_counts[key] = (others, n, total)
            while len(self._seen_counts) > 256:
                self._seen_counts.popitem(last=False)
        return others, n, total

    def _keyword_seen(self, scope: Scope, cid: int, terms: list[str], k: int,
                      filters: Filter) -> list[tuple[str, float]]:
        """BM25 as FTS5's ``bm25()`` computes it, with N, the average length and each
        term's document frequency counted over the rows the scope may read, not the
        whole table: FTS5's statistics included other owners' private chunks, so an
        owner's scores told whether those contained a word (issue 29). Lengths are
        FTS5's own (its ``docsize`` table); a term's frequency in a row is counted on
        the row's terms as FTS5's tokenizer splits them."""
        owner_sql, owner_params = owner_visibility(scope, "c", "?")
        seen, seen_params = f"c.tenant = ? AND c.collection_id = ?{owner_sql}", [scope.tenant, cid, *owner_params]
        _, n, total = self._seen(scope, cid)
        if not n:
            return []
        avgdl = max(1, total) / n
        where, params = compile_sqlite(filters)
        join_docs = " JOIN documents d ON d.id = c.doc_id" if where else ""
        idf: dict[str, float] = {}
        rows: dict[int, str] = {}  # the rows a term matched that the filters keep
        for term in dict.fromkeys(terms):
            phrase = '"' + term.replace('"', '""') + '"'
            matched = self.db.read(f"SELECT c.rowid FROM fts_{cid} f JOIN chunks c ON c.rowid = f.rowid "
                                   f"WHERE fts_{cid} MATCH ? AND {seen}", [phrase, *seen_params])
            if not matched:
                continue
            idf[term] = max(math.log((n - len(matched) + 0.5) / (len(matched) + 0.5)), 1e-6)
            kept = self.db.read(f"SELECT c.rowid, c.id FROM fts_{cid} f JOIN chunks c ON c.rowid = f.rowid{join_docs} "
                                f"WHERE fts_{cid} MATCH ? AND {seen}{where}", [phrase, *seen_params, *params])
            rows.update(kept)
        if not rows:
            return []
        texts: dict[int, list[str]] = {}
        lengths: dict[int, int] = {}
        flat = list(rows)
        for start in range(0, len(flat), 500):
            part = flat[start:start + 500]
            marks = ",".join("?" * len(part))
            texts.update((rid, _fts_tokens(text)) for rid, text in self.db.read(
                f"SELECT rowid, terms FROM fts_{cid} WHERE rowid IN ({marks})", part))
            lengths.update((rid, _varint(size)) for rid, size in self.db.read(
                f"SELECT id, sz FROM fts_{cid}_docsize WHERE id IN ({marks})", part))
        wanted = {term: _fts_tokens(term) for term in idf}
        scored = []
        for rid, chunk_id in rows.items():
            tokens, score = texts.get(rid, []), 0.0
            for term, weight in idf.items():
                tf = _occurrences(tokens, wanted[term])
                if tf:
                    norm = _K1 * (1 - _B + _B * lengths.get(rid, 0) / avgdl)
                    score += weight * tf * (_K1 + 1) / (tf + norm)
            if score > 0:
                scored.append((chunk_id, score, rid))
        scored.sort(key=lambda row: (-row[1], row[2]))
        return [(chunk_id, score) for chunk_id, score, _ in scored[:k]]

    # -- large collections: side indexes, read back through the catalog --------------
    def _dense_side(self, scope: Scope, cid: int, state: tuple, query: np.ndarray, k: int,
                    filters: Filter) -> list[tuple[str, float]]:
        version, uid, model, dim = state
        if dim != query.shape[0]:
            raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection has {dim}")
        side, snap = self._sides.dense(cid, version, uid, model, dim)
        mask = snap.visible(scope.owner)
        if filters:
            allowed = np.isin(snap.members.rowids, self._allowed_rowids(scope, cid, filters))
            mask = allowed if mask is None else mask & allowed
        index = side.index
        if mask is None:
            labels, scores = index.search(query, k, self._sides.ef_search)
        else:
            count = int(np.count_nonzero(mask))
            if not count:
                return []
            if count <= max(EXACT_VISIBLE, k * 10):  # few visible rows: exact over just those
                rows = self._sides.vectors_by_rowid(cid, snap.members.rowids[mask])
                labels = np.array([r[0] for r in rows], np.int64)
                exact = np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), dim) @ query
                best = np.argsort(-exact)[:k]
                labels, scores = labels[best], exact[best]
            else:
                allowed_bytes = _allowed(snap, mask, scope.owner, bool(filters))
                labels, scores = index.search(query, k, self._sides.ef_search, allowed_bytes)
        return self._read_back(scope, cid, labels, scores)

    def _keyword_side(self, scope: Scope, cid: int, index, terms: list[str], k: int, filters: Filter,
                      private: bool) -> list[tuple[str, float]]:
        """Tantivy's best, read back with the scope's owner and filters; when those hide
        most hits, ask for more (4× each round) until k are visible or none are left."""
        want = k * 3 if private or filters else k
        while True:
            rowids, scores = index.search(terms, want)
            found = self._read_back(scope, cid, np.array(rowids, np.int64), np.array(scores, np.float32), filters)
            if len(found) >= k or len(rowids) < want:
                return found[:k]
            want *= 4

    def _read_back(self, scope: Scope, cid: int, rowids: np.ndarray, scores: np.ndarray,
                   filters: Filter = ()) -> list[tuple[str, float]]:
        """(chunk id, score) for the rowids the scope may see, in the given order."""
        if not len(rowids):
            return []
        where, params = compile_sqlite(filters)
        owner_sql, owner_params = owner_visibility(scope, "c", "?")
        join_docs = " JOIN documents d ON d.id = c.doc_id" if where else ""
        ids: dict[int, str] = {}
        flat = rowids.tolist()
        for start in range(0, len(flat), 500):
            part = flat[start:start + 500]
            ids.update(self.db.read(
                f"SELECT c.rowid, c.id FROM chunks c{join_docs} WHERE c.rowid IN ({','.join('?' * len(part))}) "
                # '+': look chunks up by rowid, never scan the collection's index
                f"AND +c.tenant = ? AND +c.collection_id = ?{owner_sql}{where}",
                [*part, scope.tenant, cid, *owner_params, *params]))
        return [(ids[r], float(s)) for r, s in zip(flat, scores.tolist()) if r in ids]


_K1, _B = 1.2, 0.75  # FTS5's bm25() constants
_SEPARATOR = re.compile(r"[\W_]+")


def _varint(blob: bytes) -> int:
    """The first varint of an FTS5 ``docsize`` row (the one column's token count)."""
    value = 0
    for i, byte in enumerate(blob[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return value


def _fts_tokens(text: str) -> list[str]:
    """``text`` split as FTS5's ``unicode61`` tokenizer splits it: case folded,
    diacritics removed, runs of letters and digits."""
    folded = strip_accents(text.lower())
    return [token for token in _SEPARATOR.split(folded) if token]


def _occurrences(tokens: list[str], phrase: list[str]) -> int:
    """How often ``phrase`` (a term's tokens; one for almost every term) occurs in ``tokens``."""
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    size = len(phrase)
    return sum(1 for i in range(len(tokens) - size + 1) if tokens[i:i + size] == phrase) if size else 0


def _top(index: _VectorIndex, query: np.ndarray, mask: np.ndarray | None, k: int) -> list[tuple[str, float]]:
    """The k best visible rows by inner product. Scoring every row and masking beats
    copying the visible rows out (a 1.5 GB copy per query at a million chunks) unless
    few rows are visible."""
    if mask is not None and not mask.any():
        return []
    if mask is not None and mask.sum() < len(mask) // 4:
        rows = np.flatnonzero(mask)
        scores = _scores(index.matrix[rows], query)
    else:
        rows = None
        scores = _scores(index.matrix, query)
        if mask is not None:
            scores[~mask] = -np.inf
    visible = scores.size if mask is None else int(mask.sum())
    top = min(k, visible)
    best = np.argpartition(-scores, top - 1)[:top]
    ids = index.chunk_ids
    return list(zip([ids[i] for i in (best if rows is None else rows[best]).tolist()], scores[best].tolist()))


def _scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """matrix @ query on this thread. BLAS splits a matrix-vector product across its
    threads; on a busy machine waiting for them made the 11,861-row product 8 ms
    instead of under 1 (bench/serving.py), while einsum's own SIMD loop stays on
    one core. Scores agree to float32 rounding."""
    return np.einsum("ij,j->i", matrix, query)


def _allowed(snap: Snapshot, mask: np.ndarray, owner: str | None, filtered: bool) -> bytes:
    """A byte per rowid, non-zero where visible: what the HNSW filter reads. Cached per
    owner (on the snapshot, so per version) when there are no filters."""
    key = None if filtered else owner
    if not filtered and key in snap.masks:
        return snap.masks[key]
    rowids = snap.members.rowids
    table = np.zeros(int(rowids[-1]) + 1 if len(rowids) else 0, np.uint8)
    table[rowids[mask]] = 1
    out = table.tobytes()
    if not filtered:
        snap.masks[key] = out
    return out
