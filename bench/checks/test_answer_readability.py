"""tests/unit/test_answer_readability.py's labelled-set check on the whole set (the
suite asks every fourth question): over the sample knowledge base with MiniLM, no
extractive answer opens mid-thought, glues in a heading or keeps a table's pipes."""

from __future__ import annotations

from ragline.engine import Engine

from tests.unit import test_answer_readability as suite


bank = suite.bank  # the sample knowledge base, ingested once with MiniLM


def test_no_answer_on_the_labelled_set_opens_mid_thought(bank: Engine) -> None:
    suite.check_no_answer_opens_mid_thought(bank, suite.labelled_questions())
