"""Keeping a large SQLite collection's tantivy index (``keyword_index``) in step with
its FTS5 table, the keyword side's system of record: the same diff as the HNSW
index (``sqlite_side``), with the terms of added chunks read from FTS5 by rowid."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

from .ann import Manifest, Members, new_data_name, remove_others
from .keyword_index import TantivyIndex

if TYPE_CHECKING:
    from .side import Side, SideIndexes, Snapshot

log = logging.getLogger(__name__)
BATCH = 50_000


def sync_words(sides: SideIndexes, cid: int, side: Side | None, snap: Snapshot, stem: str) -> Side:
    from .side import Side

    manifest = Manifest(sides.directory / f"{stem}.words.npz")
    if side is None:
        side = _load(sides, manifest)
    if side is not None:
        added, removed = side.members.diff(snap.members)
        side.index.update(_terms(sides, cid, added), removed, threads=1)  # type: ignore[attr-defined]
        side.members, side.version = snap.members, snap.version
        if len(added) or len(removed):  # tantivy has committed: the manifest must say so
            manifest.write(side.members, int(snap.version[0]), "terms", manifest_file(manifest))
        return side
    directory_name = new_data_name(stem, ".tantivy")
    index = TantivyIndex(sides.directory / directory_name, create=True)
    rowids = snap.members.rowids
    for start in range(0, len(rowids), BATCH):
        index.update(_terms(sides, cid, rowids[start:start + BATCH]), np.zeros(0, np.int64), threads=sides.threads)
    side = Side(index, snap.members, snap.version)
    try:
        manifest.write(snap.members, int(snap.version[0]), "terms", directory_name)
        remove_others(sides.directory, stem, ".tantivy", directory_name)
    except OSError as exc:
        log.warning("cannot save the keyword side index in %s: %s", sides.directory, exc)
    return side


def manifest_file(manifest: Manifest) -> str:
    meta = manifest.read()
    return str(meta["data"]) if meta else ""


def _load(sides: SideIndexes, manifest: Manifest) -> Side | None:
    from .side import Side

    meta = manifest.read()
    if meta is None:
        return None
    index = TantivyIndex.load(sides.directory / str(meta["data"]))
    members = Members(meta["rowids"], meta["keys"])
    if index is None or index.entries != len(members.rowids):
        log.warning("keyword side index %s is unreadable or out of step: rebuilding it", manifest.path)
        return None
    return Side(index, members, None)


def _terms(sides: SideIndexes, cid: int, rowids: np.ndarray) -> list[tuple[int, str]]:
    """(rowid, terms) for ``rowids`` from the collection's FTS5 table."""
    if not len(rowids):
        return []
    lo, hi = int(rowids[0]), int(rowids[-1])
    if len(rowids) > 5000:  # a range scan of the FTS5 content, then keep the wanted rows
        wanted = set(rowids.tolist())
        rows = sides.read(f"SELECT rowid, terms FROM fts_{cid} WHERE rowid BETWEEN ? AND ?", (lo, hi))
        return [(r, t) for r, t in rows if r in wanted]
    out: list[tuple[int, str]] = []
    ids = rowids.tolist()
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        out += sides.read(f"SELECT rowid, terms FROM fts_{cid} WHERE rowid IN ({','.join('?' * len(part))})", part)
    return out
