"""PostgreSQL (pgvector) passes the store contract, plus what only PostgreSQL has:
row-level security, HNSW, BM25 in SQL, migrations, the
pool's recovery, and clear errors when opening fails.

Everything runs on one embedded PostgreSQL per session (``pg_server``), a fresh
database per test; the restart test starts a private server of its own.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import socket
import threading
import time

import numpy as np
import psycopg
import pytest

from ragline.errors import ConfigError, StoreError, StoreUnavailableError
from ragline.models import Scope, content_hash
from ragline.settings import Settings, StoreSettings
from ragline.store import open_store
from ragline.store.postgres import PostgresStore
from ragline.analyzer import analyze, query_terms
from ragline.store.postgres import keywords
from ragline.store.postgres.keywords import term_counts
from ragline.store.postgres.schema import MIGRATIONS
from ragline.store.postgres.search import dense_sql
from ragline.store.types import ChunkRecord, DocumentRecord

from tests.contract_helpers import claim_in_parallel, doc_id
from tests.paths import SCIFACT, needs
from tests.pg_server import (  # noqa: F401  (pg_url is a fixture)
    admin_connect,
    drop_database,
    fresh_database,
    pg_url,
    restart_server,
    server,
    start_server,
    stop_server,
)
from tests.contract.store_contract import DIM, MODEL, A, StoreContract, collection, put, unit
from tests.contract.store_contract_records import RecordsContract
from tests.contract.store_contract_reembed import LanguageContract, ReembedContract
from tests.contract.store_contract_usage import UsageContract


def _settings(tmp_path, url: str, **store) -> Settings:
    return Settings(home=tmp_path / "home", store=StoreSettings(url=url, **{"pool_size": 4, **store}))


class TestPostgresStore(StoreContract, RecordsContract, ReembedContract, LanguageContract, UsageContract):
    @pytest.fixture
    def make_store(self, tmp_path, pg_url):  # noqa: F811
        settings = _settings(tmp_path, pg_url)
        return lambda: open_store(settings)


@pytest.fixture
def store(tmp_path, pg_url):  # noqa: F811
    s = open_store(_settings(tmp_path, pg_url))
    yield s
    s.close()


def _as_user(url: str, user: str) -> str:
    return url.replace("//postgres:@", f"//{user}:@", 1)  # embedded URLs: postgresql://postgres:@/db?host=…


def _rows_by_tenant(pg: PostgresStore, tenant: str | None, table: str) -> set[str]:
    with pg._tx(tenant) as cur:
        cur.execute(f"SELECT * FROM {table}")  # no WHERE: only the wall filters
        names = [c.name for c in cur.description]
        column = names.index("name" if table == "tenants" else "tenant")
        return {row[column] for row in cur.fetchall()}


# -- row-level security ------------------------------------------------------------
def test_rls_raw_select_sees_only_the_scoped_tenant(store) -> None:
    pg = store.catalog
    assert pg.rls_enforced and pg._use_role  # embedded PostgreSQL connects as a superuser: the role is used
    other = Scope("other", ("kb",))
    collection(store, A)
    collection(store, other)
    put(store, A, "a.txt", ["acme words"])
    put(store, other, "b.txt", ["other words"])
    store.admin.create_api_key("other")
    for table in ("chunks", "documents", "collections", "tenants", "api_keys"):
        assert _rows_by_tenant(pg, "acme", table) <= {"acme"}, table
        assert _rows_by_tenant(pg, "nobody", table) == set(), table
    assert _rows_by_tenant(pg, "acme", "chunks") == {"acme"}
    assert _rows_by_tenant(pg, None, "chunks") == {"acme", "other"}  # the operator bypass
    with pytest.raises(StoreError), pg._tx("acme") as cur:  # WITH CHECK: no writing another tenant's row
        cur.execute("UPDATE chunks SET tenant = 'other'")
    with pytest.raises(StoreError, match="invalid tenant"):
        store.get_collection(Scope("*", ("kb",)))


def test_rls_binds_a_non_superuser_owner_without_the_role(tmp_path) -> None:
    """A table owner that may not SET ROLE still meets the policies (FORCE RLS)."""
    srv = server()
    with admin_connect(srv.get_uri()) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'ragline_app'").fetchone() is None:
            conn.execute("CREATE ROLE ragline_app LOGIN")
    url = fresh_database()
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    try:
        with admin_connect(srv.get_uri()) as conn:
            conn.execute(f"ALTER DATABASE {name} OWNER TO ragline_app")
        with admin_connect(url) as conn:
            conn.execute("CREATE EXTENSION vector")  # what a DBA does once
        s = open_store(_settings(tmp_path, _as_user(url, "ragline_app")))
        try:
            assert not s.catalog._use_role and s.catalog.rls_enforced
            collection(s, A)
            collection(s, Scope("other", ("kb",)))
            put(s, A, "a.txt", ["acme words"])
            put(s, Scope("other", ("kb",)), "b.txt", ["other words"])
            assert _rows_by_tenant(s.catalog, "acme", "chunks") == {"acme"}
            assert s.catalog.tenants() == ["acme", "other"]
        finally:
            s.close()
    finally:
        drop_database(url)


# -- keyword search ----------------------------------------------------------------
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
@pytest.mark.parametrize("first", [keywords.FIRST_DEPTH, 3])
def test_keyword_ranking_equals_sqlite_on_a_real_corpus(store, tmp_path, monkeypatch, first: int) -> None:
    """The postings' threshold reading ranks as SQLite's FTS5 does, on 400 SciFact
    abstracts (two owners, one collection) and 60 of its queries: the same top 10 and
    scores, for an owner-less scope, an owner's and a filtered one. ``first = 3``
    makes every query read its terms in several rounds and complete candidates by key."""
    monkeypatch.setattr(keywords, "FIRST_DEPTH", first)
    sqlite = open_store(Settings(home=tmp_path / "sqlite"))
    corpus, queries = _scifact_slice(400)
    for s in (store, sqlite):
        collection(s, A)
        for i, (source, text) in enumerate(corpus):
            owner = "ann" if i % 3 == 0 else None
            put(s, Scope("acme", ("kb",), owner), source, [text], metadata={"year": 2000 + i % 4})
    try:
        for q, question in enumerate(queries[:60]):
            terms = query_terms(question)
            scope = Scope("acme", ("kb",), [None, "ann"][q % 2])
            filters = {"year": {"gte": 2002}} if q % 3 == 0 else None
            pg, lite = store.keyword_search(scope, terms, 10, filters), sqlite.keyword_search(scope, terms, 10, filters)
            assert [c for c, _ in pg] == [c for c, _ in lite], question
            assert [s for _, s in pg] == pytest.approx([s for _, s in lite], rel=1e-9), question
    finally:
        sqlite.close()


class _Rows:
    """A cursor that also runs each statement under EXPLAIN ANALYZE and adds up the rows
    its scans of ``chunks`` and ``postings`` produced: what a query read."""

    def __init__(self, cur) -> None:
        self._cur, self.read = cur, 0

    def __getattr__(self, name):
        return getattr(self._cur, name)

    def execute(self, sql, params=None):
        if str(sql).lstrip().upper().startswith(("SELECT", "WITH")):
            plan = self._cur.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params).fetchone()[0]
            self.read += _scanned(plan[0]["Plan"])
        return self._cur.execute(sql, params)


def _scanned(node: dict) -> int:
    own = 0
    if node.get("Relation Name") in ("chunks", "postings") and "Scan" in node["Node Type"]:
        own = int(node["Actual Rows"] * node.get("Actual Loops", 1))
    return own + sum(_scanned(child) for child in node.get("Plans", []))


def test_a_keyword_query_reads_a_bounded_number_of_rows(store) -> None:
    """A term in 3,000 chunks and a rarer one in 30: the top 10 is found after reading a
    few hundred rows, not one per matching chunk (BM25 over every match read them all)."""
    store.ensure_collection(A, model_id=MODEL, dimension=DIM)
    rng = random.Random(3)
    filler = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    for d in range(30):
        put(store, A, f"d{d}", [" ".join(["common", *rng.choices(filler, k=rng.randint(3, 40)),
                                          *(["rare"] if i % 10 == 0 else [])]) for i in range(100)])
    search = store.catalog.search
    opened = search.db.tx

    @contextlib.contextmanager
    def counted(tenant):
        with opened(tenant) as cur:
            yield (rows := _Rows(cur))
        counts.append(rows.read)

    counts: list[int] = []
    search.db.tx = counted
    try:
        found = store.keyword_search(A, ["common", "rare"], 10)
    finally:
        search.db.tx = opened
    assert len(found) == 10 and sum(counts) < 600, counts
    exact = sorted(found, key=lambda pair: (-pair[1], pair[0]))
    assert found == exact


def test_postings_and_keyword_statistics_follow_every_write(store, pg_url) -> None:  # noqa: F811
    """Writes, re-writes and deletes by several owners, in two collections: the postings
    are exactly the chunks' terms, and df, chunk counts and lengths per owner are what
    counting them gives; a deleted collection leaves none of its rows."""
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
        for chunk_id, text in conn.execute("SELECT id, text FROM chunks").fetchall():
            stored = dict(conn.execute("SELECT lexeme, tf FROM postings WHERE chunk_id = %s", (chunk_id,)).fetchall())
            assert stored == term_counts(" ".join(analyze(text)))[0]
    store.delete_collection(A)
    with admin_connect(pg_url) as conn:
        for table in ("postings", "term_stats", "owner_totals"):
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE collection_id <> ALL(SELECT id FROM collections)"
                                ).fetchone() == (0,)


def test_term_counts_keep_exact_frequencies_and_fold_as_fts5() -> None:
    freq, n = term_counts("cat sat cat it's back\\slash café cafe")
    assert n == 7 and freq == {"cat": 2, "sat": 1, "it's": 1, "back\\slash": 1, "cafe": 2}
    freq, n = term_counts(" ".join(["w"] * 20000))
    assert n == 20000 and freq == {"w": 20000}  # no cap on a term's frequency


# -- dense search: the per-collection HNSW index -------------------------------------
def _clustered(store, meta_mod: int, n_docs: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    centers = rng.normal(size=(12, dim))
    for d in range(n_docs):
        vecs = centers[rng.integers(0, 12, 10)] + 0.25 * rng.normal(size=(10, dim))
        vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
        chunks = [ChunkRecord(id=f"c{d}-{i}", position=i, text=f"t{d}", content_hash=f"{d}-{i}", start=0, end=1,
                              terms="t") for i in range(10)]
        record = DocumentRecord(id=f"d{d}", source=f"s{d}", origin=None, title=None, media_type="text/plain",
                                content_hash="h", metadata={"n": d % meta_mod})
        store.put_document(Scope("t", ("kb",), [None, "ann", "bob"][d % 3]), record, chunks, vecs)
    return centers


def test_hnsw_index_is_built_used_and_dropped(store, tmp_path, pg_url) -> None:  # noqa: F811
    pg = store.catalog
    dim, scope = 16, Scope("t", ("kb",), "ann")
    store.ensure_collection(Scope("t", ("kb",)), model_id=MODEL, dimension=dim)
    cid = int(store.catalog.resolve(scope)[0].key.split(".")[0])
    with admin_connect(pg_url) as conn:
        valid = conn.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)",
                             (f"chunks_hnswh_{cid}",)).fetchone()
        assert valid == (True,)
        rng = np.random.default_rng(0)
        centers = _clustered(store, 4, 80, dim, rng)
        conn.execute("ANALYZE")  # as autovacuum would
        # 800 rows are few enough that a scan is cheaper; make the planner show its index path.
        name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
        conn.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        conn.execute(f"ALTER DATABASE {name} SET enable_bitmapscan = off")
    store.close()
    store = open_store(_settings(tmp_path, pg_url))  # new connections take the settings
    pg = store.catalog
    recalls = []
    for i in range(10):
        query = centers[i % 12] + 0.25 * rng.normal(size=dim)
        filters = {"n": {"gte": 2}} if i % 2 else None
        pg.exact_below = 10_000
        exact = store.dense_search(scope, query, 20, filters)
        pg.exact_below = 1
        approx = store.dense_search(scope, query, 20, filters)
        assert len(approx) == 20 and approx[0][0] == exact[0][0]
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(approx))  # re-sorted by exact score
        pg.exact_below = 10_000
        exact_scores = dict(store.dense_search(scope, query, 800, filters))
        pg.exact_below = 1
        # The walk reads half precision; the scores are the float32 ones exact search gives.
        assert all(score == exact_scores[chunk] for chunk, score in approx)
        recalls.append(len({c for c, _ in approx} & {c for c, _ in exact}) / 20)
    assert np.mean(recalls) >= 0.95, recalls
    with pg._tx("t") as cur:  # the planner really takes the partial index, under RLS, for an owner's scope
        cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        plan = "\n".join(r[0] for r in cur.execute(
            f"EXPLAIN SELECT id, dist FROM (SELECT c.id, c.embedding <=> %s AS dist FROM chunks c "
            f"WHERE c.collection_id = {cid} AND c.tenant = 't' AND (c.owner IS NULL OR c.owner = 'ann') "
            f"ORDER BY c.embedding::halfvec({dim}) <=> %s::halfvec({dim}) LIMIT 20) nn ORDER BY dist, id",
            (np.ones(dim, np.float32), np.ones(dim, np.float32))))
        assert f"Index Scan using chunks_hnswh_{cid}" in plan, plan
    store.delete_collection(Scope("t", ("kb",)))
    store.close()
    with admin_connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass(%s)", (f"chunks_hnswh_{cid}",)).fetchone() == (None,)


def test_a_collection_indexed_in_float32_is_searched_through_it_until_its_halfvec_index_is_built(
        store, tmp_path, pg_url) -> None:  # noqa: F811
    """A collection indexed by an earlier version (an HNSW index on ``embedding::vector(D)``)
    keeps using it, never a scan of every row, until ``ensure_collection`` (the next write)
    builds the halfvec index, which then replaces it."""
    dim, scope = 16, Scope("t", ("kb",), "ann")
    store.ensure_collection(Scope("t", ("kb",)), model_id=MODEL, dimension=dim)
    cid = int(store.catalog.resolve(scope)[0].key.split(".")[0])
    centers = _clustered(store, 4, 80, dim, np.random.default_rng(3))
    store.close()

    def indexes() -> set[str]:
        with admin_connect(pg_url) as conn:
            return {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'chunks_hnsw%'")}

    with admin_connect(pg_url) as conn:  # as an earlier version left it
        conn.execute(f"DROP INDEX chunks_hnswh_{cid}")
        conn.execute(f"CREATE INDEX chunks_hnsw_{cid} ON chunks USING hnsw ((embedding::vector({dim})) "
                     f"vector_cosine_ops) WHERE collection_id = {cid}")
        conn.execute("ANALYZE")
        name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
        conn.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        conn.execute(f"ALTER DATABASE {name} SET enable_bitmapscan = off")
    assert indexes() == {f"chunks_hnsw_{cid}"}
    store = open_store(_settings(tmp_path, pg_url))
    try:
        pg = store.catalog
        pg.exact_below = 1
        hits = store.dense_search(scope, centers[0], 10)
        assert len(hits) == 10
        with pg._tx("t") as cur:  # what dense_search asks for before its halfvec index exists: the float32 one
            half = cur.execute("SELECT EXISTS (SELECT 1 FROM pg_index i WHERE i.indisvalid "
                               "AND i.indexrelid = to_regclass('chunks_hnswh_' || %s))", (cid,)).fetchone()[0]
            assert not half
            cur.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            sql, _ = dense_sql(cid, dim, "float", "", " AND (c.owner IS NULL OR c.owner = %s)")
            query = centers[0].astype(np.float32)
            plan = "\n".join(r[0] for r in cur.execute("EXPLAIN " + sql, (query, "t", "ann", query, 10)))
            assert f"Index Scan using chunks_hnsw_{cid}" in plan, plan
        store.ensure_collection(Scope("t", ("kb",)), model_id=MODEL, dimension=dim)
        assert indexes() == {f"chunks_hnswh_{cid}"}
        assert [c for c, _ in store.dense_search(scope, centers[0], 10)] == [c for c, _ in hits]
    finally:
        store.close()


def test_filtered_hnsw_returns_the_filtered_top_k(store, tmp_path, pg_url) -> None:  # noqa: F811
    """An owner's scope with a metadata filter that keeps 3 % of the rows, searched as a
    collection served by its HNSW index (ef_search 10, the planner told to prefer
    indexes): k rows, all allowed, nearly all of the exact top k. (For a filter this
    selective the planner reads the allowed rows first; for wider ones it walks the
    graph with an iterative scan: ``test_hnsw_index_is_built_used_and_dropped``.)"""
    dim, scope = 16, Scope("t", ("kb",), "ann")
    store.ensure_collection(Scope("t", ("kb",)), model_id=MODEL, dimension=dim)
    rng = np.random.default_rng(4)
    centers = _clustered(store, 25, 100, dim, rng)
    store.close()
    with admin_connect(pg_url) as conn:  # 1,000 rows: make the planner take the index, as at scale
        conn.execute("ANALYZE")
        name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
        conn.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        conn.execute(f"ALTER DATABASE {name} SET enable_bitmapscan = off")
    store = open_store(_settings(tmp_path, pg_url, ef_search=10))
    pg = store.catalog
    recalls = []
    for i in range(12):
        query = centers[i % 12] + 0.25 * rng.normal(size=dim)
        pg.exact_below = 10_000
        exact = store.dense_search(scope, query, 10, {"n": 0})
        pg.exact_below = 1
        approx = store.dense_search(scope, query, 10, {"n": 0})
        assert len(approx) == 10
        recalls.append(len({c for c, _ in approx} & {c for c, _ in exact}) / 10)
    assert {h.metadata["n"] for h in store.get_hits(scope, approx)} == {0}
    assert np.mean(recalls) >= 0.95, recalls
    store.close()


def test_bulk_load_builds_the_hnsw_index_once_after_the_load(store, pg_url) -> None:  # noqa: F811
    """Inside ``bulk_load`` the collection has no HNSW index (not even after another
    ``ensure_collection``, which a loader calls per document); after it, a valid one,
    and search finds what was loaded."""
    dim, scope = 16, Scope("t", ("kb",))
    store.ensure_collection(scope, model_id=MODEL, dimension=dim)
    cid = int(store.catalog.resolve(scope)[0].key.split(".")[0])

    def index_state():
        with admin_connect(pg_url) as conn:
            return conn.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)",
                                (f"chunks_hnswh_{cid}",)).fetchone()

    assert index_state() == (True,)
    with store.catalog.bulk_load(scope):
        assert index_state() is None
        centers = _clustered(store, 4, 30, dim, np.random.default_rng(1))
        store.ensure_collection(scope, model_id=MODEL, dimension=dim)
        assert index_state() is None
    assert index_state() == (True,)
    assert len(store.dense_search(Scope("t", ("kb",), "ann"), centers[0], 5)) == 5


def test_catalog_only_builds_no_index(tmp_path, pg_url) -> None:  # noqa: F811
    pg = PostgresStore(pg_url, _settings(tmp_path, pg_url), index=False)
    try:
        pg.ensure_collection(A, model_id=MODEL, dimension=DIM)
        record = DocumentRecord(id="d", source="a.txt", origin=None, title=None, media_type="text/plain",
                                content_hash="h")
        pg.put_document(A, record, [ChunkRecord(id="c", position=0, text="words", content_hash=content_hash("w"),
                                                start=0, end=5, terms="word")], np.stack([unit(1)]))
        with pg._tx(None) as cur:
            hnsw = cur.execute("SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'chunks_hnsw_%'").fetchone()
            assert hnsw == (0,)
            assert cur.execute("SELECT tsv FROM chunks").fetchall() == [(None,)]
            assert cur.execute("SELECT count(*) FROM postings").fetchone() == (0,)
        assert [h.text for h in pg.get_hits(A, [("c", 1.0)])] == ["words"]
        assert pg.vectors(A, ["c"])["c"].dtype == np.float32
    finally:
        pg.close()


# -- writes, jobs, threads ---------------------------------------------------------------
def test_nul_characters_are_stored(store) -> None:
    collection(store, A)
    did = put(store, A, "nul.txt", ["a\x00b"], metadata={"k": "x\x00y"}, title="t\x00")
    hit = store.get_hits(A, [(store.document_chunk_ids(A, did)[0], 1.0)])[0]
    assert (hit.text, hit.metadata, hit.title, hit.end - hit.start) == ("a\ufffdb", {"k": "x\ufffdy"}, "t\ufffd", 3)


def test_concurrent_claims_never_run_two_jobs_of_one_document(store, tmp_path, pg_url) -> None:  # noqa: F811
    admin, scope = store.admin, Scope("a", ("docs",))
    store.catalog.ensure_tenant("a")
    for i in range(20):
        admin.create_job(scope, doc_id=f"d{i}", source="s", kind="file", path="/1")
    while admin.claim_job("dead", 0.05, 5) is not None:
        pass
    for i in range(20):  # a queued sibling beside each expired claim: two runnable jobs per document
        admin.create_job(scope, doc_id=f"d{i}", source="s", kind="file", path="/2")
    time.sleep(0.1)
    jobs = claim_in_parallel(lambda: open_store(_settings(tmp_path, pg_url)), 6, max_tries=5)
    claimed = [job.doc_id for job in jobs]
    assert sorted(claimed) == sorted(f"d{i}" for i in range(20))  # each document once, never two at once


def test_one_store_serves_many_threads_on_a_small_pool(tmp_path, pg_url) -> None:  # noqa: F811
    s = open_store(_settings(tmp_path, pg_url, pool_size=2))
    collection(s, A)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                put(s, A, f"{n}-{i}.txt", [f"thread {n} text {i}"])
                assert s.keyword_search(A, ["thread"], 100) and s.dense_search(A, unit(1), 5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = s.catalog._pool.get_stats()
    s.close()
    assert not errors, errors[0]
    assert stats["pool_max"] == 2 and stats["pool_size"] <= 2


def test_statement_timeout_is_applied(tmp_path, pg_url) -> None:  # noqa: F811
    s = open_store(_settings(tmp_path, pg_url, statement_timeout_s=0.2))
    try:
        with pytest.raises(StoreUnavailableError, match="timed out"), s.catalog._tx("acme") as cur:
            cur.execute("SELECT pg_sleep(2)")
        assert s.catalog.tenants() == []  # the connection is fine afterwards
    finally:
        s.close()


# -- migrations --------------------------------------------------------------------------
def test_concurrent_first_starts_migrate_once(tmp_path, pg_url) -> None:  # noqa: F811
    stores, errors = [], []
    start = threading.Barrier(6)

    def opener() -> None:
        try:
            start.wait()
            stores.append(open_store(_settings(tmp_path, pg_url)))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert not errors, errors[0]
    with admin_connect(pg_url) as conn:
        assert [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")] == \
            [v for v, _ in MIGRATIONS]


def test_version_3_database_gains_key_owners_and_document_sizes(tmp_path, pg_url) -> None:  # noqa: F811
    """Migration 4 on a database written before it: keys keep working (no owner),
    and existing documents are measured once, exactly as new writes are."""
    s = open_store(_settings(tmp_path, pg_url))
    collection(s, A)
    put(s, A, "a.txt", ["één twee", "drie"])
    _, secret = s.admin.create_api_key("acme")
    expected = s.catalog.usage("acme")
    s.close()
    with admin_connect(pg_url) as conn:  # back to version 3, as a database of the previous release
        conn.execute("ALTER TABLE documents DROP COLUMN bytes; ALTER TABLE api_keys DROP COLUMN owner; "
                     "DROP INDEX jobs_running; DROP INDEX jobs_served; DELETE FROM schema_migrations WHERE version = 4")
    s = open_store(_settings(tmp_path, pg_url))
    try:
        assert s.catalog.usage("acme") == expected and expected.bytes == len("één twee".encode()) + 4 + 2 * 4 * DIM
        assert s.admin.verify_api_key(secret).owner is None
    finally:
        s.close()


def test_version_10_database_gains_postings_from_its_tsvectors(tmp_path, pg_url) -> None:  # noqa: F811
    """Migration 11 on a database written before it (keyword terms in ``chunks.tsv``):
    postings and statistics are built from the tsvectors, and keyword search ranks as
    it did, for every owner; later writes keep them in step."""
    s = open_store(_settings(tmp_path, pg_url))
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
        conn.execute("DROP TABLE postings, term_stats, owner_totals; CREATE INDEX chunks_tsv ON chunks USING gin (tsv); "
                     "DELETE FROM schema_migrations WHERE version = 11")
    s = open_store(_settings(tmp_path, pg_url))
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
    finally:
        s.close()


def test_a_newer_schema_is_refused(tmp_path, pg_url) -> None:  # noqa: F811
    open_store(_settings(tmp_path, pg_url)).close()
    with admin_connect(pg_url) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 0)")
    with pytest.raises(ConfigError, match="upgrade ragline"):
        open_store(_settings(tmp_path, pg_url))


# -- opening errors and recovery ---------------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_is_a_clear_error(tmp_path) -> None:
    url = f"postgresql://ragline:sekret@127.0.0.1:{_closed_port()}/ragline"
    t0 = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="RAGLINE_STORE__URL") as info:
        open_store(_settings(tmp_path, url))
    assert time.monotonic() - t0 < 5 and "sekret" not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None  # no psycopg internals chained to the message


@pytest.mark.parametrize("url", ["postgresql://u@localhost/db?no_such_option=1", "postgresql://u@localhost:port/db",
                                 "postgresql://u@localhost/db?sslmode=bogus"])
def test_malformed_url_is_a_config_error(tmp_path, url: str) -> None:
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL"):
        open_store(_settings(tmp_path, url))


def test_missing_database_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*does not exist"):
        open_store(_settings(tmp_path, server().get_uri("no_such_database")))


def test_server_without_pgvector_is_a_config_error(tmp_path, pg_url) -> None:  # noqa: F811
    # PostgreSQL 18 looks for extensions along extension_control_path: pointing a
    # database at an empty place makes pgvector unavailable there, as on a server without it.
    name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
    with admin_connect(server().get_uri()) as conn:
        conn.execute(f"ALTER DATABASE {name} SET extension_control_path = '/nonexistent'")
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*pgvector"):
        open_store(_settings(tmp_path, pg_url))


def test_user_who_cannot_create_pgvector_is_a_config_error(tmp_path, pg_url) -> None:  # noqa: F811
    with admin_connect(server().get_uri()) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'ragline_app'").fetchone() is None:
            conn.execute("CREATE ROLE ragline_app LOGIN")
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*CREATE EXTENSION vector"):
        open_store(_settings(tmp_path, _as_user(pg_url, "ragline_app")))


def test_store_recovers_after_a_server_restart(tmp_path) -> None:
    srv = start_server()
    s = None
    try:
        s = open_store(_settings(tmp_path, fresh_database(srv), connect_timeout=1.0))
        collection(s, A)
        put(s, A, "a.txt", ["still here"])
        stop_server(srv)
        t0 = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="unreachable"):
            s.keyword_search(A, ["still"], 5)
        assert time.monotonic() - t0 < 5  # a quick 503, not a hang
        restart_server(srv)
        t1, found = time.monotonic(), None
        while found is None and time.monotonic() - t1 < 20:
            try:
                found = s.keyword_search(A, ["still"], 5)
            except StoreUnavailableError:
                time.sleep(0.2)
        assert found, "the store did not recover within 20 s of the restart"
        assert time.monotonic() - t1 < 10
    finally:
        if s is not None:
            s.close()
        srv.cleanup()


def test_open_backend_redacts_the_password(tmp_path, pg_url) -> None:  # noqa: F811
    url = pg_url.replace("postgres:@", "postgres:hunter2@")
    s = open_store(_settings(tmp_path, url))
    try:
        assert "hunter2" not in s.url and "***" in s.url
    finally:
        s.close()


def test_rls_walls_conversations_messages_and_policies(store) -> None:
    """Migration 5's tables sit behind the same tenant wall as the others."""
    from ragline.store.conversations import NewMessage

    pg = store.catalog
    for tenant in ("acme", "other"):
        cid = store.conversations.create_conversation(tenant, "u", title="t", collections=["kb"]).id
        store.conversations.add_messages(tenant, "u", cid, [NewMessage("user", f"{tenant} secret")])
        store.conversations.set_answer_policy(tenant, "kb", "general")
    for table in ("conversations", "messages", "answer_policies"):
        assert _rows_by_tenant(pg, "acme", table) == {"acme"}, table
        assert _rows_by_tenant(pg, "nobody", table) == set(), table
        assert _rows_by_tenant(pg, None, table) == {"acme", "other"}, table
    # WITH CHECK: no writing another tenant's row from a scoped transaction
    with pytest.raises(StoreError), pg._tx("acme") as cur:
        cur.execute("UPDATE messages SET tenant = 'other'")
