"""Congruence, in qdrant-client's style: the same corpus and queries on every store
backend give the same rankings (allowing for ANN) and the same quality. A fast
subset of ``bench/backends.py``: a slice of SciFact with the hashing embedder, and
the synthetic large-collection run at a tiny size, so neither rots. The same checks
at three times the size are in bench/checks/test_congruence.py (``make bench-checks``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragline.embed.hashing import HashingEmbedder
from ragline.eval.backends import agreement, congruence, corpus_sentences, synthetic_bench
from ragline.eval.beir import load_dataset
from ragline.settings import ChunkingSettings, EmbedderSettings, Settings

from tests.paths import SCIFACT, needs

pytestmark = needs(SCIFACT)
DOCS, CHUNKS = 200, 700  # make bench-checks: 600 and 2000


def _scifact_slice(root: Path, docs: int = 600) -> Path:
    """The first ``docs`` SciFact abstracts and the test queries judged on them."""
    (root / "qrels").mkdir(parents=True)
    kept: set[str] = set()
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as src, (root / "corpus.jsonl").open("w") as dst:
        for line in src:
            if len(kept) == docs:
                break
            kept.add(json.loads(line)["_id"])
            dst.write(line)
    rows = [r.split("\t") for r in (SCIFACT / "qrels" / "test.tsv").read_text().splitlines()[1:]]
    rows = [r for r in rows if r[1] in kept]
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join("\t".join(r) + "\n" for r in rows))
    wanted = {r[0] for r in rows}
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as src, (root / "queries.jsonl").open("w") as dst:
        dst.writelines(line for line in src if json.loads(line)["_id"] in wanted)
    return root


def _urls(tmp_path: Path) -> dict[str, str | None]:
    from tests.pg_server import fresh_database

    return {"sqlite": str(tmp_path / "c.sqlite"), "postgresql": fresh_database(),
            "qdrant": f"qdrant://{tmp_path}/qdrant"}


@pytest.mark.timeout(600)
def test_every_backend_ranks_scifact_alike(tmp_path: Path) -> None:
    check_every_backend_ranks_scifact_alike(tmp_path, DOCS)


def check_every_backend_ranks_scifact_alike(tmp_path: Path, docs: int) -> None:
    dataset = load_dataset(_scifact_slice(tmp_path / "scifact", docs), "test")
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        chunking=ChunkingSettings(size=1000, overlap=200))
    results = congruence(settings, dataset, _urls(tmp_path), HashingEmbedder(), log=lambda _: None)
    reference = results["sqlite"]
    for name, row in results.items():
        for mode in ("dense", "keyword", "hybrid"):
            assert abs(row[mode]["ndcg@10"] - reference[mode]["ndcg@10"]) <= 0.01, (name, mode, results)
            assert row[mode]["top10_overlap"] >= MIN_OVERLAP.get((name, mode), 0.99), (name, mode, results)


# PostgreSQL computes FTS5's BM25 exactly. Qdrant's keyword side is a BM25 variant:
# its IDF is ln(1 + (N - n + 0.5)/(n + 0.5)) (FTS5: ln((N - n + 0.5)/(n + 0.5))) and
# document lengths are normalised by a fixed average (docs/scaling.md).
MIN_OVERLAP = {("qdrant", "keyword"): 0.9, ("qdrant", "hybrid"): 0.95}


@pytest.mark.timeout(600)
def test_synthetic_run_measures_recall_on_every_backend(tmp_path: Path) -> None:
    rows = synthetic_rows(tmp_path, CHUNKS)
    for name, row in rows.items():
        assert row["recall@10"] >= 0.95 and row["chunks"] == CHUNKS, (name, row)
        # the figures are there; their size is the benchmark's business (at this size a load rounds to 0.0 s)
        assert row["hybrid_p50_ms"] >= 0 and row["hybrid_100_p50_ms"] >= 0 and row["load_s"] >= 0, (name, row)
        assert row["hybrid_depth"] == Settings().search.overfetch, (name, row)
    # The hybrid goes through Searcher on each backend: exact at this size on SQLite and
    # PostgreSQL (dense below exact_below, BM25 exact), so their hybrid top 10 agree.
    tops = {name: row["_tops"]["hybrid"] for name, row in rows.items()}
    assert all(len(top) == 10 for top in tops["sqlite"]), tops["sqlite"]
    assert agreement(tops["postgresql"], tops["sqlite"]) >= 0.95, (tops["postgresql"], tops["sqlite"])


def synthetic_rows(tmp_path: Path, chunks: int) -> dict[str, dict]:
    sentences = corpus_sentences(SCIFACT / "corpus.jsonl", limit=500)
    settings = Settings(home=tmp_path / "home")
    return {name: synthetic_bench(settings, url, chunks, sentences, dim=32, queries=10, log=lambda _: None)
            for name, url in _urls(tmp_path).items()}
