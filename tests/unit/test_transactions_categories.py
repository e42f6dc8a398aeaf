"""Merchants and categories when the bank gives none (``records.merchants``,
``records.categories``): names normalised from raw descriptions, fuzzy and alias
matching (Munich / MUENCHEN), categories from the bank, the user or inference with
``category_source``, and corrections that stick across re-imports and teach the
merchant's later transactions. Real files (``tests/fixtures/transactions/exports``),
a real SQLite store; the hashing embedder (the rules decide these)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ragline.errors import ConfigError
from ragline.models import Scope
from ragline.models.records import Transaction
from ragline.records.categories import Categorizer, categorise, category_id, user_label
from ragline.records.merchants import fold, merchant_matches, normalise_merchant

from tests.paths import EXPORTS

ANN = Scope("bank", ("default",), "ann")


@pytest.mark.parametrize(("description", "merchant"), [
    ("BOOTS UK 1234 LEEDS", "Boots"), ("CARD PAYMENT TO PUREGYM LTD ON 03 SEP", "PureGym"),
    ("DIRECT DEBIT THAMES WATER", "Thames Water"), ("TESCO STORES 3021", "Tesco"),
    ("NORTHWIND TRADERS SALARY SEP BGC", "Northwind Traders"), ("SQ *THE HUNGRY BEAR LONDON", "Hungry Bear"),
    ("PAYPAL *NETFLIX.COM", "Netflix"), ("AMZN Mktp UK*2K4XY1", "Amazon"), ("Kartenzahlung EDEKA CENTER KOELN", "Edeka"),
    ("TESCO PFS 3490 READING", "Tesco Petrol"), ("ZETTLE_*JOES COFFEE", "Joes Coffee"), ("", ""),
])
def test_merchant_names_from_raw_descriptions(description: str, merchant: str) -> None:
    assert normalise_merchant(description) == merchant


def test_fuzzy_and_alias_matching() -> None:
    assert fold("MÜNCHEN") == fold("MUENCHEN") == fold("Munchen") == "munchen" and fold("Straße") == "strasse"
    assert merchant_matches("Munich", "Baeckerei Rischart", "BAECKEREI RISCHART MUENCHEN DEU")
    assert merchant_matches("münchen", None, "CAFE MUNICH")
    assert merchant_matches("sainsburys", "Sainsbury's", "SAINSBURYS S/MKTS")
    assert merchant_matches("M&S", "Marks & Spencer", "M&S SIMPLY FOOD 0423")
    assert merchant_matches("pure gym", "PureGym", "PUREGYM LTD") and merchant_matches("Tesco", "Tesco", "TESCO 12")
    assert merchant_matches("nandos", "Nando's", "") and merchant_matches("starbuck", "Starbucks", "")
    assert not merchant_matches("tesco", "Boots", "BOOTS UK 1234") and not merchant_matches("", "Boots", "x")
    assert not merchant_matches("Paris", "Pret A Manger", "PRET A MANGER LONDON")


def test_inference_by_known_merchants_rules_and_money_in() -> None:
    def tx(description: str, amount: str) -> Transaction:
        return Transaction(transaction_id=description, account_id="a", timestamp="2026-09-01",
                           description=description, amount=Decimal(amount), currency="GBP")

    done = categorise([tx("TESCO STORES 3021", "-47.62"), tx("CASH WITHDRAWAL LINK ATM", "-40"),
                       tx("NORTHWIND TRADERS SALARY", "2410.55"), tx("TRANSFER TO SAVINGS ACCOUNT", "-1000"),
                       tx("AMAZON.CO.UK REFUND", "14.99"), tx("ACME LTD", "100"), tx("ZZQX", "-1")],
                      {}, Categorizer())
    assert [(t.transaction_category, t.category_source, t.flow) for t in done] == [
        ("Groceries", "inferred", "spend"), ("Cash", "inferred", "spend"), ("Income", "inferred", "income"),
        ("Savings", "inferred", "transfer"), ("Shopping", "inferred", "refund"), ("Income", "inferred", "income"),
        ("General", "inferred", "spend")]
    assert done[0].merchant_name == "Tesco" and done[0].description == "TESCO STORES 3021"  # the raw text kept
    assert category_id("EATING_OUT") == category_id("Eating out") == "eating_out" and category_id("Dining") is None
    assert user_label("personal care") == "Personal care" and user_label("My hobby") == "My hobby"
    with pytest.raises(ConfigError):
        user_label("  ")


def test_bank_categories_are_kept_and_marked(engine) -> None:
    engine.transactions.import_file(EXPORTS / "monzo.csv", ANN)
    rows = {t.transaction_id[-2:]: t for t in engine.transactions.list(ANN)}
    assert {t.category_source for t in rows.values()} == {"bank"}
    assert (rows["af"].transaction_category, rows["af"].merchant_name) == ("Eating out", "Rischart")
    assert rows["ac"].flow == "transfer" and rows["b3"].flow == "refund"  # a pot transfer; a refund


def test_corrections_stick_across_reimports_and_teach_the_merchant(engine) -> None:
    statement = EXPORTS / "generic_no_categories.csv"
    engine.transactions.import_file(statement, ANN)

    def categories() -> dict[str, tuple[str | None, str | None]]:
        return {t.description: (t.transaction_category, t.category_source) for t in engine.transactions.list(ANN)}

    assert categories()["BOOTS UK 1234 LEEDS"] == ("Personal care", "inferred")
    assert categories()["NETFLIX.COM"] == ("Entertainment", "inferred")
    by_merchant = engine.transactions.categorize(ANN, "boots", "shopping")
    assert (by_merchant["kind"], by_merchant["merchants"], by_merchant["category"], by_merchant["updated"]) == (
        "merchant", ["Boots"], "Shopping", 1)
    netflix = next(t for t in engine.transactions.list(ANN) if t.description == "NETFLIX.COM")
    by_id = engine.transactions.categorize(ANN, netflix.transaction_id, "bills")
    assert (by_id["kind"], by_id["updated"]) == ("transaction", 1)
    again = engine.transactions.import_file(statement, ANN)  # the bank's file again: the corrections stay
    assert again.unchanged == 9 and again.updated == 0
    assert categories()["BOOTS UK 1234 LEEDS"] == ("Shopping", "user")
    assert categories()["NETFLIX.COM"] == ("Bills", "user")
    later = ("Date,Description,Amount\n2026-10-06,BOOTS 55 YORK,£-3.10\n2026-10-10,NETFLIX.COM,£-10.99\n")
    engine.transactions.import_bytes(later.encode(), "october.csv", ANN)
    october = {t.description: (t.transaction_category, t.category_source) for t in engine.transactions.list(ANN)
               if t.day >= "2026-10-01"}
    assert october == {"BOOTS 55 YORK": ("Shopping", "user"),  # every transaction of the merchant
                       "NETFLIX.COM": ("Bills", "inferred")}  # taught by correcting one of its transactions
    assert engine.transactions.list(Scope("bank", ("default",), "bob")) == []  # another owner's rules: none
    summary = engine.search("Shopping Boots", Scope("bank", ("transactions",), "ann"), k=20).hits
    assert any("Category: Shopping" in h.text and "BOOTS" in h.text for h in summary)  # the text follows


def test_an_owner_with_only_transactions_gets_their_text_searched(engine) -> None:
    engine.transactions.import_file(EXPORTS / "ledger_v1.ofx", ANN)
    answer = engine.ask("anything from boots?", ANN).to_dict()  # not a money question: the text is searched
    assert answer["route"]["name"] == "retrieval" and not answer["abstained"]
    assert all(c["source"].startswith("transactions/") for c in answer["citations"])
    other = Scope("bank", ("default",), "bob")  # no transactions: the collection is still missing
    with pytest.raises(Exception, match="not found"):
        engine.ask("anything from boots?", other)
