"""PostgreSQL keyword search by impact-ordered postings (schema version 11).

BM25 as SQLite FTS5's ``bm25()`` computes it (k1 = 1.2, b = 0.75, idf = ln((N - n +
0.5) / (n + 0.5)) floored at 1e-6, document length = number of analysed terms), at a
cost bounded by the number of query terms, not by the chunks they match:

- ``postings`` holds one row per (chunk, term): the term's frequency, the chunk's
  length and its ``impact``, the BM25 term weight at the collection's average length
  when the row was written. An index on (collection, term, impact DESC) lets a query
  read each term's postings best first.
- ``term_stats`` (df per collection, owner and term) and ``owner_totals`` (chunks and
  total length per collection and owner) are kept in the transaction that writes or
  deletes the chunks, so N, the average length and each term's df are read, not
  counted. Owner '' is the shared rows. A scope with an owner sums the shared rows'
  and its own (what it may read, ``visibility``); one without sums every owner's, as
  the collection's totals (``collections.chunk_total``) do.
- A query reads, in one statement, the statistics and each term's best
  ``FIRST_DEPTH`` (at least k) postings the scope may see (tenant, owner, metadata
  filters applied in that read), then scores what it read exactly (with today's N,
  average length and df), fetching by key the missing postings of the chunks that
  could still reach the top k. It stops when no unread posting can lift a chunk
  above the k-th score (a term's last posting read bounds its unread ones: the
  threshold algorithm), else reads each term on, 4× deeper, up to ``DEPTH`` postings
  per term: the bound on a query's cost. Exact while the average length has not
  drifted since the postings were written, and whenever no term is cut at ``DEPTH``
  (docs/scaling.md measures the agreement with SQLite).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable

import psycopg

from ...models import Scope
from ..filters import Filter
from ..sql.common import owner_visibility
from .filters import K1, B, compile_postgres, lexeme

FIRST_DEPTH = 100
"""Postings read per query term in the first round (at least k)."""
DEPTH = 800
"""The most postings read per query term: the bound on a query's cost (6,400 cost 120 ms
p50 at 100,000 chunks for SciFact's long queries; docs/scaling.md)."""


def owner_key(owner: str | None) -> str:
    """The owner as the statistics tables key it: '' for shared rows."""
    return owner or ""


def term_counts(terms: str) -> tuple[Counter[str], int]:
    """A chunk's analysed terms (space-separated) → (frequency per lexeme, length)."""
    words = terms.split()
    return Counter(lex for lex in map(lexeme, words) if lex is not None), len(words)


def impact(tf: int, length: int, avgdl: float) -> float:
    """BM25's term weight without idf: what orders a term's postings."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))


def write_postings(cur: psycopg.Cursor, cid: int, tenant: str, owner: str | None,
                   chunks: Iterable[tuple[str, str]], *, removed: Counter[str] | None = None,
                   removed_chunks: int = 0, removed_length: int = 0) -> None:
    """Insert the postings of ``chunks`` ((chunk id, analysed terms), all of one owner)
    and move the statistics by what they add less what ``removed`` (df per lexeme,
    chunk count and length of this owner's chunks just deleted) took away."""
    counts = [(chunk_id, *term_counts(terms)) for chunk_id, terms in chunks]
    added_length = sum(n for _, _, n in counts)
    total, length = cur.execute("SELECT chunk_total, length_total FROM collections WHERE id = %s",
                                (cid,)).fetchone() or (0, 0)
    chunks_after = total + len(counts) - removed_chunks
    avgdl = max(1, length + added_length - removed_length) / max(1, chunks_after)
    ids: list[str] = []
    lexemes: list[str] = []
    tfs: list[int] = []
    lengths: list[int] = []
    impacts: list[float] = []
    df: Counter[str] = Counter()
    for chunk_id, freq, n in counts:
        for term, tf in freq.items():
            ids.append(chunk_id)
            lexemes.append(term)
            tfs.append(tf)
            lengths.append(n)
            impacts.append(impact(tf, n, avgdl))
        df.update(freq.keys())
    if ids:
        cur.execute("INSERT INTO postings (chunk_id, lexeme, collection_id, tenant, owner, tf, length, impact) "
                    "SELECT u.c, u.l, %s, %s, %s, u.tf, u.n, u.i "
                    "FROM unnest(%s::text[], %s::text[], %s::int[], %s::int[], %s::real[]) AS u(c, l, tf, n, i)",
                    (cid, tenant, owner, ids, lexemes, tfs, lengths, impacts))
    df.subtract(removed or Counter())
    move_stats(cur, cid, tenant, {owner_key(owner): (df, len(counts) - removed_chunks,
                                                      added_length - removed_length)})


def removed_stats(cur: psycopg.Cursor, doc_ids: list[str]) -> dict[tuple[int, str], Counter[str]]:
    """Df per lexeme of the chunks of ``doc_ids``, by (collection, owner key): read
    before the chunks (and, by cascade, their postings) are deleted."""
    out: dict[tuple[int, str], Counter[str]] = {}
    chunk_ids = [r[0] for r in cur.execute("SELECT id FROM chunks WHERE doc_id = ANY(%s)", (doc_ids,))]
    if not chunk_ids:  # a new document: nothing to read (and no plan to risk)
        return out
    # Per chunk, by the primary key's prefix: a join could be planned as a scan of every posting.
    for cid, owner, term, n in cur.execute(
            "SELECT p.collection_id, coalesce(p.owner, ''), p.lexeme, count(*) FROM unnest(%s::text[]) AS c(id) "
            "CROSS JOIN LATERAL (SELECT * FROM postings x WHERE x.chunk_id = c.id) p GROUP BY 1, 2, 3", (chunk_ids,)):
        out.setdefault((cid, owner), Counter())[term] = n
    return out


def move_stats(cur: psycopg.Cursor, cid: int, tenant: str,
               changes: dict[str, tuple[Counter[str], int, int]]) -> None:
    """Add (df per lexeme, chunks, length) to each owner key's statistics of collection
    ``cid``. Rows are locked in key order, so concurrent writers cannot deadlock."""
    for owner in sorted(changes):
        df, chunks, length = changes[owner]
        moved = sorted((lex, n) for lex, n in df.items() if n)
        if moved:
            cur.execute("INSERT INTO term_stats (collection_id, owner, lexeme, tenant, df) "
                        "SELECT %s, %s, u.l, %s, u.n FROM unnest(%s::text[], %s::bigint[]) AS u(l, n) ORDER BY u.l "
                        "ON CONFLICT (collection_id, lexeme, owner) DO UPDATE SET df = term_stats.df + excluded.df",
                        (cid, owner, tenant, [m[0] for m in moved], [m[1] for m in moved]))
            gone = [lex for lex, n in moved if n < 0]
            if gone:
                cur.execute("DELETE FROM term_stats WHERE collection_id = %s AND owner = %s AND lexeme = ANY(%s) "
                            "AND df <= 0", (cid, owner, gone))
        if chunks or length:
            cur.execute("INSERT INTO owner_totals (collection_id, owner, tenant, chunks, length) "
                        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (collection_id, owner) DO UPDATE "
                        "SET chunks = owner_totals.chunks + excluded.chunks, "
                        "length = owner_totals.length + excluded.length", (cid, owner, tenant, chunks, length))


_TOPS = """
SELECT q.lexeme, t.chunk_id, t.tf::bigint, t.length::bigint, t.impact
FROM unnest(%s::text[], %s::real[], %s::text[]) AS q(lexeme, after, after_id) CROSS JOIN LATERAL (
    SELECT p.chunk_id, p.tf, p.length, p.impact FROM postings p{join}
    WHERE p.collection_id = {cid} AND p.lexeme = q.lexeme AND p.tenant = %s{owner}{where}
      AND p.impact <= coalesce(q.after, 'Infinity')
      AND (q.after IS NULL OR p.impact < q.after OR p.chunk_id > q.after_id)
    ORDER BY p.impact DESC, p.chunk_id LIMIT %s) t
"""
"""Each term's next postings the scope may see (tenant, owner, filters), best first,
after the last one read (none yet: NULL)."""

_MISSING = """
SELECT chunk_id, lexeme, tf, length FROM postings
WHERE chunk_id = ANY(%s::text[]) AND lexeme = ANY(%s::text[]) AND tenant = %s
"""
"""The query terms' postings of some chunks (those the top lists left incomplete): one
scan of the primary key for them all."""


def keyword_search(cur: psycopg.Cursor, scope: Scope, cid: int, lexemes: list[str], k: int, filters: Filter,
                   depth: int = DEPTH) -> list[tuple[str, float]]:
    """The k best chunks of collection ``cid`` the scope may see for ``lexemes``
    (duplicates count twice, as in FTS5), with their BM25 scores.

    Reads each term's postings best first, ``FIRST_DEPTH`` (at least k) at a time, 4×
    deeper each round up to ``depth``. A chunk's score is exact once all its query
    terms' postings are known (those missing from the lists read are fetched by key
    for the chunks that could still reach the top k); the reading stops when no
    unread chunk can beat the k-th exact score: each term's next posting bounds its
    unread ones (threshold algorithm), or when ``depth`` is reached."""
    repeats = Counter(lexemes)
    terms = list(repeats)
    if scope.owner is None:  # a key without an owner: the whole collection's statistics
        totals, owners = "SELECT chunk_total::bigint, length_total::bigint FROM collections WHERE id = %s", []
    else:
        owners = [["", scope.owner]]
        totals = ("SELECT coalesce(sum(chunks), 0)::bigint, coalesce(sum(length), 0)::bigint FROM owner_totals "
                  "WHERE collection_id = %s AND owner = ANY(%s)")
    seen = " AND owner = ANY(%s)" if owners else ""
    where, params = compile_postgres(filters)
    owner_sql, owner_params = owner_visibility(scope, "p", "%s")
    join = " JOIN chunks c ON c.id = p.chunk_id JOIN documents d ON d.id = c.doc_id" if where else ""
    tops_sql = _TOPS.format(cid=int(cid), join=join, owner=owner_sql, where=where)
    tops_params = [scope.tenant, *owner_params, *params]
    step = max(FIRST_DEPTH, k)
    # One statement (one round trip, one snapshot): N, total length, each term's df, and
    # the first postings of each term.
    rows = cur.execute(
        f"SELECT 0, NULL::text, NULL::text, s.*, NULL::real FROM ({totals}) s UNION ALL "
        f"SELECT 1, lexeme, NULL, sum(df)::bigint, NULL, NULL FROM term_stats WHERE collection_id = %s "
        f"AND lexeme = ANY(%s){seen} GROUP BY lexeme HAVING sum(df) > 0 UNION ALL "
        f"SELECT 2, t.* FROM ({tops_sql}) t",
        [cid, *owners, cid, terms, *owners, terms, [None] * len(terms), [None] * len(terms), *tops_params,
         step]).fetchall()
    n, total = next(((r[3], r[4]) for r in rows if r[0] == 0), (0, 0))
    if not n:
        return []
    weights = {r[1]: repeats[r[1]] * _idf(n, r[3]) for r in rows if r[0] == 1}
    if not weights:
        return []
    avgdl = max(1, total) / n
    tops = [r[1:] for r in rows if r[0] == 2 and r[1] in weights]
    known: dict[str, dict[str, float]] = {}  # chunk → term → its share of the score
    complete: set[str] = set()  # chunks whose every query term's share is known
    floors: dict[str, float] = {}  # per term with more to read: the most an unread posting adds
    after: dict[str, tuple[float, str]] = {}  # per term: where its reading stopped
    read = 0
    while True:
        counts: Counter[str] = Counter()
        last: dict[str, tuple[int, int]] = {}
        for term, chunk_id, tf, length, stored in tops:
            known.setdefault(chunk_id, {})[term] = weights[term] * impact(tf, length, avgdl)
            counts[term] += 1
            last[term] = (tf, length)
            after[term] = (stored, chunk_id)
        read += step
        for term in list(weights) if not floors else list(floors):
            if counts[term] == step:  # more to read: its next posting adds at most about what its last did
                floors[term] = weights[term] * impact(*last[term], avgdl)
            else:
                floors.pop(term, None)
        scores = _complete(cur, scope.tenant, known, complete, weights, floors, avgdl, k)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        theta = best[-1][1] if len(best) == k else 0.0
        if not floors or sum(floors.values()) <= theta or read >= depth:
            return best
        step = min(depth - read, read * 3)  # 4x as deep as before
        wanted = list(floors)
        tops = cur.execute(tops_sql, [wanted, [after[t][0] for t in wanted], [after[t][1] for t in wanted],
                                      *tops_params, step]).fetchall()


def _complete(cur: psycopg.Cursor, tenant: str, known: dict[str, dict[str, float]], complete: set[str],
              weights: dict[str, float], floors: dict[str, float], avgdl: float, k: int) -> dict[str, float]:
    """Chunk → score, exact for every chunk that could reach the top k. A term a chunk
    lacks in the lists read is absent from it if its list was read to the end; else the
    chunk's score is uncertain by up to that term's floor. The most promising uncertain
    chunks get their missing postings fetched by key, a batch at a time, until none
    could lift itself above the k-th score reached (which rises as scores become exact)."""
    lower = {chunk: sum(shares.values()) for chunk, shares in known.items()}
    upper: dict[str, float] = {}
    for chunk, shares in known.items():
        if chunk not in complete:
            doubt = sum(floor for term, floor in floors.items() if term not in shares)
            if doubt:
                upper[chunk] = lower[chunk] + doubt
            else:
                complete.add(chunk)
    batch = max(2 * k, 200)
    while upper:
        theta = heapq.nlargest(k, lower.values())[-1] if len(lower) >= k else 0.0
        part = [chunk for chunk in heapq.nlargest(batch, upper, key=upper.__getitem__) if upper[chunk] > theta]
        if not part:
            break
        for chunk, term, tf, length in cur.execute(_MISSING, [part, list(weights), tenant]):
            known[chunk][term] = weights[term] * impact(tf, length, avgdl)
        for chunk in part:
            lower[chunk] = sum(known[chunk].values())
            del upper[chunk]
        complete.update(part)
        batch *= 2
    return lower


def _idf(n: int, df: int) -> float:
    """FTS5's idf: ln((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    ratio = (n - df + 0.5) / (df + 0.5)
    return max(math.log(ratio), 1e-6) if ratio > 0 else 1e-6
