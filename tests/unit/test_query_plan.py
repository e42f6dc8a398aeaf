"""The query plan and its exact execution: the JSON schema an LLM's tool takes, the
checks a plan must pass, and each metric computed to the cent from a small statement
whose answers are worked out by hand here (Decimal), through the engine's store."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from ragline.engine import Engine
from ragline.models import Scope
from ragline.models.records import Balance, Transaction
from ragline.records.exact import PlanExecutor
from ragline.records.phrasing import mispaired, missing_figures
from ragline.records.plan import PeriodRef, PlanError, PlanFilters, QueryPlan, plan_schema
from ragline.settings import EmbedderSettings, Settings

ANN = Scope("bank", ("transactions",), "ann")
TODAY = date(2026, 10, 31)


def tx(tid: str, day: str, amount: str, description: str, *, account: str = "current", category: str | None = None,
       merchant: str | None = None, flow: str = "", **extra: str) -> Transaction:
    return Transaction(transaction_id=tid, account_id=account, timestamp=day, description=description,
                       amount=Decimal(amount), currency="GBP", transaction_category=category, merchant_name=merchant,
                       flow=flow, extra=dict(extra))


ROWS = [
    tx("t1", "2026-08-03", "-42.50", "TESCO STORES 3012 LONDON", category="Groceries", merchant="Tesco"),
    tx("t2", "2026-09-03", "-61.00", "TESCO EXPRESS 0042 LONDON", category="Groceries", merchant="Tesco"),
    tx("t3", "2026-09-07", "-23.10", "LIDL GB LONDON", category="Groceries", merchant="Lidl"),
    tx("t4", "2026-09-12", "-25.00", "DELIVEROO", category="Eating out", merchant="Deliveroo"),
    tx("t5", "2026-09-20", "6.50", "DELIVEROO REFUND", category="Eating out", merchant="Deliveroo", flow="refund"),
    tx("t6", "2026-09-14", "-40.07", "AUGUSTINER BRAEUSTUBEN MUENCHEN DEU", category="Holidays",
       merchant="Augustiner Bräustuben", **{"Local amount": "-46.80", "Local currency": "EUR"}),
    tx("t7", "2026-09-15", "-85.63", "SSKM GA MARIENPLATZ MUENCHEN DEU", category="Cash",
       merchant="Stadtsparkasse München", **{"Local amount": "-100.00", "Local currency": "EUR"}),
    tx("t8", "2026-07-01", "-24.99", "PUREGYM LTD", category="Personal care", merchant="PureGym"),
    tx("t9", "2026-08-01", "-24.99", "PUREGYM LTD", category="Personal care", merchant="PureGym"),
    tx("t10", "2026-09-01", "-24.99", "PUREGYM LTD", category="Personal care", merchant="PureGym"),
    tx("t11", "2026-10-01", "-24.99", "PUREGYM LTD", category="Personal care", merchant="PureGym"),
    tx("t12", "2026-09-25", "3142.18", "NORTHWIND ANALYTICS SAL SEP26", category="Income", merchant="Northwind"),
    tx("t13", "2026-09-26", "-400.00", "TRANSFER TO SAVER", category="Savings"),
    tx("t14", "2026-09-26", "400.00", "FASTER PAYMENT FROM A MORGAN", account="saver", category="Income"),
    tx("t15", "2026-09-30", "22.01", "GROSS INTEREST", account="saver", category="Income"),
    tx("t16", "2026-10-01", "-50.00", "pot_0000Christmas", category="Savings", merchant="Christmas",
       Type="Pot transfer"),
]


@pytest.fixture(scope="module")
def executor(tmp_path_factory):
    engine = Engine(Settings(home=tmp_path_factory.mktemp("plan"), embedder=EmbedderSettings(name="hashing")))
    engine.transactions.put(ROWS, ANN, balances=[Balance(account="saver", amount=Decimal("9574.26"), currency="GBP",
                                                         as_of=date(2026, 10, 31), source="ofx")])
    yield PlanExecutor(engine.store.records, ANN, TODAY)
    engine.close()


def plan(**fields) -> QueryPlan:
    filters = PlanFilters(**fields.pop("filters", {}))
    periods = tuple(PeriodRef(text=p) if isinstance(p, str) else PeriodRef(**p) for p in fields.pop("periods", ()))
    return QueryPlan(filters=filters, periods=periods, **fields).checked()


# -- the plan as JSON ------------------------------------------------------------------
def test_the_schema_is_inlined_and_names_every_choice() -> None:
    schema = plan_schema()
    assert "$ref" not in json.dumps(schema) and "$defs" not in schema
    assert schema["properties"]["metric"]["enum"][:3] == ["sum", "count", "average"]
    assert "savings" in schema["properties"]["flow"]["enum"]
    assert "coffee" in schema["properties"]["filters"]["properties"]["kinds"]["items"]["enum"]
    assert schema["additionalProperties"] is False


def test_a_plan_round_trips_through_its_json() -> None:
    p = plan(metric="compare", filters={"merchants": ("Tesco",)}, periods=("September 2026", "August 2026"))
    assert QueryPlan.from_dict(json.loads(json.dumps(p.to_dict()))) == p


@pytest.mark.parametrize(("data", "problem"), [
    ({"metric": "median"}, "metric"),
    ({"metric": "sum", "colour": "red"}, "colour"),
    ({"metric": "sum", "per": "month"}, "per applies to the average only"),
    ({"metric": "sum", "filters": {"kinds": ["yachts"]}}, "unknown kinds"),
    ({"metric": "sum", "filters": {"currency": "pounds"}}, "three-letter"),
    ({"metric": "sum", "limit": 500}, "limit"),
    ({"metric": "sum", "periods": [{}]}, "needs words"),
    ({"metric": "sum", "group_by": "name"}, "group_by name needs"),
    ("sum everything", "schema"),
])
def test_a_plan_that_does_not_fit_says_what_is_wrong(data, problem: str) -> None:
    with pytest.raises(PlanError, match=problem):
        QueryPlan.from_dict(data)


def test_periods_in_words_are_read_against_today() -> None:
    resolved = plan(periods=("last month",)).resolved(TODAY)
    assert (resolved.periods[0].start, resolved.periods[0].end) == ("2026-09-01", "2026-09-30")
    with pytest.raises(PlanError, match="names no period"):
        plan(periods=("the twelfth of never",)).resolved(TODAY)
    with pytest.raises(PlanError, match="ends"):
        plan(periods=({"start": "2026-09-30", "end": "2026-09-01"},)).resolved(TODAY)


# -- executed exactly --------------------------------------------------------------------
def test_a_merchant_in_a_month_states_the_plan_then_the_figure(executor) -> None:
    answer = executor.run(plan(filters={"merchants": ("Tesco",)}, periods=("September 2026",)))
    assert answer.text == "Spending at Tesco in September 2026: 61.00 GBP, 1 payment [1]."
    assert answer.sources[0].transaction_ids == ["t2"]  # Tesco Express is Tesco
    assert answer.stated == "total spending at Tesco, in September 2026"


def test_refunds_are_netted_and_every_id_is_cited(executor) -> None:
    answer = executor.run(plan(filters={"merchants": ("Deliveroo",)}))
    assert answer.text.startswith("Spending at Deliveroo over all your transactions: 18.50 GBP, 1 payment, "
                                  "net of 6.50 GBP refunded [1].")
    assert sorted(answer.sources[0].transaction_ids) == ["t4", "t5"]


def test_two_merchants_each_and_together(executor) -> None:
    answer = executor.run(plan(filters={"merchants": ("Tesco", "Lidl")}, group_by="name"))
    assert "Tesco 103.50 GBP" in answer.text and "Lidl 23.10 GBP" in answer.text and "126.60 GBP in all" in answer.text


def test_a_place_spelled_in_english_finds_the_local_spelling_and_euros_come_from_the_local_amount(executor) -> None:
    assert "125.70 GBP, 2 payments" in executor.run(plan(filters={"places": ("Munich",)})).text
    euros = executor.run(plan(filters={"places": ("Munich",), "currency": "EUR"}))
    assert "146.80 EUR" in euros.text  # 46.80 + 100.00, as the bank printed them


def test_a_kind_of_spending_in_everyday_words(executor) -> None:
    takeaways = executor.run(plan(filters={"kinds": ("takeaways",)}, periods=("September 2026",))).text
    assert "18.50 GBP, 1 payment, net of 6.50 GBP refunded" in takeaways
    # The bank files the Munich beer hall under Holidays: on a trip, it is still a meal out.
    meal = executor.run(plan(metric="max", filters={"kinds": ("eating_out",), "places": ("Munich",)}))
    assert "40.07 GBP to Augustiner Bräustuben" in meal.text


def test_count_average_max_and_compare(executor) -> None:
    assert executor.run(plan(metric="count", filters={"merchants": ("PureGym",)})).rows[0][2] == 4
    average = executor.run(plan(metric="average", filters={"categories": ("Groceries",)}))
    assert "42.20 GBP a payment over 3 payments" in average.text  # 126.60 / 3
    monthly = executor.run(plan(metric="average", per="month", filters={"categories": ("Groceries",)},
                                periods=("between August and September 2026",)))
    assert "63.30 GBP a month" in monthly.text  # 126.60 over 2 months
    compared = executor.run(plan(metric="compare", filters={"categories": ("Groceries",)},
                                 periods=("September 2026", "August 2026")))
    assert compared.rows == [["September 2026", "GBP", "84.10", 2], ["August 2026", "GBP", "42.50", 1]]
    assert "41.60 GBP (97.9%) more in September 2026 than in August 2026" in compared.text


def test_recurring_cost_income_savings_and_net(executor) -> None:
    gym = executor.run(plan(metric="recurring", filters={"kinds": ("gym",)}))
    assert gym.text.startswith("Recurring payments on the gym: PureGym 24.99 GBP a month [1]")
    assert "3,142.18 GBP" in executor.run(plan(flow="income", filters={"kinds": ("salary",)})).text
    saved = executor.run(plan(flow="savings", periods=("September 2026",)))  # counted once, on the saver
    assert "400.00 GBP, 1 transfer" in saved.text and saved.sources[0].transaction_ids == ["t14"]
    pot = executor.run(plan(flow="savings", filters={"merchants": ("Christmas",)}))
    assert "50.00 GBP" in pot.text
    net = executor.run(plan(flow="net", periods=("September 2026",)))
    # Salary and interest came in; the move to the saver is neither income nor spending.
    assert net.rows == [["GBP", "3164.19", "253.29", "2910.90"]]


def test_balances_on_any_day_from_the_stated_one(executor) -> None:
    today = executor.run(plan(metric="balance", filters={"accounts": ("savings",)}))
    assert "9,574.26 GBP" in today.text
    before = executor.run(plan(metric="balance", filters={"accounts": ("savings",)},
                               periods=({"start": "2026-09-01", "end": "2026-09-01"},)))
    assert "9,152.25 GBP" in before.text  # 9,574.26 less the 400.00 and 22.01 that came after
    assert sorted(before.sources[0].transaction_ids) == ["t14", "t15"]


def test_something_not_there_is_said_to_be_none(executor) -> None:
    answer = executor.run(plan(filters={"merchants": ("Costa",)}))
    assert answer.text.startswith("No spending at Costa") and answer.rows == []


# -- an LLM's phrasing checked against the table ------------------------------------------
def test_a_figure_must_stay_with_its_label(executor) -> None:
    answer = executor.run(plan(filters={"merchants": ("Tesco", "Lidl")}, group_by="name"))
    assert mispaired("Tesco came to 103.50 GBP and Lidl to 23.10 GBP.", answer.figures) is None
    assert "Tesco with 23.10" in (mispaired("At Tesco 23.10 GBP; at Lidl 103.50 GBP.", answer.figures) or "")
    assert missing_figures("Tesco came to 103.50 GBP.", answer) == ["23.10"]  # Lidl was asked for too


def test_an_unknown_name_never_matches_a_persons_initial(executor) -> None:
    # "Asda" is printed nowhere: it must not find "FASTER PAYMENT FROM A MORGAN" by its first letter.
    for flow in ("spend", "in"):
        answer = executor.run(plan(flow=flow, filters={"merchants": ("Asda",)}))
        assert answer.rows == [] and answer.text.startswith("No ")


def test_a_balance_asked_after_the_statements_end_is_said_as_of_their_last_day(executor) -> None:
    later = PlanExecutor(executor.records, ANN, date(2026, 11, 27))
    answer = later.run(plan(metric="balance", filters={"accounts": ("savings",)}))
    assert answer.text.startswith("Balance as of 31 October 2026, the latest your statements show: ")
    assert answer.rows[0][3] == "2026-10-31"  # not 27 November: nothing after the statement is known
