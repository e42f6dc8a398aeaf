"""Balances as banks state them: an OFX ledger balance (SGML 1.x and XML 2.x), a CSV
running-balance column (its latest row by date, whichever way the file is sorted),
kept per account with the day they are as of, and read back through
``Transactions.balances`` (the latest per account)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from ragline.models import Scope
from ragline.models.records import Balance
from ragline.records.importers import ImportOptions, import_transactions

from tests.paths import EXPORTS

ANN = Scope("bank", ("transactions",), "ann")


def _read(name: str, **options: object):
    return import_transactions((EXPORTS / name).read_bytes(), name, ImportOptions(**options))  # type: ignore[arg-type]


def test_ofx_ledger_balance_sgml_and_xml() -> None:
    v1 = _read("ledger_v1.ofx")
    assert v1.balances == [Balance("60010234567890", Decimal("1937.34"), "GBP", date(2026, 9, 30), "ofx")]
    assert len(v1.transactions) == 6 and v1.errors == []
    v2 = _read("ledger_v2.ofx")  # a credit card: the ledger balance is what is owed
    assert v2.balances == [Balance("4929000000006781", Decimal("-412.73"), "EUR", date(2026, 10, 31), "ofx")]


def test_csv_running_balance_is_the_latest_row_either_way_round() -> None:
    newest_first = _read("running_balance_newest_first.csv", currency="GBP")
    assert newest_first.balances == [Balance("default", Decimal("1201.07"), "GBP", date(2026, 9, 30), "csv")]
    lines = (EXPORTS / "running_balance_newest_first.csv").read_text().splitlines()
    oldest_first = "\n".join([lines[0], *reversed(lines[1:])]).encode()
    result = import_transactions(oldest_first, "x.csv", ImportOptions(currency="GBP", account_id="joint"))
    assert result.balances == [Balance("joint", Decimal("1201.07"), "GBP", date(2026, 9, 30), "csv")]
    assert result.transactions[0].extra["Balance"] == "-1164.13"  # the row's balance stays with it
    assert import_transactions(b"Date,Description,Amount\n2026-09-01,X,-1\n", "x.csv",
                               ImportOptions(currency="GBP")).balances == []


def test_balances_are_stored_per_account_and_the_latest_wins(engine) -> None:
    first = engine.transactions.import_file(EXPORTS / "ledger_v1.ofx", ANN)
    assert first.to_dict()["balances"] == [{"account": "60010234567890", "amount": "1937.34", "currency": "GBP",
                                            "as_of": "2026-09-30", "source": "ofx"}]
    engine.transactions.import_file(EXPORTS / "ledger_v2.ofx", ANN)
    engine.transactions.import_file(EXPORTS / "running_balance_newest_first.csv", ANN,
                                    options=ImportOptions(currency="GBP", account_id="60010234567890"))
    balances = engine.transactions.balances(ANN)
    assert [(b.account, b.amount, b.currency, b.as_of, b.source) for b in balances] == [
        ("4929000000006781", Decimal("-412.73"), "EUR", date(2026, 10, 31), "ofx"),
        ("60010234567890", Decimal("1201.07"), "GBP", date(2026, 9, 30), "csv")]  # same day: the later import
    assert engine.transactions.balances(Scope("bank", ("transactions",), "bob")) == []
