"""The context builder: token budget with a real tokenizer, numbering, duplicates,
thresholds, neighbours, and the kept/dropped report."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ragline.answer.context import ContextBuilder
from ragline.answer.tokens import default_counter
from ragline.models import Block, Document, Hit, Scope
from ragline.settings import AnswerSettings, ChunkingSettings

COUNTER = default_counter()


def hit(n: int, text: str, *, doc: str | None = None, start: int = 0, title: str | None = None,
        page: int | None = None, section: str | None = None, position: int = 0) -> Hit:
    return Hit(chunk_id=f"c{n}", doc_id=doc or f"d{n}", source=f"/data/file{n}.pdf", score=1.0 / n, text=text,
               title=title, page=page, section=section, start=start, end=start + len(text), position=position)


def words(n: int, word: str = "alpha") -> str:
    return " ".join(f"{word}{i}" for i in range(n)) + "."


def test_counts_tokens_with_the_wordpiece_tokenizer_not_characters() -> None:
    assert COUNTER.count("hello world") == 2
    # A long chemical name is one "word" but many wordpieces; chars/4 would say 9.
    name = "methylenedioxymethamphetamine"
    assert COUNTER.count(name) != len(name) // 4 and COUNTER.count(name) > 1
    cut = COUNTER.truncate("one two three four five six", 3)
    assert cut == "one two three" and COUNTER.count(cut) == 3


def test_numbers_sources_with_title_page_and_section() -> None:
    ctx = ContextBuilder().build([
        hit(1, "First text.", title="Report", page=3, section="Results"),
        hit(2, "Second text."),
    ])
    assert [s.n for s in ctx.sources] == [1, 2]
    assert ctx.context.startswith("[1] Report — file1.pdf, p. 3, § Results\nFirst text.")
    assert "\n\n[2] file2.pdf\nSecond text." in ctx.context
    assert ctx.enabled and ctx.kept is ctx.sources
    assert ctx.tokens == COUNTER.count(ctx.context)


def test_token_budget_is_respected_and_overflow_is_reported() -> None:
    hits = [hit(i, words(60, f"w{i}x")) for i in range(1, 8)]
    ctx = ContextBuilder(max_tokens=400, max_sources=10).build(hits)
    assert ctx.tokens <= 400
    assert 1 <= len(ctx.sources) < 7
    dropped = {d.hit.chunk_id: d for d in ctx.dropped}
    assert len(dropped) == 7 - len(ctx.sources)
    assert all(d.reason == "budget" and "tokens" in d.detail for d in dropped.values())
    report = ctx.report()
    assert set(report) == {"kept", "dropped", "tokens"}
    assert report["dropped"][0]["reason"] == "budget"


def test_smaller_later_hit_still_fits_after_a_large_one_is_dropped() -> None:
    hits = [hit(1, words(50, "a")), hit(2, words(400, "b")), hit(3, words(20, "c"))]
    ctx = ContextBuilder(max_tokens=300).build(hits)
    assert [s.chunk_id for s in ctx.sources] == ["c1", "c3"]
    assert [(d.hit.chunk_id, d.reason) for d in ctx.dropped] == [("c2", "budget")]


def test_max_sources_drops_the_rest_as_budget() -> None:
    ctx = ContextBuilder(max_sources=2).build([hit(i, f"Text number {i}.") for i in range(1, 5)])
    assert len(ctx.sources) == 2
    assert [d.reason for d in ctx.dropped] == ["budget", "budget"]
    assert "max_sources (2)" in ctx.dropped[0].detail


def test_first_source_larger_than_the_budget_is_truncated_not_dropped() -> None:
    ctx = ContextBuilder(max_tokens=100).build([hit(1, words(500))])
    assert len(ctx.sources) == 1 and ctx.sources[0].truncated
    assert ctx.tokens <= 100


def test_threshold_drops_low_relevance_hits() -> None:
    ctx = ContextBuilder(floor=0.4).build([hit(1, "Relevant."), hit(2, "Weak.")], {"c1": 0.7, "c2": 0.2})
    assert [s.chunk_id for s in ctx.sources] == ["c1"]
    assert ctx.sources[0].relevance == pytest.approx(0.7)
    (dropped,) = ctx.dropped
    assert dropped.reason == "threshold" and "0.200 < floor 0.400" in dropped.detail


def test_everything_below_threshold_leaves_an_empty_context() -> None:
    ctx = ContextBuilder(floor=0.5).build([hit(1, "A."), hit(2, "B.")], {"c1": 0.1, "c2": 0.2})
    assert ctx.sources == [] and ctx.context == "" and ctx.tokens == 0
    assert {d.reason for d in ctx.dropped} == {"threshold"}


def test_overlapping_chunks_of_one_document_are_duplicates() -> None:
    text = "abcdefghij " * 20
    first = hit(1, text[:150], doc="doc", start=0)
    overlapping = hit(2, text[50:200], doc="doc", start=50)  # shares 100 of 150 chars
    distinct = hit(3, text[160:220], doc="doc", start=160)  # shares nothing
    ctx = ContextBuilder().build([first, overlapping, distinct])
    assert [s.chunk_id for s in ctx.sources] == ["c1", "c3"]
    assert [(d.hit.chunk_id, d.reason, d.detail) for d in ctx.dropped] == [("c2", "duplicate", "overlaps source [1]")]


def test_same_text_in_two_documents_is_a_duplicate() -> None:
    ctx = ContextBuilder().build([hit(1, "The same  paragraph."), hit(2, "the same paragraph.")])
    assert len(ctx.sources) == 1 and ctx.dropped[0].reason == "duplicate"


def test_settings_bounds_follow_the_seed() -> None:
    assert AnswerSettings().max_tokens == 2000 and AnswerSettings().max_sources == 5
    for bad in ({"max_tokens": 99}, {"max_tokens": 4001}, {"max_sources": 0}, {"max_sources": 11}):
        with pytest.raises(ValidationError):
            AnswerSettings(**bad)


def test_neighbouring_chunks_are_stitched_without_repeating_the_overlap(engine) -> None:
    scope = Scope("t", ("c",))
    engine.settings.chunking = ChunkingSettings(method="sentence", size=120, overlap=40)
    sentences = [f"Sentence number {i} talks about topic {i}." for i in range(12)]
    engine.add_documents([Document(source="long.txt", blocks=[Block(" ".join(sentences))])], scope)
    hits = engine.search("topic 6", scope, mode="keyword", k=1).hits
    assert hits and "topic 6" in hits[0].text
    fetch = lambda h: engine.answerer._doc_chunks(scope, h)
    plain = ContextBuilder().build(hits)
    wide = ContextBuilder(neighbours=1).build(hits, fetch_neighbours=fetch)
    text = wide.sources[0].text
    assert len(text) > len(plain.sources[0].text)
    assert hits[0].text in text
    for sentence in sentences:  # each sentence at most once: the overlap was not repeated
        assert text.count(sentence) <= 1
    start, end = wide.sources[0].span
    assert start < hits[0].start or end > hits[0].end
