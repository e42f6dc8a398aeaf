"""The embedder registry, the delegating wrappers, lengths against the model's
input limit, and the query cache."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ragline.answer.service import MemoEmbedder
from ragline.embed import EMBEDDERS, DelegatingEmbedder, make_embedder
from ragline.embed.base import CountingEmbedder
from ragline.embed.cache import QueryCache
from ragline.embed.hashing import HashingEmbedder
from ragline.embed.registry import abstain_floor, max_tokens
from ragline.engine import Engine, _ReportingEmbedder
from ragline.errors import EmbedderError
from ragline.eval.bench import chunk_texts
from ragline.ingest.chunkers import LengthLimit
from ragline.models import Block, Chunk, Document, Scope
from ragline.settings import ChunkingSettings, EmbedderSettings, Settings

S = Scope("acme", ("kb",))


# -- registry ------------------------------------------------------------------------
def test_registry_holds_facts_the_answer_service_used_to_hard_code(minilm) -> None:
    assert {"minilm", "hashing", "openai", "gemini", "ollama", "local"} <= set(EMBEDDERS)
    assert abstain_floor(minilm) == 0.39 and abstain_floor(HashingEmbedder()) is None
    assert max_tokens(minilm) == 254 and max_tokens(HashingEmbedder()) is None


def test_a_missing_dependency_is_reported_with_the_install_hint(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ragline.embed.minilm", None)  # as if it could not be imported
    with pytest.raises(EmbedderError, match="minilm embedder cannot be loaded.*ragline models install"):
        make_embedder(EmbedderSettings(name="minilm"))


def test_answerer_floor_comes_from_the_registry(tmp_path: Path, minilm) -> None:
    engine = Engine(Settings(home=tmp_path), embedder=minilm)
    try:
        assert engine.answerer.floor() == 0.39
    finally:
        engine.close()


# -- one delegating wrapper base -------------------------------------------------------
@pytest.mark.parametrize("wrap", [CountingEmbedder, MemoEmbedder, lambda e: _ReportingEmbedder(e, 4, lambda n: None),
                                  lambda e: QueryCache(8).for_tenant(e, "t")])
def test_every_wrapper_keeps_what_the_model_can_do(minilm, wrap) -> None:
    wrapped = wrap(minilm)
    assert isinstance(wrapped, DelegatingEmbedder)
    assert (wrapped.model_id, wrapped.dimension, wrapped.max_tokens) == (minilm.model_id, 384, 254)
    assert wrapped.count_tokens("hello world") == minilm.count_tokens("hello world") == 2
    np.testing.assert_allclose(wrapped.embed_documents(["a b", "c"]), minilm.embed_documents(["a b", "c"]), atol=1e-6)


def test_a_missing_capability_stays_missing() -> None:
    assert getattr(CountingEmbedder(HashingEmbedder()), "count_tokens", None) is None


def test_bench_token_chunking_works_through_the_counting_wrapper(tmp_path: Path, minilm) -> None:
    """CountingEmbedder used to drop count_tokens, so `ragline bench` with
    chunking.unit=tokens failed ("needs a tokenizer")."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "1", "title": "T", "text": "' + " ".join(["word"] * 300) + '"}\n')
    settings = Settings(home=tmp_path, chunking=ChunkingSettings(unit="tokens", size=100, overlap=10))
    counted = CountingEmbedder(minilm)
    texts = chunk_texts(corpus, settings, 10, getattr(counted, "count_tokens", None))
    assert len(texts) > 2 and all(minilm.count_tokens(t) <= 100 + 2 for t in texts)  # + the title line


# -- lengths -------------------------------------------------------------------------------
def chunk(text: str) -> Chunk:
    return Chunk(text=text, position=0, start=0, end=len(text))


def words(n: int) -> str:
    return " ".join(f"w{i}." if i % 9 == 8 else f"w{i}" for i in range(n))


def test_length_limit_splits_a_chunk_the_model_would_cut() -> None:
    count = lambda text: len(text.split())  # one token per word
    text = words(250)
    fitted, message, _ = LengthLimit(100, count, model_id="m").apply("Title", [chunk("short one"), chunk(text)])
    assert message == "1 of 2 chunks exceed m's input of 100 tokens (longest 250): split, 2 → 4 chunks"
    assert [c.position for c in fitted] == [0, 1, 2, 3]
    assert all(count(c.text) <= 99 for c in fitted)  # the title takes one
    assert " ".join(c.text for c in fitted[1:]).split() == text.split()  # nothing lost
    assert all(text[c.start:c.end] == c.text for c in fitted[1:])  # offsets still exact


def test_length_limit_warns_with_counts_when_told_not_to_split() -> None:
    count = lambda text: len(text.split())
    fitted, message, _ = LengthLimit(100, count, mode="warn", model_id="m").apply(None, [chunk(words(180))])
    assert len(fitted) == 1
    assert message and "1 of 1 chunks exceed m's input of 100 tokens (longest 180)" in message
    assert "reads only the first 100 tokens" in message and "RAGLINE_EMBEDDER__OVERFLOW=split" in message


@pytest.mark.parametrize("overflow", ["split", "warn", "head"])
def test_ingest_reports_chunks_over_minilms_limit(tmp_path: Path, minilm, overflow: str) -> None:
    """512-token paragraphs used to lose their second half, silently. Now they are split,
    reported, or (``head``, asked for) counted, and the keyword side reads them whole."""
    settings = Settings(home=tmp_path / "home", chunking=ChunkingSettings(method="paragraph", size=4000, overlap=0,
                                                                 unit="chars"),
                        embedder=EmbedderSettings(overflow=overflow))
    engine = Engine(settings, embedder=minilm)
    try:
        long_paragraph = " ".join(f"Clause {i} of the account terms applies." for i in range(80))
        summary = engine.add_documents([Document("terms.txt", [Block(long_paragraph)])], S)
        tokens = minilm.count_tokens(long_paragraph)
        if overflow == "head":
            assert summary.warnings == [] and summary.headed == 1 and summary.to_dict()["headed"] == 1
        else:
            (warning,) = summary.warnings
            assert (f"1 of 1 chunks exceed {minilm.model_id}'s input of 254 tokens (longest {tokens})"
                    in warning["warning"])
        hits = engine.search("Clause 79", S, mode="keyword", k=10).hits
        assert "Clause 79 " in hits[0].text  # the tail is found by keyword whatever the model read
        if overflow == "split":
            assert summary.chunks > 1 and all(minilm.count_tokens(h.text) <= 254 for h in hits) and summary.headed == 0
        else:
            assert summary.chunks == 1 and summary.headed == 1
            # the stored vector is the model's reading of the head: the same as embedding the head alone
            head = minilm.embed_documents([long_paragraph[:1200]])[0]
            dense = engine.search(long_paragraph[:1200], S, mode="dense", k=1).hits[0]
            assert dense.text == long_paragraph and dense.score == pytest.approx(float(head @ head), abs=1e-3)
    finally:
        engine.close()


# -- query cache ---------------------------------------------------------------------------
def test_query_cache_is_bounded_per_tenant_and_skips_bad_vectors() -> None:
    inner = CountingEmbedder(HashingEmbedder())
    cache = QueryCache(2)
    acme, other = cache.for_tenant(inner, "acme"), cache.for_tenant(inner, "other")
    first = acme.embed_query("fees?")
    np.testing.assert_array_equal(acme.embed_query("fees?"), first)
    assert inner.queries_embedded == 1 and cache.hits == 1
    other.embed_query("fees?")  # another tenant's question is never answered from acme's entry
    assert inner.queries_embedded == 2
    acme.embed_query("transfers?")  # a third entry evicts the least recently used
    assert len(cache) == 2
    acme.embed_query("fees?")
    assert inner.queries_embedded == 4


def test_repeated_searches_embed_the_question_once(tmp_path: Path) -> None:
    embedder = CountingEmbedder(HashingEmbedder())
    engine = Engine(Settings(home=tmp_path), embedder=embedder)
    try:
        engine.add_documents([Document("a.txt", [Block("Card fees are waived for students.")])], S)
        for _ in range(3):
            engine.search("student card fees", S)
        engine.ask("student card fees", S)
        assert embedder.queries_embedded == 1
    finally:
        engine.close()


@pytest.mark.parametrize("overflow", ["split", "head"])
def test_token_chunks_are_capped_at_the_window_unless_the_head_is_asked_for(tmp_path: Path, minilm,
                                                                            overflow: str) -> None:
    """``unit: tokens`` chunks fit the model's window, except under ``overflow: head``
    (the fast preset), where a 500-token chunk is one chunk, counted as headed."""
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(overflow=overflow),
                        chunking=ChunkingSettings(unit="tokens", size=500, overlap=0))
    engine = Engine(settings, embedder=minilm)
    try:
        text = " ".join(f"Section {i} sets the overdraft fee." for i in range(50))  # ~350 tokens
        assert 254 < minilm.count_tokens(text) <= 500
        summary = engine.add_documents([Document("fees.txt", [Block(text)])], S)
        if overflow == "head":
            assert (summary.chunks, summary.headed, summary.warnings) == (1, 1, [])
        else:
            assert summary.chunks == 2 and summary.headed == 0
    finally:
        engine.close()
