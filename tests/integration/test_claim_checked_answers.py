"""A model's wrong claims never ship as supported: they are named back to it once,
then dropped, or the answer is quoted from the sources instead (answer.service,
answer.claims). Through the fake OpenAI-compatible server, read by the real client."""

from __future__ import annotations

import re

import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, Settings
from tests.fakes import FakeLLMServer, Reply

SCOPE = Scope("bank", ("kb",))
DEPOSITS = ("Fixed deposit rates. A 1-year fixed deposit earns 6.50% a year. A 3-year fixed deposit earns 7.00% "
            "a year. Senior citizens receive an extra 0.50%.")
QUESTION = "What interest does a 3-year fixed deposit earn?"


def number_of(prompt: str, word: str) -> int:
    """The number the prompt gave the source whose text holds ``word``."""
    for n, body in re.findall(r'^\[(\d+)\] <source [^\n]*\n(.*?)\n</source', prompt, re.DOTALL | re.MULTILINE):
        if word in body:
            return int(n)
    return 9


@pytest.fixture
def bank(tmp_path):
    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                             answer=AnswerSettings(relevance_floor=0.0)))
    engine.add_documents([Document(source="deposits.md", blocks=[Block(DEPOSITS)]),
                          Document(source="cards.md", blocks=[Block("A replacement debit card costs €7.")])], SCOPE)
    yield engine
    engine.close()


def ask(bank: Engine, server: FakeLLMServer, **answer):  # type: ignore[no-untyped-def]
    settings = bank.settings.model_copy(update={
        "generator": GeneratorSettings(name="openai", base_url=server.base_url, model="m", api_key="k",
                                       retry_backoff=0.01, max_retries=0),
        "answer": bank.settings.answer.model_copy(update=answer)})
    engine = Engine(settings, embedder=bank.embedder, store=bank.store)
    try:
        return engine.ask(QUESTION, SCOPE)
    finally:
        engine.close()


def test_a_wrong_rate_is_named_back_and_the_corrected_answer_ships(bank: Engine) -> None:
    wrong = Reply(lambda p: f"A 3-year deposit earns 8.4% [{number_of(p, '7.00%')}].")
    right = Reply(lambda p: f"A 3-year fixed deposit earns 7.00% a year [{number_of(p, '7.00%')}].")
    with FakeLLMServer("openai", script=[wrong, right]) as server:
        answer = ask(bank, server)
        retry_prompt = server.requests[1].body["messages"][-1]["content"]
    assert "8.4%" in retry_prompt and "not 8.4%" in retry_prompt  # the failed claim, named
    assert "7.00%" in answer.answer and "8.4" not in answer.answer and answer.generator == "openai"
    data = answer.to_dict()["grounding"]
    assert data["action"] == ["regenerated"] and data["wrong_number"] == 1
    first = [c for c in data["claims"] if not c["shipped"]]
    assert first[0]["status"] == "wrong_number" and "8.4%" in first[0]["text"]
    assert [c["status"] for c in data["claims"] if c["shipped"]] == ["supported"]


def test_a_stubborn_model_gets_its_wrong_claim_dropped_or_the_sources_quoted(bank: Engine) -> None:
    stubborn = Reply(lambda p: f"A 3-year deposit earns 8.4% [{number_of(p, '7.00%')}]. "
                               f"Seniors get 0.50% more [{number_of(p, '7.00%')}].")
    with FakeLLMServer("openai", default=stubborn) as server:
        answer = ask(bank, server)
        assert len(server.requests) == 2  # asked again once, not more
    assert "8.4" not in answer.answer and "0.50%" in answer.answer
    assert answer.grounding.action == ["regenerated", "dropped"] and not answer.grounding.shipped_failures
    alone = Reply(lambda p: f"A 3-year deposit earns 8.4% [{number_of(p, '7.00%')}].")
    with FakeLLMServer("openai", default=alone) as server:
        quoted = ask(bank, server)
    assert quoted.generator == "extractive" and "7.00%" in quoted.answer and "8.4" not in quoted.answer
    assert "claim check" in (quoted.fallback_reason or "") and quoted.grounding.action == ["regenerated", "fallback"]


def test_an_uncited_sentence_no_source_states_is_removed(bank: Engine) -> None:
    reply = Reply(lambda p: f"A 3-year fixed deposit earns 7.00% a year [{number_of(p, '7.00%')}]. "
                            "Paris is the capital of France.")
    with FakeLLMServer("openai", script=[reply, reply]) as server:
        answer = ask(bank, server)
    assert "Paris" not in answer.answer and "7.00%" in answer.answer
    assert any(c["status"] == "uncited" and not c["shipped"] for c in answer.to_dict()["grounding"]["claims"])


def test_an_uncited_sentence_a_source_states_gets_its_citation(bank: Engine) -> None:
    with FakeLLMServer("openai", default=Reply("A 3-year fixed deposit earns 7.00% a year.")) as server:
        answer = ask(bank, server)
        assert len(server.requests) == 1
    assert re.search(r"7\.00% a year \[\d\]\.", answer.answer) and answer.citations
    assert answer.grounding.sentences[0].note == "citation added"


def test_with_checking_off_a_wrong_claim_ships_flagged(bank: Engine) -> None:
    with FakeLLMServer("openai", default=Reply(lambda p: f"It earns 8.4% [{number_of(p, '7.00%')}].")) as server:
        answer = ask(bank, server, drop_unsupported=False)
    assert "8.4%" in answer.answer and [c.status for c in answer.grounding.shipped_failures] == ["wrong_number"]
