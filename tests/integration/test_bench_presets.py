"""``ragline bench``'s presets: the exact fp32 encoder, the int8 one and the fast preset,
each ingesting a (tiny, made-here) BEIR corpus in its own process, with real
figures and the quality gap between them in results.json and results.md."""

from __future__ import annotations

import json
from pathlib import Path

from ragline.embed.graph_cache import MAPPED_SUFFIX
from ragline.eval.bench import render_markdown, run_presets
from ragline.settings import Settings

TOPICS = ["cerebral white matter in newborns", "vitamin D and bone density", "antibiotic resistance in bacteria",
          "insulin signalling in muscle", "tumour suppressor p53 mutations", "sleep and memory consolidation"]


def _dataset(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    docs = [{"_id": f"d{i}", "title": topic.title(), "text": f"A study of {topic}. " * 5}
            for i, topic in enumerate(TOPICS)]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = [{"_id": f"q{i}", "text": f"what is known about {t}?"} for i, t in enumerate(TOPICS)]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                             + "".join(f"q{i}\td{i}\t1\n" for i in range(len(TOPICS))))
    return root


def test_presets_run_side_by_side_with_real_figures(tmp_path) -> None:
    settings = Settings(home=tmp_path / "home")
    runs = run_presets(settings, _dataset(tmp_path / "data"), log=lambda _: None)
    for name in ("fp32", "int8", "fast"):
        row = runs[name]
        assert row["status"] == "measured", row
        assert row["ingest_seconds"] > 0 and row["peak_rss_mb"] > 50
        assert 0.5 <= row["ndcg@10"] <= 1.0  # each query names its document's topic
    assert runs["ndcg_gap"] == round(runs["fp32"]["ndcg@10"] - runs["int8"]["ndcg@10"], 4)
    assert runs["fast_ndcg_gap"] == round(runs["fp32"]["ndcg@10"] - runs["fast"]["ndcg@10"], 4)
    # The built graphs land in the model cache, both precisions (the int8 one mapped).
    cache = settings.embedder.model_cache()
    assert list(cache.glob("*.onnx")) and list(cache.glob(f"*int8*{MAPPED_SUFFIX}"))
    table = render_markdown({"dataset": "tiny", "embedder": "m", "when": "now", "machine": {
        "cpus": 2, "python": "3.11", "load_average_1m_before": 1.0}, "chunking": {
        "method": "recursive", "size": 1000, "overlap": 200, "unit": "chars"},
        "ingest": {k: 1 for k in ("documents", "chunks", "embedded", "seconds", "documents_per_s", "chunks_per_s",
                                  "embeddings_per_s", "peak_rss_mb", "parser_peak_rss_mb")},
        "reingest": {"seconds": 0.1, "unchanged": 1, "embedded": 0}, "query_latency_ms": {
            "hybrid": {"queries": 1, "p50": 1, "p95": 1, "mean": 1, "k": 10}}, "quality": {},
        "embedding": {"texts": 1, "model_id": "m", "ragline": {"seconds": 1, "texts_per_s": 1},
                      "sentence_transformers": {"status": "not installed"}}, "presets": runs})
    assert "## Precision presets" in table and f"| int8 | {runs['int8']['ingest_seconds']} |" in table
    assert f"| fast | {runs['fast']['ingest_seconds']} |" in table and "fp32 − fast" in table


def test_presets_do_not_apply_to_remote_embedders(tmp_path) -> None:
    settings = Settings(home=tmp_path, embedder={"name": "hashing"})
    assert run_presets(settings, tmp_path).get("status", "").startswith("not applicable")
