"""The same corpus on every store backend: congruence (same top 10, same nDCG) and
speed (ingest, query p50/p95), plus a synthetic large-collection run with ANN
recall@10 against exact search. Used by ``make bench`` (full size) and by tests
(tiny size, so nothing rots)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..analyzer import analyze, query_terms
from ..embed.base import Embedder
from ..engine import Engine
from ..errors import EmbedderError
from ..models import Scope, content_hash, stable_id
from ..retrieve.fusion import weighted_fusion
from ..retrieve.search import MODES, Searcher
from ..settings import Settings
from ..store import Store, backend_for, open_store
from ..store.types import ChunkRecord, DocumentRecord
from .beir import BeirDataset
from .runner import EvalRunner

Log = Callable[[str], None]
SYNTHETIC_MODEL = "synthetic/clustered"
"""The model id of the synthetic collections: their vectors are not any text's."""


def congruence(settings: Settings, dataset: BeirDataset, urls: dict[str, str | None], embedder: Embedder, *,
               modes: tuple[str, ...] = MODES, limit: int | None = None, log: Log = print) -> dict[str, Any]:
    """Ingest ``dataset`` into each store (named → URL; the first is the reference) and
    compare, per mode: nDCG@10, the mean overlap of each query's top-10 documents with
    the reference's, ingest seconds and query latency."""
    results: dict[str, Any] = {}
    reference_runs: dict[str, dict[str, list[str]]] = {}
    for name, url in urls.items():
        engine = Engine(settings, embedder=embedder, store=open_store(settings, url))
        runner = EvalRunner(settings, dataset, engine=engine)
        try:
            started = time.perf_counter()
            runner.prepare()
            ingest = time.perf_counter() - started
            row: dict[str, Any] = {"backend": backend_for(url), "ingest_s": round(ingest, 2)}
            for mode in modes:
                result = runner.run_mode(mode, limit=limit)
                top = {q: [d for d, _ in r[:10]] for q, r in result.run.items()}
                if name == next(iter(urls)):
                    reference_runs[mode] = top
                ref = reference_runs[mode]
                overlap = np.mean([len(set(top[q]) & set(ref[q])) / max(1, len(ref[q])) for q in ref])
                row[mode] = {"ndcg@10": round(result.metrics["ndcg@10"], 4), "top10_overlap": round(float(overlap), 4),
                             "p50_ms": round(result.latency(50), 2), "p95_ms": round(result.latency(95), 2)}
                log(f"{name} {mode}: nDCG@10 {row[mode]['ndcg@10']}, overlap {row[mode]['top10_overlap']}, "
                    f"p50 {row[mode]['p50_ms']} ms")
            results[name] = row
        finally:
            runner.close()
    return results


def clustered_vectors(n: int, dim: int, clusters: int, seed: int = 0, *, intrinsic: int = 16) -> np.ndarray:
    """Unit vectors in ``clusters`` clusters, each spread over its own random
    ``intrinsic``-dimensional subspace (plus a little isotropic noise). Real
    embeddings look like this: clustered, with low intrinsic dimension. Uniform or
    isotropic noise is a worst case for HNSW in which every neighbour is about as far
    as any other, so "the true top 10" means little."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    bases = rng.standard_normal((clusters, intrinsic, dim)).astype(np.float32) * 0.5
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 50_000):
        stop = min(n, start + 50_000)
        picks = rng.integers(0, clusters, stop - start)
        spread = rng.standard_normal((stop - start, 1, intrinsic)).astype(np.float32)
        block = centres[picks] + (spread @ bases[picks])[:, 0, :]
        block += 0.05 * rng.standard_normal(block.shape).astype(np.float32)
        out[start:stop] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def synthetic_texts(sentences: list[str], n: int, *, per_chunk: int = 3,
                    seed: int = 1) -> tuple[list[str], list[str]]:
    """``n`` chunk texts of ``per_chunk`` real sentences drawn at random, and their
    analysed terms: chunk-sized text whose term statistics look like a real corpus's
    (cycling whole sentences would repeat every posting list n / len(sentences) times)."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(sentences), (n, per_chunk))
    analysed = [" ".join(analyze(s)) for s in sentences]
    return ([" ".join(sentences[j] for j in row) for row in picks],
            [" ".join(analysed[j] for j in row) for row in picks])


def synthetic_doc_id(scope: Scope, d: int, owner: str | None = None) -> str:
    return stable_id(scope.tenant, scope.collection, owner or "", f"doc{d}")


def synthetic_load(store: Store, scope: Scope, vectors: np.ndarray, texts: list[str], *, per_doc: int = 100,
                   owner_every: int = 0, terms: list[str] | None = None, log: Log = print) -> float:
    """Write precomputed vectors (no embedding) as documents of ``per_doc`` chunks whose
    text cycles through ``texts`` (real sentences, for the keyword side); returns seconds.
    With ``owner_every`` n, every n-th document (d % n == 1) is private to owner "alice";
    each document has metadata ``{"bucket": d % 10}`` for filtered-search figures.
    ``terms``, when given, are the texts' analysed terms (``synthetic_texts`` can pass
    them, analysed once per sentence)."""
    store.ensure_collection(scope, model_id=SYNTHETIC_MODEL, dimension=vectors.shape[1])
    started = time.perf_counter()
    for d, start in enumerate(range(0, len(vectors), per_doc)):
        owner = "alice" if owner_every and d % owner_every == 1 else None
        doc_scope = Scope(scope.tenant, scope.collections, owner)
        doc_id = synthetic_doc_id(scope, d, owner)
        chunks = []
        for i in range(start, min(len(vectors), start + per_doc)):
            text = texts[i % len(texts)]
            words = terms[i % len(terms)] if terms else " ".join(analyze(text))
            chunks.append(ChunkRecord(id=stable_id(doc_id, str(i)), position=i - start, text=text,
                                      content_hash=content_hash(text), start=0, end=len(text), terms=words))
        record = DocumentRecord(id=doc_id, source=f"doc{d}", origin=None, title=None, media_type="text/plain",
                                content_hash=str(d), metadata={"bucket": d % 10})
        store.put_document(doc_scope, record, chunks, vectors[start:start + per_doc])
        if d and d % 500 == 0:
            log(f"  {start + per_doc:,} chunks in {time.perf_counter() - started:.0f} s")
    return time.perf_counter() - started


def dense_recall(store: Store, scope: Scope, vectors: np.ndarray, ids: list[str], probes: np.ndarray,
                 visible: np.ndarray | None = None, filters: dict | None = None, k: int = 10) -> float:
    """Mean recall@k of ``store.dense_search`` against exact search over the rows the
    query may see (``visible``, a boolean mask over ``vectors``; None: all)."""
    rows = np.arange(len(vectors)) if visible is None else np.flatnonzero(visible)
    out = []
    for probe in probes:
        scores = vectors @ probe  # then pick the visible rows: no copy of the matrix per probe
        if visible is not None:
            scores = scores[rows]
        top = min(k, len(rows))
        exact = {ids[rows[i]] for i in np.argpartition(-scores, top - 1)[:top]}
        found = {cid for cid, _ in store.dense_search(scope, probe, k, filters)}
        out.append(len(exact & found) / max(1, top))
    return round(float(np.mean(out)), 4)


def synthetic_bench(settings: Settings, url: str | None, n: int, texts: list[str], *, dim: int = 384,
                    queries: int = 100, keyword_queries: list[str] | None = None, incremental: float = 0.01,
                    log: Log = print) -> dict[str, Any]:
    """Load ``n`` clustered vectors into the store at ``url`` (every second document
    private to owner "alice"; a store with ``bulk_load`` builds its ANN index once
    after the load), then ``incremental`` × n more chunks through the ordinary write
    path, and measure: dense recall@10 against exact search unfiltered (alice sees
    every row), owner-filtered (a shared-only scope: half the rows) and owner +
    metadata filtered (a tenth); p50/p95 of dense and keyword at k = 10, and of hybrid
    as ``Searcher`` runs it, the product's path with ``settings.search`` (each probe
    given as the query's vector, the question's text its keywords; by default lists
    ``overfetch`` = 500 deep, the keyword search beside the dense one, fused, the hits
    read). ``hybrid_100`` is the hybrid this bench measured before: lists 100 deep, one
    after the other, weighted 0.5/0.5, through the store. ``keyword_queries`` (default: chunk
    texts) are analysed with ``query_terms``. The result's ``_tops`` (keyword and hybrid
    top-10 chunk ids per query) let the caller compare backends; pop it before saving."""
    clusters = max(10, n // 1000)
    extra = int(n * incremental) // 100 * 100
    vectors = clustered_vectors(n + extra + queries, dim, clusters)
    probes = vectors[n + extra:]  # probes: new points from the same clusters
    vectors = vectors[:n + extra]
    scope = Scope("bench", (f"synthetic-{n}",))
    alice = Scope(scope.tenant, scope.collections, "alice")
    text_list, terms = synthetic_texts(texts, n + extra)
    store = open_store(settings, url)
    try:
        store.ensure_collection(scope, model_id=SYNTHETIC_MODEL, dimension=dim)
        bulk = getattr(store.catalog, "bulk_load", None)
        started = time.perf_counter()
        with bulk(scope) if bulk is not None else _nothing():
            synthetic_load(store, scope, vectors[:n], text_list[:n], owner_every=2, terms=terms[:n], log=log)
            loaded = time.perf_counter() - started
        seconds = time.perf_counter() - started
        incremental_s = 0.0
        if extra:
            started = time.perf_counter()
            _load_more(store, scope, vectors, text_list, terms, n, extra)
            incremental_s = time.perf_counter() - started
        total = n + extra
        ids = [stable_id(synthetic_doc_id(scope, i // 100, "alice" if (i // 100) % 2 == 1 else None), str(i))
               for i in range(total)]
        shared = np.array([(i // 100) % 2 == 0 for i in range(total)])
        bucket0 = np.array([(i // 100) % 10 == 0 for i in range(total)])
        probe_sample = probes[:min(len(probes), 50)]
        recall = {"unfiltered": dense_recall(store, alice, vectors, ids, probe_sample),
                  "owner": dense_recall(store, scope, vectors, ids, probe_sample, shared),
                  "owner+metadata": dense_recall(store, scope, vectors, ids, probe_sample, shared & bucket0,
                                                 {"bucket": 0})}
        questions = keyword_queries or [text_list[(q * 7919) % total] for q in range(queries)]
        given = GivenVectors(dim)
        searcher = Searcher(store, given, settings.search)
        dense_ms, keyword_ms, hybrid_ms, hybrid_100_ms = [], [], [], []
        tops: dict[str, list[list[str]]] = {"keyword": [], "hybrid": []}
        for q, probe in enumerate(probes):
            question = questions[q % len(questions)]
            words = query_terms(question)
            started = time.perf_counter()
            store.dense_search(alice, probe, 10)
            dense_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            found = store.keyword_search(alice, words, 10)
            keyword_ms.append((time.perf_counter() - started) * 1000)
            tops["keyword"].append([c for c, _ in found])
            given.vector = probe
            started = time.perf_counter()
            hits = searcher.search(question, alice, mode="hybrid", k=10).hits
            hybrid_ms.append((time.perf_counter() - started) * 1000)
            tops["hybrid"].append([h.chunk_id for h in hits])
            started = time.perf_counter()
            searches = store.scoped(alice)
            fused = weighted_fusion([searches.dense(probe, 100), searches.keyword(words, 100)], [0.5, 0.5])
            store.get_hits(alice, fused[:10])
            hybrid_100_ms.append((time.perf_counter() - started) * 1000)

        def pct(values: list[float], p: int) -> float:
            return round(float(np.percentile(values, p)), 2)

        return {"backend": backend_for(url), "chunks": total, "load_s": round(seconds, 1),
                "index_build_s": round(seconds - loaded, 1), "incremental_chunks": extra,
                "incremental_chunks_per_s": round(extra / incremental_s, 1) if extra else None,
                "recall@10": recall["unfiltered"], "recall@10_filtered": recall,
                "dense_p50_ms": pct(dense_ms, 50), "dense_p95_ms": pct(dense_ms, 95),
                "keyword_p50_ms": pct(keyword_ms, 50), "keyword_p95_ms": pct(keyword_ms, 95),
                "hybrid_p50_ms": pct(hybrid_ms, 50), "hybrid_p95_ms": pct(hybrid_ms, 95),
                "hybrid_depth": max(10, settings.search.overfetch),
                "hybrid_100_p50_ms": pct(hybrid_100_ms, 50), "hybrid_100_p95_ms": pct(hybrid_100_ms, 95),
                "_tops": tops}
    finally:
        store.close()


@contextmanager
def _nothing() -> Iterator[None]:
    yield


class GivenVectors:
    """The synthetic bench's embedder: a query's vector is the probe set before it
    (``vector``), since the synthetic collections' vectors are not any text's. Nothing
    else is embedded."""

    model_id = SYNTHETIC_MODEL

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.vector: np.ndarray | None = None

    def embed_query(self, text: str) -> np.ndarray:
        if self.vector is None:
            raise EmbedderError("no probe vector set for this query")
        return self.vector

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderError("the synthetic bench writes its vectors itself; nothing is embedded")


def _load_more(store: Store, scope: Scope, vectors: np.ndarray, texts: list[str], terms: list[str], start: int,
               count: int) -> None:
    """Documents ``start // 100`` on (100 chunks each, owners as ``synthetic_load``
    with ``owner_every=2``), written one by one after the bulk load."""
    for first in range(start, start + count, 100):
        d = first // 100
        owner = "alice" if d % 2 == 1 else None
        doc_id = synthetic_doc_id(scope, d, owner)
        chunks = [ChunkRecord(id=stable_id(doc_id, str(i)), position=i - first, text=texts[i],
                              content_hash=content_hash(texts[i]), start=0, end=len(texts[i]), terms=terms[i])
                  for i in range(first, first + 100)]
        record = DocumentRecord(id=doc_id, source=f"doc{d}", origin=None, title=None, media_type="text/plain",
                                content_hash=str(d), metadata={"bucket": d % 10})
        store.put_document(Scope(scope.tenant, scope.collections, owner), record, chunks, vectors[first:first + 100])


def agreement(tops: list[list[str]], reference: list[list[str]]) -> float:
    """Mean share of each reference top-10 found in the same query's top-10."""
    return round(float(np.mean([len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(tops, reference)])), 4)


def corpus_sentences(corpus: Path, limit: int = 20_000) -> list[str]:
    """Real sentences from a BEIR corpus, for the synthetic run's keyword side."""
    import json

    out: list[str] = []
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line).get("text", "")
            out += [s.strip() for s in text.split(". ") if len(s.strip()) > 40]
            if len(out) >= limit:
                break
    return out[:limit]
