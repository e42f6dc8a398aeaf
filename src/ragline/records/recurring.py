"""Recurring payments: payees paid again and again at a steady amount (subscriptions,
direct debits, the gym), how often, and what they cost a month.

A payee recurs when it was paid in at least ``MIN_MONTHS`` months (or, paid yearly,
at least twice a year apart) with amounts within ``SPREAD`` of their median — or,
when its amounts vary, when one exact amount alone repeats every month (the £400
standing order among one-off transfers to the same saver). Its cadence comes from the median
gap between payments; its monthly cost is the last amount times the payments a month
that cadence makes (weekly ×52/12, yearly ÷12), in ``Decimal``, rounded only when
shown. It is still paid (``active``) when the last payment is no older than one and
a half gaps (plus a week) on the day asked about.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ..models.records import Transaction, key
from .matching import payee

MIN_MONTHS = 3
SPREAD = Decimal("0.2")  # amounts within ±20 % of their median
GAP_DAYS = {"weekly": 7, "monthly": 31, "quarterly": 92, "yearly": 366}
PER_MONTH = {"weekly": Decimal(52) / Decimal(12), "monthly": Decimal(1), "quarterly": Decimal(1) / Decimal(3),
             "yearly": Decimal(1) / Decimal(12)}


@dataclass(frozen=True)
class Recurring:
    """One payee's repeating payments (newest first) in one currency, with the value
    each counts for (positive)."""

    payee: str
    currency: str
    payments: tuple[Transaction, ...]
    values: tuple[Decimal, ...]
    cadence: str  # weekly, monthly, quarterly, yearly

    @property
    def typical(self) -> Decimal:
        return Decimal(statistics.median(self.values))

    @property
    def latest(self) -> Decimal:
        return self.values[0]

    @property
    def monthly(self) -> Decimal:
        """What it costs a month at the latest amount."""
        return self.latest * PER_MONTH[self.cadence]

    @property
    def change(self) -> tuple[Decimal, Decimal, date] | None:
        """(amount before, amount now, first day at the new amount) when the latest amount
        differs from the one before it (a price rise, a pay rise), else None."""
        newest = self.values[0]
        for t, v in zip(self.payments, self.values):
            if abs(v - newest) > newest * Decimal("0.005"):
                since = min(p.timestamp.date() for p, w in zip(self.payments, self.values)
                            if abs(w - newest) <= newest * Decimal("0.005") and p.timestamp > t.timestamp)
                return v, newest, since
        return None

    def active(self, today: date) -> bool:
        last = self.payments[0].timestamp.date()
        return (today - last).days <= GAP_DAYS[self.cadence] * 3 // 2 + 7


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


def _steady(items: list[tuple[Transaction, Decimal]]) -> str | None:
    """The cadence of ``items`` when they repeat at a steady amount, else None."""
    months = len({t.month for t, _ in items})
    cadence = _cadence([t for t, _ in items])
    if cadence is None:
        return None
    if months < MIN_MONTHS and not (cadence in ("yearly", "quarterly") and len(items) >= 2):
        return None
    if cadence in ("monthly", "quarterly", "yearly") and len(items) > months * 2:
        return None  # paid several times a month: not one monthly payment
    median = Decimal(statistics.median(v for _, v in items))
    if median > 0 and all(abs(v - median) <= median * SPREAD for _, v in items):
        return cadence
    runs = _runs([v for _, v in sorted(items, key=lambda tv: tv[0].timestamp)])
    if len(runs) <= 3 and all(n >= 2 for n in runs[:-1]):
        return cadence  # a price that changed now and then (96.00 four times, then 118.00)
    return None


def _runs(values: list[Decimal]) -> list[int]:
    """Lengths of the runs of (nearly, within 2 %) equal amounts, in order."""
    runs: list[int] = []
    last: Decimal | None = None
    for v in values:
        if last is not None and abs(v - last) <= last * Decimal("0.02"):
            runs[-1] += 1
        else:
            runs.append(1)
        last = v
    return runs


def recurring_payments(items: list[tuple[Transaction, Decimal]]) -> list[Recurring]:
    """The recurring payees among (transaction, value) pairs, biggest monthly cost first."""
    groups: dict[tuple[str, str], list[tuple[Transaction, Decimal]]] = defaultdict(list)
    names: dict[tuple[str, str], str] = {}
    for t, value in items:
        if value <= 0:
            continue
        name = payee(t.description, t.merchant_name)
        group = (key(name) or "", t.currency)
        groups[group].append((t, value))
        names.setdefault(group, name)
    found = []
    for group, members in groups.items():
        if not group[0]:
            continue
        cadence = _steady(members)
        if cadence is None:  # varying amounts: does one exact amount repeat every month on its own?
            mode = statistics.mode(v for _, v in members)
            members = [(t, v) for t, v in members if v == mode]
            cadence = _steady(members) if len({t.month for t, _ in members}) >= MIN_MONTHS else None
            cadence = cadence if cadence == "monthly" else None
        if cadence is None:
            continue
        ordered = sorted(members, key=lambda tv: (tv[0].timestamp, tv[0].transaction_id), reverse=True)
        found.append(Recurring(names[group], group[1], tuple(t for t, _ in ordered), tuple(v for _, v in ordered),
                               cadence))
    found.sort(key=lambda r: (-r.monthly, r.payee))
    return found
