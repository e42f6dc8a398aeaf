"""Pseudo-relevance feedback (ragline.retrieve.feedback): the expansion terms come from
the top documents, the interpolation and Rocchio behave at their limits, and through
the engine a feedback search finds a document that shares no word with the question
but shares the top document's vocabulary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.retrieve.feedback import expansion_terms, interpolate, rocchio
from ragline.settings import EmbedderSettings, SearchSettings, Settings

S = Scope("acme", ("kb",))
DOCS = {
    "a.txt": "A heart attack, or myocardial infarction, happens when blood flow to the heart muscle stops. "
             "Myocardial infarction needs treatment within hours.",
    "b.txt": "Recurrent myocardial infarction after coronary stenting is treated with dual antiplatelet therapy.",
    "c.txt": "Tomatoes grow best in warm soil with plenty of sun and regular watering.",
    "d.txt": "A bicycle chain needs oil every few hundred kilometres, more often in the rain.",
    "e.txt": "The library opens at nine and closes at five on weekdays.",
    "f.txt": "Attack of the killer tomatoes is a comedy film from 1978.",
}


def engine_with(tmp_path: Path, **search) -> Engine:
    settings = Settings(home=tmp_path, embedder=EmbedderSettings(name="hashing"), search=SearchSettings(**search))
    engine = Engine(settings)
    engine.add_documents([Document(source, [Block(text)]) for source, text in DOCS.items()], S)
    return engine


def sources(engine: Engine, query: str, mode: str, k: int = 6) -> list[str]:
    return [hit.source for hit in engine.search(query, S, mode=mode, k=k).hits]


def test_expansion_terms_come_from_the_top_texts_weighted_by_rank() -> None:
    texts = ["myocardial infarction myocardial infarction stroke", "tomato tomato tomato soil"]
    terms = dict(expansion_terms(["heart"], texts, 10))
    assert {"myocardi", "infarct", "stroke", "tomato", "soil"} <= set(terms)
    assert "heart" not in terms  # a query term is not an expansion
    # The first text weighs twice the second (1/r), so its terms lead.
    assert terms["myocardi"] > terms["tomato"] > terms["soil"]
    assert list(dict(expansion_terms(["heart"], texts, 2))) == ["myocardi", "infarct"]
    assert expansion_terms(["heart"], [], 5) == [] and expansion_terms(["heart"], texts, 0) == []


def test_interpolate_at_its_limits_and_bad_weight() -> None:
    original = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    expansion = [("d", 9.0), ("c", 5.0), ("e", 1.0)]
    assert [item for item, _ in interpolate(original, expansion, 0.0)][:3] == ["a", "b", "c"]
    assert [item for item, _ in interpolate(original, expansion, 1.0)][:2] == ["d", "c"]
    mixed = dict(interpolate(original, expansion, 0.5))
    assert mixed["c"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.5)  # last of the original, midway in the expansion
    assert mixed["a"] == pytest.approx(0.5) and mixed["d"] == pytest.approx(0.5) and mixed["e"] == 0.0
    with pytest.raises(ValueError, match="within"):
        interpolate(original, expansion, 1.5)


def test_rocchio_moves_the_query_towards_the_feedback() -> None:
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    top = [np.array([0.0, 1.0, 0.0], dtype=np.float32), np.array([0.0, 0.8, 0.6], dtype=np.float32)]
    moved = rocchio(q, top, 0.5)
    assert np.linalg.norm(moved) == pytest.approx(1.0, abs=1e-6)
    centre = np.mean(top, axis=0)
    assert float(moved @ centre) > float(q @ centre)
    assert float(moved @ q) > 0.5  # still nearer the question than not
    assert np.array_equal(rocchio(q, top, 0.0), q) and np.array_equal(rocchio(q, [], 0.5), q)
    with pytest.raises(ValueError, match="negative"):
        rocchio(q, top, -1.0)


def test_keyword_feedback_finds_a_document_without_the_question_words(tmp_path: Path) -> None:
    plain = engine_with(tmp_path / "plain")
    # "heart attack" is only in a.txt (and "attack" in the film); b.txt shares none of the words.
    assert "b.txt" not in sources(plain, "heart attack", "keyword")
    fed = engine_with(tmp_path / "fed", feedback="keyword", feedback_docs=1, feedback_terms=5)
    found = sources(fed, "heart attack", "keyword")
    assert found[0] == "a.txt" and "b.txt" in found
    assert set(found) == {"a.txt", "b.txt", "f.txt"}  # no stray documents: only term matches
    assert "feedback" in fed.search("heart attack", S, mode="keyword").timings_ms


def test_dense_feedback_ranks_the_top_documents_neighbours_higher(tmp_path: Path) -> None:
    query = "heart attack treatment"
    plain = sources(engine_with(tmp_path / "plain"), query, "dense")
    fed = sources(engine_with(tmp_path / "fed", feedback="dense", feedback_docs=1, feedback_dense_weight=2.0),
                  query, "dense")
    assert fed[0] == "a.txt"
    assert fed.index("b.txt") <= plain.index("b.txt") and fed.index("b.txt") == 1


def test_hybrid_with_both_kinds_keeps_k_and_the_question_vector_for_the_threshold(tmp_path: Path) -> None:
    engine = engine_with(tmp_path, feedback="both", feedback_docs=2)
    result = engine.search("heart attack", S, mode="hybrid", k=3)
    assert len(result.hits) == 3 and result.hits[0].source == "a.txt"
    plain = engine_with(tmp_path / "plain")
    # The threshold judges cosine to the question itself, with or without feedback.
    kept = {h.source for h in engine.search("heart attack", S, mode="hybrid", k=6, threshold=0.1).hits}
    assert kept == {h.source for h in plain.search("heart attack", S, mode="hybrid", k=6, threshold=0.1).hits}
