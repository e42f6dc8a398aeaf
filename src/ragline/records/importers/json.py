"""JSON statements: an array of transactions, an object holding one under
``transactions`` or ``results`` (TrueLayer's shape), or JSON Lines. Field names are
seed 000's and TrueLayer's (``transaction_id``, ``timestamp``, ``amount``,
``transaction_category``, ``merchant_name``…), in snake or camel case, with a few
common aliases (``id``, ``date``, ``category``, ``merchant``). Numbers are read as
exact decimals, never floats. Unknown fields go to ``extra``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

from ...errors import ConfigError, LoaderError
from ...models.records import Transaction
from .common import IdMaker, ImportOptions, ImportResult, RowError, decode

ALIASES: dict[str, tuple[str, ...]] = {
    "transaction_id": ("transaction_id", "transactionId", "id", "fitid"),
    "account_id": ("account_id", "accountId", "account"),
    "timestamp": ("timestamp", "date", "booked", "booking_date", "bookingDate", "posted"),
    "description": ("description", "memo", "narrative", "name"),
    "amount": ("amount", "value"),
    "currency": ("currency", "currency_code", "currencyCode"),
    "transaction_category": ("transaction_category", "transactionCategory", "category",
                             "transaction_classification"),
    "merchant_name": ("merchant_name", "merchantName", "merchant", "payee"),
    "flow": ("flow",),
}
_DECODER = json.JSONDecoder(parse_float=Decimal)


def import_json(data: bytes, source: str, options: ImportOptions) -> ImportResult:
    text = decode(data, source)
    items = _items(text, source)
    make_id = IdMaker()
    result = ImportResult(format="json")
    for line, item in items:
        try:
            if not isinstance(item, dict):
                raise ConfigError("not an object")
            result.transactions.append(from_mapping(item, options, make_id))
        except ConfigError as exc:
            result.errors.append(RowError(line, str(exc)))
    return result


def _items(text: str, source: str) -> list[tuple[int, Any]]:
    """(line where it starts, decoded value) per transaction; a line of JSON Lines that
    does not parse is returned as its error text."""
    stripped = text.lstrip()
    try:
        whole = _DECODER.decode(text) if stripped[:1] in ("[", "{") else None
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        inner = whole.get("transactions", whole.get("results"))
        if not isinstance(inner, list):
            raise LoaderError(source, "a JSON object needs a 'transactions' (or 'results') array")
        start = text.index("[", text.index('"transactions"' if "transactions" in whole else '"results"'))
        return _array(text, start, source)
    if isinstance(whole, list):
        return _array(text, text.index("["), source)
    out: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append((number, _DECODER.decode(line)))
            except json.JSONDecodeError as exc:
                out.append((number, f"invalid JSON: {exc.msg}"))
    if not out:
        raise LoaderError(source, "no transactions: empty file")
    return out


def _array(text: str, start: int, source: str) -> list[tuple[int, Any]]:
    """The elements of the array at ``text[start] == "["``, each with its line."""
    out: list[tuple[int, Any]] = []
    index = start + 1
    while True:
        while index < len(text) and text[index] in " \t\r\n,":
            index += 1
        if index >= len(text) or text[index] == "]":
            return out
        try:
            value, end = _DECODER.raw_decode(text, index)
        except json.JSONDecodeError as exc:  # unreachable for a document that parsed whole
            raise LoaderError(source, f"invalid JSON: {exc}") from None
        out.append((text.count("\n", 0, index) + 1, value))
        index = end


def _pick(item: dict[str, Any], field: str) -> Any:
    for name in ALIASES[field]:
        if item.get(name) not in (None, ""):
            return item[name]
    return None


def from_mapping(item: dict[str, Any], options: ImportOptions, make_id: IdMaker) -> Transaction:
    """A transaction from one JSON object (``ConfigError`` naming what is missing or bad)."""
    for required in ("timestamp", "amount"):
        if _pick(item, required) is None:
            raise ConfigError(f"no {required}")
    known = {name for names in ALIASES.values() for name in names}
    given = item.get("extra")
    extra = {**{k: v for k, v in item.items() if k not in known and k != "extra"},
             **(given if isinstance(given, dict) else {})}
    account = str(_pick(item, "account_id") or options.account_id or "default")
    amount = _pick(item, "amount")
    if isinstance(amount, dict):  # {"amount": {"value": "-1.20", "currency": "GBP"}}
        item = {**item, "currency": item.get("currency") or amount.get("currency")}
        amount = amount.get("value")
    draft = Transaction(transaction_id="pending", account_id=account, timestamp=_pick(item, "timestamp"),
                        description=str(_pick(item, "description") or ""), amount=amount,
                        currency=str(_pick(item, "currency") or options.currency or ""),
                        transaction_category=_text(_pick(item, "transaction_category")),
                        merchant_name=_text(_pick(item, "merchant_name")), flow=_pick(item, "flow") or "",
                        extra=json.loads(json.dumps(extra, default=str)))
    tid = _pick(item, "transaction_id")
    return replace(draft, transaction_id=str(tid) if tid is not None else make_id(account, draft.day, draft.amount,
                                                                                   draft.description))


def _text(value: Any) -> str | None:
    if isinstance(value, list):  # a classification path, e.g. ["Shopping", "Groceries"]: its top level
        value = value[0] if value else None
    return str(value) if value not in (None, "") else None

