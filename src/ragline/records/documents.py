"""Transactions as searchable text, per owner and month, through the normal ingest
path (so every backend's dense and keyword search covers them):

- a statement document ``transactions/YYYY-MM``: one block per transaction, its
  one-line summary, with the transaction id as the block's section (a hit names
  the transaction it came from). Chunks never cross blocks, so each transaction
  is its own chunk, and re-ingesting a month re-embeds only changed lines.
- a summary document ``transactions/summary/YYYY-MM``: spending by category and
  merchant, income, refunds and transfers, with the month's name and season, so
  that "did I spend a lot on travel last spring?" finds it.
"""

from __future__ import annotations

from calendar import month_name, monthrange
from datetime import date
from decimal import Decimal

from ..models import Block, Document
from ..models.records import Aggregate, Transaction, TransactionQuery, money

STATEMENT = "transactions/{month}"
SUMMARY = "transactions/summary/{month}"
SEASONS = {12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring", 6: "summer", 7: "summer",
           8: "summer", 9: "autumn", 10: "autumn", 11: "autumn"}
TOP = 8  # categories and merchants listed in a summary


def month_query(month: str, flows: tuple[str, ...] | None = None) -> TransactionQuery:
    """Every transaction of ``YYYY-MM`` (of these flows, when given)."""
    year, number = int(month[:4]), int(month[5:7])
    return TransactionQuery(start=date(year, number, 1), end=date(year, number, monthrange(year, number)[1]),
                            flows=flows)


def month_label(month: str) -> str:
    """``2024-03`` → ``March 2024``."""
    return f"{month_name[int(month[5:7])]} {month[:4]}"


def statement_document(month: str, transactions: list[Transaction]) -> Document:
    """The month's transactions, oldest first, one block each."""
    ordered = sorted(transactions, key=lambda t: (t.timestamp, t.transaction_id))
    return Document(source=STATEMENT.format(month=month), title=f"Transactions, {month_label(month)}",
                    blocks=[Block(text=t.summary(), section=t.transaction_id) for t in ordered],
                    media_type="text/plain", metadata={"kind": "transactions", "month": month})


def summary_document(month: str, by_category: list[Aggregate], by_merchant: list[Aggregate],
                     by_flow: list[Aggregate]) -> Document:
    """The month in words: per currency, what was spent (net of refunds) by category
    and merchant, what came in, and what moved between one's own accounts."""
    label = month_label(month)
    lines = [f"Spending summary for {label} ({SEASONS[int(month[5:7])]} {month[:4]})."]
    for currency in sorted({a.currency for a in by_flow}):
        flows = {a.key: a for a in by_flow if a.currency == currency}
        spent = -sum((flows[f].total for f in ("spend", "refund") if f in flows), Decimal(0))
        parts = [f"In {currency}: spent {money(spent, currency)} in {_count(flows, 'spend')} payments"]
        if "refund" in flows:
            parts.append(f"refunds {money(flows['refund'].total, currency)}")
        if "income" in flows:
            parts.append(f"income {money(flows['income'].total, currency)}")
        if "transfer" in flows:
            parts.append(f"transfers between own accounts {money(-flows['transfer'].total, currency)} (not spending)")
        lines.append("; ".join(parts) + ".")
        for title, groups in (("By category", by_category), ("Top merchants", by_merchant)):
            ranked = sorted((a for a in groups if a.currency == currency), key=lambda a: (a.total, a.key or ""))
            shown = [f"{a.key or 'Uncategorised'} {money(-a.total, currency)}" for a in ranked[:TOP] if a.total < 0]
            if shown:
                lines.append(f"{title} ({label}, {currency}): " + ", ".join(shown) + ".")
    return Document(source=SUMMARY.format(month=month), title=f"Spending summary, {label}",
                    blocks=[Block(text="\n".join(lines))], media_type="text/plain",
                    metadata={"kind": "transactions-summary", "month": month})


def _count(flows: dict[str | None, Aggregate], flow: str) -> int:
    return flows[flow].count if flow in flows else 0
