"""bench/peers (``make bench-peers``) without building a venv or loading torch: the
corpus preparation, the shared timing helpers, the scoring, the table, the chart,
and one real run of ragline's peer script (hashing embedder) through the runner's
process protocol."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT, SCIFACT, needs

sys.path.insert(0, str(ROOT / "bench" / "peers"))

import chart
import common
import report
import runner


def _row(label: str, ingest: float, **extra) -> dict:
    return {"label": label, "mode": "hybrid", "ingest_s": ingest, "peak_rss_mb": 500.0, "query_p50_ms": 10.0,
            "query_p95_ms": 20.0, "ndcg@10": 0.7, "recall@10": 0.8, "vectors": 100, "imports_s": 1.0,
            "ingest_peak_rss_mb": 400.0, "versions": {"x": "1.0"}, "notes": "a | b", **extra}


def _report(rows: dict, limit: int | None = None) -> dict:
    return {"when": "2026-11-23T12:00:00+00:00",
            "dataset": {"name": "scifact", "documents": 500 if limit else 5183, "limit": limit, "queries": 42},
            "machine": {"cpus": 2, "platform": "Linux", "python": "3.11.7", "load_before": 0.5, "load_after": 1.5},
            "rows": rows}


def test_score_matches_hand_worked_ndcg() -> None:
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 2}, "q3": {"z": 0}}  # q3: nothing relevant, not scored
    run = {"q1": ["x", "a", "b"], "q2": ["c"]}
    ideal = 1 + 1 / math.log2(3)
    expected = ((1 / math.log2(3) + 1 / math.log2(4)) / ideal + 1.0) / 2
    scores = report.score(run, qrels)
    assert scores["ndcg@10"] == pytest.approx(round(expected, 4))
    assert scores["recall@10"] == 1.0


def test_ratios_and_headline() -> None:
    rows = {"ragline": _row("ragline (defaults)", 20.0), "chroma": _row("LangChain + Chroma", 60.0),
            "txtai": _row("txtai (hybrid)", 10.0)}
    report.add_ratios(rows)
    assert rows["chroma"]["ingest_ratio"] == 3.0
    assert rows["txtai"]["ingest_ratio"] == 0.5
    assert rows["ragline"]["ingest_ratio"] == 1.0
    assert report.headline(rows) == [("- ragline (defaults): ingest 3.00× faster than LangChain + Chroma "
                                      "(20.0 s against 60.0 s); peak RSS 500 MB against 500 MB.")]
    slow = {"ragline": _row("ragline (defaults)", 90.0), "chroma": _row("LangChain + Chroma", 60.0)}
    assert "1.50× slower" in report.headline(slow)[0]
    alone = {"chroma": _row("LangChain + Chroma", 60.0)}
    report.add_ratios(alone)
    assert alone["chroma"]["ingest_ratio"] is None and report.headline(alone) == []


def test_markdown_table_marks_trials_and_failures() -> None:
    rows = {"ragline": _row("ragline (defaults)", 20.0), "chroma": _row("LangChain + Chroma", 60.0),
            "haystack": {"label": "Haystack (hybrid)", "error": "pip install failed: no torch"}}
    report.add_ratios(rows)
    page = report.render_markdown(_report(rows, limit=500))
    assert "first 500 documents of scifact (a trial" in page
    assert "| LangChain + Chroma | hybrid | 60.0 | 3.00 | 500 | 10.0 | 20.0 | 0.7000 | 0.8000 | 100 |" in page
    assert "| Haystack (hybrid) | — | — | — | — | — | — | — | — | pip install failed: no torch |" in page
    assert "a / b" in page  # a pipe in the notes cannot break the table
    assert "0.5 before, 1.5 after" in page
    assert "all 5,183 documents" in report.render_markdown(_report(rows))


def test_size_points_read_any_layout() -> None:
    backends = {"synthetic": {"100000": {"sqlite": {"backend": "sqlite", "chunks": 100000, "dense_p50_ms": 9.0,
                                                    "hybrid_p50_ms": 44.0, "recall@10": 1.0}}}}
    million = {"chunks": 1_000_000, "hybrid": {"p50_ms": 25.0}, "dense": {"p50": 3.0}, "keyword": "n/a",
               "ann": [{"name": "hnsw", "chunks": 1_000_000, "dense_p50_ms": 1.5}]}
    assert chart.size_points(backends, "backends") == [("sqlite", "dense", 100000, 9.0),
                                                        ("sqlite", "hybrid", 100000, 44.0)]
    points = chart.size_points(million, "million")
    assert ("million (million)", "hybrid", 1_000_000, 25.0) in points
    assert ("million (million)", "dense", 1_000_000, 3.0) in points
    assert ("hnsw (million)", "dense", 1_000_000, 1.5) in points
    assert len(points) == 3
    # bench/million.py's layout: the count at the top, the figures in "serving".
    serving = {"chunks": 1_000_000, "load_s": 90.0, "serving": {"dense_p50_ms": 2.0, "keyword_p50_ms": 4.0,
                                                                "hybrid_p50_ms": 9.0, "serving_rss_mb": 300}}
    assert chart.size_points(serving, "million") == [("serving (million)", mode, 1_000_000, ms)
                                                     for mode, ms in (("dense", 2.0), ("keyword", 4.0),
                                                                      ("hybrid", 9.0))]
    results = {"ingest": {"chunks": 10459}, "query_latency_ms": {"hybrid": {"p50": 24.6}, "dense": {"p50": 11.0}}}
    assert chart.results_points(results) == [("sqlite", "dense", 10459, 11.0), ("sqlite", "hybrid", 10459, 24.6)]
    assert chart.size_points(None, "x") == [] and chart.results_points({}) == []


def test_size_series_carry_their_date_and_the_peers_row_is_a_point() -> None:
    """Sources re-run at different times: an old point must not pass for today's code."""
    points = chart._dated([("sqlite", "hybrid", 1_000_000, 400.0)], {"when": "2026-11-23T07:43:44+00:00"})
    assert points == [("sqlite, 2026-11-23 07:43", "hybrid", 1_000_000, 400.0)]
    assert chart._dated(points, None) == points
    rows = [{"label": "ragline (defaults)", "mode": "hybrid", "vectors": 11861, "query_p50_ms": 9.6},
            {"label": "LangChain + Chroma", "mode": "dense", "vectors": 5183, "query_p50_ms": 16.0}]
    assert chart.peers_points(rows) == [("sqlite (bench-peers)", "hybrid", 11861, 9.6)]


@pytest.mark.parametrize("with_peers", [True, False])
def test_chart_writes_a_png(tmp_path: Path, with_peers: bool) -> None:
    if with_peers:
        rows = {"ragline": _row("ragline (defaults)", 20.0), "chroma": _row("LangChain + Chroma", 60.0),
                "llamaindex": {"label": "LlamaIndex", "error": "exit 1"}}
        (tmp_path / "peers.json").write_text(json.dumps(_report(rows, limit=500)))
        assert [r["label"] for r in chart.peer_rows(json.loads((tmp_path / "peers.json").read_text()))] == [
            "ragline (defaults)", "LangChain + Chroma"]
    (tmp_path / "backends.json").write_text("{not json")  # a broken input is skipped, not fatal
    out = chart.render(tmp_path, tmp_path / "out" / "performance.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_common_helpers() -> None:
    assert common.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert common.percentile([5.0], 95) == 5.0 and common.percentile([], 50) == 0.0
    assert common.dedupe(["a", "b", "a", "c"], k=2) == ["a", "b"]
    assert common.doc_text({"title": "T", "text": "body"}) == "T\nbody"
    calls: list[str] = []

    def search(text: str) -> list[str]:
        calls.append(text)
        return ["d1", "d1", "d2"]

    latencies, run = common.timed_queries({"q1": "one", "q2": "two"}, search, ["w1", "w2"])
    assert calls == ["w1", "w2", "one", "two"]  # warm-up texts first, each query once
    assert run == {"q1": ["d1", "d2"], "q2": ["d1", "d2"]} and len(latencies) == 2


@needs(SCIFACT)
def test_prepare_cuts_corpus_and_keeps_scorable_queries(tmp_path: Path) -> None:
    dataset = runner.prepare(SCIFACT, 200, tmp_path)
    lines = (tmp_path / "corpus.jsonl").read_text().splitlines()
    ids = {json.loads(line)["_id"] for line in lines}
    queries = json.loads((tmp_path / "queries.json").read_text())
    assert len(lines) == 200 == dataset["documents"] and dataset["limit"] == 200
    assert queries and set(queries) == set(dataset["qrels"])
    assert all(any(doc in ids for doc in dataset["qrels"][q]) for q in queries)
    assert len((tmp_path / "warmup.txt").read_text().splitlines()) == 5
    assert not set((tmp_path / "warmup.txt").read_text().splitlines()) & set(queries.values())


def test_ragline_variant_parsing() -> None:
    try:
        name = runner.add_ragline_variant("tok:RAGLINE_CHUNKING__UNIT=tokens,RAGLINE_CHUNKING__SIZE=256")
        assert name == "ragline-tok"
        assert runner.SYSTEMS[name]["env"] == {"RAGLINE_CHUNKING__UNIT": "tokens", "RAGLINE_CHUNKING__SIZE": "256"}
        for bad in ("tok", "tok:", "tok:CHUNKING=1", "tok:RAGLINE_X"):
            with pytest.raises(ValueError, match="expected NAME:RAGLINE_KEY=VALUE"):
                runner.add_ragline_variant(bad)
    finally:
        runner.SYSTEMS.pop("ragline-tok", None)


@needs(SCIFACT)
def test_ragline_peer_runs_through_the_runner_protocol(tmp_path: Path) -> None:
    """The real peer script in a child process (hashing embedder: no model), measured and scored."""
    dataset = runner.prepare(SCIFACT, 60, tmp_path)
    result = runner.run_one(Path(sys.executable), "peer_ragline.py", tmp_path,
                            {"RAGLINE_EMBEDDER__NAME": "hashing"})
    assert "error" not in result, result.get("error")
    assert result["documents"] == 60 and result["vectors"] >= 60 and result["mode"] == "hybrid"
    assert result["queries"] == len(dataset["qrels"]) and result["query_p95_ms"] >= result["query_p50_ms"] > 0
    assert result["peak_rss_mb"] >= result["wait4_maxrss_mb"] > 0
    assert "'name': 'hashing'" in result["notes"]
    scores = report.score(result["run"], dataset["qrels"])
    assert 0.0 < scores["ndcg@10"] <= 1.0  # the keyword side finds some relevant abstracts even with hash vectors
    assert all(len(ranked) <= 10 and len(set(ranked)) == len(ranked) for ranked in result["run"].values())


@needs(SCIFACT)
def test_failing_peer_gets_an_error_row(tmp_path: Path) -> None:
    runner.prepare(SCIFACT, 20, tmp_path)
    result = runner.run_one(Path(sys.executable), "peer_ragline.py", tmp_path,
                            {"RAGLINE_EMBEDDER__NAME": "no-such-embedder"})
    assert result["error"].startswith("exit 1")


def test_headline_reports_a_variants_quality_against_the_defaults() -> None:
    rows = {"ragline": _row("ragline (defaults)", 20.0), "ragline-int8": _row("ragline (int8)", 10.0, **{"ndcg@10": 0.695}),
            "chroma": _row("LangChain + Chroma", 60.0)}
    lines = report.headline(rows)
    assert "6.00× faster" in lines[1] and "nDCG@10 0.6950, -0.0050 against the defaults" in lines[1]
    assert "against the defaults" not in lines[0]
