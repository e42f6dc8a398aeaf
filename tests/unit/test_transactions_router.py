"""The money-question router: its accuracy on the labelled set (the figures in
docs/transactions.md come from bench/router_accuracy.py on the same file), the
periods it reads, and the filters it picks from the asker's own vocabulary."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from ragline.eval.router import load, measure
from ragline.records.periods import parse_period
from ragline.records.router import route

LABELS = Path(__file__).parents[1] / "fixtures" / "transactions" / "router_questions.tsv"

TODAY = date(2024, 11, 15)


def test_router_accuracy_on_the_labelled_set() -> None:
    rows = load(LABELS)
    assert len(rows) >= 150 and {r["route"] for r in rows} == {"records", "retrieval"}
    assert len({r["intent"] for r in rows if r["intent"]}) == 7  # every intent is represented
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
    categories, merchants = ["Groceries", "Eating out", "Travel"], ["Tesco", "Uber", "Pret A Manger"]

    def ask(question: str):
        return route(question, categories=categories, merchants=merchants, today=TODAY)

    r = ask("How much did I spend on grocery shopping in March?")
    assert (r.target, r.intent, r.category, r.merchant, r.period.label) == (
        "records", "total_spend", "Groceries", None, "in March 2024")
    assert ask("How much did I pay Uber last year?").merchant == "Uber"
    assert ask("how much did I spend at pret a manger").merchant == "Pret A Manger"
    assert ask("How much do I spend on coffee since June?").text == "coffee"  # unknown: a description search
    assert ask("What were my 3 largest purchases?").limit == 3
    assert ask("top 10 merchants by spending").limit == 10
    other = ask("How much is the fee for an unarranged overdraft?")
    assert (other.target, other.intent) == ("retrieval", None) and "fee" in other.reason
    assert ask("How much did I pay in bank fees last year?").target == "records"  # their own fees
