"""Reading BEIR-format datasets: ``corpus.jsonl``, ``queries.jsonl`` and
``qrels/<split>.tsv`` (``query-id  corpus-id  score``, with or without a header
line; TREC's four-column ``qid 0 docid grade`` is accepted too). Grades are
integers; graded relevance is kept as is.

Instead of ``corpus.jsonl`` a folder may hold ``docs/``, a folder of files (PDF, DOCX,
Markdown…) ingested as ragline ingests any folder, layout included; a document's id
is then its path within the dataset folder (``docs/loans.pdf``), as a hit's source
names it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, NotFoundError


@dataclass(frozen=True)
class BeirDataset:
    """A dataset split ready to evaluate: the corpus file, the judged queries and their qrels."""

    root: Path
    name: str
    split: str
    corpus: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    def corpus_fingerprint(self) -> str:
        """sha256 (hex) of the corpus file, or of a ``docs/`` folder's file names and bytes,
        to tell an unchanged corpus from a changed one."""
        digest = hashlib.sha256()
        if self.corpus.is_dir():
            files = sorted(p for p in self.corpus.rglob("*") if p.is_file())
        else:
            files = [self.corpus]
        for path in files:
            if self.corpus.is_dir():
                digest.update(path.relative_to(self.corpus).as_posix().encode() + b"\0")
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        return digest.hexdigest()


def _lines(path: Path, what: str) -> list[tuple[int, str]]:
    """(line number, line) for the non-blank lines of a UTF-8 text file."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines(): U+2028 and U+0085 occur inside JSON strings
    except OSError as exc:
        raise NotFoundError(f"cannot read {what} file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text: {exc}") from exc
    return [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]


def load_queries(path: Path) -> dict[str, str]:
    """query id → text from a JSON Lines file of ``{"_id", "text"}`` objects."""
    queries: dict[str, str] = {}
    for number, line in _lines(path, "queries"):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: invalid JSON: {exc.msg}") from exc
        if not isinstance(record, dict) or "_id" not in record or not isinstance(record.get("text"), str):
            raise ConfigError(f"{path}:{number}: a query needs an \"_id\" and a string \"text\"")
        queries[str(record["_id"])] = record["text"]
    return queries


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """query id → {doc id: grade}. A first line whose grade is not an integer is a header."""
    qrels: dict[str, dict[str, int]] = {}
    for number, line in _lines(path, "qrels"):
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f.strip() for f in fields]
        if len(fields) == 4:  # TREC: qid iteration docid grade
            fields = [fields[0], fields[2], fields[3]]
        if len(fields) != 3:
            raise ConfigError(f"{path}:{number}: expected 'query-id, corpus-id, score', got {line!r}")
        qid, doc, grade = fields
        try:
            value = int(grade)
        except ValueError:
            try:
                as_float = float(grade)
            except ValueError:
                if number == 1 and not qrels:
                    continue  # header line
                raise ConfigError(f"{path}:{number}: score {grade!r} is not a number") from None
            if not as_float.is_integer():
                raise ConfigError(f"{path}:{number}: score {grade!r} is not a whole number") from None
            value = int(as_float)
        qrels.setdefault(qid, {})[doc] = value
    if not qrels:
        raise ConfigError(f"{path} holds no judgements")
    return qrels


def load_dataset(root: Path | str, split: str = "test") -> BeirDataset:
    """Check the folder's layout and read its queries and qrels for ``split``."""
    root = Path(root)
    if not root.is_dir():
        raise NotFoundError(f"dataset folder {root} does not exist")
    corpus = root / "corpus.jsonl"
    if not corpus.exists() and (root / "docs").is_dir():
        corpus = root / "docs"  # a folder of files, ingested as they are
    queries_path = root / "queries.jsonl"
    qrels_path = root / "qrels" / f"{split}.tsv"
    for required in (corpus, queries_path):
        if not (required.is_dir() if required.name == "docs" else required.is_file()):
            raise NotFoundError(f"{root} is not a BEIR folder: {required.name} is missing")
    if not qrels_path.is_file():
        available = sorted(p.stem for p in (root / "qrels").glob("*.tsv")) if (root / "qrels").is_dir() else []
        hint = f"; available splits: {', '.join(available)}" if available else ""
        raise NotFoundError(f"no qrels for split {split!r} ({qrels_path} is missing){hint}")
    queries = load_queries(queries_path)
    qrels = load_qrels(qrels_path)
    missing = [qid for qid in qrels if qid not in queries]
    if missing:
        raise ConfigError(f"{qrels_path} judges {len(missing)} queries absent from {queries_path.name} "
                          f"(first: {missing[0]!r})")
    return BeirDataset(root=root.resolve(), name=root.resolve().name, split=split, corpus=corpus,
                       queries={qid: queries[qid] for qid in qrels}, qrels=qrels)
