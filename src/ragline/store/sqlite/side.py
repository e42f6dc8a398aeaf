"""Keeping a SQLite store's side indexes (``ann``: HNSW; ``keyword_index``: tantivy)
in step with its catalog: the HNSW graph for a collection of at least ``ann_above``
chunks, the tantivy index for one of at least ``keyword_above`` (a lower threshold:
FTS5 scores every posting of every query term, which already costs ~9 ms a hybrid
query at SciFact's 12k chunks, while an exact dense scan is still ~2 ms there).

On the first search after the collection's version moves, the catalog's
(rowid, chunk key, owner) snapshot is read once and diffed against what each index
holds; the differences are applied (added vectors read by rowid, deleted ones
marked) or, when the file is missing, unreadable, of another model, or mostly
deletions, the index is rebuilt from the catalog in batches, so the whole float32
matrix is never held in memory beside the graph. The snapshot's owner codes make
the owner-visibility mask that scoped searches filter on.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import StoreError
from ..visibility import visible_owners
from .ann import (
    REBUILD_DELETED_SHARE,
    HnswIndex,
    Manifest,
    Members,
    Side,
    new_data_name,
    remove_index_files,
    remove_others,
    safe_name,
    side_dir,
)
from .keyword_index import TantivyIndex
from .words import sync_words

log = logging.getLogger(__name__)
BATCH = 20_000
SAVE_EVERY = 0.01  # save after incremental changes once they reach this share of the index


@dataclass
class Snapshot:
    """A collection's chunks at one version: members and each one's owner code."""

    version: tuple
    members: Members
    owner_codes: np.ndarray  # int32 per member: 0 shared, else 1 + place in ``owners``
    owners: dict[str, int]
    masks: dict[str | None, bytes] = field(default_factory=dict)

    def visible(self, owner: str | None) -> np.ndarray | None:
        """Which members an owner may see, or None when all of them."""
        return owner_mask(self.owner_codes, self.owners, owner)


def owner_mask(owner_codes: np.ndarray, owners: dict[str, int], owner: str | None) -> np.ndarray | None:
    """The rows a scope with ``owner`` may read (``visibility.visible_owners``) as a mask
    over ``owner_codes`` (0: shared, else 1 + the owner's place in ``owners``), or None
    when that is every row (no mask needed)."""
    codes = {0 if o is None else owners.get(o, -1) for o in visible_owners(owner)}
    if codes >= set(range(len(owners) + 1)):
        return None
    mask = np.zeros(len(owner_codes), dtype=bool)
    for code in codes:
        if code >= 0:
            mask |= owner_codes == code
    return mask


class SideIndexes:
    """The side indexes of one SQLite store (one object per ``SQLiteStore``)."""

    def __init__(self, db_path: Path, read: Callable[..., list[tuple]], *, ann_above: int, ef_search: int,
                 keyword: bool = True, keyword_above: int | None = None, max_loaded: int = 16) -> None:
        self.directory = side_dir(db_path)
        self.read = read
        self.ann_above = ann_above
        # tantivy serves every collection the graph does, and smaller ones from keyword_above
        self.keyword_above = ann_above if keyword_above is None else min(keyword_above, ann_above)
        self.ef_search = ef_search
        self.keyword = keyword and _tantivy_available()
        self.threads = max(1, min(4, os.cpu_count() or 1))
        self._lock = threading.Lock()
        self._cid_locks: dict[int, threading.Lock] = {}
        self._sizes: dict[int, tuple[tuple, int]] = {}
        self._snapshots: dict[int, Snapshot] = {}
        self._dense: dict[int, Side[HnswIndex]] = {}
        self._words: dict[int, Side[TantivyIndex]] = {}
        # Collections with side indexes in memory, least recently searched first: at most
        # max_loaded stay; the others are read back from disk when searched again.
        self.max_loaded = max(1, max_loaded)
        self._loaded: OrderedDict[int, None] = OrderedDict()

    # -- what applies ----------------------------------------------------------
    def size(self, cid: int, version: tuple) -> int:
        """The collection's chunk count (counted once per version)."""
        cached = self._sizes.get(cid)
        if cached is None or cached[0] != version:
            count = self.read("SELECT count(*) FROM chunks WHERE collection_id = ?", (cid,))[0][0]
            cached = (version, count)
            self._sizes[cid] = cached
            if count < self.ann_above:  # shrank below a threshold: exact search again, free the memory
                self._dense.pop(cid, None)
            if count < self.keyword_above:
                self._words.pop(cid, None)
        return cached[1]

    def large(self, cid: int, version: tuple) -> bool:
        """Whether the collection's dense search goes through the HNSW graph."""
        return self.size(cid, version) >= self.ann_above

    def wordy(self, cid: int, version: tuple) -> bool:
        """Whether the collection's keyword search goes through tantivy."""
        return self.keyword and self.size(cid, version) >= self.keyword_above

    def forget(self, cids: list[int], uids: list[str] | None = None) -> None:
        with self._lock:
            for cid in cids:
                for table in (self._sizes, self._snapshots, self._dense, self._words, self._loaded):
                    table.pop(cid, None)
        for uid in uids or []:
            remove_index_files(self.directory, safe_name(uid))

    def loaded(self) -> list[int]:
        """Collections whose side indexes are in memory, least recently searched first."""
        with self._lock:
            return list(self._loaded)

    def _used(self, cid: int) -> None:
        """Mark ``cid`` searched; let go of the least recently searched beyond ``max_loaded``
        (a search already holding one of its indexes finishes with it)."""
        with self._lock:
            self._loaded[cid] = None
            self._loaded.move_to_end(cid)
            while len(self._loaded) > self.max_loaded:
                old, _ = self._loaded.popitem(last=False)
                for table in (self._snapshots, self._dense, self._words):
                    table.pop(old, None)

    def _cid_lock(self, cid: int) -> threading.Lock:
        with self._lock:
            return self._cid_locks.setdefault(cid, threading.Lock())

    # -- the catalog's side ------------------------------------------------------
    def snapshot(self, cid: int, version: tuple) -> Snapshot:
        snap = self._snapshots.get(cid)
        if snap is not None and snap.version == version:
            return snap
        # Index-only reads: a scan of the chunks table itself would read every vector
        # (4.6 GB at a million 384-d chunks); these read the rowid, id and doc indexes.
        rowids = np.array([r[0] for r in self.read(
            "SELECT rowid FROM chunks WHERE collection_id = ? ORDER BY rowid", (cid,))], dtype=np.int64)
        members = Members.of(self._ids(cid, rowids))
        owners: dict[str, int] = {}
        codes = np.zeros(len(members.rowids), np.int32)
        private = self.read("SELECT c.rowid, d.owner FROM documents d JOIN chunks c ON c.doc_id = d.id "
                            "WHERE d.collection_id = ? AND d.owner IS NOT NULL", (cid,))
        if private:
            wanted = np.array([r[0] for r in private], np.int64)
            where = np.minimum(np.searchsorted(members.rowids, wanted), max(0, len(members.rowids) - 1))
            found = (members.rowids[where] == wanted) if len(members.rowids) else np.zeros(len(wanted), bool)
            where, private = where[found], [r for r, ok in zip(private, found.tolist()) if ok]
            codes[where] = [owners.setdefault(r[1], len(owners) + 1) for r in private]
        snap = Snapshot(version, members, codes, owners)
        self._snapshots[cid] = snap
        return snap

    def _ids(self, cid: int, rowids: np.ndarray) -> list[tuple[int, str]]:
        """(rowid, chunk id) for ``rowids``: from the unique index on ids when the
        collection is most of the store, else by rowid."""
        total = self.read("SELECT max(rowid) FROM chunks")[0][0] or 0
        if len(rowids) * 2 >= total:
            try:
                pairs = self.read("SELECT rowid, id FROM chunks INDEXED BY sqlite_autoindex_chunks_1")
                wanted = set(rowids.tolist())
                return [p for p in pairs if p[0] in wanted]
            except StoreError:  # no such index (an older or altered schema): look up by rowid
                pass
        out: list[tuple[int, str]] = []
        flat = rowids.tolist()
        for start in range(0, len(flat), 500):
            part = flat[start:start + 500]
            out += self.read(f"SELECT rowid, id FROM chunks WHERE rowid IN ({','.join('?' * len(part))})", part)
        return out

    # -- dense -----------------------------------------------------------------
    def dense(self, cid: int, version: tuple, uid: str, model: str, dim: int) -> tuple[Side[HnswIndex], Snapshot]:
        """The collection's HNSW index, in step with ``version``."""
        side = self._dense.get(cid)
        if side is not None and side.version == version:
            snap = self.snapshot(cid, version)
        else:
            with self._cid_lock(cid):
                snap = self.snapshot(cid, version)
                side = self._dense.get(cid)
                if side is None or side.version != version:
                    side = self._sync_dense(cid, side, snap, uid, model, dim)
                    self._dense[cid] = side
        self._used(cid)
        return side, snap

    def _sync_dense(self, cid: int, side: Side[HnswIndex] | None, snap: Snapshot, uid: str, model: str,
                    dim: int) -> Side[HnswIndex]:
        stem = safe_name(uid)
        manifest = Manifest(self.directory / f"{stem}.hnsw.npz")
        if side is not None and (side.model != model or side.index.dim != dim):
            side = None  # re-embedded with another model: same chunks, other vectors
        if side is None:
            side = self._load_dense(manifest, model, dim)
        if side is not None:
            added, removed = side.members.diff(snap.members)
            entries = side.index.entries
            deleted_after = entries + len(added) - len(snap.members.rowids)
            if deleted_after <= REBUILD_DELETED_SHARE * max(1, entries + len(added)):
                side.index.remove(removed)
                for start in range(0, len(added), BATCH):
                    part = added[start:start + BATCH]
                    rows = self.vectors_by_rowid(cid, part)
                    side.index.add(np.array([r[0] for r in rows], np.int64),
                                   _matrix([r[1] for r in rows], dim), self.threads)
                side.members, side.version = snap.members, snap.version
                side.unsaved += len(added) + len(removed)
                if side.unsaved >= max(1000, SAVE_EVERY * len(snap.members.rowids)):
                    self._save_dense(side, manifest, stem, model)
                return side
        return self._rebuild_dense(cid, snap, manifest, stem, model, dim)

    def _load_dense(self, manifest: Manifest, model: str, dim: int) -> Side[HnswIndex] | None:
        meta = manifest.read()
        if meta is None or str(meta["model"]) != model:
            return None
        index = HnswIndex.load(self.directory / str(meta["data"]), dim)
        members = Members(meta["rowids"], meta["keys"])
        if index is None or index.entries < len(members.rowids):
            log.warning("side index %s is unreadable or incomplete: rebuilding it", manifest.path)
            return None
        return Side(index, members, None, model=model)

    def _rebuild_dense(self, cid: int, snap: Snapshot, manifest: Manifest, stem: str, model: str,
                       dim: int) -> Side[HnswIndex]:
        index = HnswIndex(dim, capacity=int(len(snap.members.rowids) * 1.05) + 1024)
        after, rowids, keys = -1, [], []
        while True:
            rows = self.read("SELECT rowid, id, vector FROM chunks WHERE collection_id = ? AND rowid > ? "
                             "ORDER BY rowid LIMIT ?", (cid, after, BATCH))
            if not rows:
                break
            part = Members.of((r[0], r[1]) for r in rows)
            index.add(part.rowids, _matrix([r[2] for r in rows], dim), self.threads)
            rowids.append(part.rowids)
            keys.append(part.keys)
            after = rows[-1][0]
        members = Members(np.concatenate(rowids), np.concatenate(keys)) if rowids else Members.empty()
        side = Side(index, members, snap.version, model=model)
        self._save_dense(side, manifest, stem, model)
        return side

    def _save_dense(self, side: Side[HnswIndex], manifest: Manifest, stem: str, model: str) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            name = new_data_name(stem, ".hnsw")
            side.index.save(self.directory / name)
            manifest.write(side.members, int(side.version[0]) if side.version else 0, model, name)
            remove_others(self.directory, stem, ".hnsw", name)
            side.unsaved = 0
        except OSError as exc:  # a cache: searching goes on from memory
            log.warning("cannot save the side index in %s: %s", self.directory, exc)

    def vectors_by_rowid(self, cid: int, rowids: np.ndarray) -> list[tuple]:
        out: list[tuple] = []
        ids = rowids.tolist()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            out += self.read(f"SELECT rowid, vector FROM chunks WHERE collection_id = ? AND rowid IN "
                             f"({','.join('?' * len(part))})", [cid, *part])
        return out

    # -- keyword -----------------------------------------------------------------
    def words(self, cid: int, version: tuple, uid: str) -> Side[TantivyIndex] | None:
        """The collection's tantivy index in step with ``version`` (None: tantivy is not installed)."""
        if not self.keyword:
            return None
        side = self._words.get(cid)
        if side is None or side.version != version:
            with self._cid_lock(cid):
                side = self._words.get(cid)
                if side is None or side.version != version:
                    snap = self.snapshot(cid, version)
                    side = sync_words(self.directory, self.read, cid, side, snap.members, snap.version,
                                      safe_name(uid), threads=self.threads)
                    self._words[cid] = side
        self._used(cid)
        return side

    # -- operators -----------------------------------------------------------------
    def rebuild(self, cid: int, version: tuple, uid: str, model: str, dim: int) -> dict[str, int]:
        """Rebuild the side indexes a collection's size calls for from the catalog now."""
        with self._lock:
            self._dense.pop(cid, None)
            self._words.pop(cid, None)
        stem = safe_name(uid)
        remove_index_files(self.directory, stem)
        with self._cid_lock(cid):
            snap = self.snapshot(cid, version)
            if self.large(cid, version):
                self._dense[cid] = self._rebuild_dense(cid, snap, Manifest(self.directory / f"{stem}.hnsw.npz"),
                                                       stem, model, dim)
        self._used(cid)
        words = self.words(cid, version, uid) if self.wordy(cid, version) else None
        dense = self._dense.get(cid)
        return {"chunks": len(snap.members.rowids), "dense": len(dense.members.rowids) if dense else 0,
                "keyword": len(words.members.rowids) if words else 0}


def _matrix(blobs: list[bytes], dim: int) -> np.ndarray:
    if not blobs:
        return np.zeros((0, dim), np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)


def _tantivy_available() -> bool:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        log.warning("tantivy is not installed: large SQLite collections keep FTS5 for keyword search "
                    "(pip install tantivy)")
        return False
    return True
