"""An exact answer phrased by an LLM (a fake OpenAI-compatible server on real HTTP):
the model gets the computed figures as numbered sources and its text is kept only
when every number in it is one of them; otherwise, or when it fails, the computed
sentence stands and ``fallback_reason`` says why."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ragline.engine import Engine
from ragline.models import Scope
from ragline.models.records import Transaction
from ragline.settings import EmbedderSettings, GeneratorSettings, Settings

from tests.fakes.llm import FakeLLMServer, Reply, Status

ANN = Scope("bank", ("transactions",), "ann")
QUESTION = "Where am I spending the most money?"


def _tx(tid: str, day: str, amount: str, category: str) -> Transaction:
    return Transaction(transaction_id=tid, account_id="cur", timestamp=day, description=f"{category} {tid}",
                       amount=Decimal(amount), currency="GBP", transaction_category=category)


@pytest.fixture
def engine(tmp_path):
    def make(base_url: str) -> Engine:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            generator=GeneratorSettings(name="openai", base_url=base_url, api_key="k",
                                                        retry_backoff=0.01, max_retries=1))
        engine = Engine(settings)
        engine.transactions.put([_tx("1", "2024-05-01", "-1100.00", "Rent"), _tx("2", "2024-05-02", "-45.25",
                                                                                 "Groceries"),
                                 _tx("3", "2024-05-09", "-54.75", "Groceries")], ANN)
        made.append(engine)
        return engine

    made: list[Engine] = []
    yield make
    for e in made:
        e.close()


def test_the_llm_phrases_the_computed_figures(engine) -> None:
    text = "Rent takes the most: 1,100.00 GBP, which is 91.7% of your 1,200.00 GBP spending [1]."
    with FakeLLMServer("openai", default=Reply(text)) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert (answer.generator, answer.answer, answer.fallback_reason) == ("openai", text, None)
    prompt = server.requests[0].body["messages"][1]["content"]
    assert "spending on Rent, GBP: 1 transactions, total 1100.00 GBP" in prompt
    assert "Groceries | GBP | 100.00 | 2 | 8.3%" in prompt  # the table, every figure of it
    assert answer.records["table"]["rows"][0] == ["Rent", "GBP", "1100.00", 1, "91.7%"]


def test_invented_figures_are_refused(engine) -> None:
    with FakeLLMServer("openai", default=Reply("You spent 1,234.56 GBP on rent [1].")) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert answer.generator == "records" and "1,234.56" in answer.fallback_reason
    assert answer.answer.startswith("You spent the most on Rent: 1,100.00 GBP across 1 transactions, 91.7%")


def test_a_failing_provider_leaves_the_computed_answer(engine) -> None:
    with FakeLLMServer("openai", default=Status(503)) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert answer.generator == "records" and "503" in answer.fallback_reason
    assert "1,100.00 GBP" in answer.answer and answer.citations[0].source == "spending on Rent, GBP"
