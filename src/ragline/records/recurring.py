"""Recurring payments: payees paid again and again at a steady amount (subscriptions,
direct debits, the gym), how often, and what they cost a month.

A payee recurs when it was paid in at least ``MIN_MONTHS`` months (or, paid yearly,
at least twice a year apart) with amounts within ``SPREAD`` of their median. Its
cadence comes from the median gap between payments; its monthly cost is the last
amount times the payments a month that cadence makes (weekly ×52/12, yearly ÷12),
in ``Decimal``, rounded only when shown.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from ..models.records import Transaction, key
from .matching import payee

MIN_MONTHS = 3
SPREAD = Decimal("0.2")  # amounts within ±20 % of their median
PER_MONTH = {"weekly": Decimal(52) / Decimal(12), "monthly": Decimal(1), "quarterly": Decimal(1) / Decimal(3),
             "yearly": Decimal(1) / Decimal(12)}


@dataclass(frozen=True)
class Recurring:
    """One payee's repeating payments (newest first) in one currency."""

    payee: str
    currency: str
    payments: tuple[Transaction, ...]
    cadence: str  # weekly, monthly, quarterly, yearly

    @property
    def typical(self) -> Decimal:
        return Decimal(statistics.median(-t.amount for t in self.payments))

    @property
    def latest(self) -> Decimal:
        return -self.payments[0].amount

    @property
    def monthly(self) -> Decimal:
        """What it costs a month at the latest amount."""
        return self.latest * PER_MONTH[self.cadence]


def _cadence(items: list[Transaction]) -> str | None:
    days = sorted({t.timestamp.date() for t in items})
    if len(days) < 2:
        return None
    gap = statistics.median((b - a).days for a, b in zip(days, days[1:]))
    if gap <= 10:
        return "weekly"
    if gap <= 45:
        return "monthly"
    if gap <= 120:
        return "quarterly"
    return "yearly" if gap <= 400 else None


def recurring_payments(payments: list[Transaction]) -> list[Recurring]:
    """The recurring payees among ``payments`` (spend rows), biggest monthly cost first."""
    groups: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    names: dict[tuple[str, str], str] = {}
    for t in payments:
        if t.amount >= 0:
            continue
        name = payee(t.description, t.merchant_name)
        group = (key(name) or "", t.currency)
        groups[group].append(t)
        names.setdefault(group, name)
    found = []
    for group, items in groups.items():
        months = len({t.month for t in items})
        cadence = _cadence(items)
        if not group[0] or cadence is None:
            continue
        if months < MIN_MONTHS and not (cadence in ("yearly", "quarterly") and len(items) >= 2):
            continue
        amounts = [-t.amount for t in items]
        median = Decimal(statistics.median(amounts))
        if median > 0 and all(abs(a - median) <= median * SPREAD for a in amounts):
            ordered = tuple(sorted(items, key=lambda t: (t.timestamp, t.transaction_id), reverse=True))
            found.append(Recurring(names[group], group[1], ordered, cadence))
    found.sort(key=lambda r: (-r.monthly, r.payee))
    return found
