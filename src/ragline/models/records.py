"""The transaction record: field names from seed 000 (and TrueLayer's Data API),
exact amounts, how a transaction counts (spend, refund, income, transfer), and its
one-line text summary.

Amounts are ``Decimal`` in memory and integers of ``1 / AMOUNT_SCALE`` of the
currency unit in the store, so sums are exact in SQLite and PostgreSQL alike;
no float ever touches money.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from ..errors import ConfigError
from . import content_hash

AMOUNT_SCALE = 10_000
"""Stored amounts are integers of 1/10,000 of the currency unit (4 decimal places)."""

FLOWS = ("spend", "refund", "income", "transfer")
"""How a transaction counts: money out (``spend``), money back for a purchase
(``refund``, positive in a spending category), money in (``income``), or a move
between one's own accounts (``transfer``, never spending nor income)."""

TRANSFER_CATEGORIES = frozenset({"transfer", "transfers", "internal transfer", "own account transfer", "savings"})
INCOME_CATEGORIES = frozenset({"income", "salary", "wages", "pay", "interest", "dividends", "benefits",
                               "pension", "refund income"})
CURRENCY_EXPONENTS = {"JPY": 0, "KRW": 0, "ISK": 0, "HUF": 2, "BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3}
"""ISO 4217 minor units that are not 2 (only those; everything else has cents)."""
CURRENCY_SYMBOLS = {"GBP": "£", "EUR": "€", "USD": "$", "JPY": "¥"}
CATEGORY_SOURCES = ("bank", "inferred", "user")
"""Where a transaction's category came from: the bank's own (the file or API gave it),
inferred by ragline (rules and the embedding model), or the user's correction."""


def key(text: str | None) -> str | None:
    """The case-insensitive form categories and merchants are compared in (same on every backend)."""
    return " ".join(text.casefold().split()) or None if text else None


def parse_amount(value: Any) -> Decimal:
    """An exact amount from a number or string (``ConfigError`` when it is not one, or
    has more decimals than the store keeps)."""
    if isinstance(value, float):
        value = repr(value)  # the shortest decimal that round-trips: 12.3 → "12.3", never 12.2999…
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ConfigError(f"amount {str(value)[:40]!r} is not a number") from None
    if not amount.is_finite():
        raise ConfigError(f"amount {value!r} is not a finite number")
    if (amount * AMOUNT_SCALE) != (amount * AMOUNT_SCALE).to_integral_value():
        raise ConfigError(f"amount {value!r} has more than 4 decimal places")
    return amount


def scaled(amount: Decimal) -> int:
    """The stored integer of an amount."""
    return int(amount * AMOUNT_SCALE)


def unscaled(value: int | Decimal) -> Decimal:
    """The amount of a stored integer (or of an exact SQL sum of them)."""
    return Decimal(int(value)) / AMOUNT_SCALE


def money(amount: Decimal, currency: str) -> str:
    """``-1234.5 GBP`` → ``-1,234.50 GBP``: rounded to the currency's minor unit (half even)."""
    exponent = CURRENCY_EXPONENTS.get(currency.upper(), 2)
    quantum = Decimal(1).scaleb(-exponent)
    return f"{amount.quantize(quantum, rounding=ROUND_HALF_EVEN):,} {currency}"


def plain(amount: Decimal, currency: str) -> str:
    """An amount at the currency's precision, no grouping: ``1234.50`` (tables, JSON)."""
    exponent = CURRENCY_EXPONENTS.get(currency.upper(), 2)
    return str(amount.quantize(Decimal(1).scaleb(-exponent), rounding=ROUND_HALF_EVEN))


def exact(amount: Decimal, currency: str) -> str:
    """An amount with at least the currency's decimals and never fewer than it has:
    ``-12.4 EUR`` → ``-12.40``, ``-0.0001 EUR`` → ``-0.0001`` (the wire form of a transaction)."""
    places = max(CURRENCY_EXPONENTS.get(currency.upper(), 2), -min(0, int(amount.normalize().as_tuple().exponent)))
    return str(amount.quantize(Decimal(1).scaleb(-places)))


def parse_timestamp(value: Any) -> datetime:
    """A datetime from ISO 8601 text, a date, or a datetime; naive ones are taken as UTC."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
        except ValueError:
            raise ConfigError(f"timestamp {text[:40]!r} is not an ISO 8601 date or time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def flow_of(amount: Decimal, category: str | None, explicit: str | None = None) -> str:
    """How a transaction counts (``FLOWS``); ``explicit`` (an importer's or the bank's
    own classification) wins."""
    if explicit:
        if explicit not in FLOWS:
            raise ConfigError(f"flow {explicit!r} is not one of {', '.join(FLOWS)}")
        return explicit
    category = key(category)
    if category in TRANSFER_CATEGORIES:
        return "transfer"
    if amount > 0:
        return "income" if category is None or category in INCOME_CATEGORIES else "refund"
    return "spend"


@dataclass(frozen=True)
class Transaction:
    """One bank transaction of one owner (the owner is the scope's, not a field).

    ``timestamp`` keeps the bank's own offset: the day and month a transaction
    counts in are the ones printed on the statement. ``extra`` holds whatever else
    the source had (balance, reference, type…), JSON-serialisable.
    ``category_source`` (``CATEGORY_SOURCES``) says where the category came from: a
    category given without one is the bank's; no category, no source."""

    transaction_id: str
    account_id: str
    timestamp: datetime
    description: str
    amount: Decimal
    currency: str
    transaction_category: str | None = None
    merchant_name: str | None = None
    flow: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    category_source: str | None = None

    def __post_init__(self) -> None:
        for name in ("transaction_id", "account_id", "currency"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ConfigError(f"{name} is missing")
        if len(self.currency) != 3 or not self.currency.isalpha():
            raise ConfigError(f"currency {self.currency!r} is not a three-letter code")
        object.__setattr__(self, "currency", self.currency.upper())
        object.__setattr__(self, "amount", parse_amount(self.amount))
        object.__setattr__(self, "timestamp", parse_timestamp(self.timestamp))
        object.__setattr__(self, "description", " ".join(str(self.description or "").split()))
        object.__setattr__(self, "flow", flow_of(self.amount, self.transaction_category, self.flow or None))
        if not self.transaction_category:
            object.__setattr__(self, "category_source", None)
        elif self.category_source is None:
            object.__setattr__(self, "category_source", "bank")
        elif self.category_source not in CATEGORY_SOURCES:
            raise ConfigError(f"category source {self.category_source!r} is not one of {', '.join(CATEGORY_SOURCES)}")

    @property
    def day(self) -> str:
        return self.timestamp.date().isoformat()

    @property
    def month(self) -> str:
        return self.day[:7]

    def summary(self) -> str:
        """The one-line text that is embedded (seed 000's ``toTextSummary``)."""
        shown = bool(self.merchant_name) and (key(self.merchant_name) or "") not in (key(self.description) or "")
        where = f" at {self.merchant_name}" if shown else ""
        parts = [f"Transaction: {self.description or '(no description)'}{where}",
                 f"Amount: {money(self.amount, self.currency).replace(',', '')}",
                 f"Category: {self.transaction_category or 'Uncategorised'}",
                 f"Date: {self.timestamp.isoformat().replace('+00:00', 'Z')}"]
        if self.flow in ("refund", "transfer", "income"):
            parts.append(f"Type: {self.flow}")
        return " | ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape (JSON): amounts as exact decimal strings."""
        return {"transaction_id": self.transaction_id, "account_id": self.account_id,
                "timestamp": self.timestamp.isoformat(), "description": self.description,
                "amount": exact(self.amount, self.currency), "currency": self.currency,
                "transaction_category": self.transaction_category, "merchant_name": self.merchant_name,
                "flow": self.flow, "extra": self.extra, "category_source": self.category_source}

    @property
    def hash(self) -> str:
        """Changes when any field does: a re-import with the same hash is a no-op."""
        data = {**self.to_dict(), "amount": str(scaled(self.amount))}
        return content_hash(json.dumps(data, sort_keys=True, ensure_ascii=False, default=str))


GROUPS = ("category", "merchant", "month", "account", "flow", "currency")
"""What an aggregate may group by (always within a currency)."""


@dataclass(frozen=True)
class TransactionQuery:
    """Which transactions: every condition given must hold. ``start``/``end`` are
    days (``end`` inclusive); ``category``/``merchant`` compare case-insensitively;
    ``text`` is a case-insensitive substring of the description or merchant."""

    start: date | None = None
    end: date | None = None
    account_id: str | None = None
    currency: str | None = None
    category: str | None = None
    merchant: str | None = None
    flows: tuple[str, ...] | None = None
    text: str | None = None
    order: str = "time"  # "time" (newest first) or "amount" (most negative first: the largest spends)
    limit: int | None = None
    offset: int = 0

    def __post_init__(self) -> None:
        if self.order not in ("time", "amount"):
            raise ConfigError(f"order {self.order!r} must be 'time' or 'amount'")
        for flow in self.flows or ():
            if flow not in FLOWS:
                raise ConfigError(f"flow {flow!r} is not one of {', '.join(FLOWS)}")
        if self.limit is not None and self.limit < 0 or self.offset < 0:
            raise ConfigError("limit and offset must not be negative")


@dataclass(frozen=True)
class Aggregate:
    """One group of an aggregate: its key (None: no value, e.g. uncategorised), the
    currency, how many transactions and the exact sum of their amounts, and the
    first and last day among them."""

    key: str | None
    currency: str
    count: int
    total: Decimal
    first: str
    last: str


BALANCE_SOURCES = ("ofx", "csv", "json", "truelayer", "api")
"""Where a balance was read: an OFX ledger balance, a CSV running-balance column
(its latest row), a JSON statement or the API, or the bank API's balance endpoint."""


@dataclass(frozen=True)
class Balance:
    """What one account held on a day, as the bank said: ``amount`` (exact) in
    ``currency`` as of ``as_of``, and where it was read (``BALANCE_SOURCES``). Kept per
    (owner, account, currency, day); the latest day of each account is its balance."""

    account: str
    amount: Decimal
    currency: str
    as_of: date
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.account, str) or not self.account.strip():
            raise ConfigError("account is missing")
        if not isinstance(self.currency, str) or len(self.currency) != 3 or not self.currency.isalpha():
            raise ConfigError(f"currency {self.currency!r} is not a three-letter code")
        if self.source not in BALANCE_SOURCES:
            raise ConfigError(f"balance source {self.source!r} is not one of {', '.join(BALANCE_SOURCES)}")
        object.__setattr__(self, "currency", self.currency.upper())
        object.__setattr__(self, "amount", parse_amount(self.amount))
        as_of = self.as_of
        if isinstance(as_of, datetime):
            as_of = as_of.date()
        elif not isinstance(as_of, date):
            as_of = parse_timestamp(as_of).date()
        object.__setattr__(self, "as_of", as_of)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape (JSON): the amount as an exact decimal string, the day in ISO form."""
        return {"account": self.account, "amount": exact(self.amount, self.currency), "currency": self.currency,
                "as_of": self.as_of.isoformat(), "source": self.source}


def latest_balances(balances: list[Balance]) -> list[Balance]:
    """The latest balance of each (account, currency) among ``balances`` (a later one
    in the list wins a tie on the day), sorted by account and currency."""
    latest: dict[tuple[str, str], Balance] = {}
    for balance in balances:
        held = latest.get((balance.account, balance.currency))
        if held is None or balance.as_of >= held.as_of:
            latest[(balance.account, balance.currency)] = balance
    return [latest[k] for k in sorted(latest)]


@dataclass
class WriteReport:
    """What ``put_transactions`` (or ``delete_transactions``) did: counts, and every month (``YYYY-MM``) whose
    transactions changed (the old and the new month of a moved one), so only those
    months' searchable documents are rebuilt."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    months: set[str] = field(default_factory=set)
