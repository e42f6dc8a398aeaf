"""Serving cost at SciFact size: per-stage query latency and peak RSS of a fresh
process that opens an existing store and answers the SciFact test queries warm.

The store is the one ``ragline eval <scifact> --mode hybrid`` builds under
``<home>/eval/`` (build it once, then run this as often as needed):

    RAGLINE_HOME=/tmp/h4/home ragline eval ../shared/datasets/scifact --mode hybrid
    RAGLINE_HOME=/tmp/h4/home .venv/bin/python bench/serving.py ../shared/datasets/scifact

Each query is searched once, hybrid, k = 10, through ``Engine.search`` (what the
server and the CLI call), after a short warm-up on queries outside the measured
set (so the query-embedding cache never answers a measured query). Stages come
from ``SearchResult.timings_ms`` (embed, dense, keyword, fuse, fetch = hydrating
the hits); ``total`` is the wall time of the whole call (usage counters included).
``--burn N`` runs N busy-looping processes during the queries, to see how the
latency holds up on a contended machine. Writes bench/serving.json and
bench/serving.md (``--out`` to change the stem).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sqlite3
import statistics
import sys
import time
from pathlib import Path

STAGES = ("embed", "dense", "keyword", "fuse", "fetch", "total")


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB."""
    current = 0.0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                current = int(line.split()[1]) / 1024
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load_queries(dataset: Path, split: str) -> tuple[list[str], list[str]]:
    """(judged queries of the split, other queries for warming up), in file order."""
    judged = set()
    with (dataset / "qrels" / f"{split}.tsv").open() as qrels:
        for line in qrels:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[0] != "query-id":
                judged.add(parts[0])
    measured, other = [], []
    with (dataset / "queries.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            (measured if str(row["_id"]) in judged else other).append(row["text"])
    return measured, other


def find_store(home: Path, name: str) -> tuple[Path, str]:
    """The eval store of ``name`` under ``home`` and its largest collection (an
    interrupted eval of other settings may have left a partial one beside it)."""
    candidates = sorted((home / "eval").glob(f"{name}-*.sqlite"), key=lambda p: p.stat().st_mtime)
    if not candidates:
        raise SystemExit(f"no {name} eval store under {home}/eval: run `ragline eval` on the dataset first")
    path = candidates[-1]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT name FROM collections c WHERE tenant = 'eval' ORDER BY "
                          "(SELECT count(*) FROM chunks WHERE collection_id = c.id) DESC").fetchall()
    if not rows:
        raise SystemExit(f"{path} holds no eval collection")
    return path, rows[0][0]


def burn(stop) -> None:
    while not stop.is_set():
        sum(range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--limit", type=int, default=0, help="measure only the first N queries")
    parser.add_argument("--burn", type=int, default=0, help="busy-looping processes during the queries")
    parser.add_argument("--ort-spin-arena", action="store_true",
                        help="ONNX Runtime's defaults (spinning threads, CPU arena), for comparison")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("serving"))
    args = parser.parse_args()
    if args.ort_spin_arena:
        from ragline.embed.bert import BertEmbedder

        BertEmbedder.spin = BertEmbedder.arena = True

    from ragline.models import Scope
    from ragline.settings import Settings

    settings = Settings()
    path, collection = find_store(settings.home, args.dataset.name)
    measured, other = load_queries(args.dataset, args.split)
    if args.limit:
        measured = measured[:args.limit]
    baseline = rss_mb()

    from ragline.engine import Engine
    from ragline.store import open_store

    started = time.perf_counter()
    engine = Engine(settings, store=open_store(settings, str(path)))
    scope = Scope("eval", (collection,))
    for text in other[:20]:  # warm: model, matrix, FTS pages, caches
        engine.search(text, scope, mode=args.mode, k=args.k)
    warm_s = time.perf_counter() - started
    after_warm = rss_mb()

    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=burn, args=(stop,), daemon=True) for _ in range(args.burn)]
    for p in burners:
        p.start()
    times: dict[str, list[float]] = {stage: [] for stage in STAGES}
    try:
        for text in measured:
            began = time.perf_counter()
            result = engine.search(text, scope, mode=args.mode, k=args.k)
            times["total"].append((time.perf_counter() - began) * 1000)
            for stage in STAGES[:-1]:
                if stage in result.timings_ms:
                    times[stage].append(result.timings_ms[stage])
    finally:
        stop.set()
        for p in burners:
            p.join()
    final = rss_mb()
    info = engine.get_collection(scope)
    engine.close()

    load = os.getloadavg()
    report = {
        "store": str(path), "collection": collection, "chunks": info.chunks, "documents": info.documents,
        "mode": args.mode, "k": args.k, "queries": len(measured), "burn": args.burn,
        "overfetch": settings.search.overfetch, "ort_spin_arena": args.ort_spin_arena, "precision": settings.embedder.precision,
        "threads": settings.embedder.threads, "python": sys.version.split()[0],
        "stages_ms": {stage: {"p50": round(statistics.median(v), 3), "p95": round(percentile(v, 0.95), 3)}
                      for stage, v in times.items() if v},
        "rss_mb": {"before_engine": round(baseline[0], 1), "after_warmup": round(after_warm[0], 1),
                   "after_queries": round(final[0], 1), "peak": round(final[1], 1)},
        "warmup_s": round(warm_s, 2), "loadavg": [round(x, 2) for x in load],
    }
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [(f"# Serving at SciFact size ({info.chunks} chunks, {args.mode}, k={args.k}, "
              f"{len(measured)} queries, {args.burn} burners)"), "",
             "| stage | p50 ms | p95 ms |", "| --- | --- | --- |"]
    lines += [f"| {stage} | {v['p50']} | {v['p95']} |" for stage, v in report["stages_ms"].items()]
    rss = report["rss_mb"]
    lines += ["", (f"Peak RSS {rss['peak']} MB (after warm-up {rss['after_warmup']} MB, "
                   f"before the engine {rss['before_engine']} MB); load average {report['loadavg']}."), ""]
    args.out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
