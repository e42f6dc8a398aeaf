"""The money-question router and the offline parser: the router's accuracy on the
labelled set (the figures in docs/transactions.md come from bench/router_accuracy.py
on the same file), the periods it reads, and the plans the parser makes from the
asker's own vocabulary."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragline.eval.router import load, measure
from ragline.records.parser import RuleParser
from ragline.records.periods import parse_period
from ragline.records.plan import Vocabulary

LABELS = Path(__file__).parents[1] / "fixtures" / "transactions" / "router_questions.tsv"

TODAY = date(2024, 11, 15)


def test_router_accuracy_on_the_labelled_set() -> None:
    rows = load(LABELS)
    assert len(rows) >= 150 and {r["route"] for r in rows} == {"records", "retrieval"}
    assert len({r["intent"] for r in rows if r["intent"]}) == 8  # every intent is represented
    result = measure(rows)
    # Floors a little under the measured figures (dev 1.000, held-out 0.940): a rule change
    # that costs more than a question or two fails here.
    assert result["dev"]["intent_accuracy"] >= 0.98
    assert result["heldout"]["intent_accuracy"] >= 0.92


@pytest.mark.parametrize(("text", "start", "end"), [
    ("how much last month", "2024-10-01", "2024-10-31"),
    ("so far this month", "2024-11-01", "2024-11-15"),
    ("in March", "2024-03-01", "2024-03-31"),
    ("in december", "2023-12-01", "2023-12-31"),  # the latest December not after today
    ("March 2022", "2022-03-01", "2022-03-31"),
    ("last spring", "2024-03-01", "2024-05-31"),
    ("last winter", "2023-12-01", "2024-02-29"),
    ("since January", "2024-01-01", "2024-11-15"),
    ("between March and May", "2024-03-01", "2024-05-31"),
    ("from November to February", "2023-11-01", "2024-02-29"),
    ("in the last 30 days", "2024-10-17", "2024-11-15"),
    ("over the past 3 months", "2024-09-01", "2024-11-15"),
    ("last week", "2024-11-04", "2024-11-10"),
    ("last quarter", "2024-07-01", "2024-09-30"),
    ("last year", "2023-01-01", "2023-12-31"),
    ("in 2022", "2022-01-01", "2022-12-31"),
    ("yesterday", "2024-11-14", "2024-11-14"),
])
def test_periods(text: str, start: str, end: str) -> None:
    period = parse_period(text, TODAY)
    assert period is not None and (period.start.isoformat(), period.end.isoformat()) == (start, end)


@pytest.mark.parametrize("text", ["where do I spend", "I may be overspending", "what about fees"])
def test_no_period(text: str) -> None:
    assert parse_period(text, TODAY) is None


def test_filters_come_from_the_askers_own_categories_and_merchants() -> None:
    vocabulary = Vocabulary(today=TODAY, categories=("Groceries", "Eating out", "Travel"),
                            merchants=("Tesco", "Uber", "Pret A Manger"), accounts=("current",), currencies=("GBP",),
                            descriptions=("TESCO STORES 3012", "UBER *TRIP", "PRET A MANGER LONDON",
                                          "REWE MARKT MUENCHEN"))

    def ask(question: str):
        return RuleParser().plan(question, vocabulary)

    r = ask("How much did I spend on grocery shopping in March?")
    assert r.plan is not None and r.plan.metric == "sum" and r.plan.filters.kinds == ("groceries",)
    assert r.plan.periods[0].label == "in March 2024"
    assert ask("How much did I pay Uber last year?").plan.filters.merchants == ("Uber",)
    assert ask("how much did I spend at pret a manger").plan.filters.merchants == ("Pret A Manger",)
    assert ask("How much do I spend on coffee since June?").plan.filters.kinds == ("coffee",)
    assert ask("how much did I spend in Munich?").plan.filters.places == ("Munich",)  # MUENCHEN on the statement
    assert ask("How much have I spent at Costa?").plan.filters.merchants == ("Costa",)  # kept: "none", not everything
    assert ask("What were my 3 largest purchases?").plan.limit == 3
    assert ask("top 10 merchants by spending").plan.limit == 10
    other = ask("How much is the fee for an unarranged overdraft?")
    assert other.plan is None and "fee" in other.reason
    assert ask("How much did I pay in bank fees last year?").plan is not None  # their own fees


@pytest.mark.parametrize(("question", "metric", "flow", "group_by"), [
    ("What does the gym cost me?", "recurring", "spend", None),
    ("How many times did I go to the cinema?", "count", "spend", None),
    ("What's my average Tesco shop?", "average", "spend", None),
    ("Did I spend more at Tesco or Uber in March?", "compare", "spend", "name"),
    ("How much did I spend in March vs April?", "compare", "spend", None),
    ("How much did I move into savings last month?", "sum", "savings", None),
    ("How much have I taken out of my savings?", "sum", "savings_out", None),
    ("How much did I earn last year?", "sum", "income", None),
    ("Did I earn more than I spent last year?", "sum", "net", None),
    ("What is my current balance?", "balance", "spend", None),
    ("Which month did I spend the most on groceries?", "sum", "spend", "month"),
    ("how much went on takeaways last month", "sum", "spend", None),  # no "my": still the asker's money
])
def test_everyday_questions_make_plans(question: str, metric: str, flow: str, group_by: str | None) -> None:
    vocabulary = Vocabulary(today=TODAY, merchants=("Tesco", "Uber", "PureGym"), accounts=("current", "savings"),
                            currencies=("GBP",))
    planned = RuleParser().plan(question, vocabulary)
    assert planned.plan is not None, planned.reason
    assert (planned.plan.metric, planned.plan.flow, planned.plan.group_by) == (metric, flow, group_by)


def test_a_mixed_question_is_split() -> None:
    vocabulary = Vocabulary(today=TODAY, merchants=("Tesco",), currencies=("GBP",))
    planned = RuleParser().plan("How much did I spend at Tesco in March, and what's the fee for paying abroad?",
                                vocabulary)
    assert planned.plan is not None and planned.plan.filters.merchants == ("Tesco",)
    assert planned.question == "How much did I spend at Tesco in March?"
    assert planned.rest == "What's the fee for paying abroad?"
