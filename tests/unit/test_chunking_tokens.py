"""Token-budgeted chunking (``chunking.unit: tokens``): chunks sized in the model's
tokens and capped at its window less the title line embedded with them; a document
that fits is one chunk; overlap only where a document is split."""

from __future__ import annotations

import json

import pytest

from ragline.ingest.chunkers import LengthLimit, SpanChunker, make_chunker
from ragline.models import Block, Document, index_text
from ragline.settings import ChunkingSettings

from tests.paths import SCIFACT, needs


def words(text: str) -> int:
    return len(text.split())


SENTENCES = " ".join(f"Sentence {i} says one thing here." for i in range(60))  # 360 words


def test_a_document_that_fits_is_one_chunk() -> None:
    chunker = make_chunker(ChunkingSettings(unit="tokens", size=256, overlap=32), token_length=words, window=100)
    doc = Document("d", [Block(" ".join(SENTENCES.split()[:90]))], title="A short title")  # 90 + 3 words: fits in 100
    chunks = chunker.chunk(doc)
    assert [c.text for c in chunks] == [doc.blocks[0].text]


def test_the_window_less_the_title_caps_every_chunk_and_overlap_is_only_where_split() -> None:
    title = "A title of exactly eight words right here"
    chunker = make_chunker(ChunkingSettings(unit="tokens", size=256, overlap=20), token_length=words, window=100)
    doc = Document("d", [Block(SENTENCES)], title=title)
    chunks = chunker.chunk(doc)
    assert len(chunks) == 5  # 60 six-word sentences: 15 a chunk (<= 92 words), 3 carried over
    assert all(words(index_text(title, c.text)) <= 100 for c in chunks)
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    assert all(chunks[i].start < chunks[i - 1].end for i in range(1, len(chunks)))  # split: overlap carried
    assert "Sentence 0 " in chunks[0].text and "Sentence 59 " in chunks[-1].text
    # The length limit applied after the chunker finds nothing to split.
    fitted, message, _ = LengthLimit(100, words).apply(title, chunks)
    assert message is None and fitted == chunks


def test_a_title_longer_than_the_window_still_leaves_a_usable_budget() -> None:
    chunker = SpanChunker("recursive", 256, 32, words, window=20)
    assert chunker.budget("word " * 30, None) == (16, 4)
    assert chunker.budget(None, None) == (20, 5)
    assert SpanChunker("recursive", 256, 32, words).budget("any title", None) == (256, 32)  # no window


def test_token_chunking_without_a_tokenizer_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="tokenizer"):
        make_chunker(ChunkingSettings(unit="tokens", size=100, overlap=10))


def test_character_chunking_is_unchanged_by_the_window() -> None:
    settings = ChunkingSettings(unit="chars", size=300, overlap=50)
    doc = Document("d", [Block(SENTENCES)], title="T")
    with_window = make_chunker(settings, token_length=words, window=10).chunk(doc)
    assert [(c.start, c.end) for c in with_window] == [(c.start, c.end) for c in make_chunker(settings).chunk(doc)]
    assert all(len(c.text) <= 300 for c in with_window)


@needs(SCIFACT)
def test_real_tokenizer_chunks_of_scifact_fit_the_model(minilm) -> None:
    """Chunk sizes are summed from their pieces' token counts: check against the real
    tokenizer that no chunk of real abstracts goes over the model's window."""
    chunker = make_chunker(ChunkingSettings(unit="tokens", size=256, overlap=32), token_length=minilm.count_tokens,
                           window=minilm.max_tokens)
    split = whole = 0
    with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as lines:
        for _, line in zip(range(300), lines):
            record = json.loads(line)
            doc = Document(record["_id"], [Block(record["text"])], title=record["title"])
            chunks = chunker.chunk(doc)
            assert all(minilm.count_tokens(index_text(doc.title, c.text)) <= minilm.max_tokens for c in chunks)
            fits = minilm.count_tokens(index_text(doc.title, record["text"])) <= minilm.max_tokens
            if fits:
                assert len(chunks) == 1
                whole += 1
            else:
                assert len(chunks) >= 2
                split += 1
    assert whole > 50 and split > 50  # both cases were exercised


def test_the_fast_preset_fills_only_what_is_not_set(monkeypatch, tmp_path) -> None:
    """``RAGLINE_PRESET=fast``: 2,000-character chunks without overlap, embedded from their
    190-token head; an explicit setting (environment, ragline.toml or code) wins over the preset."""
    from ragline.settings import Settings

    monkeypatch.chdir(tmp_path)  # no ragline.toml
    monkeypatch.setenv("RAGLINE_PRESET", "fast")
    fast = Settings()
    assert (fast.chunking.size, fast.chunking.overlap, fast.embedder.overflow, fast.embedder.max_tokens) == \
        (2000, 0, "head", 190)
    assert fast.search.dense_weight == 0.5 and fast.search.fusion == "weighted"
    monkeypatch.setenv("RAGLINE_CHUNKING__SIZE", "1500")
    assert (Settings().chunking.size, Settings().chunking.overlap) == (1500, 0)
    assert Settings(chunking=ChunkingSettings(overlap=100)).chunking.overlap == 100
    monkeypatch.setenv("RAGLINE_PRESET", "turbo")
    with pytest.raises(ValueError, match="preset"):
        Settings()
    monkeypatch.delenv("RAGLINE_PRESET")
    monkeypatch.delenv("RAGLINE_CHUNKING__SIZE")
    plain = Settings()
    assert (plain.chunking.size, plain.chunking.overlap, plain.embedder.overflow, plain.embedder.max_tokens) == \
        (1000, 200, "split", None)
