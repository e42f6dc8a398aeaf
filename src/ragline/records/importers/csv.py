"""CSV statements: the header is mapped to transaction fields by the names common
bank exports use (Monzo, Starling, Revolut, Barclays, HSBC, Chase, Sparkasse, …),
or by an explicit mapping; an amount may be one signed column or money out / money
in columns; numbers and dates are read in the file's own convention (``formats``).

Rows above the header (an account preamble) are skipped. Unmapped columns go to
``extra`` under their own names.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal
from typing import Any

from ...errors import ConfigError, LoaderError
from ...models.records import Balance, Transaction
from .common import IdMaker, ImportOptions, ImportResult, RowError, decode
from .formats import detect_currency, detect_date_order, detect_decimal, parse_date, parse_number

SYNONYMS: dict[str, tuple[str, ...]] = {
    "transaction_id": ("transaction id", "transaction_id", "transactionid", "id", "fitid", "transaction reference"),
    "timestamp": ("timestamp", "date", "transaction date", "booking date", "posting date", "posted date",
                  "completed date", "started date", "buchungstag", "buchungsdatum", "datum", "fecha",
                  "date operation", "value date", "valutadatum"),
    "time": ("time", "transaction time"),
    "description": ("description", "transaction description", "memo", "narrative", "details", "reference",
                    "verwendungszweck", "concepto", "libelle", "payee", "name", "counter party"),
    "merchant_name": ("merchant", "merchant name", "merchant_name", "merchantname", "name", "counter party",
                      "counterparty", "payee", "auftraggeber begünstigter", "begünstigter zahlungspflichtiger",
                      "beguenstigter zahlungspflichtiger"),
    "amount": ("amount", "value", "betrag", "importe", "montant", "transaction amount"),
    "debit": ("debit", "debit amount", "money out", "paid out", "withdrawal", "withdrawals", "out", "soll"),
    "credit": ("credit", "credit amount", "money in", "paid in", "deposit", "deposits", "in", "haben"),
    "currency": ("currency", "ccy", "currency code", "währung", "waehrung", "divisa", "devise"),
    "transaction_category": ("transaction_category", "category", "transaction category", "spending category",
                             "kategorie"),
    "account_id": ("account_id", "account", "account id", "account number", "accountid", "iban", "konto"),
}
"""Field → header names it is read from, best first (compared after ``normalise``).
Barclays' ``Subcategory`` is a payment type (``PAYMENT``, ``DIRECTDEBIT``), not a
spending category: it stays in ``extra``, and the category is inferred."""

BALANCE_HEADERS = ("balance", "running balance", "account balance", "balance after", "saldo", "kontostand",
                   "solde")
"""A running-balance column (kept in ``extra`` too): its latest row is the account's balance."""

_HINT = re.compile(r"\(([A-Za-z]{3})\)")  # "Amount (GBP)"


def normalise(header: str) -> str:
    """``" Amount (GBP) "`` → ``"amount"``; ``"Auftraggeber / Begünstigter"`` → ``"auftraggeber begünstigter"``."""
    return " ".join(re.sub(r"\W+", " ", _HINT.sub(" ", header).casefold()).split())


def map_columns(header: list[str], explicit: dict[str, str]) -> dict[str, int]:
    """Field → column index: explicit names first, then the synonyms, each column used once."""
    names = [normalise(h) for h in header]
    mapping: dict[str, int] = {}
    for field, column in explicit.items():
        if field not in SYNONYMS:
            raise ConfigError(f"unknown transaction field {field!r} in the column mapping; "
                              f"use: {', '.join(SYNONYMS)}")
        if normalise(column) not in names:
            raise ConfigError(f"the column mapping names {column!r} for {field}, which is not in the header")
        mapping[field] = names.index(normalise(column))
    for field, synonyms in SYNONYMS.items():
        if field in mapping:
            continue
        for synonym in synonyms:
            if synonym in names and names.index(synonym) not in mapping.values():
                mapping[field] = names.index(synonym)
                break
    return mapping


def _usable(mapping: dict[str, int]) -> bool:
    return "timestamp" in mapping and bool({"amount", "debit", "credit"} & set(mapping))


def import_csv(data: bytes, source: str, options: ImportOptions) -> ImportResult:
    text = decode(data, source)
    try:
        dialect: Any = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    rows: list[tuple[int, list[str]]] = []
    line = 1
    for row in reader:
        rows.append((line, row))
        line = reader.line_num + 1
    header_at = next((i for i, (_, row) in enumerate(rows[:20]) if _usable(map_columns(row, {}))), None)
    if options.columns and rows:
        header_at = header_at if header_at is not None else 0
    if header_at is None:
        first = rows[0][1] if rows else []
        raise LoaderError(source, "no header row with a date and an amount column (first row: "
                          f"{', '.join(first)[:200]!r}); name them with a column mapping")
    header = rows[header_at][1]
    mapping = map_columns(header, options.columns)
    if not _usable(mapping):
        raise LoaderError(source, "the column mapping leaves no date or no amount column")
    body = [(n, r) for n, r in rows[header_at + 1:] if any(c.strip() for c in r)]
    return _rows(source, header, mapping, body, options)


def _rows(source: str, header: list[str], mapping: dict[str, int], body: list[tuple[int, list[str]]],
          options: ImportOptions) -> ImportResult:
    def cell(row: list[str], field: str) -> str:
        index = mapping.get(field)
        return row[index].strip() if index is not None and index < len(row) else ""

    amounts = [cell(r, f) for _, r in body for f in ("amount", "debit", "credit")]
    decimal = options.decimal or detect_decimal(amounts)
    hinted = next((m[1].upper() for h in header for m in [_HINT.search(h)] if m), None)
    default_currency = (options.currency or hinted or detect_currency(amounts)
                        or detect_currency(cell(r, "account_id") for _, r in body[:50]) or options.default_currency)
    if "currency" not in mapping and not default_currency:
        raise LoaderError(source, "no currency column, no currency sign in the amounts and no currency given "
                                  "(--currency GBP, or RAGLINE_RECORDS__CURRENCY for every import)")
    # Numeric dates that never tell their order: US files are month first, the rest day first.
    currencies = {(cell(r, "currency") or default_currency or "").upper() for _, r in body[:50]}
    order = options.date_order or detect_date_order((cell(r, "timestamp") for _, r in body),
                                                    default="mdy" if currencies == {"USD"} else "dmy")
    used = set(mapping.values())
    names = [normalise(h) for h in header]
    balance_at = next((names.index(n) for n in BALANCE_HEADERS if n in names and names.index(n) not in used), None)
    make_id = IdMaker()
    result = ImportResult(format="csv")
    running: list[tuple[Transaction, str]] = []  # (transaction, its balance cell), in file order
    for line, row in body:
        try:
            tx = _transaction(row, cell, decimal, order, default_currency, options, make_id,
                              {h: v for i, (h, v) in enumerate(zip(header, row)) if i not in used and v.strip()})
        except ConfigError as exc:
            result.errors.append(RowError(line, str(exc)))
            continue
        result.transactions.append(tx)
        if balance_at is not None and balance_at < len(row) and row[balance_at].strip():
            running.append((tx, row[balance_at].strip()))
    result.balances = _balances(running, decimal)
    return result


def _balances(running: list[tuple[Transaction, str]], decimal: str) -> list[Balance]:
    """Each account's balance after its latest row by date. Statements list rows oldest
    or newest first: on the latest day, the row the file lists last in its own order."""
    if not running:
        return []
    newest_first = running[0][0].timestamp > running[-1][0].timestamp
    latest: dict[tuple[str, str], tuple[tuple[Any, int], Transaction, str]] = {}
    for position, (tx, cell) in enumerate(running):
        rank = (tx.timestamp, -position if newest_first else position)
        held = latest.get((tx.account_id, tx.currency))
        if held is None or rank > held[0]:
            latest[(tx.account_id, tx.currency)] = (rank, tx, cell)
    out = []
    for (account, currency), (_, tx, cell) in sorted(latest.items()):
        try:
            amount = parse_number(cell, decimal)
        except ConfigError:
            continue  # a balance cell that is not a number states no balance
        out.append(Balance(account=account, amount=amount, currency=currency, as_of=tx.timestamp, source="csv"))
    return out


def _transaction(row: list[str], cell: Any, decimal: str, order: str, currency: str | None, options: ImportOptions,
                 make_id: IdMaker, extra: dict[str, str]) -> Transaction:
    moment = parse_date(cell(row, "timestamp"), order)
    if cell(row, "time") and not moment.hour and not moment.minute:
        moment = parse_date(f"{moment.date().isoformat()} {cell(row, 'time')}", "ymd")
    if cell(row, "amount"):
        amount = parse_number(cell(row, "amount"), decimal)
    elif cell(row, "debit") or cell(row, "credit"):
        out = abs(parse_number(cell(row, "debit"), decimal)) if cell(row, "debit") else Decimal(0)
        paid_in = abs(parse_number(cell(row, "credit"), decimal)) if cell(row, "credit") else Decimal(0)
        amount = paid_in - out
    else:
        raise ConfigError("no amount")
    description = cell(row, "description") or cell(row, "merchant_name")
    account = cell(row, "account_id") or options.account_id or "default"
    tid = cell(row, "transaction_id") or make_id(account, moment.date().isoformat(), amount, description)
    return Transaction(transaction_id=tid, account_id=account, timestamp=moment, description=description,
                       amount=amount, currency=cell(row, "currency") or currency or "",
                       transaction_category=cell(row, "transaction_category") or None,
                       merchant_name=cell(row, "merchant_name") or None, extra=extra)
