"""Records with structure: JSON arrays of objects and JSON Lines, one document per
record, nested metadata flattened to filterable keys, a field mapping, and records
stored as chunks."""

from __future__ import annotations

import json
from pathlib import Path

from ragline.engine import Engine
from ragline.errors import LoaderError
from ragline.ingest.loaders.options import LoadOptions
from ragline.ingest.sandbox import parse_file
from ragline.models import Document, Scope

SCOPE = Scope("school", ("textbook",))

# The textbook's chunks.json, shaped as the seed describes it: {id, content, metadata{chapter, section, page}}.
CHUNKS = [
    {"id": "chapter-03-chunk-015", "content": "ROS 2 is the second generation of the Robot Operating System. "
     "It replaces the ROS master with DDS discovery.",
     "metadata": {"chapter": "Introduction to ROS 2", "section": "ROS 2 Architecture", "page": 45}},
    {"id": "chapter-03-chunk-016", "content": "Nodes in ROS 2 communicate over topics, services and actions.",
     "metadata": {"chapter": "Introduction to ROS 2", "section": "Communication", "page": 46}},
    {"id": "chapter-07-chunk-002", "content": "A URDF file describes a robot's links and joints; nodes publish "
     "the joint states.", "metadata": {"chapter": "Robot Description", "section": "URDF", "page": 112}},
]


def write(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value))
    return path


def docs(path: Path, options: LoadOptions | None = None) -> list[Document | LoaderError]:
    return parse_file(str(path), path.name, None, 1 << 24, options=options)


def test_seed_chunks_json_is_one_document_per_record_with_flat_metadata(tmp_path: Path) -> None:
    results = docs(write(tmp_path / "chunks.json", CHUNKS))
    assert all(isinstance(d, Document) for d in results)
    first = results[0]
    assert first.source == "chunks.json#chapter-03-chunk-015"
    assert first.text.startswith("ROS 2 is the second generation")
    assert first.metadata == {"chapter": "Introduction to ROS 2", "record_id": "chapter-03-chunk-015"}
    assert (first.blocks[0].page, first.blocks[0].section) == (45, "ROS 2 Architecture")


def test_seed_chunks_json_filtered_by_chapter(engine: Engine, tmp_path: Path) -> None:
    summary = engine.ingest([write(tmp_path / "chunks.json", CHUNKS)], SCOPE)
    assert (summary.added, summary.failed) == (3, [])
    unfiltered = engine.search("nodes ROS", SCOPE, mode="keyword").hits
    assert len(unfiltered) == 3
    hits = engine.search("nodes ROS", SCOPE, mode="keyword",
                         filters={"chapter": "Introduction to ROS 2"}).hits
    assert {h.source for h in hits} == {"chunks.json#chapter-03-chunk-015", "chunks.json#chapter-03-chunk-016"}
    by_page = engine.search("nodes", SCOPE, mode="keyword", filters={"page": {"gte": 100}}).hits
    assert [(h.source, h.page, h.section) for h in by_page] == [("chunks.json#chapter-07-chunk-002", 112, "URDF")]


def test_jsonl_nested_metadata_and_field_mapping(tmp_path: Path) -> None:
    lines = [
        {"sku": "A-1", "headline": "Card limits", "payload": {"body": "Daily ATM limit is 500 EUR."},
         "meta": {"product": "debit"}, "author": {"name": "Ana", "team": "cards"}, "tags": ["atm", "limits"],
         "product": "top-level wins"},
        {"sku": "A-2", "headline": "No body here", "payload": {}},
    ]
    file = tmp_path / "kb.jsonl"
    file.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    options = LoadOptions(id_field="sku", title_field="headline", text_field="payload.body")
    first, second = docs(file, options)
    assert isinstance(first, Document)
    assert (first.source, first.title, first.text) == ("kb.jsonl#A-1", "Card limits", "Daily ATM limit is 500 EUR.")
    assert first.metadata == {"product": "top-level wins", "author_name": "Ana", "author_team": "cards",
                              "tags": ["atm", "limits"], "record_id": "A-1"}
    assert isinstance(second, LoaderError) and second.path == "kb.jsonl:2"
    assert "'payload.body'" in second.reason


def test_bad_records_fail_alone(tmp_path: Path) -> None:
    records = [{"id": "ok", "text": "Fine."}, {"id": "bad\u2028id", "text": "x"}, {"id": "ok", "text": "again"},
               {"id": "empty"}, {"id": "deep", "text": "t", "metadata": _nested(200)}]
    results = docs(write(tmp_path / "r.json", records))
    kinds = [(type(r).__name__, getattr(r, "path", getattr(r, "source", ""))) for r in results]
    assert kinds == [("Document", "r.json#ok"), ("LoaderError", "r.json[1]"), ("LoaderError", "r.json[2]"),
                     ("Document", "r.json#empty"), ("Document", "r.json#deep")]
    assert "non-printable" in results[1].reason and "duplicate id" in results[2].reason
    assert results[3].text == "id: empty"  # no text field: the record itself, readable


def _nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value


def test_records_as_chunks_are_stored_whole(engine: Engine, tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence {n} about the overdraft fee schedule." for n in range(60))  # > chunking.size
    file = write(tmp_path / "long.json", [{"id": "one", "text": long_text}])
    split = engine.ingest([file], Scope("t", ("split",)))
    whole = engine.ingest([file], Scope("t", ("whole",)), options=LoadOptions(records_as_chunks=True))
    assert split.chunks > 1 and whole.chunks == 1
    (hit,) = engine.search("overdraft", Scope("t", ("whole",)), mode="keyword").hits
    assert hit.text == long_text
    # Changing the option re-indexes; the same option again does nothing.
    again = engine.ingest([file], Scope("t", ("whole",)), options=LoadOptions(records_as_chunks=True))
    assert again.unchanged == 1
    assert engine.ingest([file], Scope("t", ("whole",))).updated == 1


def test_cli_mapping_options(tmp_path: Path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from ragline.cli import app

    monkeypatch.setenv("RAGLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGLINE_EMBEDDER__NAME", "hashing")
    file = write(tmp_path / "faq.json", [{"q": "Lost card?", "a": "Call the number on the back.", "n": "f1"}])
    result = CliRunner().invoke(app, ["ingest", str(file), "--id-field", "n", "--title-field", "q",
                                      "--text-field", "a", "--as-chunks", "--json"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["search", "card", "--mode", "keyword", "--json"])
    (hit,) = json.loads(result.stdout)
    assert (hit["source"], hit["title"], hit["text"]) == ("faq.json#f1", "Lost card?", "Call the number on the back.")
