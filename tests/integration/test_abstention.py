"""Answers that know what they don't know, and headings that count: real engine
runs over the sample knowledge base (plus a small FAQ whose questions are only in
its headings) with the default MiniLM embedder, whose measured floor decides."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.answer.constraints import missing_constraints, question_constraints
from ragline.engine import Engine
from ragline.models import Scope, index_text
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, Settings

from tests.fakes import FakeLLMServer, Reply
from tests.fakes.reader import NO_ANSWER, read_answer

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragline" / "sample"
SCOPE = Scope("acme", ("kb",))
FAQ = """<!doctype html><html><head><title>Device help</title></head><body>
<h1>Device help</h1>
<h2>My laptop was stolen. What should I do?</h2>
<p>Report it to the police first and write down the report number. Then call the IT service desk so
that we can lock your accounts and wipe the disk remotely. You will get a loan device the same day.</p>
<h2>Can I use my own printer?</h2>
<p>Only printers on the approved list work with the office network. Ask the service desk for the list.</p>
<h2>How do I get a new monitor?</h2>
<p>Order it in the self-service portal under Hardware. Delivery takes about a week.</p>
</body></html>
"""


@pytest.fixture(scope="module")
def bank(tmp_path_factory, minilm):
    home = tmp_path_factory.mktemp("abstention")
    faq = home / "docs" / "device-faq.html"
    faq.parent.mkdir()
    faq.write_text(FAQ, encoding="utf-8")
    engine = Engine(Settings(home=home / "home", embedder=EmbedderSettings(name="minilm")), embedder=minilm)
    engine.ingest([SAMPLE, faq.parent], SCOPE)
    yield engine
    engine.close()


def test_five_year_deposit_abstains_and_names_what_is_missing(bank: Engine) -> None:
    answer = bank.ask("What is the interest rate on a 5-year fixed-term deposit?", SCOPE)
    assert answer.abstained
    assert "5-year" in answer.answer
    assert "3.40%" not in answer.answer and not answer.citations


def test_the_deposit_the_bank_has_is_still_answered(bank: Engine) -> None:
    answer = bank.ask("What is the interest rate on the 1-year Fixed Saver?", SCOPE)
    assert not answer.abstained
    assert "3.40%" in answer.answer
    assert answer.citations and answer.citations[0].source.endswith("accounts-and-fees.md")


@pytest.mark.parametrize("question", [
    "What is the monthly fee of the Premium Metal account?",
    "What are the opening hours of the Leiden branch?",
    "How much is the fee for a Western Union transfer?",
])
def test_named_things_the_bank_does_not_have_abstain(bank: Engine, question: str) -> None:
    assert bank.ask(question, SCOPE).abstained


def test_the_check_can_be_turned_off(bank: Engine) -> None:
    settings = bank.settings.model_copy(update={"answer": AnswerSettings(check_constraints=False)})
    engine = Engine(settings, embedder=bank.embedder, store=bank.store)
    answer = engine.ask("What is the interest rate on a 5-year fixed-term deposit?", SCOPE)
    assert not answer.abstained  # the savings passage is on topic: only the constraint check abstains


def test_the_laptop_faq_is_answered_from_its_heading_chunk(bank: Engine) -> None:
    answer = bank.ask("My laptop was stolen. What should I do?", SCOPE)
    assert not answer.abstained, answer.answer
    assert "police" in answer.answer
    cited = bank.store.get_hits(SCOPE, [(c.chunk_id, c.score) for c in answer.citations])
    assert cited and cited[0].section.endswith("My laptop was stolen. What should I do?")


def test_a_bare_heading_question_finds_its_section(bank: Engine) -> None:
    answer = bank.ask("What happens if the app is down?", SCOPE)
    assert not answer.abstained
    assert "0800 555 0100" in answer.answer


def test_index_text_carries_the_section_without_repeating_the_title() -> None:
    text = index_text("Device help", "Report it.", "Device help > My laptop was stolen. What should I do?")
    assert text == "Device help\nMy laptop was stolen. What should I do?\nReport it."
    assert index_text("T", "body", "T") == "T\nbody"
    assert index_text(None, "body") == "body"


def test_question_constraints_are_durations_and_names() -> None:
    labels = [c.label for c in question_constraints("What is the rate on a 5-year deposit at Western Union?")]
    assert labels == ["5-year", "Western Union"]
    assert question_constraints("How do I open an account?") == []  # the opener is no name
    # a destination is no constraint: the bank answers it with a general rule (outside the euro area)
    assert question_constraints("What do I need to send money to the United States?") == []
    assert [c.label for c in question_constraints("Are there branches in Belgium?")] == ["Belgium"]


def test_missing_constraints_needs_the_constraint_on_topic() -> None:
    question = "What is the interest rate on a 5-year fixed-term deposit?"
    assert missing_constraints(question, ["Fixed Saver 1 year: 3.40% AER fixed interest."]) == ["5-year"]
    # "5 years" in an unrelated passage does not meet it
    assert missing_constraints(question, ["Identity documents: kept 5 years."]) == ["5-year"]
    assert missing_constraints(question, ["The five-year fixed deposit pays 3.9% interest."]) == []


def test_through_an_llm_the_near_miss_never_reaches_the_provider(bank: Engine) -> None:
    with FakeLLMServer("openai", default=Reply(text=read_answer)) as server:
        settings = bank.settings.model_copy(update={"generator": GeneratorSettings(
            name="openai", base_url=server.base_url, model="fake-reader", api_key="k", max_retries=0)})
        engine = Engine(settings, embedder=bank.embedder, store=bank.store)
        try:
            near = engine.ask("What is the interest rate on a 5-year fixed-term deposit?", SCOPE)
            assert near.abstained and not server.requests
            answered = engine.ask("What happens if the app is down?", SCOPE)
        finally:
            engine.close()
    assert answered.generator == "openai" and len(server.requests) == 1
    assert not answered.abstained and answered.citations
    assert answered.citations[0].source.endswith("faq.html")  # the section heading led the reader there


def test_the_fake_reader_answers_only_from_the_prompt() -> None:
    prompt = ('[1] <source n="1" label="FAQ — faq.html, § FAQ > How do I complain?" tag="ab12">\n'
              'Use Contact us in the app. We answer within 15 business days.\n</source tag="ab12">\n\n'
              "Question: {}\n")
    assert read_answer(prompt.format("How do I complain?")) == "Use Contact us in the app [1]."
    assert read_answer(prompt.format("What is the mortgage rate?")) == NO_ANSWER
