"""Generated bank statements with known truth: several owners, currencies and
accounts, thousands of rows, messy descriptions, refunds, transfers between
one's own accounts, salaries and subscriptions. Each generated row keeps what it
really is (``Row``), so a test computes the expected aggregates from the truth,
independently of the importers and the store, and compares to the cent.

``write_csv`` renders rows in a real bank layout: a UK one (Starling: day-first
dates, decimal point, ``Amount (GBP)``) or a German one (Sparkasse: semicolons,
``1.234,56``, ``dd.mm.yyyy``), with a few malformed rows at known lines.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

CATEGORIES = {  # category → (merchants, typical amount range in the currency's units, payments per month)
    "Groceries": (["Tesco", "Sainsbury's", "Lidl", "Aldi"], (8, 95), 14),
    "Eating out": (["Pret A Manger", "Wagamama", "Nando's", "Costa Coffee"], (3, 60), 10),
    "Transport": (["Lothian Buses", "Uber", "Trainline", "Shell"], (2, 80), 12),
    "Shopping": (["Amazon", "John Lewis", "IKEA", "Boots"], (5, 250), 6),
    "Entertainment": (["Cineworld", "Ticketmaster", "Steam"], (8, 90), 2),
    "Travel": (["Ryanair", "Booking.com", "Airbnb"], (40, 600), 1),
    "Bills": (["Octopus Energy", "Thames Water", "BT"], (25, 140), 3),
}
SUBSCRIPTIONS = [("Netflix", "Entertainment", Decimal("10.99")), ("Spotify", "Entertainment", Decimal("11.99")),
                 ("PureGym", "Health", Decimal("24.99"))]
MESSY = ["CARD PAYMENT TO {m} {n} ON {d}", "{M} {n} LONDON GB", "{m}*{n}", "POS {M} REF {n}", "{m}"]


@dataclass(frozen=True)
class Row:
    """One generated transaction and the truth about it."""

    transaction_id: str
    account_id: str
    day: date
    description: str
    amount: Decimal
    currency: str
    category: str
    merchant: str | None
    flow: str  # spend, refund, income, transfer


def owner_rows(seed: int, *, currency: str, start: date, months: int, salary: Decimal, rent: Decimal,
               scale: Decimal = Decimal(1), foreign: str | None = None) -> list[Row]:
    """About 60–70 rows a month for one owner: a current account in ``currency``, a
    savings account fed by monthly transfers, and (``foreign``) a card used abroad."""
    rng = random.Random(seed)
    rows: list[Row] = []
    counter = 0

    def add(day: date, description: str, amount: Decimal, category: str, merchant: str | None, flow: str,
            account: str = "current", cur: str = currency) -> None:
        nonlocal counter
        counter += 1
        rows.append(Row(f"{seed}-{counter:05d}", account, day, description, amount, cur, category, merchant, flow))

    for m in range(months):
        first = _add_months(start, m)
        days = (_add_months(start, m + 1) - first).days
        add(first + timedelta(days=24), "ACME LTD SALARY", salary, "Income", None, "income")
        add(first, "DIRECT DEBIT HOMELET RENT", -rent, "Rent", "Homelet", "spend")
        add(first + timedelta(days=2), "TRANSFER TO SAVINGS", Decimal("-300.00"), "Transfer", None, "transfer")
        add(first + timedelta(days=2), "TRANSFER FROM CURRENT", Decimal("300.00"), "Transfer", None, "transfer",
            account="savings")
        for name, category, price in SUBSCRIPTIONS:
            add(first + timedelta(days=5 + len(name)), f"{name.upper()}.COM", -(price * scale).quantize(Decimal("0.01")),
                category, name, "spend")
        for category, (merchants, (low, high), per_month) in CATEGORIES.items():
            for _ in range(rng.randint(per_month - 2, per_month + 2)):
                merchant = rng.choice(merchants)
                day = first + timedelta(days=rng.randrange(days))
                cents = rng.randint(low * 100, high * 100)
                amount = -(Decimal(cents) / 100 * scale).quantize(Decimal("0.01"))
                pattern = rng.choice(MESSY)
                text = pattern.format(m=merchant, M=merchant.upper(), n=rng.randint(1000, 9999), d=f"{day:%d %b}")
                add(day, text, amount, category, merchant, "spend")
                if category == "Shopping" and rng.random() < 0.25:  # a refund a few days later
                    add(min(day + timedelta(days=3), first + timedelta(days=days - 1)), f"REFUND {merchant.upper()}",
                        -amount, category, merchant, "refund")
        if foreign and m % 4 == 1:  # a trip abroad every four months, on a card in another currency
            for _ in range(rng.randint(8, 15)):
                day = first + timedelta(days=rng.randrange(10, 20))
                amount = -(Decimal(rng.randint(300, 9000)) / 100).quantize(Decimal("0.01"))
                add(day, f"CAFE DE LA GARE {rng.randint(10, 99)}", amount, "Eating out", "Cafe de la Gare", "spend",
                    account="travel-card", cur=foreign)
    return rows


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


# -- truth ----------------------------------------------------------------------------------
def spending_by(rows: list[Row], field: str, start: date | None = None, end: date | None = None,
                **where: str) -> dict[tuple[str, str], Decimal]:
    """(group, currency) → net spending (spend and refund rows, negated), from the truth."""
    out: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for r in rows:
        if r.flow in ("spend", "refund") and (start is None or r.day >= start) and (end is None or r.day <= end) \
                and all(getattr(r, k) == v for k, v in where.items()):
            out[(getattr(r, field), r.currency)] -= r.amount
    return dict(out)


def flow_totals(rows: list[Row], start: date | None = None, end: date | None = None) -> dict[tuple[str, str], Decimal]:
    out: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for r in rows:
        if (start is None or r.day >= start) and (end is None or r.day <= end):
            out[(r.flow, r.currency)] += r.amount
    return dict(out)


# -- files ----------------------------------------------------------------------------------
BROKEN = ["{d},Oops,BROKEN AMOUNT,CARD,12.3.4,,Groceries,", "31/02/2024,Oops,BAD DATE,CARD,-1.00,,Groceries,",
          "{d},Oops,NO AMOUNT,CARD,,,Groceries,"]


def write_csv(rows: list[Row], layout: str, *, broken_every: int = 0) -> tuple[bytes, list[int]]:
    """The rows as a bank's CSV export; with ``broken_every``, a malformed row after
    every that many rows. Returns the file and the lines of the malformed rows."""
    lines: list[str] = []
    bad: list[int] = []
    if layout == "starling":
        lines.append("Date,Counter Party,Reference,Type,Amount (GBP),Balance (GBP),Spending Category,"
                     "Transaction ID,Account,Currency")
        for i, r in enumerate(rows, start=1):
            cells = [f"{r.day:%d/%m/%Y}", r.merchant or "", r.description.replace(",", " "), "CARD",
                     f"{r.amount:.2f}", "", r.category, r.transaction_id, r.account_id, r.currency]
            lines.append(",".join(_quote(c) for c in cells))
            if broken_every and i % broken_every == 0:
                lines.append(BROKEN[(i // broken_every) % len(BROKEN)].format(d=f"{r.day:%d/%m/%Y}"))
                bad.append(len(lines))
    elif layout == "sparkasse":
        lines += ["Kontoauszug;Girokonto;;;;;", "Zeitraum;2023-2024;;;;;", ""]
        lines.append("Buchungstag;Verwendungszweck;Beguenstigter/Zahlungspflichtiger;Kategorie;Betrag;Waehrung;"
                     "Kundenreferenz;Konto")
        for r in rows:
            amount = f"{r.amount:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")
            cells = [f"{r.day:%d.%m.%Y}", r.description.replace(";", " "), r.merchant or "", r.category, amount,
                     r.currency, r.transaction_id, r.account_id]
            lines.append(";".join(cells))
    else:
        raise ValueError(layout)
    return ("\n".join(lines) + "\n").encode("utf-8"), bad


def _quote(cell: str) -> str:
    return f'"{cell}"' if "," in cell or '"' in cell else cell
