"""The 1M-chunk drill (bench/million.py) in small: 20,000 clustered chunks with real
SciFact sentences on SQLite, side indexes from 2,000 chunks. Checks correctness
only — recall@10 against exact search (unfiltered, owner-scoped, metadata-filtered),
scoping, and tantivy's top 10 against FTS5's — never wall-clock time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragline.analyzer import query_terms
from ragline.eval.backends import (
    clustered_vectors,
    corpus_sentences,
    dense_recall,
    synthetic_doc_id,
    synthetic_load,
    synthetic_texts,
)
from ragline.models import Scope, stable_id
from ragline.settings import Settings, StoreSettings
from ragline.store import open_store

DATASET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"
N = 20_000
SCOPE = Scope("bench", ("million",))
ALICE = Scope("bench", ("million",), "alice")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    if not (DATASET / "corpus.jsonl").exists():
        pytest.skip(f"SciFact is not at {DATASET}")
    home = tmp_path_factory.mktemp("million")
    store = open_store(Settings(home=home, store=StoreSettings(ann_above=2_000)))
    vectors = clustered_vectors(N + 60, 128, N // 1000, seed=5)
    vectors, probes = vectors[:N], vectors[N:]
    texts, terms = synthetic_texts(corpus_sentences(DATASET / "corpus.jsonl", 20_000), N)
    synthetic_load(store, SCOPE, vectors, texts, terms=terms, owner_every=2, log=lambda _: None)
    docs = np.arange(N) // 100
    ids = [stable_id(synthetic_doc_id(SCOPE, d, "alice" if d % 2 == 1 else None), str(i))
           for i, d in enumerate(docs.tolist())]
    yield store, vectors, probes, ids, docs
    store.close()


def test_dense_recall_unfiltered_and_filtered(loaded) -> None:
    store, vectors, probes, ids, docs = loaded
    assert dense_recall(store, ALICE, vectors, ids, probes) >= 0.95
    assert dense_recall(store, SCOPE, vectors, ids, probes, docs % 2 == 0) >= 0.95  # shared only: ~50 %
    assert dense_recall(store, ALICE, vectors, ids, probes, docs % 10 < 5, {"bucket": {"lt": 5}}) >= 0.95
    assert dense_recall(store, ALICE, vectors, ids, probes, docs % 10 == 3, {"bucket": 3}) >= 0.95  # ~10 %
    assert not store.index._indexes  # the exact matrix was never built


def test_scoping(loaded) -> None:
    from ragline.errors import NotFoundError

    store, _, probes, ids, docs = loaded
    with pytest.raises(NotFoundError):  # another tenant cannot even name the collection
        store.dense_search(Scope("intruder", ("million",)), probes[0], 10)
    shared = {c for c, d in zip(ids, docs.tolist()) if d % 2 == 0}
    for probe in probes[:20]:
        assert {c for c, _ in store.dense_search(SCOPE, probe, 50)} <= shared
    for terms in (["cell"], ["protein", "express"], ["cancer", "risk", "patient"]):
        assert {c for c, _ in store.keyword_search(SCOPE, terms, 100)} <= shared
        hits = store.keyword_search(ALICE, terms, 20, {"bucket": 3})
        assert hits and all(h.metadata["bucket"] == 3 for h in store.get_hits(ALICE, hits))


def test_tantivy_agrees_with_fts5(loaded) -> None:
    store, *_ = loaded
    with (DATASET / "queries.jsonl").open() as handle:
        queries = [query_terms(json.loads(line)["text"]) for line in handle][:40]
    side = store.index._side
    agree = []
    for terms in queries:
        ours = [c for c, _ in store.keyword_search(SCOPE, terms, 10)]
        side.keyword = False
        try:
            ref = [c for c, _ in store.keyword_search(SCOPE, terms, 10)]
        finally:
            side.keyword = True
        agree.append(len(set(ours) & set(ref)) / max(1, len(ref)))
    assert np.mean(agree) >= 0.85
