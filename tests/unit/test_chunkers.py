"""Chunkers: offsets are exact, sizes respected, overlap carried, metadata kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.ingest.chunkers import SpanChunker, make_chunker
from ragline.models import Block, Document
from ragline.settings import ChunkingSettings

TEXT = " ".join(f"Sentence {i} is about topic {i % 7} and nothing else." for i in range(80))


@pytest.mark.parametrize("method", ["recursive", "sentence", "paragraph"])
@pytest.mark.parametrize(("size", "overlap"), [(300, 50), (500, 0), (1000, 200)])
def test_sizes_offsets_and_overlap(method: str, size: int, overlap: int) -> None:
    doc = Document("d", [Block(TEXT, page=3, section="S")])
    chunks = SpanChunker(method, size, overlap).chunk(doc)
    assert len(chunks) > 1
    assert all(len(c.text) <= size for c in chunks)
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert all((c.page, c.section) == (3, "S") for c in chunks)
    covered = "".join(doc.text[c.start:c.end] for c in chunks)
    assert all(word in covered for word in ("Sentence 0 ", "Sentence 79 "))
    if overlap:
        assert any(chunks[i].start < chunks[i - 1].end for i in range(1, len(chunks)))
    else:
        assert all(chunks[i].start >= chunks[i - 1].end for i in range(1, len(chunks)))


def test_sentence_chunks_end_on_sentence_boundaries() -> None:
    chunks = SpanChunker("sentence", 200, 0).chunk(Document("d", [Block(TEXT)]))
    assert all(c.text.endswith(".") for c in chunks)


def test_paragraphs_stay_whole_when_they_fit() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 20 for i in range(6)]
    text = "\n\n".join(p.strip() for p in paragraphs)
    chunks = SpanChunker("paragraph", 300, 0).chunk(Document("d", [Block(text)]))
    for chunk in chunks:
        assert chunk.text.startswith("Paragraph")


def test_blocks_are_never_merged_and_offsets_span_blocks() -> None:
    doc = Document("d", [Block("First page text.", page=1), Block("Second page text.", page=2)])
    chunks = SpanChunker("recursive", 1000, 100).chunk(doc)
    assert [(c.text, c.page) for c in chunks] == [("First page text.", 1), ("Second page text.", 2)]
    assert doc.text[chunks[1].start:chunks[1].end] == "Second page text."


def test_token_unit_uses_the_given_length() -> None:
    words = lambda s: len(s.split())
    chunker = make_chunker(ChunkingSettings(size=60, overlap=10, unit="tokens"), token_length=words)
    chunks = chunker.chunk(Document("d", [Block(TEXT)]))
    assert all(words(c.text) <= 60 for c in chunks)


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ValueError, match="overlap"):
        ChunkingSettings(size=100, overlap=100)


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab .\n!?,"), min_size=1, max_size=3000),
       size=st.integers(50, 400), method=st.sampled_from(["recursive", "sentence", "paragraph"]))
def test_property_chunks_are_exact_slices_within_budget(text: str, size: int, method: str) -> None:
    doc = Document("d", [Block(text)])
    for chunk in SpanChunker(method, size, size // 4).chunk(doc):
        assert doc.text[chunk.start:chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= size
        assert chunk.text == chunk.text.strip()
