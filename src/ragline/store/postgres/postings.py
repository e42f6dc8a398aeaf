"""The PostgreSQL posting lists' writing half: a chunk's postings inserted with it, the
statistics (df per term, totals per owner) moved in the same transaction, and the lists
packed into weight-ordered blocks after it (``pack``). The design, and the reading half
that ranks by them, are in ``keywords``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import psycopg

from . import schema
from .filters import lexeme

FLUSH = 512
"""Unpacked postings of a term that make a writer pack them (``pack``): 512 kept SciFact's
ingest within a few % of writing no packs at all (64 cost 60 % more) for 10 % slower
keyword queries (docs/scaling.md)."""
REBUILD = 2
"""A term's main run is rebuilt when small runs and deleted postings reach 1/REBUILD of it."""


def owner_key(owner: str | None) -> str:
    """The owner as the statistics tables key it: '' for shared rows."""
    return owner or ""


def term_counts(terms: str) -> tuple[Counter[str], int]:
    """A chunk's analysed terms (space-separated) → (frequency per lexeme, length)."""
    words = terms.split()
    return Counter(lex for lex in map(lexeme, words) if lex is not None), len(words)


@dataclass
class Packing:
    """(owner key, term) pairs of one collection to pack after the writing transaction."""

    rebuild: set[tuple[str, str]] = field(default_factory=set)
    flush: set[tuple[str, str]] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.rebuild or self.flush)


def write_lock(cur: psycopg.Cursor, cid: int) -> None:
    """Taken by a writer of collection ``cid`` before its chunks get seqs, held to its
    commit: packing (exclusive) waits for writers in flight, and they for it."""
    cur.execute("SELECT pg_advisory_xact_lock_shared(%s)", (schema.PACK_LOCK + cid,))


def write_postings(cur: psycopg.Cursor, cid: int, tenant: str, owner: str | None,
                   chunks: Iterable[tuple[int, str]], *, removed: Counter[str] | None = None,
                   removed_chunks: int = 0, removed_length: int = 0) -> Packing:
    """Insert the postings of ``chunks`` ((chunk seq, analysed terms), all of one owner)
    and move the statistics by what they add less what ``removed`` (df per lexeme,
    chunk count and length of this owner's chunks just deleted) took away. Returns
    what to pack once the transaction has committed."""
    seqs: list[int] = []
    lexemes: list[str] = []
    tfs: list[int] = []
    lengths: list[int] = []
    added: Counter[str] = Counter()
    chunk_count = added_length = 0
    for seq, terms in chunks:
        freq, n = term_counts(terms)
        chunk_count += 1
        added_length += n
        for term, tf in freq.items():
            seqs.append(seq)
            lexemes.append(term)
            tfs.append(tf)
            lengths.append(n)
        added.update(freq.keys())
    if seqs:
        cur.execute("INSERT INTO postings (seq, lexeme, collection_id, tenant, owner, tf, length) "
                    "SELECT u.s, u.l, %s, %s, %s, u.tf, u.n "
                    "FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::int[]) AS u(s, l, tf, n)",
                    (cid, tenant, owner, seqs, lexemes, tfs, lengths))
    return move_stats(cur, cid, tenant, {owner_key(owner): (added, removed or Counter(), chunk_count - removed_chunks,
                                                             added_length - removed_length)})


def removed_stats(cur: psycopg.Cursor, doc_ids: list[str]) -> dict[tuple[int, str], Counter[str]]:
    """Df per lexeme of the chunks of ``doc_ids``, by (collection, owner key): read
    before the chunks (and, by cascade, their postings) are deleted."""
    out: dict[tuple[int, str], Counter[str]] = {}
    seqs = [r[0] for r in cur.execute("SELECT seq FROM chunks WHERE doc_id = ANY(%s)", (doc_ids,))]
    if not seqs:  # a new document: nothing to read (and no plan to risk)
        return out
    # Per chunk, by the primary key's prefix: a join could be planned as a scan of every posting.
    for cid, owner, term, n in cur.execute(
            "SELECT p.collection_id, coalesce(p.owner, ''), p.lexeme, count(*) FROM unnest(%s::bigint[]) AS c(seq) "
            "CROSS JOIN LATERAL (SELECT * FROM postings x WHERE x.seq = c.seq) p GROUP BY 1, 2, 3", (seqs,)):
        out.setdefault((cid, owner), Counter())[term] = n
    return out


def move_stats(cur: psycopg.Cursor, cid: int, tenant: str,
               changes: dict[str, tuple[Counter[str], Counter[str], int, int]]) -> Packing:
    """Add (postings added per lexeme, removed per lexeme, chunks, length) to each owner
    key's statistics of collection ``cid``; returns the terms due for packing. Rows are
    locked in key order, so concurrent writers cannot deadlock."""
    due = Packing()
    for owner in sorted(changes):
        added, removed, chunks, length = changes[owner]
        moved = sorted((lex, added[lex], removed[lex]) for lex in set(added) | set(removed)
                       if added[lex] or removed[lex])
        if moved:
            rows = cur.execute(
                "INSERT INTO term_stats (collection_id, owner, lexeme, tenant, df, unpacked, tail) "
                "SELECT %s, %s, u.l, %s, u.a - u.r, u.a, u.r FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) "
                "AS u(l, a, r) ORDER BY u.l ON CONFLICT (collection_id, lexeme, owner) DO UPDATE "
                "SET df = term_stats.df + excluded.df, unpacked = term_stats.unpacked + excluded.unpacked, "
                "tail = term_stats.tail + excluded.tail RETURNING lexeme, df, unpacked, tail",
                (cid, owner, tenant, [m[0] for m in moved], [m[1] for m in moved], [m[2] for m in moved])).fetchall()
            gone = [lex for lex, df, _, _ in rows if df <= 0]
            if gone:
                cur.execute("DELETE FROM term_stats WHERE collection_id = %s AND owner = %s AND lexeme = ANY(%s) "
                            "AND df <= 0", (cid, owner, gone))
                cur.execute("DELETE FROM posting_blocks WHERE collection_id = %s AND owner = %s AND lexeme = ANY(%s)",
                            (cid, owner, gone))
            for lex, df, unpacked, tail in rows:
                if df <= 0:
                    continue
                if unpacked + tail >= max(FLUSH, df // REBUILD):
                    due.rebuild.add((owner, lex))
                elif unpacked >= FLUSH:
                    due.flush.add((owner, lex))
        if chunks or length:
            cur.execute("INSERT INTO owner_totals (collection_id, owner, tenant, chunks, length) "
                        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (collection_id, owner) DO UPDATE "
                        "SET chunks = owner_totals.chunks + excluded.chunks, "
                        "length = owner_totals.length + excluded.length", (cid, owner, tenant, chunks, length))
    return due


_PAIRS = ("SELECT s.collection_id, s.owner, s.lexeme, {after} AS after, {run} AS run "
          "FROM unnest(%s::text[], %s::text[]) AS u(o, l) JOIN term_stats s "
          "ON s.collection_id = %s AND s.owner = u.o AND s.lexeme = u.l")


def pack(cur: psycopg.Cursor, cid: int, due: Packing | None) -> None:
    """Pack collection ``cid``'s postings (``due`` terms; None: every term, after a bulk
    load). A rebuilt term gets one main run from all its postings; a flushed one a new
    small run of the postings newer than its packed runs. Takes the collection's
    exclusive lock: every seq given out before is committed (or gone) meanwhile."""
    cur.execute("SELECT pg_advisory_xact_lock(%s)", (schema.PACK_LOCK + cid,))
    if due is None:  # a whole collection: minutes at a million chunks, past the statement timeout
        cur.execute("SET LOCAL work_mem = '256MB'")
        cur.execute("SET LOCAL statement_timeout = 0")
        cur.execute("DELETE FROM posting_blocks WHERE collection_id = %s", (cid,))
        cur.execute(schema.repack_sql(f"WHERE collection_id = {int(cid)}").encode(), prepare=False)  # two statements
        return
    upto = cur.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()[0]  # type: ignore[index]
    for kind, pairs in (("rebuild", sorted(due.rebuild)), ("flush", sorted(due.flush - due.rebuild))):
        if not pairs:
            continue
        owners, terms = [p[0] for p in pairs], [p[1] for p in pairs]
        if kind == "rebuild":
            cur.execute("DELETE FROM posting_blocks b USING unnest(%s::text[], %s::text[]) AS u(o, l) "
                        "WHERE b.collection_id = %s AND b.owner = u.o AND b.lexeme = u.l", (owners, terms, cid))
            cur.execute(schema.pack_sql(_PAIRS.format(after="0::bigint", run="0")), (owners, terms, cid))
            cur.execute("UPDATE term_stats s SET packed_upto = %s, unpacked = 0, tail = 0, runs = 0 "
                        "FROM unnest(%s::text[], %s::text[]) AS u(o, l) "
                        "WHERE s.collection_id = %s AND s.owner = u.o AND s.lexeme = u.l", (upto, owners, terms, cid))
        else:
            cur.execute(schema.pack_sql(_PAIRS.format(after="s.packed_upto", run="s.runs + 1")),
                        (owners, terms, cid))
            cur.execute("UPDATE term_stats s SET packed_upto = %s, tail = tail + unpacked, unpacked = 0, "
                        "runs = runs + 1 FROM unnest(%s::text[], %s::text[]) AS u(o, l) "
                        "WHERE s.collection_id = %s AND s.owner = u.o AND s.lexeme = u.l", (upto, owners, terms, cid))
