"""Hybrid search runs a short query's keyword search on its own thread, beside the
query embedding: the results are the ones the stages give one after another, the
keyword side's errors reach the caller, and a long query keeps the stages in order
(with the pause point between them that the server's fair gate uses)."""

from __future__ import annotations

import threading

import pytest

from ragline.engine import Engine
from ragline.errors import StoreError
from ragline.models import Block, Document, Scope
from ragline.retrieve import search as search_module
from ragline.settings import EmbedderSettings, Settings

S = Scope("acme", ("kb",))
TEXTS = ["The overdraft rate is 15.9 percent a year.", "A replacement card costs 7 EUR.",
         "Cards are blocked at once when reported stolen.", "Tomatoes grow best in warm soil."]


@pytest.fixture
def engine(tmp_path):
    engine = Engine(Settings(home=tmp_path, embedder=EmbedderSettings(name="hashing")))
    engine.add_documents([Document(f"d{i}.txt", [Block(t)]) for i, t in enumerate(TEXTS)], S)
    yield engine
    engine.close()


def _run(engine: Engine, query: str):
    result = engine.search(query, S, mode="hybrid", k=4)
    return [(h.chunk_id, round(h.score, 6)) for h in result.hits], result.timings_ms


def test_beside_gives_the_sequential_results(engine, monkeypatch) -> None:
    threads: list[str] = []
    keyword = search_module._keyword
    monkeypatch.setattr(search_module, "_keyword",
                        lambda *a: threads.append(threading.current_thread().name) or keyword(*a))
    for query in ("what does a stolen card cost", "overdraft rate", "soil"):
        beside, timings = _run(engine, query)
        assert threads[-1] == "ragline-keyword" and {"embed", "dense", "keyword"} <= set(timings)
        monkeypatch.setattr(search_module, "BESIDE_MAX_CHARS", 0)
        assert _run(engine, query)[0] == beside and threads[-1] == threading.current_thread().name
        monkeypatch.setattr(search_module, "BESIDE_MAX_CHARS", 1_000)


def test_a_keyword_failure_beside_reaches_the_caller(engine, monkeypatch) -> None:
    def broken(*args):
        raise StoreError("keyword index unavailable")

    monkeypatch.setattr(search_module, "_keyword", broken)
    with pytest.raises(StoreError, match="keyword index unavailable"):
        engine.search("stolen card", S, mode="hybrid")


def test_a_long_query_runs_its_stages_in_turn_with_a_pause_between(engine, monkeypatch) -> None:
    order: list[str] = []
    keyword = search_module._keyword
    monkeypatch.setattr(search_module, "_keyword", lambda *a: order.append("keyword") or keyword(*a))
    monkeypatch.setattr(search_module, "pause_point", lambda: order.append("pause"))
    engine.search("stolen card " * 100, S, mode="hybrid")
    assert order[:3] == ["pause", "pause", "keyword"]  # before the embedding, then between the stages
