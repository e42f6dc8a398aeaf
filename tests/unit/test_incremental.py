"""Incremental ingestion: unchanged content does no embedding work, a changed
document re-embeds only its changed chunks, sync purges deleted files, and a
failure never loses what was stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.embed.base import CountingEmbedder
from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.errors import EmbedderError
from ragline.models import Scope
from ragline.settings import ChunkingSettings, EmbedderSettings, Settings

S = Scope("acme", ("kb",))


def paragraphs(tag: str, n: int) -> str:
    return "\n\n".join(f"{tag} paragraph {i}: " + " ".join(f"w{i}x{j}" for j in range(40)) for i in range(n))


@pytest.fixture
def counted(tmp_path: Path):
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        chunking=ChunkingSettings(method="paragraph", size=400, overlap=0))
    embedder = CountingEmbedder(HashingEmbedder())
    engine = Engine(settings, embedder=embedder)
    yield engine, embedder
    engine.close()


def test_reingest_unchanged_does_no_work(counted, tmp_path: Path) -> None:
    engine, embedder = counted
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.md").write_text(f"# {name}\n\n" + paragraphs(name, 5))
    first = engine.ingest([folder], S)
    assert (first.added, first.unchanged, first.failed) == (3, 0, [])
    assert first.embedded == first.chunks == embedder.documents_embedded > 0
    second = engine.ingest([folder], S)
    assert (second.added, second.updated, second.unchanged, second.chunks, second.embedded) == (0, 0, 3, 0, 0)
    assert embedder.documents_embedded == first.embedded


def test_changed_document_reembeds_only_changed_chunks(counted, tmp_path: Path) -> None:
    engine, embedder = counted
    file = tmp_path / "notes.txt"
    file.write_text(paragraphs("n", 8))
    first = engine.ingest([file], S)
    before = embedder.documents_embedded
    file.write_text(paragraphs("n", 8).replace("n paragraph 3:", "n paragraph THREE:") + "\n\nA brand new closing paragraph.")
    second = engine.ingest([file], S)
    assert (second.updated, second.added) == (1, 0)
    assert second.chunks == first.chunks  # the closing paragraph joins the last chunk
    assert second.embedded == embedder.documents_embedded - before == 2  # the edited and the last chunk
    assert "THREE" in engine.search("paragraph THREE", S, mode="keyword", k=1).hits[0].text


def test_identical_text_elsewhere_comes_from_the_cache(counted, tmp_path: Path) -> None:
    engine, embedder = counted
    (tmp_path / "one.txt").write_text(paragraphs("same", 3))
    engine.ingest([tmp_path / "one.txt"], S)
    before = embedder.documents_embedded
    summary = engine.ingest([tmp_path / "one.txt"], Scope("acme", ("other",)))
    assert summary.added == 1 and summary.embedded == 0 and embedder.documents_embedded == before


def test_sync_purges_deleted_files_only_under_its_folder(counted, tmp_path: Path) -> None:
    engine, _ = counted
    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.txt").write_text(paragraphs(name, 2))
    outside = tmp_path / "outside.txt"
    outside.write_text(paragraphs("out", 2))
    engine.ingest([outside], S)
    assert engine.sync(folder, S).added == 2
    (folder / "b.txt").unlink()
    summary = engine.sync(folder, S)
    assert (summary.deleted, summary.unchanged) == (1, 1)
    assert {d.source for d in engine.store.list_documents(S)} == {"kb/a.txt", "outside.txt"}


def test_sync_keeps_documents_whose_file_now_fails(counted, tmp_path: Path) -> None:
    engine, _ = counted
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.json").write_text('{"text": "valid record about pensions"}')
    engine.sync(folder, S)
    (folder / "a.json").write_text('{"text": broken')
    summary = engine.sync(folder, S)
    assert summary.deleted == 0 and len(summary.failed) == 1 and "invalid JSON" in summary.failed[0]["error"]
    assert engine.search("pensions", S, mode="keyword").hits[0].text == "valid record about pensions"


def test_run_continues_past_failures(counted, tmp_path: Path) -> None:
    engine, _ = counted
    (tmp_path / "good.txt").write_text("good content about loans")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02" * 100)
    summary = engine.ingest([tmp_path / "empty.txt", tmp_path / "good.txt", tmp_path / "bin.txt", tmp_path / "gone.txt"], S)
    assert summary.added == 1
    errors = {Path(f["path"]).name: f["error"] for f in summary.failed}
    assert errors == {"empty.txt": "empty file", "bin.txt": "binary content in a text file (NUL bytes); wrong extension?",
                      "gone.txt": "no such file or directory"}


class FlakyEmbedder(HashingEmbedder):
    def embed_documents(self, texts):
        if any("poison" in t for t in texts):
            raise EmbedderError("model crashed")
        return super().embed_documents(texts)


def test_embedding_failure_leaves_no_partial_document(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"))
    engine = Engine(settings, embedder=FlakyEmbedder())
    (tmp_path / "a.txt").write_text("first version, fine")
    engine.ingest([tmp_path / "a.txt"], S)
    (tmp_path / "a.txt").write_text("second version with poison inside")
    summary = engine.ingest([tmp_path / "a.txt"], S)
    assert summary.failed and "model crashed" in summary.failed[0]["error"] and summary.updated == 0
    assert [h.text for h in engine.search("version", S, mode="keyword").hits] == ["first version, fine"]
    engine.close()


def test_parse_timeout_stops_a_slow_file(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        limits={"parse_timeout_s": 0.01})
    engine = Engine(settings)
    big = tmp_path / "big.html"
    big.write_text("<html><body>" + "<div><p>deep text</p></div>" * 400_000 + "</body></html>")
    (tmp_path / "ok.txt").write_text("still ingested afterwards")
    summary = engine.ingest([big, tmp_path / "ok.txt"], S)
    assert summary.failed[0]["error"].startswith("parsing took longer than 0.01 s")
    assert summary.added == 1
    engine.close()


def test_a_file_of_many_records_reads_its_stored_documents_once(counted, tmp_path: Path, monkeypatch) -> None:
    """Re-ingesting an unchanged JSON Lines file looks its records up in one read, not
    one per record; a record the read did not return is still looked up on its own."""
    import json

    engine, _ = counted
    records = [{"_id": f"r{i}", "title": f"Record {i}", "text": f"record {i} says " + paragraphs(str(i), 1)}
               for i in range(40)]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in records[:39]) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps(records[39]) + "\n")
    first = engine.ingest([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], S)
    assert (first.added, first.failed) == (40, [])
    lookups: list[str] = []
    get_document = engine.store.get_document
    monkeypatch.setattr(engine.store, "get_document", lambda scope, doc_id: lookups.append(doc_id)
                        or get_document(scope, doc_id))
    second = engine.ingest([tmp_path / "a.jsonl"], S)
    assert (second.added, second.updated, second.unchanged, second.embedded) == (0, 0, 39, 0) and lookups == []
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")  # r39 joins a.jsonl
    third = engine.ingest([tmp_path / "a.jsonl"], S)
    assert (third.added, third.unchanged) == (1, 39) and len(lookups) == 1  # only the record a.jsonl lacked
    assert len(engine.list_documents(S)) == 41
