"""Keeping a large SQLite collection's tantivy index (``keyword_index``) in step with
its FTS5 table, the keyword side's system of record: the same diff as the HNSW
index (``side``), with the terms of added chunks read from FTS5 by rowid. ``side``
calls in with what it knows (directory, reads, the catalog's members); nothing here
imports it back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .ann import Manifest, Members, Side, new_data_name, remove_others
from .keyword_index import TantivyIndex

log = logging.getLogger(__name__)
BATCH = 50_000

Read = Callable[..., list[tuple]]


def sync_words(directory: Path, read: Read, cid: int, side: Side[TantivyIndex] | None, members: Members,
               version: tuple, stem: str, *, threads: int = 1) -> Side[TantivyIndex]:
    """The collection's tantivy index holding exactly ``members`` (the catalog's chunks at
    ``version``): the loaded or saved one brought up to date, or a new one."""
    manifest = Manifest(directory / f"{stem}.words.npz")
    if side is None:
        side = _load(manifest)
    if side is not None:
        added, removed = side.members.diff(members)
        side.index.update(_terms(read, cid, added), removed, threads=1)
        side.members, side.version = members, version
        if len(added) or len(removed):  # tantivy has committed: the manifest must say so
            manifest.write(side.members, int(version[0]), "terms", manifest_file(manifest))
        return side
    directory_name = new_data_name(stem, ".tantivy")
    index = TantivyIndex(directory / directory_name, create=True)
    rowids = members.rowids
    for start in range(0, len(rowids), BATCH):
        index.update(_terms(read, cid, rowids[start:start + BATCH]), np.zeros(0, np.int64), threads=threads)
    side = Side(index, members, version)
    try:
        manifest.write(members, int(version[0]), "terms", directory_name)
        remove_others(directory, stem, ".tantivy", directory_name)
    except OSError as exc:
        log.warning("cannot save the keyword side index in %s: %s", directory, exc)
    return side


def manifest_file(manifest: Manifest) -> str:
    meta = manifest.read()
    return str(meta["data"]) if meta else ""


def _load(manifest: Manifest) -> Side[TantivyIndex] | None:
    meta = manifest.read()
    if meta is None:
        return None
    index = TantivyIndex.load(manifest.path.parent / str(meta["data"]))
    members = Members(meta["rowids"], meta["keys"])
    if index is None or index.entries != len(members.rowids):
        log.warning("keyword side index %s is unreadable or out of step: rebuilding it", manifest.path)
        return None
    return Side(index, members, None)


def _terms(read: Read, cid: int, rowids: np.ndarray) -> list[tuple[int, str]]:
    """(rowid, terms) for ``rowids`` from the collection's FTS5 table."""
    if not len(rowids):
        return []
    lo, hi = int(rowids[0]), int(rowids[-1])
    if len(rowids) > 5000:  # a range scan of the FTS5 content, then keep the wanted rows
        wanted = set(rowids.tolist())
        rows = read(f"SELECT rowid, terms FROM fts_{cid} WHERE rowid BETWEEN ? AND ?", (lo, hi))
        return [(r, t) for r, t in rows if r in wanted]
    out: list[tuple[int, str]] = []
    ids = rowids.tolist()
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        out += read(f"SELECT rowid, terms FROM fts_{cid} WHERE rowid IN ({','.join('?' * len(part))})", part)
    return out
