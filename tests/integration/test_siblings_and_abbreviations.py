"""The question's kind of product must be the one answered, and abbreviations the
collection defines elsewhere must not cause a refusal (answer.constraints,
answer.service's glossary). Real engine, real keyword index, extractive answers."""

from __future__ import annotations

import pytest

from ragline.answer.constraints import missing_sibling
from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, Settings

SCOPE = Scope("bank", ("kb",))
LOANS = ("Personal loans carry interest from 10.5% to 16% a year. A personal loan of up to Rs. 5 lakh can be used "
         "for any need. The processing fee is 2% of the loan amount.")
GLOSSARY = "Loans are repaid by Equated Monthly Instalment (EMI). National Electronic Funds Transfer (NEFT) is free."
CHARGES = "A bounced instalment costs Rs. 500 per instance. Overdue instalments carry 2% penal interest a month."


@pytest.fixture
def bank(tmp_path):
    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                             answer=AnswerSettings(relevance_floor=0.0)))
    engine.add_documents([Document(source=name, blocks=[Block(text)]) for name, text in
                          {"loans.md": LOANS, "glossary.md": GLOSSARY, "charges.md": CHARGES}.items()], SCOPE)
    yield engine
    engine.close()


def test_a_car_loan_question_over_personal_loans_says_what_is_covered(bank: Engine) -> None:
    answer = bank.ask("What is the interest rate on a car loan?", SCOPE)
    assert answer.abstained and "10.5" not in answer.answer
    assert answer.answer == "The documents cover personal loans; they do not mention car loans."
    answered = bank.ask("What is the interest rate on a personal loan?", SCOPE)
    assert not answered.abstained and "10.5%" in answered.answer


def test_an_abbreviation_defined_in_another_document_is_understood(bank: Engine) -> None:
    answer = bank.ask("What is the charge for a bounced EMI?", SCOPE)
    assert not answer.abstained and "Rs. 500" in answer.answer


def test_kind_words_are_found_in_english_and_spanish_order() -> None:
    nowhere = lambda word: False
    found = missing_sibling("What does an extra-large locker cost?",
                            ["A small locker costs Rs. 1,500 and a large locker Rs. 4,000."], nowhere)
    assert found is not None and (found.asked, found.covered) == ("extra-large locker", "small locker")
    spanish = missing_sibling("cuánto cuesta una bicicleta tándem", ["Una bicicleta eléctrica cuesta 45 € al día y una bicicleta infantil 12 €."],
                              nowhere, language="spanish")
    assert spanish is not None and spanish.covered == "bicicleta eléctrica"
    # a word the collection holds somewhere is a paraphrase, not a missing product
    assert missing_sibling("What is the rate on a car loan?", [LOANS], lambda word: True) is None
    assert missing_sibling("How much do you take if I close my deposit early?",
                           ["Closing a deposit before maturity costs 1% of the rate."], nowhere) is None


def test_the_floor_of_a_collection_comes_from_its_own_background(tmp_path) -> None:
    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing")))
    try:
        engine.add_documents([Document(source="loans.md", blocks=[Block(LOANS)])], SCOPE)
        answerer = engine.answerer
        answerer.floor = lambda: 0.5  # type: ignore[method-assign]  # a model floor for the test embedder
        floor = answerer.scope_floor(SCOPE)
        assert floor is not None and 0.5 - 0.12 <= floor < 0.5  # off-topic probes score low on hashed words
        calls = []
        answerer.calibrator._probe_vectors = lambda: calls.append(1)  # type: ignore[method-assign]
        assert answerer.scope_floor(SCOPE) == floor and not calls  # cached
        engine.add_documents([Document(source="more.md", blocks=[Block("Savings pay 3% a year.")])], SCOPE)
        answerer.scope_floor(SCOPE)
        assert calls  # a new document: computed again
    finally:
        engine.close()
