"""PostgreSQL's dense search: the per-collection HNSW index (``store/postgres/indexes.py``)
built, walked, filtered and dropped, over half-precision copies of the vectors
(``store/postgres/search.py``), on the session's embedded PostgreSQL."""

from __future__ import annotations

import itertools
import time

import numpy as np
import psycopg
import pytest

from ragline.models import Scope, content_hash
from ragline.store import open_store
from ragline.store.postgres import PostgresStore
from ragline.store.postgres.search import dense_sql
from ragline.store.types import ChunkRecord, DocumentRecord
from tests.contract.postgres_store import pg_settings
from tests.contract.store_contract import DIM, MODEL, A, unit
from tests.pg_server import admin_connect, pg_url  # noqa: F401  (pg_url is a fixture)


@pytest.fixture
def store(pg_store):
    """The store each test here works on (``conftest.pg_store``)."""
    return pg_store


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
        # ef_construction 128: pgvector's default of 64 gave recall@10 0.846 at a million chunks.
        options = conn.execute("SELECT reloptions FROM pg_class WHERE oid = to_regclass(%s)",
                               (f"chunks_hnswh_{cid}",)).fetchone()
        assert options == (["m=16", "ef_construction=128"],)
        rng = np.random.default_rng(0)
        centers = _clustered(store, 4, 80, dim, rng)
        conn.execute("ANALYZE")  # as autovacuum would
        # 800 rows are few enough that a scan is cheaper; make the planner show its index path.
        name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
        conn.execute(f"ALTER DATABASE {name} SET enable_seqscan = off")
        conn.execute(f"ALTER DATABASE {name} SET enable_bitmapscan = off")
    store.close()
    store = open_store(pg_settings(tmp_path, pg_url))  # new connections take the settings
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


def test_a_hybrid_deep_dense_search_walks_the_hnsw_index(store, pg_url) -> None:  # noqa: F811
    """Asked for 500 rows (hybrid's depth) with ef_search 500, the planner costed the
    walk above scanning the whole collection and sorting it by distance, which reads
    every vector (55 ms against 8 ms on SciFact's 12,000 chunks): the search must
    take the index however deep it reads. Seen in the index's scan counter."""
    dim, scope = 16, Scope("t", ("kb",), "ann")
    store.ensure_collection(Scope("t", ("kb",)), model_id=MODEL, dimension=dim)
    cid = int(store.catalog.resolve(scope)[0].key.split(".")[0])
    rng = np.random.default_rng(1)
    centers = _clustered(store, 4, 80, dim, rng)
    with admin_connect(pg_url) as conn:
        conn.execute("ANALYZE")

        def walks() -> int:
            row = conn.execute("SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes WHERE indexrelname = %s",
                               (f"chunks_hnswh_{cid}",)).fetchone()
            return int(row[0])

        before = walks()
        store.catalog.exact_below = 1
        found = store.dense_search(scope, centers[0], 500)
        store.close()  # its sessions end, and report their statistics
        assert len(found) == 500
        deadline = time.monotonic() + 10
        while walks() == before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert walks() > before


def test_a_chunks_vector_and_text_stay_in_its_row(store, pg_url) -> None:  # noqa: F811
    """pgvector's storage moved a 384-d float32 vector out of a row holding a chunk's
    text (over 2 kB together) into TOAST, so exact search and the re-ranking of ANN hits
    made a TOAST lookup per row (34 ms against 15 for an exact scan of 12,000 chunks).
    Kept in the row (version 14), it pushed the text out instead, and reading hits made
    the lookup (86 % of SciFact's chunks). Both stay in rows up to a page (version 15);
    a text past it still moves out."""
    dim, scope = 384, Scope("t", ("kb",))
    store.ensure_collection(scope, model_id=MODEL, dimension=dim)
    rng = np.random.default_rng(5)
    texts = {"c0": " ".join(f"w{n}" for n in rng.integers(0, 10**6, 120)),  # about 1 kB, as chunks are
             "c1": " ".join(f"w{n}" for n in rng.integers(0, 10**6, 1500))}  # about 12 kB: past a page
    record = DocumentRecord(id="d", source="s", origin=None, title=None, media_type="text/plain",
                            content_hash="h", metadata={})
    chunks = [ChunkRecord(id=cid, position=i, text=text, content_hash=cid, start=0, end=len(text), terms="w")
              for i, (cid, text) in enumerate(texts.items())]
    store.put_document(scope, record, chunks, np.ones((2, dim), np.float32) / np.sqrt(dim))
    with admin_connect(pg_url) as conn:
        rows = {r[0]: r[1:] for r in conn.execute(
            "SELECT id, pg_column_toast_chunk_id(embedding), pg_column_toast_chunk_id(text) IS NULL, length(text) "
            "FROM chunks")}
    assert rows == {"c0": (None, True, len(texts["c0"])), "c1": (None, False, len(texts["c1"]))}


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
    store = open_store(pg_settings(tmp_path, pg_url))
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
    store = open_store(pg_settings(tmp_path, pg_url, ef_search=10))
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
    pg = PostgresStore(pg_url, pg_settings(tmp_path, pg_url), index=False)
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
