"""Numbers and dates as bank exports write them, European and US alike.

A file uses one convention throughout, so both are detected per file from all its
values (``detect_decimal``, ``detect_date_order``) and then applied row by row:
``1.234,56`` and ``1,234.56`` are the same amount, ``03/04/2024`` is 3 April in a
file that also has ``25/04/2024`` and 4 March in one that has ``04/25/2024``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from ...errors import ConfigError
from ...models.records import parse_amount

_COMMA_DECIMAL = re.compile(r"\d,\d{1,2}(?!\d)(?![.,]\d)")  # "12,50", "1.234,5"
_DOT_DECIMAL = re.compile(r"\d\.\d{1,2}(?!\d)(?![.,]\d)")
_NUMERIC_DATE = re.compile(r"^\s*(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?:[ T](.*))?$")
_MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
_NAMED_DATE = re.compile(r"^\s*(\d{1,2})[ -]([A-Za-z]{3})[A-Za-z]*\.?[ ,-]*(\d{2,4})\s*$|"
                         r"^\s*([A-Za-z]{3})[A-Za-z]*\.? (\d{1,2}),? (\d{4})\s*$")
_CURRENCY_MARKS = re.compile(r"[£€$¥]|\b[A-Z]{3}\b|\s")


def detect_decimal(values: Iterable[str]) -> str:
    """``","`` when the file's amounts use a decimal comma (``12,50``), else ``"."``."""
    comma = dot = 0
    for value in values:
        comma += bool(_COMMA_DECIMAL.search(value))
        dot += bool(_DOT_DECIMAL.search(value))
    return "," if comma > dot else "."


def parse_number(value: str, decimal: str) -> Decimal:
    """An amount as written: currency marks and spaces ignored, thousands separators
    dropped, ``(12.50)``, ``12.50-`` and ``12.50 DR`` negative, ``12.50 CR`` positive."""
    text = value.strip()
    sign = 1
    upper = text.upper()
    if upper.endswith(("DR", "CR")):
        sign = -1 if upper.endswith("DR") else 1
        text = text[:-2]
    text = _CURRENCY_MARKS.sub("", text.replace("\u2212", "-"))
    if text.startswith("(") and text.endswith(")"):
        sign, text = -sign, text[1:-1]
    if text.endswith("-"):
        sign, text = -sign, text[:-1]
    text = text.removeprefix("+")
    thousands = "." if decimal == "," else ","
    text = text.replace(thousands, "").replace("'", "")
    if decimal == ",":
        text = text.replace(",", ".")
    if not re.fullmatch(r"-?\d+(\.\d+)?|-?\.\d+", text):
        raise ConfigError(f"amount {value.strip()[:40]!r} is not a number")
    return parse_amount(text) * sign


_SIGNS = {"£": "GBP", "€": "EUR", "$": "USD", "¥": "JPY", "₹": "INR", "zł": "PLN", "kr": "SEK", "CHF": "CHF"}
_SORT_CODE = re.compile(r"^\s*\d{2}-\d{2}-\d{2}\b")  # a UK sort code: "20-32-06 13152170"
_IBAN = re.compile(r"^\s*([A-Z]{2})\d{2}[A-Z0-9 ]{10,}$")
_IBAN_CURRENCY = {"GB": "GBP", "IE": "EUR", "DE": "EUR", "FR": "EUR", "ES": "EUR", "IT": "EUR", "NL": "EUR",
                  "BE": "EUR", "AT": "EUR", "PT": "EUR", "FI": "EUR", "LU": "EUR", "GR": "EUR", "CH": "CHF",
                  "SE": "SEK", "DK": "DKK", "NO": "NOK", "PL": "PLN", "CZ": "CZK", "HU": "HUF"}


def detect_currency(values: Iterable[str]) -> str | None:
    """The currency a file's cells tell when it has no currency column: a sign in its
    amounts (``£1,234.56``, ``-€3,20``), else its account numbers (a UK sort code, an
    IBAN's country); None when nothing tells, or two currencies do."""
    found: set[str] = set()
    for value in values:
        text = value.strip()
        if not text:
            continue
        for sign, code in _SIGNS.items():
            if sign in text and any(c.isdigit() for c in text):
                found.add(code)
        if _SORT_CODE.match(text):
            found.add("GBP")
        iban = _IBAN.match(text.replace(" ", ""))
        if iban and iban[1] in _IBAN_CURRENCY:
            found.add(_IBAN_CURRENCY[iban[1]])
    return found.pop() if len(found) == 1 else None


def detect_date_order(values: Iterable[str], default: str = "dmy") -> str:
    """``"dmy"``, ``"mdy"`` or ``"ymd"`` for the file's numeric dates: a first part
    over 12 means day first, a second part over 12 means month first, four digits
    first means year first; dotted dates are day first. ``default`` when nothing tells."""
    for value in values:
        match = _NUMERIC_DATE.match(value)
        if not match:
            continue
        first, sep, second = int(match[1]), match[2], int(match[3])
        if first > 31 and len(match[1]) != 4 or second > 31 or first > 12 and second > 12:
            continue  # not a date in any order: a malformed row tells nothing
        if len(match[1]) == 4:
            return "ymd"
        if sep == "." or first > 12:
            return "dmy"
        if second > 12:
            return "mdy"
    return default


def parse_date(value: str, order: str) -> datetime:
    """A naive datetime (the bank's local time) from a numeric, named-month or ISO date."""
    text = value.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        pass
    match = _NUMERIC_DATE.match(text)
    if match:
        a, b, c = int(match[1]), int(match[3]), int(match[4])
        year, month, day = {"ymd": (a, b, c), "dmy": (c, b, a), "mdy": (c, a, b)}[order]
        return _build(value, year, month, day, match[5])
    match = _NAMED_DATE.match(text)
    if match:
        if match[1]:
            day, month_name, year = int(match[1]), match[2], int(match[3])
        else:
            month_name, day, year = match[4], int(match[5]), int(match[6])
        named = _MONTHS.get(month_name.lower())
        if named:
            return _build(value, year, named, day, None)
    raise ConfigError(f"date {text[:40]!r} is not a date")


def _build(value: str, year: int, month: int, day: int, clock: str | None) -> datetime:
    if year < 100:
        year += 2000
    try:
        moment = datetime(year, month, day)
        if clock:
            moment = datetime.combine(moment.date(), datetime.strptime(clock.strip()[:8], "%H:%M:%S"
                                                                       if clock.count(":") == 2 else "%H:%M").time())
    except ValueError:
        raise ConfigError(f"date {value.strip()[:40]!r} is not a valid date") from None
    return moment
