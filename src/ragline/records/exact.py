"""Money questions answered from the records, to the cent: each intent queries the
store (exact integer sums, per currency), then says the result as one or two
sentences plus a small table, citing the aggregate or the transactions behind
every figure as ``[n]``.

Spending is net of refunds: ``spend`` and ``refund`` rows of a category or
merchant summed and negated. Transfers between one's own accounts are never
spending nor income. Currencies are never added together.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from typing import Any

from ..models import Scope
from ..models.records import Aggregate, Transaction, TransactionQuery, key, money, plain
from ..store.base import Records
from .periods import Period, add_months, month_period
from .router import MoneyRoute

SPENDING = ("spend", "refund")
TOP_DEFAULT = 5
RECURRING_MIN_MONTHS = 3  # a payee seen in at least this many months, with steady amounts
RECURRING_SPREAD = Decimal("0.2")  # amounts within ±20 % of their median


@dataclass
class Source:
    """What one ``[n]`` cites: an aggregate (a query and its count and sum) or one transaction."""

    n: int
    label: str
    query: dict[str, Any]
    count: int
    total: str | None = None
    currency: str | None = None
    transaction_ids: list[str] = field(default_factory=list)
    row: int | None = None  # the table row that shows this figure

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "label": self.label, "query": self.query, "count": self.count, "total": self.total,
                "currency": self.currency, "transaction_ids": self.transaction_ids, "row": self.row}


@dataclass
class ExactAnswer:
    """The sentence(s), the table behind them, a chart of it when one helps, and the sources."""

    intent: str
    text: str
    columns: list[str]
    rows: list[list[Any]]
    sources: list[Source]
    chart: dict[str, Any] | None = None
    period: Period | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "period": self.period.to_dict() if self.period else None,
                "table": {"columns": self.columns, "rows": self.rows}, "chart": self.chart,
                "sources": [s.to_dict() for s in self.sources]}


class ExactAnswerer:
    """Answers a routed money question over one owner's records."""

    def __init__(self, records: Records, scope: Scope, today: date) -> None:
        self.records = records
        self.scope = scope
        self.today = today
        self.sources: list[Source] = []

    def answer(self, route: MoneyRoute) -> ExactAnswer:
        handler: Callable[[MoneyRoute, TransactionQuery], ExactAnswer] = getattr(self, f"_{route.intent}")
        base = TransactionQuery(start=route.period.start if route.period else None,
                                end=route.period.end if route.period else None, category=route.category,
                                merchant=route.merchant, text=route.text)
        result = handler(route, base)
        result.period = route.period
        return result

    # -- helpers -------------------------------------------------------------------
    def _cite(self, label: str, query: TransactionQuery, count: int, total: Decimal | None = None,
              currency: str | None = None, ids: list[str] | None = None, *, row: int | None = None) -> int:
        n = len(self.sources) + 1
        described = {k: (v.isoformat() if isinstance(v, date) else v) for k, v in vars(query).items()
                     if v not in (None, (), 0, "time") and k not in ("limit", "offset")}
        self.sources.append(Source(n, label, described, count, None if total is None else plain(total, currency or ""),
                                   currency, ids or [], row))
        return n

    def _sample(self, query: TransactionQuery, limit: int = 20) -> list[str]:
        """Ids of the largest transactions behind an aggregate (what a reader checks first)."""
        rows = self.records.find_transactions(self.scope, replace(query, order="amount", limit=limit))
        return [t.transaction_id for t in rows]

    def _what(self, route: MoneyRoute) -> str:
        if route.category:
            return f" on {route.category}"
        if route.merchant:
            return f" at {route.merchant}"
        return f' on "{route.text}"' if route.text else ""

    @staticmethod
    def _when(route: MoneyRoute) -> str:
        return f" {route.period.label}" if route.period else ""

    # -- intents -------------------------------------------------------------------
    def _ranked(self, route: MoneyRoute, base: TransactionQuery, by: str) -> ExactAnswer:
        query = replace(base, flows=SPENDING)
        groups = [a for a in self.records.aggregate_transactions(self.scope, query, by) if a.total < 0]
        limit = route.limit or TOP_DEFAULT
        noun = "category" if by == "category" else "merchant"
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, ranked in _by_currency(groups):
            overall = -sum((a.total for a in ranked), Decimal(0))
            for i, group in enumerate(ranked[:limit]):
                name = group.key or ("Uncategorised" if by == "category" else "(no merchant)")
                where = _narrowed(replace(query, currency=currency), by, group.key)
                n = self._cite(f"spending {'on' if by == 'category' else 'at'} {name}{self._when(route)}, {currency}",
                               where, group.count, -group.total, currency, self._sample(where) if group.key else [],
                               row=len(rows))
                share = (-group.total / overall * 100) if overall else Decimal(0)
                rows.append([name, currency, plain(-group.total, currency), group.count, f"{share:.1f}%"])
                if i == 0:
                    clauses.append(f"{'on' if by == 'category' else 'at'} {name}: {money(-group.total, currency)} "
                                   f"across {group.count} transactions, {share:.1f}% of your "
                                   f"{money(overall, currency)} spending [{n}]")
        if not clauses:
            text = f"I found no spending{self._what(route)}{self._when(route)} in your transactions."
        else:
            text = f"You spent the most{self._what(route)}{self._when(route)} " + _joined(clauses, rows, 1) + "."
        chart = _chart(f"Spending by {noun}", rows, 0, 2) if rows else None
        return ExactAnswer(route.intent or "", text, [noun, "currency", "spent", "transactions", "share"], rows,
                           self.sources, chart)

    def _top_categories(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        return self._ranked(route, replace(base, category=None), "category")

    def _top_merchants(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        return self._ranked(route, replace(base, merchant=None), "merchant")

    def _total_spend(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        query = replace(base, flows=SPENDING)
        flows = self.records.aggregate_transactions(self.scope, query, "flow")
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, groups in _by_currency(flows):
            by_flow = {a.key: a for a in groups}
            spent = -sum((a.total for a in groups), Decimal(0))
            refunds = by_flow["refund"].total if "refund" in by_flow else Decimal(0)
            payments = by_flow["spend"].count if "spend" in by_flow else 0
            where = replace(query, currency=currency)
            n = self._cite(f"spending{self._what(route)}{self._when(route)}, {currency}", where,
                           sum(a.count for a in groups), spent, currency, self._sample(where), row=len(rows))
            rows.append([currency, plain(spent, currency), payments, plain(refunds, currency)])
            refunded = f", net of {money(refunds, currency)} refunded" if refunds else ""
            clauses.append(f"{money(spent, currency)}{self._what(route)}{self._when(route)}, in {payments} "
                           f"payments{refunded} [{n}]")
        text = ("You spent " + "; and ".join(clauses) + "." if clauses
                else f"I found no spending{self._what(route)}{self._when(route)} in your transactions.")
        return ExactAnswer(route.intent or "", text, ["currency", "spent", "payments", "refunds"], rows, self.sources)

    def _largest(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        limit = route.limit or TOP_DEFAULT
        currencies = [c for c, _ in _by_currency(self.records.aggregate_transactions(
            self.scope, replace(base, flows=("spend",)), "currency"))]
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency in currencies:
            top = self.records.find_transactions(self.scope, replace(base, flows=("spend",), currency=currency,
                                                                    order="amount", limit=limit))
            for i, t in enumerate(top):
                n = self._cite(f"transaction {t.transaction_id}", TransactionQuery(), 1, -t.amount, currency,
                               [t.transaction_id], row=len(rows))
                rows.append([t.day, t.description, t.merchant_name or "", t.transaction_category or "",
                             plain(-t.amount, currency), currency])
                if i == 0:
                    clauses.append(f"{money(-t.amount, currency)} {_to(t)} on {t.timestamp:%d %B %Y} [{n}]")
        text = (f"Your largest payment{self._what(route)}{self._when(route)} was " + _joined(clauses, rows, 5) + "."
                if clauses else f"I found no payments{self._what(route)}{self._when(route)}.")
        return ExactAnswer(route.intent or "", text, ["date", "description", "merchant", "category", "amount",
                                                      "currency"], rows, self.sources)

    def _month_over_month(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        current = (self.today.year, self.today.month)
        months = sorted(set(route.months))
        if len(months) < 2 and route.this_month:  # "this month compared to last month"
            months = [add_months(*current, -1), current]
        if len(months) >= 2:
            base = replace(base, start=month_period(*months[0]).start, end=month_period(*months[-1]).end)
        elif route.period is None:  # the last six complete months
            base = replace(base, start=month_period(*add_months(*current, -6)).start,
                           end=month_period(*add_months(*current, -1)).end)
        query = replace(base, flows=SPENDING)
        per_month = self.records.aggregate_transactions(self.scope, query, "month")
        wanted = [f"{y:04d}-{m:02d}" for y, m in months] if len(months) >= 2 else None
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, groups in _by_currency(per_month, by_total=False):
            series = wanted or [m for m in _months_between(base.start, base.end, groups)
                                if m < f"{self.today:%Y-%m}"]  # a month still going on is not compared
            totals = {a.key: a for a in groups}
            first_row = len(rows)
            previous: Decimal | None = None
            for month in series:
                spent = -totals[month].total if month in totals else Decimal(0)
                change = "" if previous is None else plain(spent - previous, currency)
                pct = "" if previous in (None, 0) else f"{(spent - previous) / previous * 100:+.1f}%"
                rows.append([month, currency, plain(spent, currency), change, pct])
                previous = spent
            if len(series) >= 2 and any(m in totals for m in series[-2:]):
                a, b = series[-2], series[-1]
                spent_a = -totals[a].total if a in totals else Decimal(0)
                spent_b = -totals[b].total if b in totals else Decimal(0)
                na = self._cite(f"spending in {a}, {currency}", _month_query(query, a, currency),
                                totals[a].count if a in totals else 0, spent_a, currency, row=first_row + len(series) - 2)
                nb = self._cite(f"spending in {b}, {currency}", _month_query(query, b, currency),
                                totals[b].count if b in totals else 0, spent_b, currency, row=first_row + len(series) - 1)
                diff = spent_b - spent_a
                pct = f" ({abs(diff) / spent_a * 100:.1f}%)" if spent_a and diff else ""
                how = "the same as" if not diff else \
                    f"{money(abs(diff), currency)}{pct} {'more' if diff > 0 else 'less'} than"
                clauses.append(f"{money(spent_b, currency)}{self._what(route)} in {_month_name(b)} [{nb}], "
                               f"{how} in {_month_name(a)} ({money(spent_a, currency)}) [{na}]")
        text = ("You spent " + "; and ".join(clauses) + "." if clauses
                else "I need spending in at least two months to compare them, and found less.")
        chart = _chart("Spending by month", rows, 0, 2) if rows else None
        return ExactAnswer(route.intent or "", text, ["month", "currency", "spent", "change", "change %"], rows,
                           self.sources, chart)

    def _recurring(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        if route.period is None:  # a year of history is enough to see what repeats
            base = replace(base, start=date(self.today.year - 1, self.today.month, 1), end=self.today)
        payments = self.records.find_transactions(self.scope, replace(base, flows=("spend",)))
        found = recurring_payments(payments)
        rows: list[list[Any]] = []
        named: list[tuple[str, Decimal, str]] = []
        for payee, currency, items in found:
            amounts = [-t.amount for t in items]
            typical = Decimal(statistics.median(amounts))
            months = len({t.month for t in items})
            n = self._cite(f"payments to {payee}, {currency}", replace(base, text=None, flows=("spend",),
                                                                      currency=currency),
                           len(items), sum(amounts, Decimal(0)), currency, [t.transaction_id for t in items],
                           row=len(rows))
            rows.append([payee, currency, plain(typical, currency), len(items), months, items[0].day])
            named.append((currency, typical, f"{payee} {money(typical, currency)} [{n}]"))
        if not named:
            return ExactAnswer(route.intent or "", f"I found no payments that repeat in at least "
                               f"{RECURRING_MIN_MONTHS} months{self._when(route)}.", [], [], self.sources)
        per_currency: defaultdict[str, Decimal] = defaultdict(Decimal)
        for currency, typical, _ in named:
            per_currency[currency] += typical
        totals = " and ".join(money(v, c) for c, v in sorted(per_currency.items()))
        text = (f"You have {len(named)} recurring payments, {totals} in all at their typical amounts: "
                + ", ".join(s for _, _, s in named) + ".")
        return ExactAnswer(route.intent or "", text, ["payee", "currency", "typical amount", "payments", "months",
                                                      "last paid"], rows, self.sources,
                           _chart("Recurring payments", rows, 0, 2))

    def _income_vs_spending(self, route: MoneyRoute, base: TransactionQuery) -> ExactAnswer:
        flows = self.records.aggregate_transactions(self.scope, replace(base, flows=None), "flow")
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, groups in _by_currency(flows, by_total=False):
            by_flow = {a.key: a for a in groups}
            income = by_flow["income"].total if "income" in by_flow else Decimal(0)
            spent = -sum((by_flow[f].total for f in SPENDING if f in by_flow), Decimal(0))
            net = income - spent
            ni = self._cite(f"income{self._when(route)}, {currency}", replace(base, flows=("income",),
                                                                              currency=currency),
                            by_flow["income"].count if "income" in by_flow else 0, income, currency, row=len(rows))
            ns = self._cite(f"spending{self._when(route)}, {currency}", replace(base, flows=SPENDING,
                                                                                currency=currency),
                            sum(by_flow[f].count for f in SPENDING if f in by_flow), spent, currency, row=len(rows))
            rows.append([currency, plain(income, currency), plain(spent, currency), plain(net, currency)])
            verdict = f"you saved {money(net, currency)}" if net >= 0 else f"you spent {money(-net, currency)} more"
            clauses.append(f"income {money(income, currency)} [{ni}] against spending {money(spent, currency)} "
                           f"[{ns}], so {verdict}")
        when = self._when(route).strip() or "Over all your transactions"
        text = (f"{when[0].upper()}{when[1:]}: " + _joined(clauses, rows, 0) + "." if clauses
                else f"I found no income or spending{self._when(route)}.")
        chart_rows = [row for r in rows for row in (["income", r[0], r[1]], ["spending", r[0], r[2]])]
        return ExactAnswer(route.intent or "", text, ["currency", "income", "spending", "net"], rows, self.sources,
                           _chart("Income and spending", chart_rows, 0, 2) if rows else None)


# -- pure helpers ---------------------------------------------------------------------
def _by_currency(groups: list[Aggregate], by_total: bool = True) -> list[tuple[str, list[Aggregate]]]:
    """Groups per currency, the currency with most transactions first (the owner's
    main one); within one, biggest spending first unless ``by_total`` is off."""
    out: dict[str, list[Aggregate]] = defaultdict(list)
    for group in groups:
        out[group.currency].append(group)
    order = sorted(out, key=lambda c: (-sum(a.count for a in out[c]), c))
    return [(c, sorted(out[c], key=lambda a: (a.total, a.key or "")) if by_total else out[c]) for c in order]


def _joined(clauses: list[str], rows: list[list[Any]], currency_column: int) -> str:
    """One clause per currency, the later ones introduced by their currency."""
    currencies = list(dict.fromkeys(row[currency_column] for row in rows))
    return "; ".join(c if i == 0 else f"in {currencies[i]}, {c}" for i, c in enumerate(clauses))


def _chart(title: str, rows: list[list[Any]], label: int, value: int, currency: int = 1) -> dict[str, Any]:
    """A bar chart: one bar per row (its ``label`` column against its ``value`` column),
    grouped by currency, never mixing them."""
    return {"type": "bar", "title": title,
            "bars": [{"label": str(r[label]), "value": r[value], "currency": r[currency]} for r in rows]}


def _to(t: Transaction) -> str:
    return f"to {t.merchant_name}" if t.merchant_name else f"for {t.description!r}"


def _month_name(month: str) -> str:
    return f"{date(int(month[:4]), int(month[5:7]), 1):%B %Y}"


def _month_query(query: TransactionQuery, month: str, currency: str) -> TransactionQuery:
    period = month_period(int(month[:4]), int(month[5:7]))
    return replace(query, start=max(period.start, query.start or period.start),
                   end=min(period.end, query.end or period.end), currency=currency)


def _months_between(start: date | None, end: date | None, groups: list[Aggregate]) -> list[str]:
    """Every month from ``start`` (or the first with spending) to ``end`` (or the last), gaps included."""
    keys = sorted(a.key for a in groups if a.key)
    if not keys:
        return []
    year, month = (start.year, start.month) if start else (int(keys[0][:4]), int(keys[0][5:7]))
    stop = f"{end:%Y-%m}" if end else keys[-1]
    out = []
    while f"{year:04d}-{month:02d}" <= stop:
        out.append(f"{year:04d}-{month:02d}")
        year, month = add_months(year, month, 1)
    return out


def recurring_payments(payments: list[Transaction]) -> list[tuple[str, str, list[Transaction]]]:
    """(payee, currency, payments newest first) for payees paid in at least
    ``RECURRING_MIN_MONTHS`` months with amounts within ``RECURRING_SPREAD`` of their
    median, biggest typical amount first. The payee is the merchant, else the
    description without digits (card numbers and dates vary)."""
    groups: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    names: dict[tuple[str, str], str] = {}
    for t in payments:
        name = t.merchant_name or " ".join(w for w in t.description.split() if not any(c.isdigit() for c in w))
        group = (key(name) or "", t.currency)
        groups[group].append(t)
        names.setdefault(group, name)
    found = []
    for group, items in groups.items():
        if not group[0] or len({t.month for t in items}) < RECURRING_MIN_MONTHS:
            continue
        amounts = [-t.amount for t in items]
        median = Decimal(statistics.median(amounts))
        if median > 0 and all(abs(a - median) <= median * RECURRING_SPREAD for a in amounts):
            found.append((names[group], group[1], sorted(items, key=lambda t: t.timestamp, reverse=True), median))
    found.sort(key=lambda f: (-f[3], f[0]))
    return [(name, currency, items) for name, currency, items, _ in found]


def _narrowed(query: TransactionQuery, by: str, key: str | None) -> TransactionQuery:
    """``query`` narrowed to one group of ``by`` (a category or a merchant); the group
    without a name (``key`` None) adds no condition."""
    if key is None:
        return query
    return replace(query, category=key) if by == "category" else replace(query, merchant=key)
