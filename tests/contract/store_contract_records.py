"""The records half of the store contract: one owner's bank transactions kept as
data (``store.base.Records``): dedup by id, update in place, filters, exact sums per
currency, owner and tenant walls. Mixed into each backend's test class."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from ragline.errors import ConfigError
from ragline.models import Scope
from ragline.models.records import Balance, Transaction, TransactionQuery
from ragline.store import Store

from tests.contract_helpers import _Base

ANN = Scope("acme", ("kb",), "ann")
BOB = Scope("acme", ("kb",), "bob")


def tx(tid: str, day: str, amount: str, category: str | None = "Groceries", merchant: str | None = "Tesco", *,
       currency: str = "GBP", account: str = "cur", description: str = "CARD PAYMENT", **extra: object) -> Transaction:
    return Transaction(transaction_id=tid, account_id=account, timestamp=f"{day}T10:00:00+00:00",
                       description=description, amount=Decimal(amount), currency=currency,
                       transaction_category=category, merchant_name=merchant, extra=dict(extra))


SAMPLE = [
    tx("t1", "2024-01-05", "-0.10"),
    tx("t2", "2024-01-06", "-0.20", "GROCERIES", "tesco"),  # another casing: the same group
    tx("t3", "2024-01-20", "-45.5", "Transport", "Lothian Buses", description="LOTHIAN BUSES EDINBURGH"),
    tx("t4", "2024-02-01", "2500", "Salary", None, description="ACME LTD SALARY"),
    tx("t5", "2024-02-03", "12.00", "Groceries", "Tesco", description="REFUND"),
    tx("t6", "2024-02-04", "-300", "Transfer", None, account="cur", description="TO SAVINGS"),
    tx("t7", "2024-02-10", "-1999.99", "Travel", "Ryanair", currency="EUR"),
    tx("t8", "2024-02-11", "-0.0001", "Fees", "Bank", currency="EUR"),
]


class RecordsContract(_Base):
    @pytest.fixture
    def records(self, store: Store) -> Store:
        store.catalog.ensure_tenant("acme")
        store.catalog.ensure_tenant("other")
        return store

    def test_put_dedups_by_id_and_updates_in_place(self, records: Store) -> None:
        report = records.records.put_transactions(ANN, SAMPLE)
        assert (report.added, report.updated, report.unchanged) == (8, 0, 0)
        assert report.months == {"2024-01", "2024-02"}
        again = records.records.put_transactions(ANN, SAMPLE)
        assert (again.added, again.updated, again.unchanged, again.months) == (0, 0, 8, set())
        moved = tx("t3", "2024-03-01", "-46.00", "Transport", "Lothian Buses", description="LOTHIAN BUSES")
        changed = records.records.put_transactions(ANN, [moved, SAMPLE[0]])
        assert (changed.added, changed.updated, changed.unchanged) == (0, 1, 1)
        assert changed.months == {"2024-01", "2024-03"}  # the month it left and the one it moved to
        (stored,) = records.records.find_transactions(ANN, TransactionQuery(merchant="LOTHIAN buses"))
        assert (stored.amount, stored.day, stored.description) == (Decimal("-46.00"), "2024-03-01", "LOTHIAN BUSES")
        assert len(records.records.find_transactions(ANN, TransactionQuery())) == 8

    def test_round_trip_keeps_every_field(self, records: Store, make_store) -> None:
        original = tx("r1", "2024-05-31", "-12.3456", "Dining", "Café Ünïcode", currency="eur", reference="X-1",
                      balance="100.00")
        records.records.put_transactions(ANN, [original])
        reopened = make_store()
        try:
            (back,) = reopened.records.find_transactions(ANN, TransactionQuery())
        finally:
            reopened.close()
        assert back == original and back.currency == "EUR" and back.flow == "spend"
        assert back.extra == {"reference": "X-1", "balance": "100.00"} and back.hash == original.hash

    def test_owners_and_tenants_never_see_each_other(self, records: Store) -> None:
        records.records.put_transactions(ANN, SAMPLE)
        records.records.put_transactions(BOB, [tx("t1", "2024-01-05", "-99.00")])  # the same id, another owner
        other = Scope("other", ("kb",), "ann")
        assert [t.amount for t in records.records.find_transactions(BOB, TransactionQuery())] == [Decimal("-99.00")]
        assert records.records.find_transactions(other, TransactionQuery()) == []
        assert records.records.aggregate_transactions(other, TransactionQuery(), "currency") == []
        shared = Scope("acme", ("kb",))
        assert records.records.find_transactions(shared, TransactionQuery()) == []
        with pytest.raises(ConfigError, match="owner"):
            records.records.put_transactions(shared, SAMPLE)
        assert records.records.transaction_owners("acme") == ["ann", "bob"]
        assert records.records.transaction_owners("other") == []
        assert records.records.delete_transactions(BOB).deleted == 1
        assert len(records.records.find_transactions(ANN, TransactionQuery())) == 8

    def test_filters_and_order(self, records: Store) -> None:
        records.records.put_transactions(ANN, SAMPLE)

        def ids(**query: object) -> list[str]:
            return [t.transaction_id for t in records.records.find_transactions(ANN, TransactionQuery(**query))]

        assert ids() == ["t8", "t7", "t6", "t5", "t4", "t3", "t2", "t1"]  # newest first
        assert ids(start=date(2024, 1, 6), end=date(2024, 2, 1)) == ["t4", "t3", "t2"]  # both ends inclusive
        assert ids(category="groceries") == ["t5", "t2", "t1"]
        assert ids(category="groceries", flows=("spend",)) == ["t2", "t1"]
        assert ids(flows=("income", "transfer")) == ["t6", "t4"]
        assert ids(flows=()) == []
        assert ids(currency="eur") == ["t8", "t7"]
        assert ids(text="lothian") == ["t3"] and ids(text="100%") == [] and ids(text="_") == []
        assert ids(order="amount", limit=3) == ["t7", "t6", "t3"]  # the largest spends first
        assert ids(order="amount", limit=2, offset=1) == ["t6", "t3"]
        assert [t.flow for t in records.records.find_transactions(ANN, TransactionQuery(order="amount"))] == [
            "spend", "transfer", "spend", "spend", "spend", "spend", "refund", "income"]

    def test_sums_are_exact_and_per_currency(self, records: Store) -> None:
        records.records.put_transactions(ANN, SAMPLE)
        spending = TransactionQuery(flows=("spend", "refund"))
        by_category = {(a.key.casefold(), a.currency): (a.count, a.total)
                       for a in records.records.aggregate_transactions(ANN, spending, "category")}
        assert by_category == {("groceries", "GBP"): (3, Decimal("11.70")), ("transport", "GBP"): (1, Decimal("-45.5")),
                               ("travel", "EUR"): (1, Decimal("-1999.99")), ("fees", "EUR"): (1, Decimal("-0.0001"))}
        by_month = [(a.key, a.currency, a.total, a.first, a.last)
                    for a in records.records.aggregate_transactions(ANN, TransactionQuery(), "month")]
        assert by_month == [("2024-01", "GBP", Decimal("-45.80"), "2024-01-05", "2024-01-20"),
                            ("2024-02", "EUR", Decimal("-1999.9901"), "2024-02-10", "2024-02-11"),
                            ("2024-02", "GBP", Decimal("2212.00"), "2024-02-01", "2024-02-04")]
        (gbp, eur) = sorted(records.records.aggregate_transactions(ANN, TransactionQuery(), "currency"),
                            key=lambda a: a.currency, reverse=True)
        assert (gbp.total, eur.total, gbp.count + eur.count) == (Decimal("2166.20"), Decimal("-1999.9901"), 8)
        with pytest.raises(ConfigError, match="group"):
            records.records.aggregate_transactions(ANN, TransactionQuery(), "description")

    def test_delete_reports_months(self, records: Store) -> None:
        records.records.put_transactions(ANN, SAMPLE)
        report = records.records.delete_transactions(ANN, ["t1", "t7", "missing"])
        assert (report.deleted, report.months) == (2, {"2024-01", "2024-02"})
        assert len(records.records.find_transactions(ANN, TransactionQuery())) == 6
        assert records.records.delete_transactions(ANN).deleted == 6
        assert records.records.find_transactions(ANN, TransactionQuery()) == []

    def test_balances_latest_per_account_exact_and_walled(self, records: Store, make_store) -> None:
        kept = [Balance("cur", Decimal("1234.56"), "GBP", date(2024, 2, 1), "ofx"),
                Balance("cur", Decimal("-12.3456"), "gbp", date(2024, 3, 1), "csv"),  # later: the balance
                Balance("cur", Decimal("50.00"), "EUR", date(2024, 1, 1), "csv"),  # same account, another currency
                Balance("sav", Decimal("0.01"), "GBP", date(2024, 2, 15), "truelayer")]
        assert records.records.put_balances(ANN, kept) == 4
        assert records.records.put_balances(ANN, []) == 0
        latest = records.records.find_balances(ANN)
        assert [(b.account, b.currency, b.amount, b.as_of, b.source) for b in latest] == [
            ("cur", "EUR", Decimal("50.00"), date(2024, 1, 1), "csv"),
            ("cur", "GBP", Decimal("-12.3456"), date(2024, 3, 1), "csv"),
            ("sav", "GBP", Decimal("0.01"), date(2024, 2, 15), "truelayer")]
        assert len(records.records.find_balances(ANN, latest=False)) == 4
        # The same day again replaces it (a corrected export), another day adds history.
        records.records.put_balances(ANN, [Balance("cur", Decimal("-10.00"), "GBP", date(2024, 3, 1), "api")])
        reopened = make_store()
        try:
            (cur_gbp,) = [b for b in reopened.records.find_balances(ANN) if (b.account, b.currency) == ("cur", "GBP")]
        finally:
            reopened.close()
        assert (cur_gbp.amount, cur_gbp.source) == (Decimal("-10.00"), "api")
        # Walls: another owner, another tenant and an owner-less scope see none; writing without an owner fails.
        assert records.records.find_balances(BOB) == []
        assert records.records.find_balances(Scope("other", ("kb",), "ann")) == []
        assert records.records.find_balances(Scope("acme", ("kb",))) == []
        with pytest.raises(ConfigError, match="owner"):
            records.records.put_balances(Scope("acme", ("kb",)), kept)
        assert records.records.transaction_owners("acme") == ["ann"]  # balances alone make an owner
        records.records.put_transactions(ANN, SAMPLE[:1])
        records.records.delete_transactions(ANN, ["t1"])  # some transactions: the balances stay
        assert len(records.records.find_balances(ANN)) == 3
        records.records.delete_transactions(ANN)  # everything of the owner's: the balances go too
        assert records.records.find_balances(ANN, latest=False) == []

    def test_category_sources_rules_and_text_states(self, records: Store, make_store) -> None:
        inferred = Transaction(transaction_id="i1", account_id="cur", timestamp="2024-04-01", description="BOOTS 12",
                               amount=Decimal("-3.00"), currency="GBP", transaction_category="Personal care",
                               merchant_name="Boots", category_source="inferred")
        records.records.put_transactions(ANN, [inferred, SAMPLE[0], tx("n1", "2024-04-02", "-1.00", None, None)])
        reopened = make_store()
        try:
            back = {t.transaction_id: t for t in reopened.records.find_transactions(ANN, TransactionQuery())}
        finally:
            reopened.close()
        assert (back["i1"].category_source, back["t1"].category_source, back["n1"].category_source) == (
            "inferred", "bank", None)
        assert back["i1"] == inferred
        records.records.put_category_rules(ANN, {("merchant", "boots"): "Shopping", ("transaction", "t1"): "Gifts"})
        records.records.put_category_rules(ANN, {("merchant", "boots"): "Personal care"})  # replaced
        assert records.records.category_rules(ANN) == {("merchant", "boots"): "Personal care",
                                                       ("transaction", "t1"): "Gifts"}
        records.records.put_category_rules(ANN, {("transaction", "t1"): None})  # removed
        assert records.records.category_rules(ANN) == {("merchant", "boots"): "Personal care"}
        with pytest.raises(ConfigError, match="merchant"):
            records.records.put_category_rules(ANN, {("shop", "x"): "Gifts"})
        records.records.put_text_states(ANN, {"2024-04": "embedding failed: down", "2024-01": None})
        records.records.put_text_states(ANN, {"2024-04": None})
        assert records.records.text_states(ANN) == {"2024-01": None, "2024-04": None}
        assert records.records.category_rules(BOB) == {} and records.records.text_states(BOB) == {}
        assert records.records.text_states(Scope("other", ("kb",), "ann")) == {}
        records.records.delete_transactions(ANN)
        assert records.records.category_rules(ANN) == {} and records.records.text_states(ANN) == {}
