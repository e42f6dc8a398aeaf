"""The eval harness end to end on a small BEIR folder made here (hashing embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragline.cli import app
from ragline.errors import ConfigError, NotFoundError
from ragline.eval.beir import load_dataset, load_qrels
from ragline.eval.metrics import evaluate
from ragline.eval.runner import EvalRunner, to_documents, write_trec_run
from ragline.models import Hit
from ragline.settings import ChunkingSettings, EmbedderSettings, Settings

TOPICS = {
    "volcano": "Volcanoes erupt molten lava and ash when magma pressure rises beneath the crust.",
    "glacier": "Glaciers are slow rivers of ice that carve valleys as they advance and retreat.",
    "coral": "Coral reefs are built by colonies of polyps that bleach when the ocean warms.",
    "comet": "Comets are icy bodies whose tails of gas and dust point away from the sun.",
    "bread": "Sourdough bread rises because wild yeast and lactobacilli ferment the dough.",
    "violin": "A violin's tone depends on the spruce top, the maple back and the varnish.",
    "tide": "Tides follow the pull of the moon, with spring tides at new and full moon.",
    "bee": "Honey bees dance to tell their hive where the nectar-rich flowers are.",
}
# One long document that the test chunking splits into several chunks; the query
# matches only its last part, so a hit must map back to the document.
LONG = " ".join(f"Filler sentence number {i} about nothing in particular." for i in range(40)) + \
    " Finally the quokka smiles on Rottnest Island."
QUERIES = {
    "q1": "when does lava erupt from a volcano",
    "q2": "ice carving valleys glacier",
    "q3": "why do corals bleach",
    "q4": "comet tail direction",
    "q5": "quokka on Rottnest Island",
    "q6": "unjudged query that no qrels line names",
}


def make_beir(root: Path) -> Path:
    """A BEIR folder: test qrels with a header, train qrels graded and without one."""
    root.mkdir(parents=True)
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as f:
        for n, (name, text) in enumerate(TOPICS.items()):
            f.write(json.dumps({"_id": f"d{n}", "title": name.title(), "text": text}) + "\n")
        f.write(json.dumps({"_id": "long", "title": "Island notes", "text": LONG}) + "\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as f:
        for qid, text in QUERIES.items():
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td0\t1\nq2\td1\t1\nq3\td2\t1\nq4\td3\t1\nq5\tlong\t1\n", encoding="utf-8")
    (root / "qrels" / "train.tsv").write_text("q1\td0\t2\nq1\td6\t1\nq3\td2\t1\nq3\td4\t0\n", encoding="utf-8")
    return root


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "tiny")


@pytest.fixture
def eval_settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                    chunking=ChunkingSettings(size=200, overlap=40))


# -- reading datasets ---------------------------------------------------------------
def test_reads_qrels_with_and_without_header_and_keeps_grades(beir: Path) -> None:
    test = load_dataset(beir, "test")
    assert set(test.queries) == {"q1", "q2", "q3", "q4", "q5"}  # only judged queries are run
    assert test.qrels["q5"] == {"long": 1}
    train = load_dataset(beir, "train")
    assert train.qrels == {"q1": {"d0": 2, "d6": 1}, "q3": {"d2": 1, "d4": 0}}


def test_reads_trec_four_column_qrels(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\n", encoding="utf-8")
    assert load_qrels(path) == {"q1": {"d1": 2, "d2": 0}}


def test_bad_datasets_are_named(tmp_path: Path, beir: Path) -> None:
    with pytest.raises(NotFoundError, match="does not exist"):
        load_dataset(tmp_path / "nope")
    with pytest.raises(NotFoundError, match="available splits: test, train"):
        load_dataset(beir, "dev")
    (beir / "qrels" / "bad.tsv").write_text("q1\td0\t1\nq1\td1\thigh\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.tsv:2: score 'high' is not a number"):
        load_dataset(beir, "bad")
    (beir / "qrels" / "orphan.tsv").write_text("q9\td0\t1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="absent from queries.jsonl"):
        load_dataset(beir, "orphan")


# -- chunk hits → documents ---------------------------------------------------------
def _hit(doc: str, score: float) -> Hit:
    return Hit(chunk_id=f"{doc}-{score}", doc_id=doc, source=f"corpus.jsonl#{doc}", score=score, text="",
               metadata={"record_id": doc})


def test_chunk_hits_map_to_documents_by_max_or_sum() -> None:
    hits = [_hit("a", 0.9), _hit("b", 0.8), _hit("b", 0.7), _hit("c", 0.5), _hit("a", 0.1)]
    assert to_documents(hits, "max") == [("a", 0.9), ("b", 0.8), ("c", 0.5)]
    ranked = to_documents(hits, "sum")
    assert [d for d, _ in ranked] == ["b", "a", "c"] and ranked[0][1] == pytest.approx(1.5)
    assert len(to_documents(hits, "max", depth=2)) == 2
    with pytest.raises(ConfigError, match="unknown aggregation"):
        to_documents(hits, "mean")


# -- the runner -----------------------------------------------------------------------
def test_a_folder_of_files_is_a_corpus_judged_by_file_path(tmp_path: Path, eval_settings: Settings) -> None:
    # docs/ instead of corpus.jsonl: the files are ingested as ragline ingests any folder
    # (here Markdown, split at its headings), and a hit maps to its file's path in the set.
    root = tmp_path / "files"
    (root / "docs" / "sub").mkdir(parents=True)
    for n, (name, text) in enumerate(TOPICS.items()):
        folder = root / "docs" / ("sub" if n % 2 else "")
        (folder / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n\n## Notes\n\n{LONG}\n", encoding="utf-8")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as f:
        for qid, text in list(QUERIES.items())[:4]:
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "q1\tdocs/volcano.md\t1\nq2\tdocs/sub/glacier.md\t1\nq3\tdocs/coral.md\t1\nq4\tdocs/sub/comet.md\t1\n",
        encoding="utf-8")
    dataset = load_dataset(root, "test")
    assert dataset.corpus == root.resolve() / "docs"
    fingerprint = dataset.corpus_fingerprint()
    runner = EvalRunner(eval_settings, dataset)
    try:
        summary = runner.prepare()
        assert summary.added == len(TOPICS) and summary.chunks > len(TOPICS)  # several chunks per file
        result = runner.run_mode("keyword")
    finally:
        runner.close()
    assert result.run["q2"][0][0] == "docs/sub/glacier.md"
    assert result.metrics["ndcg@10"] == pytest.approx(1.0)
    (root / "docs" / "sub" / "bee.md").write_text("# Bee\n\nchanged\n", encoding="utf-8")
    changed = load_dataset(root, "test").corpus_fingerprint()
    assert changed != fingerprint  # a changed file, a new collection
    (root / "docs" / "sub" / "bee.md").rename(root / "docs" / "bee.md")
    assert load_dataset(root, "test").corpus_fingerprint() != changed  # a moved file: its id changed


def test_a_set_without_corpus_or_docs_is_named(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    (root / "qrels").mkdir(parents=True)
    (root / "queries.jsonl").write_text('{"_id": "q", "text": "x"}\n', encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("q\tdocs/a.md\t1\n", encoding="utf-8")
    (root / "docs").write_text("not a folder", encoding="utf-8")
    with pytest.raises(NotFoundError, match="corpus.jsonl is missing"):
        load_dataset(root, "test")


def test_runner_ingests_once_scores_every_mode_and_reuses_the_collection(beir: Path, eval_settings: Settings,
                                                                         tmp_path: Path) -> None:
    dataset = load_dataset(beir, "test")
    runner = EvalRunner(eval_settings, dataset)
    try:
        first = runner.prepare()
        assert first.added == len(TOPICS) + 1 and first.chunks > first.added  # the long document split
        results = {mode: runner.run_mode(mode) for mode in ("keyword", "dense", "hybrid")}
    finally:
        runner.close()
    keyword = results["keyword"]
    assert keyword.metrics["ndcg@10"] == pytest.approx(1.0)  # distinctive words: each answer ranks first
    assert keyword.run["q5"][0][0] == "long"  # a hit on the long document's last chunk maps back to it
    for result in results.values():
        assert result.queries == 5 and len(result.latencies_ms) == 5
        assert all(0.0 <= v <= 1.0 for v in result.metrics.values())
        assert result.metrics == evaluate({q: [d for d, _ in r] for q, r in result.run.items()}, dataset.qrels)
        assert all(len({d for d, _ in r}) == len(r) for r in result.run.values())  # each document once
    shape = results["hybrid"].to_dict()
    assert list(shape) == ["dataset", "split", "mode", "queries", "ndcg@10", "recall@10", "recall@100", "mrr@10",
                           "latency_ms", "ingest_seconds"]
    assert set(shape["latency_ms"]) == {"p50", "p95"}

    again = EvalRunner(eval_settings, dataset)
    try:
        assert again.collection_name() == runner.collection_name()
        second = again.prepare()
        assert (second.unchanged, second.added, second.embedded) == (len(TOPICS) + 1, 0, 0)
    finally:
        again.close()
    rechunked = EvalRunner(eval_settings.model_copy(update={"chunking": ChunkingSettings(size=300, overlap=0)}),
                           dataset)
    try:
        assert rechunked.collection_name() != runner.collection_name()  # another index, not a stale one
    finally:
        rechunked.close()

    run_file = tmp_path / "run.txt"
    write_trec_run([results["keyword"]], run_file)
    first_line = run_file.read_text(encoding="utf-8").splitlines()[0].split()
    assert first_line[:4] == ["q1", "Q0", "d0", "1"] and first_line[5] == "keyword"


def test_eval_command_prints_the_documented_json(beir: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGLINE_EMBEDDER__NAME", "hashing")
    cli = CliRunner()
    result = cli.invoke(app, ["eval", str(beir), "--mode", "all", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout.strip().splitlines()[-1])
    assert [r["mode"] for r in rows] == ["hybrid", "dense", "keyword"]
    assert all(r["dataset"] == "tiny" and r["split"] == "test" and r["queries"] == 5 for r in rows)
    single = cli.invoke(app, ["eval", str(beir), "--split", "train", "--mode", "keyword", "--json"])
    assert single.exit_code == 0, single.output
    row = json.loads(single.stdout.strip().splitlines()[-1])
    assert row["mode"] == "keyword" and row["queries"] == 2

    assert cli.invoke(app, ["eval", str(beir), "--mode", "fuzzy"]).exit_code == 2
    missing = cli.invoke(app, ["eval", str(tmp_path / "nowhere")])
    assert missing.exit_code == 3 and "does not exist" in " ".join(missing.output.split())


def test_bench_writes_results_json_and_a_readable_table(beir: Path, eval_settings: Settings, tmp_path: Path) -> None:
    from ragline.eval.bench import run_bench, write_results

    results = run_bench(eval_settings, beir, embed_texts=5, log=lambda _: None)
    assert results["ingest"]["documents"] == len(TOPICS) + 1 and results["ingest"]["embedded"] > 0
    assert results["reingest"]["embedded"] == 0 and results["reingest"]["unchanged"] == len(TOPICS) + 1
    assert set(results["query_latency_ms"]) == {"hybrid", "dense", "keyword"}
    assert results["quality"]["keyword"]["ndcg@10"] == pytest.approx(1.0)
    assert results["embedding"]["texts"] == 5
    assert results["embedding"]["sentence_transformers"]["status"].startswith("not applicable")
    paths = write_results(results, tmp_path / "bench")
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["dataset"] == "tiny"
    table = paths["md"].read_text(encoding="utf-8")
    assert "| hybrid |" in table and "Unchanged re-ingest" in table


def test_the_real_model_finds_the_answers(beir: Path, eval_settings: Settings, minilm) -> None:
    """One small run with the default MiniLM embedder through the whole harness."""
    from ragline.engine import Engine
    from ragline.store import open_store

    settings = eval_settings.model_copy(update={"embedder": EmbedderSettings(name="minilm")})
    engine = Engine(settings, embedder=minilm, store=open_store(settings, str(settings.home / "eval.sqlite")))
    runner = EvalRunner(settings, load_dataset(beir, "test"), engine=engine)
    try:
        dense, hybrid = runner.run_mode("dense"), runner.run_mode("hybrid")
    finally:
        runner.close()
    assert dense.metrics["ndcg@10"] >= 0.8 and dense.metrics["recall@10"] == 1.0
    assert hybrid.metrics["ndcg@10"] >= 0.9
