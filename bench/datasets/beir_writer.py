"""Writing a BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/{train,test}.tsv),
shared by the dataset builders beside this file.

Queries are split into train and test by a hash of their id, so a rebuild from the
same material gives the same split, and adding material moves no existing query.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path


def split_of(query_id: str, test_share: float = 0.5) -> str:
    """``train`` or ``test``, stable for a given id."""
    bucket = int(hashlib.sha256(query_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "test" if bucket < test_share else "train"


def write_beir(root: Path, corpus: Iterable[Mapping[str, object]], queries: Mapping[str, str],
               qrels: Mapping[str, Mapping[str, int]], test_share: float = 0.5) -> dict[str, int]:
    """Write the folder; corpus records need ``_id``, ``title`` and ``text``. Returns counts."""
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    docs = 0
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for record in corpus:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            docs += 1
    with (root / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for qid, text in queries.items():
            handle.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
    counts = {"documents": docs, "train": 0, "test": 0}
    files = {name: (root / "qrels" / f"{name}.tsv").open("w", encoding="utf-8") for name in ("train", "test")}
    try:
        for handle in files.values():
            handle.write("query-id\tcorpus-id\tscore\n")
        for qid, judged in qrels.items():
            split = split_of(qid, test_share)
            counts[split] += 1
            for doc, grade in judged.items():
                files[split].write(f"{qid}\t{doc}\t{grade}\n")
    finally:
        for handle in files.values():
            handle.close()
    return counts
