"""The 1M-chunk drill for the embedded SQLite store: load precomputed clustered
vectors with real SciFact sentences as text, then measure the side indexes (HNSW +
tantivy above ``store.ann_above``): ANN build, dense recall@10 against exact search
(unfiltered, owner-filtered ~50 %, owner + metadata filtered ~10 %), and, in a fresh
serving process that opens the persisted indexes, dense / keyword / hybrid p50/p95
and its RSS. Also FTS5 against tantivy on the same store (p50, top-10 agreement).
Writes bench/million.json and bench/million.md.

    .venv/bin/python bench/million.py [--chunks 1000000] [--ann-above 50000]

Query vectors are probes drawn from the same clusters (no query embedding: that is
the embedder's cost, measured in bench/results.json); keyword queries are SciFact's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

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
from ragline.retrieve.fusion import weighted_fusion
from ragline.settings import Settings, StoreSettings
from ragline.store import open_store

DATASET = ROOT.parent / "shared" / "datasets" / "scifact"
SCOPE = Scope("bench", ("million",))


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set of this process, MB."""
    status = Path("/proc/self/status").read_text()
    field = {line.split(":")[0]: line.split()[1] for line in status.splitlines() if line.startswith("Vm")}
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts from its parent's at fork.
    return int(field.get("VmRSS", 0)) / 1024, int(field.get("VmHWM", 0)) / 1024


def pct(values: list[float], q: int) -> float:
    return round(float(np.percentile(values, q)), 2)


def keyword_queries(limit: int = 300) -> list[list[str]]:
    with (DATASET / "queries.jsonl").open() as handle:
        texts = [json.loads(line)["text"] for line in handle]
    return [t for t in (query_terms(text) for text in texts[:limit]) if t]


def serve(db: Path, ann_above: int, probes_file: Path) -> dict:
    """In a fresh process: open the store (persisted side indexes), then time queries."""
    started = time.perf_counter()
    settings = Settings(home=db.parent, store=StoreSettings(url=str(db), ann_above=ann_above))
    store = open_store(settings)
    probes = np.load(probes_file)
    queries = keyword_queries()
    store.dense_search(SCOPE, probes[0], 10)
    store.keyword_search(SCOPE, queries[0], 10)
    warm_s = time.perf_counter() - started
    dense, keyword, hybrid = [], [], []
    for q, probe in enumerate(probes):
        terms = queries[q % len(queries)]
        t = time.perf_counter()
        store.dense_search(SCOPE, probe, 10)
        dense.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.keyword_search(SCOPE, terms, 100)
        keyword.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        fused = weighted_fusion([store.dense_search(SCOPE, probe, 100), store.keyword_search(SCOPE, terms, 100)],
                                [0.5, 0.5])
        store.get_hits(SCOPE, fused[:10])
        hybrid.append((time.perf_counter() - t) * 1000)
    current, peak = rss_mb()
    return {"open_and_first_queries_s": round(warm_s, 2), "dense_p50_ms": pct(dense, 50), "dense_p95_ms": pct(dense, 95),
            "keyword_p50_ms": pct(keyword, 50), "keyword_p95_ms": pct(keyword, 95),
            "hybrid_p50_ms": pct(hybrid, 50), "hybrid_p95_ms": pct(hybrid, 95),
            "serving_rss_mb": round(current), "serving_peak_rss_mb": round(peak)}


def fts5_against_tantivy(store, queries: list[list[str]]) -> dict:
    """FTS5 (the path below the threshold) and tantivy on the same collection."""
    side = store.index._side  # an operator's probe: switch the keyword side index off and on
    tantivy_ms, fts_ms, agree = [], [], []
    for terms in queries:
        t = time.perf_counter()
        ours = store.keyword_search(SCOPE, terms, 100)
        tantivy_ms.append((time.perf_counter() - t) * 1000)
        side.keyword = False
        try:
            t = time.perf_counter()
            ref = store.keyword_search(SCOPE, terms, 100)
            fts_ms.append((time.perf_counter() - t) * 1000)
        finally:
            side.keyword = True
        top = {c for c, _ in ref[:10]}
        agree.append(len(top & {c for c, _ in ours[:10]}) / max(1, len(top)))
    return {"queries": len(queries), "fts5_p50_ms": pct(fts_ms, 50), "fts5_p95_ms": pct(fts_ms, 95),
            "tantivy_p50_ms": pct(tantivy_ms, 50), "tantivy_p95_ms": pct(tantivy_ms, 95),
            "top10_agreement": round(float(np.mean(agree)), 4)}


def run(n: int, ann_above: int, scratch: Path, probes_n: int = 100, fts_queries: int = 30) -> dict:
    db = scratch / "million.sqlite"
    settings = Settings(home=scratch, store=StoreSettings(url=str(db), ann_above=ann_above))
    vectors = clustered_vectors(n + probes_n, 384, max(10, n // 1000))
    vectors, probes = vectors[:n], vectors[n:]
    texts, terms = synthetic_texts(corpus_sentences(DATASET / "corpus.jsonl", 60_000), n)
    store = open_store(settings)
    out: dict = {"chunks": n, "ann_above": ann_above, "ann_ef": settings.store.ann_ef, "load_s": round(synthetic_load(
        store, SCOPE, vectors, texts, terms=terms, owner_every=2, log=log), 1)}
    del texts, terms
    log(f"loaded {n:,} chunks in {out['load_s']} s")
    alice = Scope(SCOPE.tenant, SCOPE.collections, "alice")
    t = time.perf_counter()
    store.dense_search(alice, probes[0], 10)
    out["ann_build_s"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    store.keyword_search(alice, ["cell"], 10)
    out["keyword_index_build_s"] = round(time.perf_counter() - t, 1)
    log(f"ANN built in {out['ann_build_s']} s, tantivy in {out['keyword_index_build_s']} s")
    docs = np.arange(n) // 100
    ids = [stable_id(synthetic_doc_id(SCOPE, d, "alice" if d % 2 == 1 else None), str(i))
           for i, d in enumerate(docs.tolist())]
    out["recall@10"] = dense_recall(store, alice, vectors, ids, probes, None)
    out["recall@10_shared_only_50pct"] = dense_recall(store, SCOPE, vectors, ids, probes, docs % 2 == 0)
    out["recall@10_filtered_10pct"] = dense_recall(store, alice, vectors, ids, probes, docs % 10 == 3, {"bucket": 3})
    out["recall@10_filtered_50pct"] = dense_recall(store, alice, vectors, ids, probes, docs % 10 < 5,
                                             {"bucket": {"lt": 5}})
    log(json.dumps(out))
    out["keyword"] = fts5_against_tantivy(store, keyword_queries()[:fts_queries])
    log(json.dumps(out["keyword"]))
    store.close()
    del vectors
    np.save(scratch / "probes.npy", probes)
    child = subprocess.run([sys.executable, __file__, "--serve", str(db), "--ann-above", str(ann_above)],
                           capture_output=True, text=True, check=True)
    out["serving"] = json.loads(child.stdout)
    out["side_index_mb"] = round(sum(p.stat().st_size for p in (scratch / "million.sqlite.ann").rglob("*")
                                     if p.is_file()) / 2**20)
    out["db_mb"] = round(db.stat().st_size / 2**20)
    return out


def markdown(r: dict) -> str:
    s, k = r["serving"], r["keyword"]
    intro = (f"Clustered 384-d vectors (precomputed), 3 random SciFact sentences per chunk; half the documents "
             f"private to one owner; side indexes above {r['ann_above']:,} chunks, HNSW searched with ef "
             f"{r.get('ann_ef', 100)}. Total run {r['total_s']} s.")
    sizes = (f"| {r['load_s']} | {r['ann_build_s']} | {r['keyword_index_build_s']} | {r['db_mb']} | "
             f"{r['side_index_mb']} |")
    recalls = (f"| HNSW vs exact | {r['recall@10']} | {r['recall@10_shared_only_50pct']} | "
               f"{r['recall@10_filtered_50pct']} | {r['recall@10_filtered_10pct']} |")
    serving = (f"| {s['dense_p50_ms']} / {s['dense_p95_ms']} | {s['keyword_p50_ms']} / {s['keyword_p95_ms']} | "
               f"{s['hybrid_p50_ms']} / {s['hybrid_p95_ms']} | {s['serving_rss_mb']} ({s['serving_peak_rss_mb']}) | "
               f"{s['open_and_first_queries_s']} |")
    keyword = (f"Keyword, same collection, {k['queries']} SciFact queries (k = 100): FTS5 p50 {k['fts5_p50_ms']} ms / "
               f"p95 {k['fts5_p95_ms']} ms; tantivy p50 {k['tantivy_p50_ms']} ms / p95 {k['tantivy_p95_ms']} ms; "
               f"top-10 agreement with FTS5 {k['top10_agreement']}.")
    return "\n".join([
        f"# {r['chunks']:,} chunks on SQLite ({r['when']}, {r['machine']})", "", intro, "",
        "| load s | ANN build s | tantivy build s | db MB | side indexes MB |", "| --- | --- | --- | --- | --- |",
        sizes, "",
        "| dense recall@10 | all rows | shared only (~50 %) | filter ~50 % | filter ~10 % |",
        "| --- | --- | --- | --- | --- |", recalls, "",
        "Serving process (fresh, opens the persisted indexes):", "",
        "| dense p50 / p95 ms | keyword p50 / p95 ms | hybrid p50 / p95 ms | RSS MB (peak) | open + first queries s |",
        "| --- | --- | --- | --- | --- |", serving, "", keyword, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--ann-above", type=int, default=50_000)
    parser.add_argument("--output", type=Path, default=ROOT / "bench")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        print(json.dumps(serve(args.serve, args.ann_above, args.serve.parent / "probes.npy")))
        return
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ragline-million-", dir="/tmp") as scratch:
        result = run(args.chunks, args.ann_above, Path(scratch))
    result.update(when=datetime.now(UTC).isoformat(timespec="seconds"), total_s=round(time.perf_counter() - started),
                  machine=f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "million.json").write_text(json.dumps(result, indent=2))
    (args.output / "million.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
