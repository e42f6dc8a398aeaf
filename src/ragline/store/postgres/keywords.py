"""PostgreSQL keyword search by packed, weight-ordered posting lists (schema version 13):
the design, and its reading half; the writing half (postings, statistics, packing) is
``postings``.

BM25 as SQLite FTS5's ``bm25()`` computes it (k1 = 1.2, b = 0.75, idf = ln((N - n +
0.5) / (n + 0.5)) floored at 1e-6, document length = number of analysed terms):

- ``postings`` is the system of record: one row per (chunk seq, term) with the term's
  frequency and the chunk's length, written with the chunks (``postings.write_postings``).
- ``term_stats`` (df per collection, owner and term) and ``owner_totals`` (chunks and
  total length per collection and owner) are kept in the transaction that writes or
  deletes the chunks, so N, the average length and each term's df are read, not
  counted. Owner '' is the shared rows. A scope with an owner sums the shared rows'
  and its own (what it may read, ``visibility``); one without sums every owner's, as
  the collection's totals (``collections.chunk_total``) do.
- ``posting_blocks`` holds each (collection, owner, term)'s postings packed: runs of
  postings ordered best first (BM25's term weight at the average length of the time),
  in blocks of ``PACK_BLOCK`` (chunk seqs, frequencies, lengths as byte arrays: one row
  read, decoded by NumPy). Run 0 is the main run; a writer that has added ``postings.FLUSH``
  postings of a term since it was last packed appends them as a new small run, and
  rebuilds run 0 from all the term's postings once the small runs and deleted postings
  reach 1/``postings.REBUILD`` of it (``postings.pack``): a posting is packed a few times over its life,
  not once per write. What is newer than a term's packed runs (``packed_upto``, a
  chunk seq) is read from ``postings`` row by row: fewer than ``postings.FLUSH`` rows per term.
  The packing takes the collection's exclusive advisory lock; writers hold it shared
  from before their chunks get seqs to their commit, so no posting is ever between
  "packed" and "newer than packed".
- A query reads, in one round trip (pipelined, one snapshot), the statistics, the
  first ``FIRST_BLOCKS`` blocks of each of its terms' runs and the newer postings.
  When its terms have at most ``SCORE_ALL_MAX`` postings (and no more than its budget)
  that round trip reads every block, and every chunk seen is scored exactly at once,
  summed by seq (``_score_all``): no rounds, no bounds. Otherwise it reads on best
  first and scores in NumPy with today's N, average length and df; each later round's
  postings are merged into the chunks seen (a score and a bit per term read), so a
  round costs what it reads, not what all rounds read. A chunk's score is
  exact once each query term's posting of it is known or the term's unread postings
  are known to miss it. The unread part of a run adds at most its last read posting's
  weight (scaled by how far the average length grew since the packing: an exact
  bound), so reading stops when no chunk outside the top k, seen or not, could reach
  the k-th score and the top k are complete (the threshold algorithm). When no unseen
  chunk can reach the k-th score and at most ``RESOLVE_MAX`` seen ones are in doubt,
  those are scored whole by their postings' (seq, term) key in one statement (random
  access); else the runs still in doubt are read on, twice as deep each round. The
  candidates are checked against ``chunks`` (tenant, owner, metadata filters, and
  whether they still exist), which gives their ids: with filters best first in every
  round, without once at the end (only the scope's owners' lists were read; a chunk
  deleted since its list was packed is dropped and the reading resumes without it).
- A query reads at most a budget of postings per collection (``store.keyword_budget``;
  the round that reaches it reads the runs that weigh most). Past it the chunks in
  doubt with the highest bounds are scored whole and the best of them returned, with
  a warning: a tenant's query of its commonest terms costs a bounded read, and its
  top k are the best found, not surely the best.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import psycopg

from ...analyzer import MAX_QUERY_TERMS
from ...errors import StoreError
from ...models import Scope
from ..filters import Filter
from ..sql.common import owner_visibility
from . import schema
from .filters import K1, B, compile_postgres

log = logging.getLogger(__name__)
Weighed = TypeVar("Weighed", float, np.ndarray)

FIRST_BLOCKS = 4
"""Blocks of each run of the query terms read in the first round."""
SCORE_ALL_MAX = 1_000_000
"""A query whose terms have at most this many postings (and no more than its budget) has
them all read and every chunk scored at once (``_score_all``); longer lists are read best
first (the threshold algorithm). At a million chunks, on 300 SciFact questions bucketed
by their terms' postings (from under 50,000 to over 800,000), scoring all was the faster
in every bucket's median but one (600,000–800,000 at k = 10: 51.7 against 49.1 ms), p50
41.3 → 28.9 ms at k = 10 and 53.9 → 30.5 at k = 100 (docs/scaling.md). It bounds a
query's arrays (86 MB at the peak for 990,000 postings at a million chunks)."""
SPAN_SLACK = 65_536
"""Postings scored all at once are summed into an array indexed by chunk seq when their
seqs span less than 4 per posting plus this (an array a few times their size, no sort);
seqs spread wider (a small collection written among others' large ones) are summed after
a sort."""
RESOLVE_MAX = 300
"""Chunks in doubt (seen in some lists, able to reach the top k) that are scored whole by
their postings' key at once; more, and the lists are read on instead. A key lookup costs
about what reading 20 postings does: at 100,000 chunks 300 took a k = 10 query from 14.9
to 9.2 ms p50 (docs/scaling.md); 1,000 slowed k = 500 queries by a third."""


def impact(tf: Weighed, length: Weighed, avgdl: float) -> Weighed:
    """BM25's term weight without idf: of one posting, or of arrays of them."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))


_BLOCKS = """
SELECT b.owner, b.lexeme, b.run, b.block, b.avgdl, b.last, b.seqs, b.tfs, b.lengths
FROM unnest(%s::text[], %s::text[], %s::int[], %s::int[], %s::int[]) AS u(o, l, r, lo, hi)
JOIN posting_blocks b ON b.collection_id = %s AND b.lexeme = u.l AND b.owner = u.o AND b.run = u.r
     AND b.block >= u.lo AND b.block < u.hi
WHERE b.tenant = %s
"""
"""Blocks lo..hi-1 of some runs."""

_FIRST = """
SELECT b.owner, b.lexeme, b.run, b.block, b.avgdl, b.last, b.seqs, b.tfs, b.lengths FROM posting_blocks b
WHERE b.collection_id = %s AND b.lexeme = ANY(%s) AND b.owner = ANY(%s) AND b.tenant = %s
  AND (b.block < %s OR ({df}) <= %s)
"""
"""The first blocks of every run of the query terms, or all of them when the terms have
few enough postings to be scored all at once ({df}: their number, computed once)."""

_FRESH = """
SELECT p.lexeme, string_agg(int8send(p.seq), ''::bytea ORDER BY p.seq),
       string_agg(int4send(p.tf), ''::bytea ORDER BY p.seq), string_agg(int4send(p.length), ''::bytea ORDER BY p.seq)
FROM term_stats s CROSS JOIN LATERAL (
    SELECT x.lexeme, x.seq, x.tf, x.length FROM postings x WHERE x.collection_id = s.collection_id
    AND x.lexeme = s.lexeme AND x.seq > s.packed_upto AND coalesce(x.owner, '') = s.owner AND x.tenant = %s) p
WHERE s.collection_id = %s AND s.lexeme = ANY(%s) AND s.owner = ANY(%s)
GROUP BY p.lexeme
"""
"""The postings newer than each term's packed runs, packed as the blocks are (one row per
term: a small collection's postings are mostly these, and thousands of rows cost more
to decode than their bytes)."""


@dataclass
class _Run:
    """Where the reading of one packed run stands."""

    read: int = 0  # blocks read
    done: bool = False  # its last block is read
    bound: float = math.inf  # what one of its unread postings weighs at most (no idf)


def _decode(rows: list[tuple], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(term, seqs, tfs, lengths) rows of packed postings (big-endian byte arrays, as
    blocks and ``_FRESH`` give them) → each posting's term (position in ``index``),
    chunk seq, frequency and length."""
    counts = [len(r[1]) // 8 for r in rows]
    return (np.repeat(np.array([index[r[0]] for r in rows], dtype=np.int64), counts),
            np.frombuffer(b"".join(r[1] for r in rows), dtype=">i8").astype(np.int64),
            np.frombuffer(b"".join(r[2] for r in rows), dtype=">i4").astype(np.float64),
            np.frombuffer(b"".join(r[3] for r in rows), dtype=">i4").astype(np.float64))


class _Reader:
    """One query's postings read so far, and the scores they give."""

    def __init__(self, terms: list[str], weights: np.ndarray, avgdl: float) -> None:
        self.index = {t: i for i, t in enumerate(terms)}
        self.weights = weights
        self.avgdl = avgdl
        self.runs: dict[tuple[str, str, int], _Run] = {}
        # Every chunk seen, sorted; per chunk its score from the postings read and a bit
        # per query term (at most MAX_QUERY_TERMS) whose posting of it was read. A
        # posting is read once, but a chunk scored whole (``resolve``) has every bit set:
        # its postings read later add nothing.
        self.seqs = np.zeros(0, dtype=np.int64)
        self.lower = np.zeros(0)
        self.mask = np.zeros(0, dtype=np.uint64)
        self.bits = np.left_shift(np.uint64(1), np.arange(len(terms), dtype=np.uint64))
        self.read = 0  # postings read

    def add(self, idx: np.ndarray, seqs: np.ndarray, tfs: np.ndarray, lengths: np.ndarray) -> None:
        """Postings of terms ``idx`` (positions in the query's terms), merged into the
        chunks seen: the cost is that of the chunks seen and the postings added, so the
        reading rounds do not score everything read again."""
        if not len(seqs):
            return
        self.read += len(seqs)
        shares = self.weights[idx] * impact(tfs, lengths, self.avgdl)
        by_seq = np.argsort(seqs)  # then the merge below is of two sorted runs: linear
        seqs, idx, shares = seqs[by_seq], idx[by_seq], shares[by_seq]
        both = np.concatenate([self.seqs, seqs])
        order = np.argsort(both, kind="stable")
        merged = both[order]
        first = np.ones(len(merged), dtype=bool)
        first[1:] = merged[1:] != merged[:-1]
        slot = np.empty(len(both), dtype=np.int64)
        slot[order] = np.cumsum(first) - 1
        old, new = slot[:len(self.seqs)], slot[len(self.seqs):]
        lower = np.zeros(int(first.sum()))
        mask = np.zeros(len(lower), dtype=np.uint64)
        lower[old], mask[old] = self.lower, self.mask
        bits = self.bits[idx]
        fresh = (mask[new] & bits) == 0
        new, bits = new[fresh], bits[fresh]
        lower += np.bincount(new, weights=shares[fresh], minlength=len(lower))
        np.bitwise_or.at(mask, new, bits)  # a chunk's bits of several terms, in one pass
        self.seqs, self.lower, self.mask = merged[first], lower, mask

    def blocks(self, rows: list[tuple]) -> None:
        """Blocks read (decoded together: one NumPy pass for all of them)."""
        rows = [r for r in sorted(rows, key=lambda r: r[3]) if r[1] in self.index]
        for owner, term, run, block, avgdl, last, _, tf, n in rows:
            state = self.runs.setdefault((owner, term, run), _Run())
            state.read, state.done = block + 1, bool(last)
            if not last and len(tf):
                # Unread postings weighed at most this one at the packing's average length;
                # at today's, at most max(1, today / then) times that.
                state.bound = impact(float(int.from_bytes(tf[-4:], "big")), float(int.from_bytes(n[-4:], "big")),
                                     avgdl) * max(1.0, self.avgdl / avgdl)
        self.add(*_decode([(r[1], r[6], r[7], r[8]) for r in rows], self.index))

    def unpacked(self, rows: list[tuple]) -> None:
        """Postings newer than their terms' packed runs: (term, seqs, tfs, lengths) rows."""
        self.add(*_decode(rows, self.index))

    def resolve(self, cur: psycopg.Cursor, seqs: np.ndarray) -> None:
        """Score ``seqs`` (sorted) whole: each one's postings of the query terms, read by
        their (seq, term) key. A chunk gone since its list was packed scores 0."""
        rows = cur.execute("SELECT seq, lexeme, tf, length FROM postings WHERE seq = ANY(%s) AND lexeme = ANY(%s)",
                           (seqs.tolist(), list(self.index))).fetchall()
        score = np.zeros(len(seqs))
        if rows:
            where = np.searchsorted(seqs, np.array([r[0] for r in rows], dtype=np.int64))
            term = np.array([self.index[r[1]] for r in rows])
            tf = np.array([r[2] for r in rows], dtype=np.float64)
            n = np.array([r[3] for r in rows], dtype=np.float64)
            shares = self.weights[term] * impact(tf, n, self.avgdl)
            score = np.bincount(where, weights=shares, minlength=len(seqs)).astype(np.float64)
        at = np.searchsorted(self.seqs, seqs)
        self.lower[at] = score
        self.mask[at] = ~np.uint64(0)

    def settle(self, cur: psycopg.Cursor, at: np.ndarray) -> None:
        """Stop reading: score the chunks at positions ``at`` whole, and count every
        run as read (what is unread is given up)."""
        self.resolve(cur, np.sort(self.seqs[at]))
        for state in self.runs.values():
            state.done = True

    def floors(self) -> np.ndarray:
        """Per term: the most one of its unread postings adds to a score."""
        out = np.zeros(len(self.index))
        for (_, term, _), state in self.runs.items():
            if not state.done:
                i = self.index[term]
                out[i] = max(out[i], self.weights[i] * state.bound)
        return out

    def lacking(self, floors: np.ndarray, at: np.ndarray) -> np.ndarray:
        """For the chunks at positions ``at``: the most their unread postings add (the
        floors of the terms whose posting of each was not read)."""
        out = np.zeros(len(at))
        mask = self.mask[at]
        for term in np.flatnonzero(floors):
            out += np.where(mask & self.bits[term], 0.0, floors[term])
        return out


def keyword_search(cur: psycopg.Cursor, scope: Scope, cid: int, lexemes: list[str], k: int,
                   filters: Filter, budget: int) -> list[tuple[str, float]]:
    """The k best chunks of collection ``cid`` the scope may see for ``lexemes``
    (duplicates count twice, as in FTS5), with their BM25 scores (module docstring).
    Past ``budget`` postings read, the chunks most likely to be among them are scored
    whole and the best of those returned: the k best found, no longer surely the k best."""
    repeats = Counter(lexemes)
    terms = list(repeats)
    if len(terms) > MAX_QUERY_TERMS:  # a bit each in a chunk's mask of terms read (``_Reader``)
        raise StoreError(f"a keyword query has at most {MAX_QUERY_TERMS} distinct terms, this one {len(terms)}")
    readable = ["", scope.owner] if scope.owner is not None else [""]
    if scope.owner is None:  # a key without an owner: the whole collection's statistics
        totals, seen, owners = "SELECT chunk_total::bigint, length_total::bigint FROM collections WHERE id = %s", "", []
    else:
        owners = [readable]
        seen = " AND owner = ANY(%s)"
        totals = ("SELECT coalesce(sum(chunks), 0)::bigint, coalesce(sum(length), 0)::bigint FROM owner_totals "
                  "WHERE collection_id = %s AND owner = ANY(%s)")
    conn = cur.connection
    all_at_once = min(budget, SCORE_ALL_MAX)
    stats = f"FROM term_stats WHERE collection_id = %s AND lexeme = ANY(%s){seen}"
    with conn.pipeline():  # one round trip; the transaction is REPEATABLE READ: one snapshot
        c_totals, c_df = conn.cursor(), conn.cursor()
        c_first, c_fresh = conn.cursor(binary=True), conn.cursor(binary=True)
        c_totals.execute(totals, [cid, *owners])
        c_df.execute(f"SELECT lexeme, sum(df)::bigint {stats} GROUP BY lexeme HAVING sum(df) > 0",
                     [cid, terms, *owners])
        c_first.execute(_FIRST.format(df=f"SELECT coalesce(sum(df), 0) {stats}"),
                        [cid, terms, readable, scope.tenant, FIRST_BLOCKS, cid, terms, *owners, all_at_once])
        c_fresh.execute(_FRESH, [scope.tenant, cid, terms, readable])
    n, total = c_totals.fetchone() or (0, 0)
    df = dict(c_df.fetchall())
    first, fresh = c_first.fetchall(), c_fresh.fetchall()
    if not n or not df:
        return []
    names = list(df)
    weights, avgdl = np.array([repeats[t] * _idf(n, df[t]) for t in names]), max(1, total) / n
    check = _Checker(cur, scope, cid, filters)
    if sum(df.values()) <= all_at_once:
        # The first round trip read every block: its statement compared the same sum.
        return _score_all({t: i for i, t in enumerate(names)}, weights, avgdl, first,
                          [r for r in fresh if r[0] in df], check, k)
    reader = _Reader(names, weights, avgdl)
    reader.blocks(first)
    reader.unpacked([r for r in fresh if r[0] in df])
    depth = 1
    while True:
        floors = reader.floors()
        seqs, lower = reader.seqs, reader.lower
        alive = ~np.isin(seqs, np.fromiter(check.dead, dtype=np.int64, count=len(check.dead))) if check.dead \
            else np.ones(len(seqs), dtype=bool)
        if filters:  # the k-th score among chunks that pass them: ask chunks, best first
            order = np.flatnonzero(alive)[np.argsort(-lower[alive], kind="stable")]
            top = check.first_valid(seqs[order], k)
            theta = float(lower[np.searchsorted(seqs, top[-1])]) if len(top) == k else 0.0
            found = len(top)
        else:  # every chunk read is the scope's (its owners' lists only): checked once, at the end
            found = int(alive.sum())
            theta = float(np.partition(lower[alive], found - k)[found - k]) if found >= k else 0.0
        unseen = float(floors.sum())
        # In doubt: able to reach theta (so within ``unseen`` of it) and not scored whole.
        near = np.flatnonzero(alive & (lower + unseen >= theta))
        lack = reader.lacking(floors, near)
        doubt = near[(lower[near] + lack >= theta) & (lack > lower[near] * 1e-12)]
        if len(doubt) and unseen < theta and len(doubt) <= RESOLVE_MAX:
            reader.resolve(cur, seqs[doubt])
            continue
        if unseen and unseen >= theta:
            wanted = {names[i] for i in np.flatnonzero(floors)}
        else:  # the terms some chunk in doubt has not been seen in
            masks = reader.mask[doubt]
            wanted = {names[i] for i in np.flatnonzero(floors) if np.any((masks & reader.bits[i]) == 0)}
        more = [(key, state) for key, state in reader.runs.items() if key[1] in wanted and not state.done]
        if more and reader.read >= budget:  # given up: the likeliest chunks, scored whole
            log.warning("keyword search in collection %s stopped after %s postings, its budget %s (%s terms): "
                        "the best found, not surely the best", cid, reader.read, budget, len(names))
            open_ = np.flatnonzero(lack > 0)
            likeliest = open_[np.argsort(-(lower[near[open_]] + lack[open_]), kind="stable")]
            reader.settle(cur, near[likeliest[:max(RESOLVE_MAX, 2 * k)]])
            continue
        if not more:  # every chunk that could reach the top k is exact: these are the k best
            final = np.flatnonzero(alive & (lower >= theta)) if found >= k else np.flatnonzero(alive)
            ids = check.ids(seqs[final])
            if len(ids) < len(final) and not filters:
                continue  # a chunk deleted since its list was packed: again without it
            best = sorted(((ids[s], score) for s, score in zip(seqs[final].tolist(), lower[final].tolist())
                           if s in ids), key=ranking)
            return best[:k]
        depth *= 2
        if len(more) * depth * schema.PACK_BLOCK > budget - reader.read:  # the budget's last round
            by_name = {name: floors[i] for i, name in enumerate(names)}  # the runs that weigh most
            more.sort(key=lambda run: -by_name[run[0][1]])
            more = more[:max(1, (budget - reader.read) // (depth * schema.PACK_BLOCK))]
        reader.blocks(cur.execute(_BLOCKS, [[key[0] for key, _ in more], [key[1] for key, _ in more],
                                            [key[2] for key, _ in more], [state.read for _, state in more],
                                            [state.read + depth for _, state in more], cid, scope.tenant],
                                  binary=True).fetchall())


def _score_all(index: dict[str, int], weights: np.ndarray, avgdl: float, blocks: list[tuple],
               fresh: list[tuple], check: _Checker, k: int) -> list[tuple[str, float]]:
    """The k best chunks by every posting of the query's terms (every block of their runs
    and the newer postings): every chunk seen scored exactly at once (summed by seq, no
    rounds, no bounds), and the best the scope may see kept."""
    rows = [(r[1], r[6], r[7], r[8]) for r in blocks if r[1] in index] + fresh
    idx, seqs, tfs, lengths = _decode(rows, index)
    if not len(seqs):
        return []
    shares = weights[idx] * impact(tfs, lengths, avgdl)
    low = int(seqs.min())
    if int(seqs.max()) - low < 4 * len(seqs) + SPAN_SLACK:  # summed into an array by seq: no sort
        sums = np.bincount(seqs - low, weights=shares)
        chunks = np.flatnonzero(sums > 0)  # every posting weighs more than 0 (a bool mask: 5× faster)
        scores = sums[chunks]
        chunks += low
    else:  # seqs spread far apart (a collection written among others'): summed after a sort
        chunks, where = np.unique(seqs, return_inverse=True)
        scores = np.bincount(where, weights=shares)
    return _best(chunks, scores, k, check)


def _best(chunks: np.ndarray, scores: np.ndarray, k: int, check: _Checker) -> list[tuple[str, float]]:
    """The k best of ``chunks`` (exactly scored ``scores``) the scope may see, best first,
    ties by id: the best few times k are checked, and more only if some are not seen."""
    live, want = scores.copy(), max(2 * k, 20)
    while True:
        if want < len(chunks):
            at = np.argpartition(live, len(live) - want)[len(live) - want:]
        else:
            at = np.arange(len(chunks))
        at = at[live[at] > -np.inf]
        if len(at) >= k:  # and every chunk tied with the k-th (ties are broken by id)
            theta = float(np.partition(live[at], len(at) - k)[len(at) - k])
            at = np.flatnonzero(live >= theta - abs(theta) * 1e-11)
        ids = check.ids(chunks[at])
        if len(ids) == len(at) and (len(at) >= k or want >= len(chunks)):
            return sorted(((ids[s], score) for s, score in zip(chunks[at].tolist(), scores[at].tolist())),
                          key=ranking)[:k]
        live[at[~np.isin(chunks[at], np.fromiter(ids, dtype=np.int64, count=len(ids)))]] = -np.inf
        want *= 4


def ranking(pair: tuple[str, float]) -> tuple[float, str]:
    """The sort key of (chunk id, score) results: best first, ties by id. Equal scores
    summed in another order (postings read in other rounds) differ in their last bits,
    so scores count as equal to 12 significant digits."""
    return -float(f"{pair[1]:.12g}"), pair[0]


class _Checker:
    """Which chunk seqs the scope may see (tenant, owner, filters; still there), asked of
    ``chunks`` a batch at a time, with their ids."""

    def __init__(self, cur: psycopg.Cursor, scope: Scope, cid: int, filters: Filter) -> None:
        where, params = compile_postgres(filters)
        owner_sql, owner_params = owner_visibility(scope, "c", "%s")
        join = " JOIN documents d ON d.id = c.doc_id" if where else ""
        self._sql = (f"SELECT c.seq, c.id FROM chunks c{join} WHERE c.seq = ANY(%s) AND c.collection_id = {int(cid)} "
                     f"AND c.tenant = %s{owner_sql}{where}")
        self._params = [scope.tenant, *owner_params, *params]
        self._cur = cur
        self.valid: dict[int, str] = {}
        self.dead: set[int] = set()

    def ids(self, seqs: np.ndarray) -> dict[int, str]:
        """Seq → chunk id of those of ``seqs`` the scope may see."""
        wanted: list[int] = seqs.tolist()
        unknown = [s for s in wanted if s not in self.valid and s not in self.dead]
        if unknown:
            found: dict[int, str] = dict(self._cur.execute(self._sql, [unknown, *self._params]).fetchall())
            self.valid.update(found)
            self.dead.update(s for s in unknown if s not in found)
        return {s: self.valid[s] for s in wanted if s in self.valid}

    def first_valid(self, ordered: np.ndarray, k: int) -> list[int]:
        """The first k seqs of ``ordered`` the scope may see (fewer if there are not k)."""
        out: list[int] = []
        start, batch = 0, max(2 * k, 20)
        while len(out) < k and start < len(ordered):
            part = ordered[start:start + batch]
            ids = self.ids(part)
            out += [s for s in part.tolist() if s in ids][:k - len(out)]
            start += batch
            batch *= 4
        return out


def _idf(n: int, df: int) -> float:
    """FTS5's idf: ln((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    ratio = (n - df + 0.5) / (df + 0.5)
    return max(math.log(ratio), 1e-6) if ratio > 0 else 1e-6
