"""The evaluation sets in bench/datasets: each a well-formed BEIR folder that
``ragline eval`` can read, with disjoint train and test queries, every judgement
pointing into the corpus, and a README and a rebuild script beside it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragline.eval.beir import load_dataset

DATASETS = Path(__file__).resolve().parents[2] / "bench" / "datasets"
SETS = ("debian-packages", "python-docs", "sample-kb")
FILE_SETS = ("spanish-beir", "bank-in-beir", "shop-es-beir")  # corpus: a folder of files (build_file_sets.py)
BUILDERS = {"debian-packages": "build_debian_packages.py", "python-docs": "build_python_docs.py",
            "sample-kb": "build_sample_kb.py"}


@pytest.mark.parametrize("name", SETS)
def test_set_is_a_well_formed_beir_folder(name: str) -> None:
    root = DATASETS / name
    ids = {json.loads(line)["_id"] for line in (root / "corpus.jsonl").read_text(encoding="utf-8").splitlines()}
    train, test = load_dataset(root, "train"), load_dataset(root, "test")
    assert len(train.queries) >= 20 and len(test.queries) >= 20
    assert not set(train.queries) & set(test.queries)
    for split in (train, test):
        judged = {doc for docs in split.qrels.values() for doc in docs}
        assert judged <= ids, f"{name}: qrels name documents not in the corpus"
        assert all(text.strip() for text in split.queries.values())
    assert (root / "README.md").is_file() and (DATASETS / BUILDERS[name]).is_file()
    assert all(path.stat().st_size < 5_000_000 for path in root.rglob("*") if path.is_file())


@pytest.mark.parametrize("name", FILE_SETS)
def test_file_set_is_a_well_formed_beir_folder_over_its_files(name: str) -> None:
    # docs/ links to the source folder; every judgement names a file there, by its path in the set.
    root = DATASETS / name
    files = {f"docs/{path.name}" for path in (root / "docs").iterdir() if path.is_file()}
    assert files and not (root / "corpus.jsonl").exists()
    train, test = load_dataset(root, "train"), load_dataset(root, "test")
    assert len(train.queries) >= 20 and len(test.queries) >= 20
    assert not set(train.queries) & set(test.queries)
    for split in (train, test):
        assert {doc for docs in split.qrels.values() for doc in docs} <= files
        assert all(text.strip() for text in split.queries.values())
    assert (root / "README.md").is_file() and (DATASETS / "build_file_sets.py").is_file()


def test_split_is_stable_and_roughly_even() -> None:
    sys.path.insert(0, str(DATASETS))
    try:
        from beir_writer import split_of
    finally:
        sys.path.remove(str(DATASETS))
    splits = [split_of(f"q{i}") for i in range(2000)]
    assert splits == [split_of(f"q{i}") for i in range(2000)]
    assert 0.45 < splits.count("test") / len(splits) < 0.55


def test_sample_kb_questions_each_name_one_section() -> None:
    root = DATASETS / "sample-kb"
    questions = [json.loads(line) for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    keys = {json.loads(line)["key"]: json.loads(line)["_id"]
            for line in (root / "corpus.jsonl").read_text(encoding="utf-8").splitlines()}
    qrels = {**load_dataset(root, "train").qrels, **load_dataset(root, "test").qrels}
    assert len(questions) == len(qrels)
    for question in questions:
        assert qrels[question["id"]] == {keys[question["doc"]]: 1}
