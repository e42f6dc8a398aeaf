"""Transactions end to end on the embedded store: generated statements of two
owners (thousands of rows, two layouts, two currencies, refunds, transfers,
subscriptions, malformed rows) imported through the engine, then money questions
answered exactly and checked to the cent against the generator's own truth;
other questions go to retrieval and say why; one owner never sees another's."""

from __future__ import annotations

from collections import Counter
from datetime import date
from decimal import Decimal

import pytest

from ragline.engine import Engine
from ragline.models import Scope
from ragline.records.importers import ImportOptions
from ragline.settings import EmbedderSettings, Settings

from tests.statements import Row, flow_totals, owner_rows, spending_by, write_csv

TODAY = date(2025, 1, 15)  # "last month" is December 2024, "last year" 2024
ANN = Scope("bank", ("transactions",), "ann")
BOB = Scope("bank", ("transactions",), "bob")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One engine with both owners' statements imported (the expensive part, once)."""
    home = tmp_path_factory.mktemp("transactions")
    engine = Engine(Settings(home=home / "home", embedder=EmbedderSettings(name="hashing")))
    engine.transactions.today = TODAY
    ann = owner_rows(1, currency="GBP", start=date(2023, 1, 1), months=24, salary=Decimal("3100.00"),
                     rent=Decimal("1250.00"), foreign="EUR")
    bob = owner_rows(2, currency="EUR", start=date(2023, 1, 1), months=24, salary=Decimal("2800.00"),
                     rent=Decimal("950.00"), scale=Decimal("1.17"))
    ann_csv, bad_lines = write_csv(ann, "starling", broken_every=500)
    (home / "ann.csv").write_bytes(ann_csv)
    (home / "bob.csv").write_bytes(write_csv(bob, "sparkasse")[0])
    reports = {
        "ann": engine.transactions.import_file(home / "ann.csv", ANN),
        "bob": engine.transactions.import_file(home / "bob.csv", BOB,
                                               options=ImportOptions(columns={"transaction_id": "Kundenreferenz"})),
    }
    yield {"engine": engine, "ann": ann, "bob": bob, "reports": reports, "bad": bad_lines, "home": home}
    engine.close()


def _ask(world, question: str, scope: Scope = ANN) -> dict:
    return world["engine"].ask(question, scope).to_dict()


def _table(answer: dict) -> list[list]:
    return answer["records"]["table"]["rows"]


def test_import_counts_reports_bad_rows_and_dedups(world) -> None:
    ann_report, bob_report = world["reports"]["ann"], world["reports"]["bob"]
    assert len(world["ann"]) > 1400 and len(world["bob"]) > 1300  # thousands of rows between them
    assert (ann_report.added, ann_report.read, ann_report.format) == (len(world["ann"]), len(world["ann"]), "csv")
    assert [f["line"] for f in ann_report.failed] == world["bad"] and len(world["bad"]) >= 2
    assert all(f["error"] for f in ann_report.failed)
    assert (bob_report.added, bob_report.failed) == (len(world["bob"]), [])
    assert len(ann_report.months) == 24 and ann_report.documents["added"] == 48  # a statement + a summary a month
    engine = world["engine"]
    again = engine.transactions.import_file(world["home"] / "ann.csv", ANN)
    assert (again.added, again.updated, again.unchanged, again.documents) == (0, 0, len(world["ann"]), {})
    # The bank corrects one transaction: updated in place, one month's text re-indexed.
    row: Row = world["ann"][10]
    fixed = world["home"] / "fix.json"
    fixed.write_text(f'[{{"transaction_id": "{row.transaction_id}", "account_id": "{row.account_id}", '
                     f'"timestamp": "{row.day}", "description": "{row.description} CORRECTED", "amount": "{row.amount}", '
                     f'"currency": "{row.currency}", "transaction_category": "{row.category}", '
                     f'"merchant_name": "{row.merchant or ""}", "extra": {{"note": "corrected"}}}}]')
    changed = engine.transactions.import_file(fixed, ANN)
    assert (changed.added, changed.updated, changed.months) == (0, 1, [f"{row.day:%Y-%m}"])
    # The month's statement has one changed line; its summary (the same sums) is unchanged.
    assert (changed.documents["updated"], changed.documents["unchanged"], changed.documents["embedded"]) == (1, 1, 1)


def _expected_ranking(rows: list[Row], field: str, **period) -> list[list]:
    truth = spending_by(rows, field, **period)
    out = []
    counts = Counter(r.currency for r in rows if r.flow in ("spend", "refund"))
    for currency in sorted({c for _, c in truth}, key=lambda c: -counts[c]):  # the main currency first
        ranked = sorted(((g, v) for (g, c), v in truth.items() if c == currency and v > 0), key=lambda x: -x[1])
        total = sum(v for _, v in truth.items() if _[1] == currency and v > 0)
        out += [[g, currency, f"{v:.2f}", f"{v / total * 100:.1f}%"] for g, v in ranked[:5]]
    return out


@pytest.mark.parametrize("owner", ["ann", "bob"])
def test_where_am_i_spending_the_most(world, owner: str) -> None:
    answer = _ask(world, "Where am I spending the most money?", ANN if owner == "ann" else BOB)
    assert answer["route"]["name"] == "records" and answer["route"]["planner"] == "rules"
    plan = answer["route"]["plan"]
    assert (plan["metric"], plan["flow"], plan["group_by"]) == ("sum", "spend", "category")
    assert "top categories" in answer["route"]["reason"]
    assert answer["records"]["stated"] == "total spending, over all your transactions, by category"
    got = [[r[0], r[1], r[2], r[4]] for r in _table(answer)]
    assert got == _expected_ranking(world[owner], "category")
    top = got[0]
    assert f"{Decimal(top[2]):,}" in answer["answer"] and top[0] in answer["answer"] and "[1]" in answer["answer"]
    assert answer["generator"] == "records" and not answer["abstained"]
    assert answer["citations"][0]["source"].startswith(f"spending on {top[0]}")
    assert answer["records"]["chart"]["type"] == "bar"
    source = answer["records"]["sources"][0]
    assert source["count"] == sum(1 for r in world[owner] if r.category == top[0] and r.flow in ("spend", "refund")
                                  and r.currency == top[1])
    ids = {r.transaction_id for r in world[owner]}
    assert source["transaction_ids"] and set(source["transaction_ids"]) <= ids  # only this owner's rows
    assert len(source["transaction_ids"]) == source["count"]  # every transaction behind the figure
    assert answer["citations"][0]["transaction_ids"] == source["transaction_ids"]


def test_owners_never_see_each_others_transactions(world) -> None:
    engine = world["engine"]
    ann_ids = {t.transaction_id for t in engine.transactions.list(ANN)}
    bob_ids = {t.transaction_id for t in engine.transactions.list(BOB)}
    assert ann_ids == {r.transaction_id for r in world["ann"]}  # the malformed rows were skipped
    assert not ann_ids & bob_ids and bob_ids == {r.transaction_id for r in world["bob"]}
    nobody = _ask(world, "Where am I spending the most money?", Scope("bank", ("transactions",), "carol"))
    assert nobody["route"]["name"] == "retrieval" and "no transactions" in nobody["route"]["reason"]
    other_tenant = Scope("elsewhere", ("transactions",), "ann")
    assert engine.transactions.list(other_tenant) == []
    hits = engine.search("TESCO groceries", Scope("bank", ("transactions",), "bob"), k=50).hits
    assert hits and all(h.owner in ("bob", None) for h in hits)


def test_spend_in_a_period_on_a_category(world) -> None:
    answer = _ask(world, "How much did I spend on groceries last month?")
    plan = answer["route"]["plan"]
    assert (plan["metric"], plan["filters"]["categories"], plan["periods"][0]["start"], plan["periods"][0]["end"]) == (
        "sum", ["Groceries"], "2024-12-01", "2024-12-31")
    expected = spending_by(world["ann"], "category", date(2024, 12, 1), date(2024, 12, 31))[("Groceries", "GBP")]
    (row,) = _table(answer)
    assert (row[0], row[1]) == ("GBP", f"{expected:.2f}")
    # The plan in words, then the figure.
    assert answer["answer"].startswith(f"Spending on Groceries last month (December 2024): {expected:,.2f} GBP")


def test_income_versus_spending_last_year(world) -> None:
    answer = _ask(world, "Did I earn more than I spent last year?", BOB)
    truth = flow_totals(world["bob"], date(2024, 1, 1), date(2024, 12, 31))
    spent = -(truth[("spend", "EUR")] + truth.get(("refund", "EUR"), Decimal(0)))
    income = truth[("income", "EUR")]
    assert _table(answer) == [["EUR", f"{income:.2f}", f"{spent:.2f}", f"{income - spent:.2f}"]]
    assert ("transfer", "EUR") in truth  # transfers exist and are neither income nor spending
    assert answer["answer"].startswith("Income and spending last year (2024): income")


def test_largest_transactions_and_month_over_month(world) -> None:
    answer = _ask(world, "What were my 3 largest purchases this year?")  # 2025: nothing yet
    assert _table(answer) == [] and answer["answer"].startswith("No spending apart from cash withdrawals this year (2025)")
    answer = _ask(world, "What were my 3 largest purchases last year?")
    spends = sorted((r for r in world["ann"] if r.flow == "spend" and r.day.year == 2024),
                    key=lambda r: (r.currency, r.amount, -r.day.toordinal()))
    for currency in ("EUR", "GBP"):
        expected = [f"{-r.amount:.2f}" for r in spends if r.currency == currency][:3]
        assert [row[4] for row in _table(answer) if row[5] == currency] == expected
    answer = _ask(world, "Did I spend more in November than in December?")
    truth = spending_by(world["ann"], "currency", date(2024, 11, 1), date(2024, 12, 31))
    months = {m: spending_by(world["ann"], "currency", date(2024, m, 1), date(2024, m, 30 if m == 11 else 31))
              for m in (11, 12)}
    gbp = [row for row in _table(answer) if row[1] == "GBP"]
    assert [(r[0], r[2]) for r in gbp] == [("November 2024", f"{months[11][('GBP', 'GBP')]:.2f}"),
                                           ("December 2024", f"{months[12][('GBP', 'GBP')]:.2f}")]
    assert truth[("GBP", "GBP")] == months[11][("GBP", "GBP")] + months[12][("GBP", "GBP")]
    assert "December 2024" in answer["answer"] and "November 2024" in answer["answer"]


def test_recurring_payments(world) -> None:
    answer = _ask(world, "What subscriptions am I paying for?")  # subscriptions: streaming, software, news
    assert {(row[0], row[2]) for row in _table(answer)} == {("Netflix", "10.99"), ("Spotify", "11.99")}
    answer = _ask(world, "What are my recurring payments?")  # everything that repeats
    found = {(row[0], row[2]) for row in _table(answer)}
    assert {("Netflix", "10.99"), ("Spotify", "11.99"), ("PureGym", "24.99"), ("Homelet", "1250.00")} <= found
    assert all(name not in {"Tesco", "Amazon", "Uber"} for name, _ in found)  # irregular amounts: not recurring
    assert _ask(world, "What does the gym cost me?")["answer"].startswith(
        "Recurring payments on the gym: PureGym 24.99 GBP a month [1]")


def test_other_questions_go_to_retrieval_and_say_why(world) -> None:
    engine = world["engine"]
    answer = engine.ask("How much is the fee for an unarranged overdraft?", ANN).to_dict()
    assert answer["route"]["name"] == "retrieval" and "terms" in answer["route"]["reason"]
    assert "records" not in answer
    shared = engine.ask("Where am I spending the most money?", Scope("bank", ("transactions",))).to_dict()
    assert shared["route"]["name"] == "retrieval" and "no owner" in shared["route"]["reason"]


def test_migrate_copies_every_owners_transactions(world, tmp_path) -> None:
    engine = world["engine"]
    target = tmp_path / "copy.sqlite"
    report = engine.migrate(str(target))
    assert report.transactions == len(world["ann"]) + len(world["bob"])
    assert engine.migrate(str(target)).transactions == 0  # nothing new the second time
    copy = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                           store={"url": str(target)}))
    try:
        copy.transactions.today = TODAY
        for scope in (ANN, BOB):
            assert copy.ask("Where am I spending the most money?", scope).to_dict()["records"] == \
                engine.ask("Where am I spending the most money?", scope).to_dict()["records"]
    finally:
        copy.close()


def test_monthly_summaries_are_searchable(world) -> None:
    engine = world["engine"]
    hits = engine.search("did I spend a lot on travel in spring 2024?", ANN, k=5, mode="keyword").hits
    assert hits[0].owner == "ann" and hits[0].metadata["kind"] == "transactions-summary"
    assert all(h.metadata["month"][5:] in ("03", "04", "05") for h in hits[:3])  # spring summaries come first
    assert "2024-04" in {h.metadata["month"] for h in hits} and "Travel" in hits[0].text
    lines = engine.search("LOTHIAN BUSES", ANN, k=3, mode="keyword").hits
    assert lines and lines[0].source.startswith("transactions/20") and lines[0].section  # the transaction id
    (stored,) = [t for t in engine.transactions.list(ANN) if t.transaction_id == lines[0].section]
    assert stored.summary() in lines[0].text
