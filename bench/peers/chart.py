"""The performance chart the README shows (docs/measurements/performance.png):
ingest time, peak RSS and query latency of ragline beside its peers (from
bench/peers.json), and query latency against collection size (from
bench/results.json, bench/backends.json and bench/million.json, whichever exist).

    .venv/bin/python bench/peers/chart.py [--bench-dir bench] [--output docs/measurements/performance.png]

Run by ``make bench`` and at the end of ``make bench-peers``. A missing input file
leaves its panel saying so rather than failing: the chart shows what was measured.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MODES = ("dense", "keyword", "hybrid")
BASELINE = "ragline"  # the row the ingest ratios divide by (report.BASELINE)
_P50_KEY = re.compile(r"^(dense|keyword|hybrid)_p50_ms$")


def _load(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        print(f"chart: skipping {path}: not valid JSON ({exc.msg})", file=sys.stderr)
        return None


def peer_rows(peers: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The measured rows of peers.json (failed ones left out), ragline first."""
    if not peers:
        return []
    rows = [{**row, "key": key} for key, row in peers.get("rows", {}).items()
            if not row.get("error") and row.get("ingest_s")]
    return sorted(rows, key=lambda row: (not row["label"].startswith("ragline"), row["label"]))


def _walk(node: Any, path: tuple[str, ...], chunks: Any = None) -> Iterator[tuple[tuple[str, ...], dict, Any]]:
    """Every dict in ``node`` with its path and the nearest ``chunks`` at or above it."""
    if isinstance(node, dict):
        chunks = node.get("chunks", chunks)
        yield path, node, chunks
        for key, value in node.items():
            yield from _walk(value, (*path, str(key)), chunks)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, (*path, str(i)), chunks)


def size_points(doc: dict[str, Any] | None, source: str) -> list[tuple[str, str, int, float]]:
    """(series, mode, chunks, p50 ms) from any dict holding ``<mode>_p50_ms`` (or ``<mode>: {p50_ms |
    p50}``) under a ``chunks`` count (its own or an enclosing dict's, as bench/million.json's
    ``serving``). The series is the backend, else the dict's path, tagged with the source unless it
    is backends.json (whose SQLite rows continue ``ragline bench``'s)."""
    points: list[tuple[str, str, int, float]] = []
    if not doc:
        return points
    for path, node, chunks in _walk(doc, ()):
        if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks <= 0:
            continue
        name = str(node.get("backend") or node.get("name") or ("/".join(path) if path else source))
        series = name if source == "backends" else f"{name} ({source})"
        for key, value in node.items():
            match = _P50_KEY.match(key)
            if match and isinstance(value, int | float):
                points.append((series, match.group(1), chunks, float(value)))
            elif key in MODES and isinstance(value, dict):
                p50 = value.get("p50_ms", value.get("p50"))
                if isinstance(p50, int | float):
                    points.append((series, key, chunks, float(p50)))
    return points


def results_points(results: dict[str, Any] | None) -> list[tuple[str, str, int, float]]:
    """bench/results.json (``ragline bench``): SciFact's chunk count and its per-mode p50."""
    if not results or "ingest" not in results:
        return []
    chunks = results["ingest"].get("chunks")
    latency = results.get("query_latency_ms", {})
    return [("sqlite", mode, chunks, float(latency[mode]["p50"]))
            for mode in MODES if mode in latency and isinstance(chunks, int)]


def peers_points(rows: list[dict[str, Any]]) -> list[tuple[str, str, int, float]]:
    """ragline's default row of bench/peers.json: SciFact's chunk count and its hybrid p50."""
    return [("sqlite (bench-peers)", str(row.get("mode", "hybrid")), int(row["vectors"]), float(row["query_p50_ms"]))
            for row in rows if row.get("label") == "ragline (defaults)"
            and isinstance(row.get("vectors"), int) and isinstance(row.get("query_p50_ms"), int | float)]


def _dated(points: list[tuple[str, str, int, float]], doc: dict[str, Any] | None) -> list[tuple[str, str, int, float]]:
    """The points with their source's measurement date in the series name: the sources are
    re-run at different times, and an old point must not pass for today's code."""
    when = str((doc or {}).get("when", ""))[:16].replace("T", " ")
    return [(f"{series}, {when}" if when else series, mode, n, ms) for series, mode, n, ms in points]


def _empty(ax: Any, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=10, color="0.4", wrap=True,
            transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def _bars(ax: Any, rows: list[dict[str, Any]], key: str, title: str, unit: str, ratio: str | None = None) -> None:
    labels = [row["label"].replace(" (", "\n(") for row in rows]
    values = [row.get(key) or 0.0 for row in rows]
    colors = ["tab:blue" if row["label"].startswith("ragline") else "0.65" for row in rows]
    bars = ax.barh(labels, values, color=colors)
    texts = [f"{v:,.0f} {unit}" if v >= 10 else f"{v:.1f} {unit}" for v in values]
    if ratio:
        texts = [f"{t} ({row[ratio]:.2f}× ragline)" if row.get(ratio) and row.get("key") != BASELINE
                 else t for t, row in zip(texts, rows, strict=True)]
    ax.bar_label(bars, labels=texts, padding=3, fontsize=9)
    ax.set_title(title, fontsize=11)
    ax.invert_yaxis()
    ax.set_xlim(0, max(values + [1.0]) * 1.45)
    ax.tick_params(axis="y", labelsize=9)


def _latency(ax: Any, rows: list[dict[str, Any]]) -> None:
    from matplotlib.patches import Patch

    labels = [f"{re.sub(r' [(](hybrid|dense)[)]$', '', row['label']).replace(' (', chr(10) + '(')}\n"
              f"{row.get('mode', '')}" for row in rows]
    y = range(len(rows))
    p50 = [row.get("query_p50_ms") or 0.0 for row in rows]
    p95 = [row.get("query_p95_ms") or 0.0 for row in rows]
    ax.barh([i + 0.2 for i in y], p95, height=0.4, color="0.85")
    bars = ax.barh([i - 0.2 for i in y], p50, height=0.4,
                   color=["tab:blue" if r["label"].startswith("ragline") else "0.45" for r in rows])
    ax.bar_label(bars, labels=[f"p50 {v:.1f} ms" for v in p50], padding=3, fontsize=9)
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, max(p95 + [1.0]) * 1.35)
    ax.set_title("Query latency, warm, k = 10, query embedding included (ms)", fontsize=11)
    ax.legend(handles=[Patch(color="0.45", label="p50 (ragline in blue)"), Patch(color="0.85", label="p95")],
              fontsize=8, loc="lower right")
    ax.tick_params(axis="y", labelsize=8)


def _sizes(ax: Any, points: list[tuple[str, str, int, float]]) -> None:
    colors = {"dense": "tab:blue", "keyword": "tab:orange", "hybrid": "tab:green"}
    styles = ["-", "--", ":", "-."]
    markers = ["o", "s", "^", "D"]
    series = sorted({s for s, *_ in points}, key=lambda name: (not name.startswith("sqlite"), name))
    for i, name in enumerate(series):
        for mode in MODES:
            pts = sorted((n, ms) for s, m, n, ms in points if s == name and m == mode)
            if pts:
                ax.plot([n for n, _ in pts], [ms for _, ms in pts], styles[i % len(styles)],
                        marker=markers[i % len(markers)], color=colors[mode], label=f"{name}: {mode}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks in the collection (SciFact, then synthetic)")
    ax.set_ylabel("p50 ms (log)")
    ax.set_title("ragline query latency against collection size, per store", fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)


def render(bench_dir: Path, output: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    peers = _load(bench_dir / "peers.json")
    rows = peer_rows(peers)
    results, backends, million = (_load(bench_dir / f"{name}.json") for name in ("results", "backends", "million"))
    points = (_dated(results_points(results), results) + _dated(size_points(backends, "backends"), backends)
              + _dated(size_points(million, "million"), million) + _dated(peers_points(rows), peers))
    fig, axes = plt.subplots(2, 2, figsize=(14, 10))
    if rows:
        ds = peers.get("dataset", {}) if peers else {}
        _bars(axes[0][0], rows, "ingest_s", "Ingest, end to end: model load to index ready (s)", "s",
              ratio="ingest_ratio")
        _bars(axes[0][1], rows, "peak_rss_mb", "Peak RSS of the process tree (MB)", "MB")
        _latency(axes[1][0], rows)
        trial = " — TRIAL on a cut corpus" if ds.get("limit") else ""
        machine = peers.get("machine", {}) if peers else {}
        # Rows kept from an earlier --only run carry their own load: show the whole range.
        loads = [v for v in (machine.get("load_before"), machine.get("load_after"),
                             *(row.get("load_after") for row in rows)) if isinstance(v, int | float)]
        load = f"{min(loads):.1f}–{max(loads):.1f}" if loads else "?"
        fig.suptitle(f"ragline beside its peers: {ds.get('name', '?')}, {ds.get('documents', 0):,} documents, "
                     f"all-MiniLM-L6-v2, {machine.get('cpus', '?')} CPUs, load average {load} "
                     f"({str(peers.get('when', ''))[:10] if peers else ''}){trial}", fontsize=13)
    else:
        for ax in (axes[0][0], axes[0][1], axes[1][0]):
            _empty(ax, "no bench/peers.json yet: run `make bench-peers`")
        fig.suptitle("ragline performance", fontsize=13)
    if points:
        _sizes(axes[1][1], points)
    else:
        _empty(axes[1][1], "no bench/results.json, backends.json or million.json yet")
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=100)
    plt.close(fig)
    return output


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=ROOT / "bench")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "measurements" / "performance.png")
    args = parser.parse_args(argv)
    print(f"wrote {render(args.bench_dir, args.output)}", file=sys.stderr)


if __name__ == "__main__":
    main()
