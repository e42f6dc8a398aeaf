"""Turning the peers' raw results into bench/peers.json and bench/peers.md: every
run is scored here with the same code (ragline.eval.metrics, trec_eval's nDCG@10),
the ingest ratios are taken against ragline's row of the same run, and the table
is rendered with the machine facts beside it.

Pure functions over dicts, so tests/integration/test_bench_peers.py checks them on synthetic
input without building a virtualenv.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragline.eval.metrics import evaluate

REFERENCE = "chroma"  # the goal is stated against LangChain + Chroma
BASELINE = "ragline"  # ratios divide by ragline's (default settings) ingest time
EXACT = "ragline-fp32"  # the exact pipeline the fast settings are held to (nDCG@10 within 0.005)


def score(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """nDCG@10 and recall@10 of one run (query id → ranked doc ids) over ``qrels``."""
    metrics = evaluate(run, qrels, ("ndcg@10", "recall@10"))
    return {name: round(value, 4) for name, value in metrics.items()}


def add_ratios(rows: dict[str, dict[str, Any]]) -> None:
    """Each row's ``ingest_ratio``: its ingest seconds ÷ ragline's (None without both)."""
    base = rows.get(BASELINE, {}).get("ingest_s")
    for row in rows.values():
        ingest = row.get("ingest_s")
        row["ingest_ratio"] = round(ingest / base, 2) if base and ingest else None


def headline(rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One sentence per ragline variant against LangChain + Chroma, when both were measured."""
    ref = rows.get(REFERENCE, {})
    lines = []
    for name, row in rows.items():
        if not name.startswith("ragline") or not row.get("ingest_s") or not ref.get("ingest_s"):
            continue
        factor = ref["ingest_s"] / row["ingest_s"]
        word = "faster" if factor >= 1 else "slower"
        shown = factor if factor >= 1 else 1 / factor
        against = [(label, rows.get(key, {}).get("ndcg@10")) for key, label in
                   ((BASELINE, "the defaults"), (EXACT, "the exact fp32 pipeline")) if key != name]
        shown_against = [f"{row['ndcg@10'] - value:+.4f} against {label}" for label, value in against
                         if value is not None]
        quality = (f" nDCG@10 {row['ndcg@10']:.4f}, {', '.join(shown_against)}."
                   if row.get("ndcg@10") is not None and shown_against else "")
        lines.append(f"- {row['label']}: ingest {shown:.2f}× {word} than LangChain + Chroma "
                     f"({row['ingest_s']:.1f} s against {ref['ingest_s']:.1f} s); peak RSS "
                     f"{row.get('peak_rss_mb', 0):.0f} MB against {ref.get('peak_rss_mb', 0):.0f} MB.{quality}")
    return lines


def _cell(value: Any, fmt: str = "{}") -> str:
    return "—" if value is None else fmt.format(value)


def render_markdown(report: Mapping[str, Any]) -> str:
    """peers.json as a readable page: the table, the headline ratios, the machine facts."""
    m = report["machine"]
    ds = report["dataset"]
    scope = (f"first {ds['documents']:,} documents of {ds['name']} (a trial, not the full corpus)"
             if ds.get("limit") else f"{ds['name']}, all {ds['documents']:,} documents")
    lines = [
        "# ragline beside its peers",
        "",
        (f"{report['when']} · {scope} · {ds['queries']} test queries with a relevant document in it · "
         f"k = 10 · all-MiniLM-L6-v2 for everyone · one process at a time"),
        "",
        ("| system | mode | ingest s | ingest ÷ ragline | peak RSS MB | query p50 ms | query p95 ms | nDCG@10 | "
         "recall@10 | vectors |"),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in report["rows"].values():
        if row.get("error"):
            lines.append(f"| {row['label']} | — | — | — | — | — | — | — | — | {row['error']} |")
            continue
        lines.append(
            f"| {row['label']} | {row['mode']} | {_cell(row.get('ingest_s'), '{:.1f}')} | "
            f"{_cell(row.get('ingest_ratio'), '{:.2f}')} | {_cell(row.get('peak_rss_mb'), '{:.0f}')} | "
            f"{_cell(row.get('query_p50_ms'), '{:.1f}')} | {_cell(row.get('query_p95_ms'), '{:.1f}')} | "
            f"{_cell(row.get('ndcg@10'), '{:.4f}')} | {_cell(row.get('recall@10'), '{:.4f}')} | "
            f"{_cell(row.get('vectors'), '{:,}')} |")
    lines += ["", *headline(report["rows"]), ""]
    lines += [
        "## How it was measured",
        "",
        ("- **ingest s**: inside the system's own fresh process, from loading the model and reading the corpus "
         "to an index ready to query (imports before that are listed below, not counted)."),
        ("- **peak RSS**: the highest resident memory of the system's process tree over its whole run (ingest "
         "and queries), the larger of the kernel's `ru_maxrss` (wait4) and a 20 Hz sample of the tree's summed "
         "RSS."),
        ("- **query p50/p95**: warm (5 untimed warm-up queries that are not test queries), each test query "
         "once, k = 10, query embedding included."),
        "- **nDCG@10**: every system's top-10 document ranking scored by the same code (ragline.eval.metrics).",
        ("- Peers embed one vector per abstract (sentence-transformers truncates at 256 tokens); ragline "
         "chunks abstracts and ranks documents by their best chunk. Details: bench/peers/README.md."),
        "",
        "## Machine and versions",
        "",
        (f"{m['cpus']} CPUs · {m['platform']} · Python {m['python']} · load average (1 min) "
         f"{m['load_before']} before, {m['load_after']} after (rows kept from an earlier `--only` run "
         "carry their own time and load below)"),
        "",
        "| system | measured at (load after) | imports s | ingest-phase RSS MB | versions | settings / notes |",
        "| --- | --- | ---: | ---: | --- | --- |",
    ]
    for row in report["rows"].values():
        if row.get("error"):
            continue
        versions = ", ".join(f"{k} {v}" for k, v in row.get("versions", {}).items())
        notes = str(row.get("notes", "")).replace("|", "/")
        lines.append(f"| {row['label']} | {row.get('when', '—')} ({_cell(row.get('load_after'))}) | "
                     f"{_cell(row.get('imports_s'), '{:.1f}')} | "
                     f"{_cell(row.get('ingest_peak_rss_mb'), '{:.0f}')} | {versions} | {notes} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # re-render peers.md from peers.json (e.g. after editing this module)
    import json
    import sys
    from pathlib import Path

    bench = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    (bench / "peers.md").write_text(render_markdown(json.loads((bench / "peers.json").read_text())))
    print(f"wrote {bench / 'peers.md'}", file=sys.stderr)
