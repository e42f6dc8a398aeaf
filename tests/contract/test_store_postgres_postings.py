"""PostgreSQL keyword search: postings, their packed lists, and BM25 ranked as SQLite's
FTS5 ranks (``store/postgres/keywords.py``), on the session's embedded PostgreSQL.

Small ``PACK_BLOCK`` and ``FLUSH`` values (monkeypatched) make a few hundred chunks
exercise what large collections do: many blocks per list, several small runs per
term, rebuilds, and queries that read in several rounds.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import threading

import numpy as np
import pytest

from ragline.analyzer import analyze, query_terms
from ragline.errors import StoreError
from ragline.models import Scope
from ragline.settings import Settings
from ragline.store import open_store
from ragline.store.postgres import keywords, postings, schema
from ragline.store.postgres.postings import term_counts
from tests.contract.postgres_store import pg_settings
from tests.contract.store_contract import DIM, MODEL, A, collection, put
from tests.contract_helpers import doc_id
from tests.paths import SCIFACT, needs
from tests.pg_server import admin_connect, pg_url  # noqa: F401  (pg_url is a fixture)


@pytest.fixture
def store(pg_store):
    """The store each test here works on (``conftest.pg_store``)."""
    return pg_store


@pytest.fixture
def small_packs(monkeypatch):
    """Blocks of 4 postings, a small run every 5 new postings of a term."""
    monkeypatch.setattr(schema, "PACK_BLOCK", 4)
    monkeypatch.setattr(postings, "FLUSH", 5)


READINGS = ("all at once", "all at once, sorted", "best first")
"""Each way a query reads its terms' postings: all at once and every chunk scored (lists
of up to ``SCORE_ALL_MAX`` postings), summed by seq in an array or, for seqs spread wide,
after a sort; or best first, in rounds (the threshold algorithm)."""
_DEFAULTS = {"SPAN_SLACK": keywords.SPAN_SLACK, "SCORE_ALL_MAX": keywords.SCORE_ALL_MAX}


def _read(monkeypatch, reading: str) -> None:
    """Queries from now on read as ``reading`` (one of ``READINGS``) says."""
    monkeypatch.setattr(keywords, "SPAN_SLACK", -(10**12) if reading == "all at once, sorted"
                        else _DEFAULTS["SPAN_SLACK"])
    monkeypatch.setattr(keywords, "SCORE_ALL_MAX", 0 if reading == "best first" else _DEFAULTS["SCORE_ALL_MAX"])


@pytest.fixture(params=READINGS)
def reading(request, monkeypatch) -> None:
    _read(monkeypatch, request.param)


def _packed_equal_postings(conn) -> None:
    """Every posting is in exactly one place a query reads: a packed run (if its chunk
    seq is at most the term's ``packed_upto``) or the newer rows; packed entries of
    deleted chunks are the only extra ones, and no run misses a posting."""
    postings: dict[tuple, set] = {}
    for cid, owner, lex, seq, tf, length in conn.execute(
            "SELECT collection_id, coalesce(owner, ''), lexeme, seq, tf, length FROM postings"):
        postings.setdefault((cid, owner, lex), set()).add((seq, tf, length))
    upto = {(r[0], r[1], r[2]): r[3] for r in conn.execute(
        "SELECT collection_id, owner, lexeme, packed_upto FROM term_stats")}
    packed: dict[tuple, list] = {}
    for cid, owner, lex, run, block, seqs, tfs, lengths, last in conn.execute(
            "SELECT collection_id, owner, lexeme, run, block, seqs, tfs, lengths, last FROM posting_blocks "
            "ORDER BY 1, 2, 3, 4, 5"):
        s = np.frombuffer(seqs, dtype=">i8")
        packed.setdefault((cid, owner, lex), []).extend(
            zip(s.tolist(), np.frombuffer(tfs, dtype=">i4").tolist(), np.frombuffer(lengths, dtype=">i4").tolist()))
    live = {r[0] for r in conn.execute("SELECT seq FROM chunks")}
    assert set(packed) <= set(upto)  # no runs of a term without statistics
    for key, rows in postings.items():
        runs = packed.get(key, [])
        assert len(runs) == len(set(runs)), key  # nothing packed twice
        in_runs = {r for r in runs if r[0] in live}
        assert in_runs == {r for r in rows if r[0] <= upto[key]}, key


@pytest.mark.usefixtures("reading")
def test_bm25_scores_equal_sqlite_fts5(store, tmp_path) -> None:
    sqlite = open_store(Settings(home=tmp_path / "sqlite"))
    rng = random.Random(7)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "café", "cafe"]
    docs = [(f"d{i}", [" ".join(rng.choices(words, k=rng.randint(1, 30))) for _ in range(rng.randint(1, 3))],
             rng.choice([None, "ann"])) for i in range(40)]
    for s in (store, sqlite):
        collection(s, A)
        for source, texts, owner in docs:
            put(s, Scope("acme", ("kb",), owner), source, texts)
    for _ in range(30):
        terms = rng.sample(words, rng.randint(1, 4))
        scope = Scope("acme", ("kb",), rng.choice([None, "ann"]))
        pg, lite = store.keyword_search(scope, terms, 200), sqlite.keyword_search(scope, terms, 200)
        assert dict(pg) == pytest.approx(dict(lite), rel=1e-9), terms
        assert [round(s, 9) for _, s in pg] == [round(s, 9) for _, s in lite]
    sqlite.close()


def _scifact_slice(docs: int) -> tuple[list[tuple[str, str]], list[str]]:
    """The first ``docs`` SciFact abstracts (id, title + text) and every SciFact query."""
    corpus = []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in itertools.islice(handle, docs):
            row = json.loads(line)
            corpus.append((row["_id"], f"{row.get('title', '')}. {row['text']}"))
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        queries = [json.loads(line)["text"] for line in handle]
    return corpus, queries


@needs(SCIFACT)
@pytest.mark.parametrize("sizes", ["default", "small"])
def test_keyword_ranking_equals_sqlite_on_a_real_corpus(store, tmp_path, monkeypatch, sizes: str) -> None:
    """The packed lists' threshold reading ranks as SQLite's FTS5 does, on 400 SciFact
    abstracts (two owners, one collection) and 60 of its queries: the same top 10 and
    scores, for an owner-less scope, an owner's and a filtered one, read each way
    (``READINGS``). ``small`` packs blocks of 3 postings and a small run every 4: every
    query reads in several rounds, from main runs, small runs and newer rows at once."""
    if sizes == "small":
        monkeypatch.setattr(schema, "PACK_BLOCK", 3)
        monkeypatch.setattr(postings, "FLUSH", 4)
    sqlite = open_store(Settings(home=tmp_path / "sqlite"))
    corpus, queries = _scifact_slice(400)
    for s in (store, sqlite):
        collection(s, A)
        for i, (source, text) in enumerate(corpus):
            owner = "ann" if i % 3 == 0 else None
            put(s, Scope("acme", ("kb",), owner), source, [text], metadata={"year": 2000 + i % 4})
    try:
        for reading, (q, question) in itertools.product(READINGS, enumerate(queries[:60])):
            _read(monkeypatch, reading)
            terms = query_terms(question)
            scope = Scope("acme", ("kb",), [None, "ann"][q % 2])
            filters = {"year": {"gte": 2002}} if q % 3 == 0 else None
            pg, lite = store.keyword_search(scope, terms, 10, filters), sqlite.keyword_search(scope, terms, 10, filters)
            assert [c for c, _ in pg] == [c for c, _ in lite], (reading, question)
            assert [s for _, s in pg] == pytest.approx([s for _, s in lite], rel=1e-9), (reading, question)
    finally:
        sqlite.close()


@pytest.mark.usefixtures("reading")
def test_ranking_stays_exact_when_the_average_length_grows_after_packing(store, tmp_path, monkeypatch) -> None:
    """Lists packed at one average length, then read at a much larger one (long chunks
    added, never packed): the order of a packed run is no longer BM25's order at query
    time, and the bound on its unread postings must allow for that. Rankings and scores
    stay SQLite's."""
    monkeypatch.setattr(schema, "PACK_BLOCK", 2)
    sqlite = open_store(Settings(home=tmp_path / "sqlite"))
    rng = random.Random(13)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    short = [(f"s{i}", [" ".join(rng.choices(words, k=rng.randint(1, 6)))]) for i in range(60)]
    long = [(f"l{i}", [" ".join(rng.choices(["zulu", "yankee", "xray"], k=rng.randint(80, 160))
                                 + rng.sample(words, rng.randint(0, 2)))]) for i in range(30)]
    for s in (store, sqlite):
        collection(s, A)
        bulk = getattr(s.catalog, "bulk_load", None)
        with bulk(A) if bulk else contextlib.nullcontext():
            for source, texts in short:
                put(s, A, source, texts)
    monkeypatch.setattr(postings, "FLUSH", 10**9)  # the long chunks stay unpacked
    for s in (store, sqlite):
        for source, texts in long:
            put(s, A, source, texts)
    try:
        for _ in range(40):
            terms = rng.sample(words, rng.randint(1, 3))
            pg, lite = store.keyword_search(A, terms, 5), sqlite.keyword_search(A, terms, 5)
            _same_ranking(pg, lite)
    finally:
        sqlite.close()


def _same_ranking(pg: list[tuple[str, float]], lite: list[tuple[str, float]]) -> None:
    """The same scores in the same order, and the same chunks for each score above the
    last (short random texts tie often; FTS5 orders ties by rowid, PostgreSQL by id)."""
    assert [x for _, x in pg] == pytest.approx([x for _, x in lite], rel=1e-9)
    last = round(lite[-1][1], 9) if lite else None
    above = [{c for c, x in found if round(x, 9) != last} for found in (pg, lite)]
    assert above[0] == above[1]


@pytest.mark.usefixtures("reading")
def test_chunks_deleted_after_packing_are_never_returned(store, tmp_path, monkeypatch) -> None:
    """Deleting documents leaves their postings in the packed runs until the next
    rebuild: a query skips those chunks (checked against ``chunks``) and ranks the rest
    as SQLite does, with and without filters."""
    monkeypatch.setattr(schema, "PACK_BLOCK", 3)
    sqlite = open_store(Settings(home=tmp_path / "sqlite"))
    rng = random.Random(17)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    docs = [(f"d{i}", [" ".join(rng.choices(words, k=rng.randint(2, 12))) for _ in range(2)]) for i in range(80)]
    for s in (store, sqlite):
        collection(s, A)
        bulk = getattr(s.catalog, "bulk_load", None)
        with bulk(A) if bulk else contextlib.nullcontext():
            for i, (source, texts) in enumerate(docs):
                put(s, A, source, texts, metadata={"even": i % 2 == 0})
    monkeypatch.setattr(postings, "FLUSH", 10**9)  # no repacking: the deleted stay packed
    try:
        for _ in range(5):
            terms = rng.sample(words, 2)
            best = store.keyword_search(A, terms, 3)
            gone = {chunk for chunk, _ in best}
            docs_gone = [h.doc_id for h in store.get_hits(A, best)]
            for s in (store, sqlite):
                s.delete_documents(A, docs_gone)
            for filters in (None, {"even": True}):
                pg, lite = store.keyword_search(A, terms, 5, filters), sqlite.keyword_search(A, terms, 5, filters)
                assert not gone & {c for c, _ in pg}
                _same_ranking(pg, lite)
    finally:
        sqlite.close()


class _Rows:
    """A cursor that also runs each statement under EXPLAIN ANALYZE and adds up the rows
    its scans of ``chunks``, ``postings`` and ``posting_blocks`` produced: what a query
    read. Cursors opened on its ``connection`` count into the same tally."""

    def __init__(self, cur, tally: list[int]) -> None:
        self._cur, self._tally = cur, tally

    def __getattr__(self, name):
        return getattr(self._cur, name)

    @property
    def connection(self):
        return _Conn(self._cur.connection, self._tally)

    def execute(self, sql, params=None, **kwargs):
        if str(sql).lstrip().upper().startswith(("SELECT", "WITH")):
            plan = self._cur.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params).fetchone()[0]
            self._tally.append(_scanned(plan[0]["Plan"]))
        return self._cur.execute(sql, params, **kwargs)


class _Conn:
    def __init__(self, conn, tally: list[int]) -> None:
        self._conn, self._tally = conn, tally

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def cursor(self, **kwargs):
        return _Rows(self._conn.cursor(**kwargs), self._tally)


def _scanned(node: dict) -> int:
    own = 0
    if node.get("Relation Name") in ("chunks", "postings", "posting_blocks") and "Scan" in node["Node Type"]:
        own = int(node["Actual Rows"] * node.get("Actual Loops", 1))
    return own + sum(_scanned(child) for child in node.get("Plans", []))


@pytest.mark.usefixtures("reading")
def test_a_keyword_query_reads_a_bounded_number_of_rows(store, monkeypatch) -> None:
    """A term in 3,000 chunks and a rarer one in 300: the top 10 is found after reading a
    few dozen rows (packed blocks, newer postings, the candidates' chunks), not one per
    matching chunk (BM25 over every match read them all; row-wise postings, thousands)."""
    monkeypatch.setattr(postings, "FLUSH", 64)  # at most 63 newer rows per term
    store.ensure_collection(A, model_id=MODEL, dimension=DIM)
    rng = random.Random(3)
    filler = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    for d in range(30):
        put(store, A, f"d{d}", [" ".join(["common", *rng.choices(filler, k=rng.randint(3, 40)),
                                          *(["rare"] if i % 10 == 0 else [])]) for i in range(100)])
    search = store.catalog.search
    opened = search.db.tx
    tally: list[int] = []

    @contextlib.contextmanager
    def counted(tenant, **kwargs):
        with opened(tenant, **kwargs) as cur:
            yield _Rows(cur, tally)

    search.db.tx = counted
    try:
        found = store.keyword_search(A, ["common", "rare"], 10)
    finally:
        search.db.tx = opened
    assert len(found) == 10 and 0 < sum(tally) < 200, tally
    assert found == sorted(found, key=lambda pair: (-pair[1], pair[0]))


@pytest.mark.usefixtures("small_packs")
def test_postings_and_keyword_statistics_follow_every_write(store, pg_url) -> None:  # noqa: F811
    """Writes, re-writes and deletes by several owners, in two collections: the postings
    are exactly the chunks' terms, df, chunk counts and lengths per owner are what
    counting them gives, and the packed lists plus the newer rows hold every posting
    once; a deleted collection leaves none of its rows."""
    rng = random.Random(5)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "café", "cafe"]
    hr = Scope("acme", ("hr",))
    for scope in (A, hr):
        collection(store, scope)
    for step in range(80):
        scope = Scope("acme", rng.choice([A, hr]).collections, rng.choice([None, "ann", "bob"]))
        source = f"d{rng.randint(0, 12)}"
        if rng.random() < 0.25:
            store.delete_documents(scope, [doc_id(scope, source)])
        else:
            put(store, scope, source, [" ".join(rng.choices(words, k=rng.randint(0, 12)))
                                       for _ in range(rng.randint(0, 3))], version=str(step))
    with admin_connect(pg_url) as conn:
        assert conn.execute("SELECT collection_id, owner, lexeme, df FROM term_stats WHERE df <> 0 ORDER BY 1, 2, 3"
                            ).fetchall() == conn.execute(
            "SELECT collection_id, coalesce(owner, ''), lexeme, count(*) FROM postings GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ).fetchall()
        assert conn.execute("SELECT collection_id, owner, chunks, length FROM owner_totals WHERE chunks <> 0 "
                            "ORDER BY 1, 2").fetchall() == conn.execute(
            "SELECT collection_id, coalesce(owner, ''), count(*), sum(length) FROM chunks GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
        for seq, text in conn.execute("SELECT seq, text FROM chunks").fetchall():
            stored = dict(conn.execute("SELECT lexeme, tf FROM postings WHERE seq = %s", (seq,)).fetchall())
            assert stored == term_counts(" ".join(analyze(text)))[0]
        assert conn.execute("SELECT count(*) FROM posting_blocks").fetchone()[0] > 0
        _packed_equal_postings(conn)
    store.delete_collection(A)
    with admin_connect(pg_url) as conn:
        for table in ("postings", "term_stats", "owner_totals", "posting_blocks"):
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE collection_id <> ALL(SELECT id FROM collections)"
                                ).fetchone() == (0,)


@pytest.mark.usefixtures("small_packs")
def test_concurrent_writers_and_packing_lose_no_posting(store, pg_url) -> None:  # noqa: F811
    """Four threads write documents of one collection at once, each write packing what
    is due: a posting given its seq while another writer packs is never left between
    "packed" and "newer than packed" (the packing waits for writers in flight)."""
    collection(store, A)
    words = ["alpha", "bravo", "charlie", "delta"]

    def writer(w: int) -> None:
        rng = random.Random(w)
        for d in range(15):
            put(store, Scope("acme", ("kb",), [None, "ann"][w % 2]), f"w{w}d{d}",
                [" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(3)])

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with admin_connect(pg_url) as conn:
        _packed_equal_postings(conn)
        assert conn.execute("SELECT sum(df) FROM term_stats").fetchone()[0] == \
            conn.execute("SELECT count(*) FROM postings").fetchone()[0]


def test_bulk_load_packs_every_term_once_at_its_end(store, pg_url, monkeypatch) -> None:  # noqa: F811
    """Inside ``bulk_load`` nothing is packed (each write would otherwise repack common
    terms); at its end every term's postings are one main run and nothing is newer."""
    collection(store, A)
    monkeypatch.setattr(postings, "FLUSH", 2)
    with store.catalog.bulk_load(A):
        for d in range(10):
            put(store, A, f"d{d}", ["alpha bravo charlie", "alpha alpha delta"])
        with admin_connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM posting_blocks").fetchone() == (0,)
    with admin_connect(pg_url) as conn:
        assert conn.execute("SELECT DISTINCT run FROM posting_blocks").fetchall() == [(0,)]
        assert conn.execute("SELECT count(*) FROM term_stats WHERE unpacked <> 0 OR packed_upto < "
                            "(SELECT max(seq) FROM chunks)").fetchone() == (0,)
        _packed_equal_postings(conn)
    assert [c for c, _ in store.keyword_search(A, ["delta"], 3)]


def test_term_counts_keep_exact_frequencies_and_fold_as_fts5() -> None:
    freq, n = term_counts("cat sat cat it's back\\slash café cafe")
    assert n == 7 and freq == {"cat": 2, "sat": 1, "it's": 1, "back\\slash": 1, "cafe": 2}
    freq, n = term_counts(" ".join(["w"] * 20000))
    assert n == 20000 and freq == {"w": 20000}  # no cap on a term's frequency


def test_version_10_database_gains_postings_from_its_tsvectors(tmp_path, pg_url) -> None:  # noqa: F811
    """Migrations 11 and 13 on a database written before them (keyword terms in
    ``chunks.tsv``): postings and statistics are built from the tsvectors, then keyed by
    chunk seq and packed, and keyword search ranks as it did, for every owner; later
    writes keep them in step."""
    s = open_store(pg_settings(tmp_path, pg_url))
    collection(s, A)
    rng = random.Random(11)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    for d in range(30):
        put(s, Scope("acme", ("kb",), [None, "ann", "bob"][d % 3]), f"d{d}",
            [" ".join(rng.choices(words, k=rng.randint(2, 25))) for _ in range(2)])
    queries = [rng.sample(words, 3) for _ in range(10)]
    scopes = [Scope("acme", ("kb",), owner) for owner in (None, "ann", "bob")]
    expected = [s.keyword_search(scope, q, 50) for scope in scopes for q in queries]
    s.close()
    with admin_connect(pg_url) as conn:  # back to version 10: terms in tsvectors, no postings
        for chunk_id, text in conn.execute("SELECT id, text FROM chunks").fetchall():
            positions: dict[str, list[int]] = {}
            for i, term in enumerate(analyze(text), 1):
                positions.setdefault(term, []).append(i)
            literal = " ".join(f"'{t}':{','.join(map(str, p))}" for t, p in positions.items())
            conn.execute("UPDATE chunks SET tsv = %s::tsvector WHERE id = %s", (literal, chunk_id))
        conn.execute("DROP TABLE postings, term_stats, owner_totals, posting_blocks; DROP INDEX chunks_seq; "
                     "CREATE INDEX chunks_tsv ON chunks USING gin (tsv); "
                     "DELETE FROM schema_migrations WHERE version IN (11, 13)")
    s = open_store(pg_settings(tmp_path, pg_url))
    try:
        found = [s.keyword_search(scope, q, 50) for scope in scopes for q in queries]
        for got, want in zip(found, expected):
            assert [c for c, _ in got] == [c for c, _ in want]
            assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-9)
        put(s, Scope("acme", ("kb",), "ann"), "d1", ["alpha alpha golf"], version="2")  # re-ingest: stats move
        with admin_connect(pg_url) as conn:
            kept = conn.execute("SELECT collection_id, owner, lexeme, df FROM term_stats ORDER BY 1, 2, 3").fetchall()
            counted = conn.execute("SELECT collection_id, coalesce(owner, ''), lexeme, count(*) FROM postings "
                                   "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3").fetchall()
            assert kept == counted
            _packed_equal_postings(conn)
    finally:
        s.close()


def test_a_query_of_more_distinct_terms_than_a_mask_holds_is_refused(store) -> None:
    """Each query term is a bit in a chunk's mask of terms read: a 65th distinct term
    would alias and count postings twice, so it is refused by name (the analyzer keeps
    a question's first 64 terms, so no question reaches it)."""
    store.ensure_collection(A, model_id=MODEL, dimension=DIM)
    put(store, A, "d0", ["w1 w2 w3"])
    with pytest.raises(StoreError, match="at most 64 distinct terms, this one 65"):
        store.keyword_search(A, [f"w{i}" for i in range(65)], 10)
    assert store.keyword_search(A, [f"w{i}" for i in range(64)], 10)


def test_a_keyword_search_stops_at_its_budget_of_postings(store, monkeypatch, caplog) -> None:
    """A query of every common term (a tenant's costliest) reads the search's budget of
    postings (and at most a round past it), then scores its likeliest chunks whole: each
    chunk returned carries its exact BM25 score, best first. Without the budget it read
    every posting of every term, 4,800 here (the first round reads 4 blocks of 4 a term)."""
    monkeypatch.setattr(schema, "PACK_BLOCK", 4)
    store.ensure_collection(A, model_id=MODEL, dimension=DIM)
    rng = random.Random(11)
    vocabulary = [f"w{i}" for i in range(30)]
    with store.catalog.bulk_load(A):  # every posting in a packed main run
        for d in range(12):
            put(store, A, f"d{d}", [" ".join(rng.choices(vocabulary, k=rng.randint(5, 40))) for _ in range(25)])
    exact = dict(store.keyword_search(A, vocabulary, 300))
    assert len(exact) == 300 and "stopped after" not in caplog.text
    store.catalog.search.keyword_budget = 600
    with caplog.at_level("WARNING", logger="ragline.store.postgres.keywords"):
        found = store.keyword_search(A, vocabulary, 10)
    read = [int(r.args[1]) for r in caplog.records if "stopped after" in r.getMessage()]
    assert len(read) == 1 and 600 <= read[0] < 1200, read  # of ~4,800 postings
    assert len(found) == 10 and found == sorted(found, key=keywords.ranking)
    assert [s for _, s in found] == pytest.approx([exact[c] for c, _ in found], rel=1e-9)
    assert len({c for c, _ in found} & set(sorted(exact, key=lambda c: -exact[c])[:10])) >= 5


_TOASTED = ("SELECT count(*) FROM posting_blocks WHERE pg_column_toast_chunk_id(seqs) IS NOT NULL "
            "OR pg_column_toast_chunk_id(tfs) IS NOT NULL OR pg_column_toast_chunk_id(lengths) IS NOT NULL")
"""Posting blocks with an array stored out of line, in TOAST (a lookup each to read)."""


def _common_term(store, scope: Scope, chunks: int) -> None:
    """``chunks`` chunks in documents of 100, every one with "alpha", a third owned by ann."""
    for d in range(0, chunks, 100):
        owner = Scope(scope.tenant, scope.collections, "ann") if d % 300 == 100 else scope
        put(store, owner, f"d{d}", [f"alpha w{i % 7} w{i % 11} " + "beta " * (i % 5) for i in range(d, d + 100)])


def test_a_full_posting_block_stays_in_its_row(store, pg_url) -> None:  # noqa: F811
    """A block of ``PACK_BLOCK`` postings is read from its row, with no TOAST lookup:
    blocks of 512 moved each of their three arrays out of line."""
    collection(store, A)
    with store.catalog.bulk_load(A):
        _common_term(store, A, 2 * schema.PACK_BLOCK + 100)
    with admin_connect(pg_url) as conn:
        assert conn.execute("SELECT max(length(seqs)) / 8 FROM posting_blocks").fetchone() == (schema.PACK_BLOCK,)
        assert conn.execute(_TOASTED).fetchone() == (0,)


def test_version_16_database_packs_its_lists_again_in_blocks_that_fit_their_rows(tmp_path, pg_url,  # noqa: F811
                                                                                  monkeypatch) -> None:
    """Migration 17 on a database packed in blocks of 512 (arrays in TOAST): every list is
    packed again in blocks that stay in their rows, nothing newer is left behind, and
    every owner's keyword search ranks as it did."""
    s = open_store(pg_settings(tmp_path, pg_url))
    collection(s, A)
    with s.catalog.bulk_load(A):
        _common_term(s, A, 1300)
    put(s, A, "late", ["alpha gamma", "beta gamma"])  # after the bulk load: written as usual
    queries = [["alpha"], ["alpha", "beta"], ["w3", "beta", "gamma"], ["w5", "w6"]]
    scopes = [A, Scope("acme", ("kb",), "ann")]
    expected = [s.keyword_search(scope, q, 50) for scope in scopes for q in queries]
    s.close()
    monkeypatch.setattr(schema, "PACK_BLOCK", 512)
    with admin_connect(pg_url) as conn:  # back to version 16: blocks of 512, out of line
        conn.execute("ALTER TABLE posting_blocks RESET (toast_tuple_target); TRUNCATE posting_blocks")
        conn.execute(schema.repack_sql().encode())
        conn.execute("DELETE FROM schema_migrations WHERE version = 17")
        _packed_equal_postings(conn)
        assert conn.execute(_TOASTED).fetchone()[0] > 0
    monkeypatch.undo()
    s = open_store(pg_settings(tmp_path, pg_url))
    try:
        with admin_connect(pg_url) as conn:
            assert conn.execute(_TOASTED).fetchone() == (0,)
            assert conn.execute("SELECT max(length(seqs)) / 8, max(run) FROM posting_blocks").fetchone() == \
                (schema.PACK_BLOCK, 0)
            _packed_equal_postings(conn)
        found = [s.keyword_search(scope, q, 50) for scope in scopes for q in queries]
        for got, want in zip(found, expected):
            assert [c for c, _ in got] == [c for c, _ in want]
            assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-9)
    finally:
        s.close()
