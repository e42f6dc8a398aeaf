"""Quality and speed: ``ragline eval`` (BEIR datasets) and ``ragline bench``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from ..retrieve.search import MODES
from .common import AsJson, app, err, errors_to_exit, load_settings, out
from .common import print_json as _print_json
from .console import say
from .core import _progress


def _table(rows: list[dict]) -> Table:
    table = Table()
    for column in ("mode", "queries", "nDCG@10", "R@10", "R@100", "MRR@10", "p50 ms", "p95 ms"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for row in rows:
        table.add_row(row["mode"], str(row["queries"]), f"{row['ndcg@10']:.4f}", f"{row['recall@10']:.4f}",
                      f"{row['recall@100']:.4f}", f"{row['mrr@10']:.4f}", f"{row['latency_ms']['p50']:.1f}",
                      f"{row['latency_ms']['p95']:.1f}")
    return table


@app.command("eval")
def eval_command(
    dataset_dir: Annotated[Path, typer.Argument(help="A BEIR-format folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.")],
    split: Annotated[str, typer.Option(help="Which qrels file to use (qrels/<split>.tsv).")] = "test",
    mode: Annotated[Literal["hybrid", "dense", "keyword", "all"], typer.Option(
        help="Search mode, or all three.")] = "hybrid",
    k: Annotated[int | None, typer.Option("-k", help="Chunk hits fetched per query (default: enough for 100 documents).")] = None,
    aggregate: Annotated[str | None, typer.Option(help="Chunk → document score: max or sum (default: search.doc_aggregate).")] = None,
    limit: Annotated[int | None, typer.Option(help="Evaluate only the first N judged queries.")] = None,
    save_run: Annotated[Path | None, typer.Option(help="Also write the document rankings as a TREC run file.")] = None,
    as_json: AsJson = False,
) -> None:
    """Measure retrieval quality on a BEIR dataset: nDCG@10, recall@10/100, MRR@10, latency."""
    from ..eval.beir import load_dataset
    from ..eval.runner import EvalRunner, write_trec_run

    modes = list(MODES) if mode == "all" else [mode]
    if any(m not in MODES for m in modes):
        say("red", "error", f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}, all")
        raise typer.Exit(2)
    if k is not None and k < 1 or limit is not None and limit < 1:
        err.print("[red]error:[/red] -k and --limit must be at least 1")
        raise typer.Exit(2)
    settings = load_settings()
    with errors_to_exit():
        dataset = load_dataset(dataset_dir, split)
        runner = EvalRunner(settings, dataset)
        try:
            with _progress(True) as progress:
                summary = runner.prepare(progress)
            err.print(f"ingest: {summary.added} added, {summary.unchanged} unchanged, {summary.chunks} chunks, "
                      f"{summary.embedded} embedded in {summary.seconds:.1f} s")
            results = [runner.run_mode(m, k=k, aggregate=aggregate, limit=limit) for m in modes]
            if save_run is not None:
                write_trec_run(results, save_run)
            rows = [r.to_dict() for r in results]
        finally:
            runner.close()
    if as_json:
        _print_json(rows if mode == "all" else rows[0])
        return
    out.print(f"{dataset.name} · split {split} · model {settings.embedder.name} · ingest {rows[0]['ingest_seconds']:.1f} s")
    out.print(_table(rows))


@app.command("bench")
def bench_command(
    dataset_dir: Annotated[Path, typer.Option("--dataset", help="BEIR folder to benchmark on.")] = Path("../shared/datasets/scifact"),
    output: Annotated[Path, typer.Option(help="Folder for results.json and results.md.")] = Path("bench"),
    reference_python: Annotated[Path | None, typer.Option(
        envvar="RAGLINE_BENCH_REFERENCE_PYTHON",
        help="A Python with sentence-transformers installed, for the throughput ratio.")] = None,
    embed_texts: Annotated[int, typer.Option(help="Chunks embedded for the throughput figure.")] = 2000,
    as_json: AsJson = False,
) -> None:
    """Speed figures (ingest, re-ingest, query latency, embedding throughput) → bench/results.{json,md}."""
    from ..eval.bench import run_bench, write_results

    settings = load_settings()
    with errors_to_exit():
        results = run_bench(settings, dataset_dir, reference_python=reference_python, embed_texts=embed_texts,
                            log=lambda message: err.print(message))
        paths = write_results(results, output)
    if as_json:
        _print_json(results)
    else:
        out.print(paths["md"].read_text(encoding="utf-8"))
    err.print(f"wrote {paths['json']} and {paths['md']}")

