"""Build the BEIR folders whose corpus is a folder of files ingested as they are
(``docs/``, a link to the source folder; see ragline.eval.beir): the documents go
through ragline's own loaders and chunker, so PDF and DOCX layout shapes the chunks
as it does for a user. A document's id is its path within the set (``docs/club.pdf``).

- ``spanish-beir``: bench/spanish (Markdown pages of a Spanish bank, questions written
  in Spanish, each naming the page that answers it); split by a hash of the query id.
- ``bank-in-beir``, ``shop-es-beir``: the answer-trust sets bench/datasets/trust/bank-in
  and shop-es (PDF and DOCX with real layout). Only each question's text, its
  ``source`` (the answering file) and its ``split`` are read: dev → train, test → test;
  a question without a source (one the documents cannot answer) is left out.

Query ids are the set's name and the question's line number, so a rebuild gives the
same ids and splits.

    .venv/bin/python bench/datasets/build_file_sets.py            # every set
    .venv/bin/python bench/datasets/build_file_sets.py spanish-beir
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beir_writer import split_of

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
SETS = {  # name → (questions file, documents folder, the question's field for its file)
    "spanish-beir": (BENCH / "spanish" / "questions.jsonl", BENCH / "spanish" / "docs", "doc"),
    "bank-in-beir": (HERE / "trust" / "bank-in" / "questions.jsonl", HERE / "trust" / "bank-in" / "docs", "source"),
    "shop-es-beir": (HERE / "trust" / "shop-es" / "questions.jsonl", HERE / "trust" / "shop-es" / "docs", "source"),
}
SPLITS = {"dev": "train", "train": "train", "test": "test"}


def build(name: str) -> dict[str, int]:
    questions, docs, field = SETS[name]
    out = HERE / name
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    link = out / "docs"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(os.path.relpath(docs, out), target_is_directory=True)
    files = {p.name for p in docs.iterdir() if p.is_file()}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, tuple[str, int]]] = {"train": {}, "test": {}}
    for number, line in enumerate(questions.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        source = row.get(field)
        if not source:
            continue
        if source not in files:
            raise SystemExit(f"{questions}:{number}: {source!r} is not a file in {docs}")
        qid = f"{name.removesuffix('-beir')}-{number}"
        split = SPLITS[row["split"]] if "split" in row else split_of(qid)
        queries[qid] = row["question"]
        qrels[split][qid] = (f"docs/{source}", 1)
    with (out / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for qid, text in queries.items():
            handle.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
    for split, judged in qrels.items():
        with (out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as handle:
            handle.write("query-id\tcorpus-id\tscore\n")
            for qid, (doc, grade) in judged.items():
                handle.write(f"{qid}\t{doc}\t{grade}\n")
    return {"documents": len(files), "train": len(qrels["train"]), "test": len(qrels["test"])}


if __name__ == "__main__":
    for name in sys.argv[1:] or list(SETS):
        print(name, build(name))
