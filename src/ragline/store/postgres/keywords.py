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
- A query reads, per term, at most ``depth`` postings the scope may see (tenant,
  owner, metadata filters applied in that read), best impact first; the union of
  those chunks is scored exactly (every query term's posting of each, with today's
  N, average length and df). Terms with at most ``depth`` visible postings are read
  whole, so the ranking is exact whenever no term is that common; otherwise a chunk
  is missed only if it is in no term's top ``depth`` yet would reach the top k
  (docs/scaling.md measures how often: top-10 agreement with SQLite).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import psycopg

from ...models import Scope
from ..filters import Filter
from ..sql.common import owner_visibility
from .filters import B, K1, compile_postgres, lexeme

DEPTH = 1000
"""Postings read per query term (at least k): the bound on a query's cost."""


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
    for cid, owner, lexeme, n in cur.execute(
            "SELECT p.collection_id, coalesce(p.owner, ''), p.lexeme, count(*) FROM chunks c "
            "JOIN postings p ON p.chunk_id = c.id WHERE c.doc_id = ANY(%s) GROUP BY 1, 2, 3", (doc_ids,)):
        out.setdefault((cid, owner), Counter())[lexeme] = n
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


_SEARCH = """
WITH q AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS q(lexeme, weight)),
cand AS (
    SELECT DISTINCT t.chunk_id FROM q CROSS JOIN LATERAL (
        SELECT p.chunk_id FROM postings p{join}
        WHERE p.collection_id = {cid} AND p.lexeme = q.lexeme AND p.tenant = %s{owner}{where}
        ORDER BY p.impact DESC, p.chunk_id LIMIT %s) t
)
SELECT p.chunk_id,
       sum(q.weight * p.tf * {k1_1} / (p.tf + {k1} * (1 - {b} + {b} * p.length / %s::float8))) AS score
FROM cand JOIN postings p ON p.chunk_id = cand.chunk_id JOIN q ON q.lexeme = p.lexeme
GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %s
""".replace("{k1_1}", f"{K1 + 1!r}::float8").replace("{k1}", f"{K1!r}::float8").replace("{b}", f"{B!r}::float8")


def keyword_search(cur: psycopg.Cursor, scope: Scope, cid: int, lexemes: list[str], k: int, filters: Filter,
                   depth: int = DEPTH) -> list[tuple[str, float]]:
    """The k best chunks of collection ``cid`` the scope may see for ``lexemes``
    (duplicates count twice, as in FTS5), with their BM25 scores."""
    repeats = Counter(lexemes)
    terms = list(repeats)
    if scope.owner is None:  # a key without an owner: the whole collection's statistics
        totals, owners = "SELECT chunk_total AS n, length_total AS total FROM collections WHERE id = %s", None
    else:
        totals = ("SELECT coalesce(sum(chunks), 0)::bigint AS n, coalesce(sum(length), 0)::bigint AS total "
                  "FROM owner_totals WHERE collection_id = %s AND owner = ANY(%s)")
        owners = ["", scope.owner]
    seen = "" if owners is None else " AND owner = ANY(%s)"
    # One statement, one snapshot: N and each df from the same committed writes.
    rows = cur.execute(f"WITH s AS ({totals}) SELECT s.n, s.total, t.lexeme, t.df FROM s LEFT JOIN "
                       f"(SELECT lexeme, sum(df)::bigint AS df FROM term_stats WHERE collection_id = %s "
                       f"AND lexeme = ANY(%s){seen} GROUP BY lexeme HAVING sum(df) > 0) t ON true",
                       [cid, *([owners] if owners else []), cid, terms, *([owners] if owners else [])]).fetchall()
    n, total = (rows[0][0], rows[0][1]) if rows else (0, 0)
    if not n:
        return []
    weights = {lex: repeats[lex] * _idf(n, df) for _, _, lex, df in rows if lex is not None}
    if not weights:
        return []
    avgdl = max(1, total) / n
    where, params = compile_postgres(filters)
    owner_sql, owner_params = owner_visibility(scope, "p", "%s")
    join = " JOIN chunks c ON c.id = p.chunk_id JOIN documents d ON d.id = c.doc_id" if where else ""
    rows = cur.execute(_SEARCH.format(cid=int(cid), join=join, owner=owner_sql, where=where),
                       [list(weights), list(weights.values()), scope.tenant, *owner_params, *params,
                        max(depth, k), avgdl, k]).fetchall()
    return [(r[0], float(r[1])) for r in rows]


def _idf(n: int, df: int) -> float:
    """FTS5's idf: ln((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    ratio = (n - df + 0.5) / (df + 0.5)
    return max(math.log(ratio), 1e-6) if ratio > 0 else 1e-6
