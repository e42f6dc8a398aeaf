"""The ingest pipeline overlaps embedding with the rest: a batch embeds on a worker
thread while the calling thread chunks the next files and writes; the store is only
touched from the calling thread, results equal embedding in line, and an embedding
failure still fails only its own batch."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.errors import EmbedderError
from ragline.models import Block, Document, Scope, index_text
from ragline.settings import EmbedderSettings, Settings

S = Scope("acme", ("kb",))


def _engine(tmp_path: Path, embedder: HashingEmbedder) -> Engine:
    return Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing")), embedder=embedder)


def _files(tmp_path: Path, names: str) -> list[Path]:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    paths = []
    for name in names:
        path = folder / f"{name}.txt"
        path.write_text(f"Document {name} talks about topic {name}. " * 5)
        paths.append(path)
    return paths


class GatedEmbedder(HashingEmbedder):
    """Its first call blocks until the chunker has reached the second file: possible
    only if embedding runs beside chunking, not before it."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate
        self.threads: list[str] = []
        self.waited: list[bool] = []

    def embed_documents(self, texts):
        self.threads.append(threading.current_thread().name)
        if len(self.threads) == 1:
            self.waited.append(self.gate.wait(timeout=20))
        return super().embed_documents(texts)


def test_the_next_file_is_chunked_while_a_batch_embeds(tmp_path: Path) -> None:
    gate = threading.Event()
    embedder = GatedEmbedder(gate)
    engine = _engine(tmp_path, embedder)
    ingestor = engine._ingestor(S)
    ingestor.batch_chunks = 1  # every file is a batch of its own
    chunker = ingestor.chunker
    chunked_by: list[str] = []

    class Watching:
        def chunk(self, document: Document):
            chunked_by.append(threading.current_thread().name)
            if document.source.endswith("b.txt"):
                gate.set()
            return chunker.chunk(document)

    ingestor.chunker = Watching()
    try:
        summary = ingestor.ingest(_files(tmp_path, "abc"), S)
        assert (summary.added, summary.failed) == (3, [])
        assert embedder.waited == [True]  # file b was chunked while file a's batch was embedding
        assert set(embedder.threads) == {"ragline-embed_0"} and set(chunked_by) == {"MainThread"}
        assert len(engine.search("topic b", S, mode="keyword").hits) >= 1
    finally:
        engine.close()


def test_overlapped_vectors_equal_in_line_ones(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    engine = _engine(tmp_path, embedder)
    try:
        ingestor = engine._ingestor(S)
        ingestor.batch_chunks = 2
        assert ingestor.ingest(_files(tmp_path, "abcdef"), S).added == 6
        hits = {h.chunk_id: h for h in engine.search("document topic", S, mode="keyword", k=100).hits}
        checked = 0
        for info in engine.store.list_documents(S):
            for chunk_id, vector in engine.store.chunk_vectors(S, info.id).values():
                hit = hits[chunk_id]
                expected = embedder.embed_documents([index_text(hit.title, hit.text, hit.section)])[0]
                np.testing.assert_allclose(vector, expected, atol=1e-6)
                checked += 1
        assert checked >= 6
    finally:
        engine.close()


class FailsOnB(HashingEmbedder):
    def embed_documents(self, texts):
        if any("Document b" in t for t in texts):
            raise EmbedderError("model crashed on b")
        return super().embed_documents(texts)


def test_a_failed_batch_on_the_worker_fails_only_its_documents(tmp_path: Path) -> None:
    engine = _engine(tmp_path, FailsOnB())
    try:
        ingestor = engine._ingestor(S)
        ingestor.batch_chunks = 1
        summary = ingestor.ingest(_files(tmp_path, "abc"), S)
        assert summary.added == 2 and len(summary.failed) == 1
        assert summary.failed[0]["path"].endswith("b.txt") and "model crashed on b" in summary.failed[0]["error"]
        assert sorted(Path(d.source).name for d in engine.store.list_documents(S)) == ["a.txt", "c.txt"]
    finally:
        engine.close()


def test_records_added_without_a_worker_are_embedded_in_line(tmp_path: Path) -> None:
    embedder = GatedEmbedder(threading.Event())
    embedder.gate.set()
    engine = _engine(tmp_path, embedder)
    try:
        docs = [Document(f"r{i}", [Block(f"record {i} text")]) for i in range(3)]
        summary = engine._ingestor(S).add_documents(docs, S)
        assert (summary.added, summary.embedded) == (3, 3)
        assert set(embedder.threads) == {threading.current_thread().name}
    finally:
        engine.close()
