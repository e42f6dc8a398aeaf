"""Statement importers: common bank CSV layouts, European and US numbers and dates,
column mappings, JSON (array, object, JSON Lines) and OFX/QFX; malformed rows
are reported with their line and skipped, the rest imported."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ragline.errors import ConfigError, LoaderError
from ragline.records.importers import ImportOptions, format_for, import_transactions
from ragline.records.importers.formats import detect_date_order, detect_decimal, parse_date, parse_number


def _rows(data: str | bytes, source: str = "x.csv", **options: object):
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return import_transactions(raw, source, ImportOptions(**options))  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "decimal", "value"), [
    ("1,234.56", ".", "1234.56"), ("-1.234,56", ",", "-1234.56"), ("(12.50)", ".", "-12.50"),
    ("12.50-", ".", "-12.50"), ("£ 1,000", ".", "1000"), ("12.50 DR", ".", "-12.50"), ("12.50 CR", ".", "12.50"),
    ("−3,20 €", ",", "-3.20"), ("1'234.50", ".", "1234.50"), ("+7", ".", "7"), ("0.0001", ".", "0.0001"),
])
def test_numbers(text: str, decimal: str, value: str) -> None:
    assert parse_number(text, decimal) == Decimal(value)


@pytest.mark.parametrize("text", ["abc", "1.2.3", "", "12.34567"])
def test_bad_numbers(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_number(text, ".")


def test_conventions_are_detected_per_file() -> None:
    assert detect_decimal(["-12,50", "1.234,56", "3"]) == "," and detect_decimal(["-12.50", "1,234.56"]) == "."
    assert detect_date_order(["03/04/2024", "25/04/2024"]) == "dmy"
    assert detect_date_order(["03/04/2024", "04/25/2024"]) == "mdy"
    assert detect_date_order(["2024/04/03"]) == "ymd" and detect_date_order(["03.04.2024"]) == "dmy"
    assert detect_date_order(["03/04/2024"], default="mdy") == "mdy"  # nothing tells: the default
    assert parse_date("03/04/2024", "dmy").date().isoformat() == "2024-04-03"
    assert parse_date("03/04/2024", "mdy").date().isoformat() == "2024-03-04"
    assert parse_date("5 Mar 2024", "dmy").date().isoformat() == "2024-03-05"
    assert parse_date("Mar 5, 2024", "dmy").date().isoformat() == "2024-03-05"
    assert parse_date("2024-03-05T10:11:12Z", "dmy").isoformat() == "2024-03-05T10:11:12+00:00"
    assert parse_date("05/03/24 14:30", "dmy").isoformat() == "2024-03-05T14:30:00"


def test_monzo_layout_with_date_and_time_columns() -> None:
    result = _rows("Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,"
                   "Notes and #tags,Address,Receipt,Description,Category split,Money Out,Money In\n"
                   "tx_1,05/03/2024,08:15:02,Card payment,Pret A Manger,,Eating out,-4.35,GBP,-4.35,GBP,,,,"
                   "PRET A MANGER LONDON GBR,,-4.35,\n"
                   "tx_2,06/03/2024,12:00:00,Faster payment,ACME,,Income,2500.00,GBP,2500.00,GBP,salary,,,"
                   "ACME LTD,,,2500.00\n")
    first, second = result.transactions
    assert (first.transaction_id, first.timestamp.isoformat(), first.amount, first.merchant_name) == (
        "tx_1", "2024-03-05T08:15:02+00:00", Decimal("-4.35"), "Pret A Manger")
    assert first.transaction_category == "Eating out" and first.extra["Type"] == "Card payment"
    assert (first.description, second.flow, second.extra["Notes and #tags"]) == (
        "PRET A MANGER LONDON GBR", "income", "salary") and result.errors == []


def test_debit_and_credit_columns_a_preamble_and_generated_ids() -> None:
    text = ("Account: 12-34-56 12345678\n\n"
            "Transaction Date,Transaction Type,Transaction Description,Debit Amount,Credit Amount,Balance\n"
            "01/02/2024,DEB,LOTHIAN BUSES,2.50,,97.50\n"
            "01/02/2024,DEB,LOTHIAN BUSES,2.50,,95.00\n"
            "02/02/2024,BGC,REFUND,,10.00,105.00\n")
    result = _rows(text, currency="GBP", account_id="hsbc")
    amounts = [t.amount for t in result.transactions]
    assert amounts == [Decimal("-2.50"), Decimal("-2.50"), Decimal("10.00")]
    ids = [t.transaction_id for t in result.transactions]
    assert len(set(ids)) == 3 and ids == [t.transaction_id for t in _rows(text, currency="GBP",
                                                                           account_id="hsbc").transactions]
    assert {t.account_id for t in result.transactions} == {"hsbc"}


def test_us_layout_is_month_first() -> None:
    result = _rows("Details,Posting Date,Description,Amount,Type,Balance\n"
                   "DEBIT,01/02/2024,AMAZON MKTPLACE,-25.99,ACH_DEBIT,100\n"
                   "CREDIT,01/03/2024,PAYROLL,1000.00,ACH_CREDIT,1100\n"
                   "DEBIT,13/45/2024,BROKEN,-1,ACH_DEBIT,1\n", currency="USD")
    assert [t.day for t in result.transactions] == ["2024-01-02", "2024-01-03"]
    assert [(e.line, "date" in e.error) for e in result.errors] == [(4, True)]


def test_european_layout_with_a_column_mapping() -> None:
    text = ("Buchungstag;Text;Empfänger;Betrag (EUR);Ref\n"
            "01.02.2024;Miete Februar;Vermieter GmbH;-1.234,56;R1\n"
            "05.02.2024;Lohn;Firma;3.000,00;R2\n").encode("cp1252")
    result = _rows(text, "konto.csv", columns={"description": "Text", "merchant_name": "Empfänger",
                                               "transaction_id": "Ref"})
    rent, pay = result.transactions
    assert (rent.transaction_id, rent.amount, rent.currency, rent.merchant_name) == (
        "R1", Decimal("-1234.56"), "EUR", "Vermieter GmbH")
    assert (pay.amount, pay.day) == (Decimal("3000.00"), "2024-02-05")
    with pytest.raises(ConfigError, match="Betrag2"):
        _rows(text, columns={"amount": "Betrag2"})
    with pytest.raises(ConfigError, match="unknown transaction field"):
        _rows(text, columns={"price": "Text"})


def test_malformed_rows_are_reported_with_their_lines() -> None:
    text = ("Date,Description,Amount,Currency\n"
            "2024-01-01,ok,-1.00,GBP\n"
            '2024-01-02,"multi\nline",-2.00,GBP\n'
            "2024-01-03,bad amount,1.2.3,GBP\n"
            "not a date,bad date,-3.00,GBP\n"
            "2024-01-05,bad currency,-4.00,POUNDS\n"
            "2024-01-06,no amount,,GBP\n"
            "2024-01-07,ok,-5.00,GBP\n")
    result = _rows(text)
    assert [t.description for t in result.transactions] == ["ok", "multi line", "ok"]
    assert [e.line for e in result.errors] == [5, 6, 7, 8]
    assert "amount" in result.errors[0].error and "currency" in result.errors[2].error


def test_files_that_cannot_be_read() -> None:
    with pytest.raises(LoaderError, match="no header row"):
        _rows("just,some,words\n1,2,3\n")
    with pytest.raises(LoaderError, match="currency"):
        _rows("Date,Amount\n2024-01-01,-1\n")
    with pytest.raises(LoaderError, match="OFX"):
        _rows(b"OFXHEADER:100\n<OFX><BROKEN", "x.ofx")
    with pytest.raises(ConfigError, match="unknown transactions format"):
        import_transactions(b"", "x", format="xls")


def test_json_array_object_and_lines() -> None:
    array = ('[\n  {"transaction_id": "a", "timestamp": "2024-03-01T10:00:00+01:00", "amount": -3.2, '
             '"currency": "GBP", "merchant_name": "Pret", "transaction_classification": ["Food", "Coffee"]},\n'
             '  {"transaction_id": "b", "timestamp": "nope", "amount": 1, "currency": "GBP"},\n'
             '  {"transactionId": "c", "date": "2024-03-02", "amount": {"value": "-10", "currency": "eur"},\n'
             '   "transactionCategory": "Transport", "running_balance": {"amount": 5}}\n]')
    result = _rows(array, "t.json")
    a, c = result.transactions
    assert (a.amount, a.transaction_category, a.timestamp.utcoffset().seconds, a.day) == (
        Decimal("-3.2"), "Food", 3600, "2024-03-01")  # the bank's own day, not UTC's
    assert (c.transaction_id, c.currency, c.extra) == ("c", "EUR", {"running_balance": {"amount": 5}})
    assert [(e.line, "timestamp" in e.error) for e in result.errors] == [(3, True)]
    wrapped = _rows('{"results": ' + array + "}", "t.json")
    assert len(wrapped.transactions) == 2 and wrapped.errors[0].line == 3
    lines = _rows('{"id": "x", "date": "2024-01-01", "amount": "-1.10", "currency": "GBP"}\n{oops\n\n'
                  '{"id": "y", "date": "2024-01-02", "amount": "2", "currency": "GBP"}\n', "t.jsonl")
    assert [t.transaction_id for t in lines.transactions] == ["x", "y"] and lines.errors[0].line == 2


OFX_SGML = """OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20240301120000<LANGUAGE>ENG</SONRS>
</SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>123456789<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20240101<DTEND>20240301
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240105120000<TRNAMT>-42.17<FITID>A1<NAME>WHOLE FOODS<MEMO>groceries
</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20240115<TRNAMT>1500.00<FITID>A2<NAME>PAYROLL ACME</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>notadate<TRNAMT>-1.00<FITID>A3<NAME>BROKEN</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240120<TRNAMT>-9.99<FITID>A4<NAME>NETFLIX</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>1000.00<DTASOF>20240301</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
"""


@pytest.mark.parametrize("name", ["bank.ofx", "card.qfx"])
def test_ofx_statements(name: str) -> None:
    result = _rows(OFX_SGML, name)
    assert [(t.transaction_id, t.amount, t.currency, t.account_id) for t in result.transactions] == [
        ("A1", Decimal("-42.17"), "USD", "123456789"), ("A2", Decimal("1500.00"), "USD", "123456789"),
        ("A4", Decimal("-9.99"), "USD", "123456789")]
    first = result.transactions[0]
    # NAME is the raw payee text: the merchant is normalised from it when stored (records/merchants.py).
    assert (first.description, first.merchant_name, first.extra) == ("WHOLE FOODS groceries", None,
                                                                     {"trntype": "DEBIT"})
    assert [e.line for e in result.errors] == [20] and "notadate" in result.errors[0].error
    assert first.summary().startswith("Transaction: WHOLE FOODS groceries | Amount: -42.17 USD")


def test_format_detection() -> None:
    assert format_for("a.QFX", b"") == "ofx" and format_for("a.jsonl", b"") == "json"
    assert format_for("download", b"OFXHEADER:100") == "ofx" and format_for("download", b" [") == "json"
    assert format_for("download", b"Date,Amount") == "csv" and format_for("a.csv", b"", "QFX") == "ofx"


def test_real_exports_without_categories_or_a_currency_column() -> None:
    """As banks give them: Barclays (sort code in the account column, a payment type
    in Subcategory), Nationwide (preamble, Windows-1252 £, paid out / paid in), a plain
    Date,Description,Amount,Balance with £ amounts, Monzo's full header."""
    from tests.paths import EXPORTS

    def read(name: str, **options: object):
        return import_transactions((EXPORTS / name).read_bytes(), name, ImportOptions(**options))  # type: ignore[arg-type]

    barclays = read("barclays.csv")
    assert {(t.currency, t.account_id, t.transaction_category) for t in barclays.transactions} == {
        ("GBP", "20-32-06 13152170", None)}  # Subcategory is no spending category…
    assert barclays.transactions[0].extra["Subcategory"] == "PAYMENT"  # …it is kept as the payment type
    nationwide = read("nationwide_debit_credit.csv")
    assert [t.amount for t in nationwide.transactions] == [Decimal("-38.20"), Decimal("-24.99"), Decimal("2410.55"),
                                                           Decimal("-2700.00"), Decimal("-14.61")]
    assert nationwide.transactions[0].currency == "GBP" and nationwide.errors == []
    generic = read("generic_no_categories.csv")
    assert generic.transactions[7].amount == Decimal("2410.55") and generic.transactions[0].currency == "GBP"
    monzo = read("monzo.csv")
    assert len(monzo.transactions) == 9 and monzo.errors == [] and monzo.transactions[4].extra["Local currency"] == "EUR"
    with pytest.raises(LoaderError, match="RAGLINE_RECORDS__CURRENCY"):
        _rows("Date,Description,Amount\n2026-09-01,SHOP,-1.00\n")
    assert _rows("Date,Description,Amount\n2026-09-01,SHOP,-1.00\n",
                 default_currency="EUR").transactions[0].currency == "EUR"
