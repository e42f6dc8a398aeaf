"""A query plan executed exactly: rows through the scoped store API
(``records.selection``), sums in ``Decimal`` per currency (currencies are never
added together), and the answer said as sentences that state the plan they ran
("Spending at Thames Water in September 2026: 38.20 GBP, 1 payment [1]"), a table,
a chart when one helps, and a source per figure naming the ids of every
transaction behind it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from typing import Any

from ..models import Scope
from ..models.records import Transaction, money, plain
from ..store.base import Records
from .kinds import BY_KEY
from .merchants import merchant_matches
from .periods import Period, add_months, month_period
from .plan import PeriodRef, QueryPlan, named_values
from .recurring import recurring_payments
from .selection import SAVINGS, Matcher, Selected, Selector
from .wording import Wording, month_label

TOP_DEFAULT = 5
LIST_DEFAULT = 20
RECURRING_YEAR = 12  # months of history read for recurring payments when no period is named


@dataclass
class Source:
    """What one ``[n]`` cites: a figure, the rows behind it (every id), and the table row showing it."""

    n: int
    label: str
    query: dict[str, Any]
    count: int
    total: str | None = None
    currency: str | None = None
    transaction_ids: list[str] = field(default_factory=list)
    row: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "label": self.label, "query": self.query, "count": self.count, "total": self.total,
                "currency": self.currency, "transaction_ids": self.transaction_ids, "row": self.row}


@dataclass(frozen=True)
class Figure:
    """One computed figure and what it belongs to (a category, merchant, month…), so a
    phrased answer can be checked to keep each figure with its label."""

    label: str
    value: str  # as shown, at the currency's precision ("38.20"), a count or a percentage


@dataclass
class ExactAnswer:
    """The sentences, the table behind them, a chart, the sources, and the plan they ran."""

    metric: str
    text: str
    columns: list[str]
    rows: list[list[Any]]
    sources: list[Source]
    chart: dict[str, Any] | None = None
    period: Period | None = None
    plan: QueryPlan | None = None
    stated: str = ""  # the plan in words
    figures: list[Figure] = field(default_factory=list)

    @property
    def intent(self) -> str:  # the name earlier answers used
        return self.metric

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.metric, "metric": self.metric,
                "period": self.period.to_dict() if self.period else None, "stated": self.stated,
                "plan": self.plan.to_dict() if self.plan else None,
                "table": {"columns": self.columns, "rows": self.rows}, "chart": self.chart,
                "sources": [s.to_dict() for s in self.sources]}


class PlanExecutor:
    """Runs plans over one owner's records."""

    def __init__(self, records: Records, scope: Scope, today: date, *, matcher: Matcher = merchant_matches,
                 everything: list[Transaction] | None = None) -> None:
        self.records = records
        self.scope = scope
        self.today = today
        # Every row of the owner's, read once through the scoped store API (or handed in by
        # the route, which read them to learn the owner's names); each plan filters them.
        self.selector = Selector(lambda q: records.find_transactions(scope, q), matcher, everything)
        self.sources: list[Source] = []
        self.figures: list[Figure] = []
        self._assumed: tuple[str, ...] = ()

    def run(self, plan: QueryPlan) -> ExactAnswer:
        plan = plan.resolved(self.today)
        self.sources, self.figures = [], []
        words = Wording(plan, self.today)
        handler: Callable[[QueryPlan, Wording], ExactAnswer] = getattr(self, f"_{plan.metric}")
        self._assumed = plan.assumptions
        result = handler(plan, words)
        result.plan, result.period, result.stated = plan, plan.period(0), words.stated()
        result.figures = self.figures
        counted = self._counted(plan, result)
        if counted:
            result.text += f" (Counted as {counted}.)"
        if self._assumed:
            result.plan = replace(plan, assumptions=self._assumed)
            result.text += " " + " ".join(f"(Assumed: {a.rstrip('.')}.)" for a in self._assumed)
        return result

    def _counted(self, plan: QueryPlan, result: ExactAnswer) -> str:
        """For a kind of spending, which payees were counted as it ("takeaways: Deliveroo,
        Just Eat, Uber Eats"), so the reader sees what the everyday word was taken to mean."""
        if not plan.filters.kinds or plan.metric in ("balance", "recurring") or len(plan.filters.kinds) > 2:
            return ""
        from .matching import payee

        ids = {i for source in result.sources for i in source.transaction_ids}
        names = sorted({payee(t.description, t.merchant_name) for t in self.selector.everything
                        if t.transaction_id in ids})
        if not names or len(names) > 8:
            return ""
        label = " or ".join(BY_KEY[k].label for k in plan.filters.kinds)
        return f"{label}: {', '.join(names)}"

    # -- helpers -------------------------------------------------------------------
    def _cite(self, label: str, selected: Selected, currency: str | None, *, total: Decimal | None = None,
              row: int | None = None, query: dict[str, Any] | None = None) -> int:
        n = len(self.sources) + 1
        shown = None if total is None else plain(total, currency or "")
        label = label[:1].lower() + label[1:] if label[1:2].islower() else label  # "spending on Rent…"
        self.sources.append(Source(n, label, query or {}, len(selected.rows), shown, currency, selected.ids, row))
        return n

    def _figure(self, label: str, value: str) -> None:
        self.figures.append(Figure(label, value))

    def _select(self, plan: QueryPlan, period: Period | None, flow: str | None = None) -> Selected:
        return self.selector.select(period, plan.filters, flow or plan.flow)

    def _groups(self, plan: QueryPlan, selected: Selected) -> dict[str, Selected]:
        """The rows of ``selected`` per group of ``plan.group_by`` (a row may fall in two named groups)."""
        out: dict[str, Selected] = defaultdict(Selected)
        by = plan.group_by
        for t, v in zip(selected.rows, selected.values):
            if by == "name":
                for what, name in named_values(plan.filters):
                    if self.selector.name_of(t, what, name):
                        out[BY_KEY[name].label if what == "kind" else name].add(t, v)
            else:
                out[_group_key(t, by)].add(t, v)
        return out

    # -- metrics -------------------------------------------------------------------
    def _sum(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        if plan.flow == "net":
            return self._net(plan, words)
        if len(plan.periods) > 1:
            return self._compare(plan, words)
        if plan.group_by:
            return self._grouped(plan, words)
        selected = self._select(plan, plan.period(0))
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, part in selected.by_currency().items():
            n = self._cite(f"{words.subject()}{words.when()}, {currency}", part, currency, total=part.total,
                           row=len(rows))
            payments = sum(1 for v in part.values if v > 0)
            refunds = -sum((v for v in part.values if v < 0), Decimal(0))
            rows.append([currency, plain(part.total, currency), payments, plain(refunds, currency)])
            self._figure(words.subject(), plain(part.total, currency))
            refunded = f", net of {money(refunds, currency)} refunded" if refunds and plan.flow == "spend" else ""
            clauses.append(f"{money(part.total, currency)}, {words.count(payments)}{refunded} [{n}]")
        text = words.headline(clauses) if clauses else words.nothing()
        return ExactAnswer(plan.metric, text, ["currency", "total", words.count_noun(), "refunds"], rows,
                           self.sources)

    def _grouped(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        selected = self._select(plan, plan.period(0))
        if plan.group_by == "category" and selected.rows and not any(t.transaction_category for t in selected.rows):
            # The bank gave no categories: by merchant, said as such, rather than "Uncategorised 100%".
            plan = replace(plan, group_by="merchant", assumptions=(*plan.assumptions, "your statements give no "
                                                                   "categories, so the spending is shown by merchant"))
            self._assumed = plan.assumptions
            words = Wording(plan, self.today)
        limit = plan.limit or (TOP_DEFAULT if plan.group_by in ("category", "merchant") else 100)
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, part in selected.by_currency().items():
            groups = self._groups(plan, part)
            chronological = plan.group_by == "month" and plan.limit is None
            ranked = sorted(groups.items(), key=lambda kv: (kv[0] if chronological else "", -kv[1].total, kv[0]))
            overall = part.total
            named: list[str] = []
            for name, group in ranked[:limit]:
                share = group.total / overall * 100 if overall else Decimal(0)
                n = self._cite(f"{words.subject(name)}{words.when()}, {currency}", group, currency,
                               total=group.total, row=len(rows))
                shown = _month_name(name) if plan.group_by == "month" else name
                rows.append([shown, currency, plain(group.total, currency), len(group.rows), f"{share:.1f}%"])
                self._figure(shown, plain(group.total, currency))
                self._figure(name, f"{share:.1f}%")
                named.append(f"{shown} {money(group.total, currency)} ({share:.1f}%) [{n}]")
            if named:
                more = f" (top {limit} of {len(ranked)})" if len(ranked) > limit else ""
                clauses.append(f"{', '.join(named)}{more}; {money(overall, currency)} in all")
                self._figure("all", plain(overall, currency))
        text = words.headline(clauses, by=plan.group_by) if clauses else words.nothing()
        chart = _chart(f"{words.subject_noun().capitalize()} by {words.group_noun()}", rows) if len(rows) > 1 else None
        return ExactAnswer(plan.metric, text, [words.group_noun(), "currency", "total", "transactions", "share"], rows,
                           self.sources, chart)

    def _share(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        period = plan.period(0)
        part = self._select(plan, period)
        whole = self.selector.select(period, replace(plan.filters, categories=(), merchants=(), kinds=(), text=()),
                                     plan.flow)
        rows: list[list[Any]] = []
        clauses: list[str] = []
        wholes = whole.by_currency()
        for currency, mine in part.by_currency().items():
            of = wholes.get(currency, Selected())
            share = mine.total / of.total * 100 if of.total else Decimal(0)
            n1 = self._cite(f"{words.subject()}{words.when()}, {currency}", mine, currency, total=mine.total,
                            row=len(rows))
            n2 = self._cite(f"all {words.subject_noun()}{words.when()}, {currency}", of, currency, total=of.total,
                            row=len(rows))
            rows.append([currency, plain(mine.total, currency), plain(of.total, currency), f"{share:.1f}%"])
            self._figure(words.subject(), f"{share:.1f}%")
            self._figure(words.subject(), plain(mine.total, currency))
            self._figure("all", plain(of.total, currency))
            clauses.append(f"{share:.1f}% ({money(mine.total, currency)} [{n1}] of {money(of.total, currency)} "
                           f"[{n2}])")
        text = words.headline(clauses) if clauses else words.nothing()
        return ExactAnswer(plan.metric, text, ["currency", "part", "whole", "share"], rows, self.sources)

    def _net(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        period = plan.period(0)
        income = self._select(plan, period, "income").by_currency()
        spend = self._select(plan, period, "spend").by_currency()
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency in list(dict.fromkeys([*spend, *income])):
            i, s = income.get(currency, Selected()), spend.get(currency, Selected())
            net = i.total - s.total
            ni = self._cite(f"income{words.when()}, {currency}", i, currency, total=i.total, row=len(rows))
            ns = self._cite(f"spending{words.when()}, {currency}", s, currency, total=s.total, row=len(rows))
            rows.append([currency, plain(i.total, currency), plain(s.total, currency), plain(net, currency)])
            self._figure("income", plain(i.total, currency))
            self._figure("spending", plain(s.total, currency))
            self._figure("net", plain(net, currency))
            verdict = (f"{money(net, currency)} more came in than went out" if net >= 0
                       else f"{money(-net, currency)} more went out than came in")
            clauses.append(f"income {money(i.total, currency)} [{ni}], spending {money(s.total, currency)} [{ns}]: "
                           f"{verdict}")
        text = words.headline(clauses) if clauses else words.nothing()
        chart_rows = [[label, r[0], r[k]] for r in rows for label, k in (("income", 1), ("spending", 2))]
        return ExactAnswer(plan.metric, text, ["currency", "income", "spending", "net"], rows, self.sources,
                           {"type": "bar", "title": "Income and spending",
                            "bars": [{"label": r[0], "value": r[2], "currency": r[1]} for r in chart_rows]}
                           if rows else None)

    def _count(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        selected = self._select(plan, plan.period(0))
        rows: list[list[Any]] = []
        clauses: list[str] = []
        groups = self._groups(plan, selected) if plan.group_by else {"": selected}
        for name, group in sorted(groups.items(), key=lambda kv: (-sum(1 for v in kv[1].values if v > 0), kv[0])):
            counted = Selected()
            for t, v in zip(group.rows, group.values):
                if v > 0:  # payments (or receipts), not the refunds netted into spending
                    counted.add(t, v)
            for currency, part in counted.by_currency().items():
                n = self._cite(f"{words.subject(name or None)}{words.when()}, {currency}", part, currency,
                               total=part.total, row=len(rows))
                rows.append([name or words.subject(), currency, len(part.rows), plain(part.total, currency)])
                self._figure(name or words.subject(), str(len(part.rows)))
                self._figure(name or words.subject(), plain(part.total, currency))
                who = f"{name}: " if name else ""
                clauses.append(f"{who}{len(part.rows)} ({money(part.total, currency)} in all) [{n}]")
        text = words.headline(clauses, counting=True) if clauses else words.headline(["0"], counting=True)
        return ExactAnswer(plan.metric, text, [words.group_noun() if plan.group_by else "what", "currency",
                                               words.count_noun(), "total"], rows, self.sources)

    def _average(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        period = plan.period(0)
        selected = self._select(plan, period)
        per = plan.per or "transaction"
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, part in selected.by_currency().items():
            if per == "transaction":
                paid = [v for v in part.values if v > 0]
                if not paid:
                    continue
                average = sum(paid, Decimal(0)) / len(paid)
                n = self._cite(f"{words.subject()}{words.when()}, {currency}", part, currency, total=part.total,
                               row=len(rows))
                rows.append([currency, plain(average, currency), len(paid), plain(sum(paid, Decimal(0)), currency)])
                self._figure(words.subject(), plain(average, currency))
                clauses.append(f"{money(average, currency)} a {words.one()} over {words.count(len(paid))} "
                               f"({money(sum(paid, Decimal(0)), currency)} in all) [{n}]")
            else:
                units, what = _units(per, period, part.rows, self.today)
                average = part.total / units if units else Decimal(0)
                n = self._cite(f"{words.subject()}{words.when()}, {currency}", part, currency, total=part.total,
                               row=len(rows))
                rows.append([currency, plain(average, currency), units, plain(part.total, currency)])
                self._figure(words.subject(), plain(average, currency))
                clauses.append(f"{money(average, currency)} a {per} ({money(part.total, currency)} over {what}) [{n}]")
        text = words.headline(clauses) if clauses else words.nothing()
        return ExactAnswer(plan.metric, text, ["currency", "average", f"{per}s" if per != "transaction"
                                               else words.count_noun(), "total"], rows, self.sources)

    def _max(self, plan: QueryPlan, words: Wording, largest: bool = True) -> ExactAnswer:
        selected = self._select(plan, plan.period(0))
        limit = plan.limit or 1
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, part in selected.by_currency().items():
            paid = sorted(((t, v) for t, v in zip(part.rows, part.values) if v > 0),
                          key=lambda tv: ((-tv[1] if largest else tv[1]), tv[0].day, tv[0].transaction_id))
            shown = []
            for t, v in paid[:limit]:
                one = Selected([t], [v])
                n = self._cite(f"transaction {t.transaction_id}", one, currency, total=v, row=len(rows))
                rows.append([t.day, t.description, t.merchant_name or "", t.transaction_category or "",
                             plain(v, currency), currency])
                self._figure(t.merchant_name or t.description, plain(v, currency))
                shown.append(f"{money(v, currency)} {_to(t)} on {t.timestamp:%-d %B %Y} [{n}]")
            if shown:
                clauses.append(", ".join(shown))
        text = words.headline(clauses, single=True) if clauses else words.nothing()
        return ExactAnswer(plan.metric, text, ["date", "description", "merchant", "category", "amount", "currency"],
                           rows, self.sources)

    def _min(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        return self._max(plan, words, largest=False)

    def _list(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        selected = self._select(plan, plan.period(0))
        limit = plan.limit or LIST_DEFAULT
        rows: list[list[Any]] = []
        clauses: list[str] = []
        for currency, part in selected.by_currency().items():
            n = self._cite(f"{words.subject()}{words.when()}, {currency}", part, currency, total=part.total)
            ordered = sorted(zip(part.rows, part.values), key=lambda tv: (tv[0].timestamp, tv[0].transaction_id),
                             reverse=True)
            for t, v in ordered[:limit]:
                rows.append([t.day, t.description, t.merchant_name or "", t.transaction_category or "",
                             plain(v, currency), currency, t.transaction_id])
            self._figure(words.subject(), plain(part.total, currency))
            more = f", the latest {limit} listed" if len(ordered) > limit else ""
            items = "; ".join(f"{money(v, currency)} {_to(t)} on {t.timestamp:%-d %B %Y}" for t, v in ordered[:5])
            clauses.append(f"{words.count(len(part.rows))}, {money(part.total, currency)} in all [{n}]{more}: {items}"
                           + (" …" if len(ordered) > 5 else ""))
        text = words.headline(clauses) if clauses else words.nothing()
        return ExactAnswer(plan.metric, text, ["date", "description", "merchant", "category", "amount", "currency",
                                               "transaction"], rows, self.sources)

    def _compare(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        if len(plan.periods) >= 2:
            sides: list[tuple[str, Period | None, Selected]] = [
                (month_label(p) or p.label, p, self._select(plan, p)) for p in
                (plan.period(i) for i in range(len(plan.periods))) if p is not None]
        elif plan.group_by:
            selected = self._select(plan, plan.period(0))
            sides = [(name, plan.period(0), group) for name, group in self._groups(plan, selected).items()]
            if plan.group_by != "month":
                sides.sort(key=lambda s: -s[2].total)
        else:
            return self._sum(replace(plan, metric="sum"), words)
        rows: list[list[Any]] = []
        clauses: list[str] = []
        currencies = list(dict.fromkeys(c for _, _, s in sides for c in s.by_currency()))
        for currency in currencies:
            shown: list[tuple[str, Decimal, int]] = []
            for name, period, selected in sides:
                part = selected.by_currency().get(currency, Selected())
                when = words.when(period) if len(plan.periods) >= 2 else words.when()
                n = self._cite(f"{words.subject(name if len(plan.periods) < 2 else None)}{when}, {currency}", part,
                               currency, total=part.total, row=len(rows))
                rows.append([name, currency, plain(part.total, currency), len(part.rows)])
                self._figure(name, plain(part.total, currency))
                shown.append((name, part.total, n))
            listed = "; ".join(f"{name}: {money(total, currency)} [{n}]" for name, total, n in shown)
            if len(shown) >= 2:
                together = sum((total for _, total, _ in shown), Decimal(0))
                self._figure("all", plain(together, currency))
                (a, ta, _), (b, tb, _) = shown[0], shown[1]
                diff = ta - tb
                pct = f" ({abs(diff) / tb * 100:.1f}%)" if tb and diff else ""
                self._figure("difference", plain(abs(diff), currency))
                verdict = (f"the same in {a} and {b}" if not diff else
                           f"{money(abs(diff), currency)}{pct} {'more' if diff > 0 else 'less'} in {a} than in {b}"
                           if len(plan.periods) >= 2 else
                           f"{money(abs(diff), currency)}{pct} {'more' if diff > 0 else 'less'} on {a} than on {b}")
                listed += f" — {verdict}; together {money(together, currency)}"
            clauses.append(listed)
        text = words.headline(clauses, comparing=True) if clauses else words.nothing()
        return ExactAnswer("compare", text, ["what", "currency", "total", "transactions"], rows, self.sources,
                           _chart(f"{words.subject_noun().capitalize()} compared", [[r[0], r[1], r[2]] for r in rows], value=2))

    def _recurring(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        period = plan.period(0)
        if period is None:  # a year of history shows what repeats
            start = month_period(*add_months(self.today.year, self.today.month, -RECURRING_YEAR)).start
            period = Period(start, self.today, f"over the last {RECURRING_YEAR} months")
        flow = plan.flow if plan.flow in ("savings", "income", "in", "transfers_out", "savings_out") else "spend"
        selected = self.selector.select(period, plan.filters, flow)
        found = recurring_payments(list(zip(selected.rows, selected.values)))
        ended = [r for r in found if not r.active(min(period.end, self.today))]
        found = [r for r in found if r.active(min(period.end, self.today))]
        if not found:
            return self._no_recurring(plan, words, period, ended)
        rows: list[list[Any]] = []
        per_currency: dict[str, Decimal] = defaultdict(Decimal)
        named: list[str] = []
        for r in found:
            one = Selected(list(r.payments), list(r.values))
            n = self._cite(f"payments to {r.payee}, {r.currency}", one, r.currency, total=one.total, row=len(rows))
            rows.append([r.payee, r.currency, plain(r.latest, r.currency), r.cadence, plain(r.monthly, r.currency),
                         len(r.payments), r.payments[0].day])
            per_currency[r.currency] += r.monthly
            self._figure(r.payee, plain(r.monthly, r.currency))
            self._figure(r.payee, plain(r.latest, r.currency))
            how = "" if r.cadence == "monthly" else f" ({money(r.latest, r.currency)} {r.cadence})"
            change = r.change
            if change is not None:
                before, now, since = change
                self._figure(r.payee, plain(abs(now - before), r.currency))
                self._figure(r.payee, plain(before, r.currency))
                how += (f", {'up' if now > before else 'down'} {money(abs(now - before), r.currency)} from "
                        f"{money(before, r.currency)} since {since:%-d %B %Y}")
            named.append(f"{r.payee} {money(r.monthly, r.currency)} a month{how} [{n}]")
        totals = " and ".join(money(v, c) for c, v in per_currency.items())
        for c, v in per_currency.items():
            self._figure("all", plain(v, c))
        subject = words.recurring_subject()
        if len(found) == 1:
            r = found[0]
            text = (f"{subject}: {named[0]}, last paid on {r.payments[0].timestamp:%-d %B %Y} "
                    f"({len(r.payments)} payments {period.label}).")
        else:
            text = (f"{subject}: {len(found)} that repeat and are still paid, {totals} a month in all: "
                    + ", ".join(named) + ".")
        if ended:
            text += " No longer paid: " + ", ".join(f"{r.payee} (last on {r.payments[0].timestamp:%-d %B %Y})"
                                                     for r in ended) + "."
        return ExactAnswer(plan.metric, text, ["payee", "currency", "latest amount", "every", "a month", "payments",
                                               "last paid"], rows, self.sources,
                           _chart("Recurring payments a month", [[r[0], r[1], r[4]] for r in rows], value=2))

    def _no_recurring(self, plan: QueryPlan, words: Wording, period: Period, ended: list[Any]) -> ExactAnswer:
        """Nothing repeats steadily (or no longer): said so, with what a month it came to on average."""
        stopped = ("; no longer paid: " + ", ".join(f"{r.payee} (last on {r.payments[0].timestamp:%-d %B %Y})"
                                                    for r in ended)) if ended else ""
        if not plan.filters:
            return ExactAnswer(plan.metric, f"I found no payments that repeat {period.label}{stopped}.", [], [],
                               self.sources)
        average = replace(plan, metric="average", per="month", periods=(PeriodRef.of(period),))
        answer = self._average(average, Wording(average, self.today, period))
        answer.text = (f"No steady repeating payment{words.what()} {period.label}{stopped}; on average: "
                       + answer.text[0].lower() + answer.text[1:])
        answer.metric = plan.metric
        return answer

    def _balance(self, plan: QueryPlan, words: Wording) -> ExactAnswer:
        """What each account held at the end of the day asked about (today without a
        period): from the nearest balance the bank stated, plus or minus the account's
        transactions between that day and this one. Pots (money set aside inside an
        account) from their transfers, counted from the first statement."""
        period = plan.period(0)
        day = min(period.end, self.today) if period is not None else self.today
        accounts = self.selector.accounts
        stated = self.records.find_balances(self.scope, latest=False)
        accounts = sorted(set(accounts) | {b.account for b in stated})
        asked = plan.filters.accounts
        pots_asked = [a for a in asked if re.search(r"\bpots?\b", a, re.IGNORECASE)]
        wanted = [a for a in accounts if not asked or any(self.selector.account_matches(n, a) for n in asked
                                                          if n not in pots_asked)]
        if pots_asked and not [n for n in asked if n not in pots_asked]:
            wanted = []
        rows: list[list[Any]] = []
        clauses: list[str] = []
        totals: dict[str, Decimal] = defaultdict(Decimal)
        missing: list[str] = []
        latest_known: list[date] = []
        for account in wanted:
            known = max([b.as_of for b in stated if b.account == account]
                        + [t.timestamp.date() for t in self.selector.everything if t.account_id == account])
            on = min(day, known)  # after the last statement nothing is known: said as of its last day
            found = self._account_balance(account, on, [b for b in stated if b.account == account])
            if found is None:
                missing.append(self._account_label(account))
                continue
            amount, currency, behind, anchor = found
            label = self._account_label(account)
            if on < day:
                latest_known.append(on)
            n = self._cite(f"balance of {label} on {on:%-d %B %Y}", behind, currency, total=amount, row=len(rows),
                           query={"account_id": account, "as_of": on.isoformat(),
                                  "from_stated_balance_of": anchor.isoformat()})
            rows.append([label, currency, plain(amount, currency), on.isoformat()])
            self._figure(label, plain(amount, currency))
            totals[currency] += amount
            clauses.append(f"{label}: {money(amount, currency)} [{n}]")
        if pots_asked or (not asked and self._pots(day)):
            for pot, (amount, currency, behind) in self._pots(day).items():
                if pots_asked and not any(fold_has(n, pot) for n in pots_asked):
                    continue
                n = self._cite(f"{pot} pot on {day:%-d %B %Y}", behind, currency, total=amount, row=len(rows))
                rows.append([f"{pot} pot", currency, plain(amount, currency), day.isoformat()])
                self._figure(f"{pot} pot", plain(amount, currency))
                totals[currency] += amount
                clauses.append(f"{pot} pot: {money(amount, currency)} [{n}]")
                if "your pots counted from their first transfer (empty before your first statement)" \
                        not in self._assumed:
                    self._assumed = (*self._assumed, "your pots counted from their first transfer "
                                                     "(empty before your first statement)")
        if not clauses:
            which = f" for {', '.join(asked)}" if asked else ""
            return ExactAnswer(plan.metric, f"No balance is known{which}: your statements state none "
                               "(an OFX file, a CSV with a balance column, or a balance you give).", [], [],
                               self.sources)
        if len(clauses) > 1:
            for currency, total in totals.items():
                self._figure("all", plain(total, currency))
            clauses.append("in all " + " and ".join(money(v, c) for c, v in totals.items()))
        when = f"today ({day:%-d %B %Y})" if day == self.today else f"at the end of {day:%-d %B %Y}"
        if latest_known and len(set(latest_known)) == 1 and len(latest_known) == len(rows):
            when = f"as of {latest_known[0]:%-d %B %Y}, the latest your statements show"
        text = f"Balance {when}: " + "; ".join(clauses) + "."
        if latest_known and not text.startswith("Balance as of"):
            text += " (Statements end before today: each balance is as of its account's latest day.)"
        if missing:
            text += f" No balance is known for {', '.join(missing)}."
        return ExactAnswer(plan.metric, text, ["account", "currency", "balance", "as of"], rows, self.sources)

    def _account_balance(self, account: str, day: date, stated: list[Any]
                         ) -> tuple[Decimal, str, Selected, date] | None:
        """(balance at the end of ``day``, currency, the transactions added or taken off, the
        stated balance's day) from the stated balance nearest to ``day``."""
        if not stated:
            return None
        before = [b for b in stated if b.as_of <= day]
        anchor = max(before, key=lambda b: b.as_of) if before else min(stated, key=lambda b: b.as_of)
        rows = [t for t in self.selector.everything if t.account_id == account and t.currency == anchor.currency]
        behind = Selected()
        amount = anchor.amount
        for t in rows:
            d = t.timestamp.date()
            if anchor.as_of < d <= day:
                amount += t.amount
                behind.add(t, t.amount)
            elif day < d <= anchor.as_of:
                amount -= t.amount
                behind.add(t, -t.amount)
        return amount, anchor.currency, behind, anchor.as_of

    def _pots(self, day: date) -> dict[str, tuple[Decimal, str, Selected]]:
        """Each pot's balance at the end of ``day``: what its transfers moved into it."""
        out: dict[str, tuple[Decimal, str, Selected]] = {}
        for t in self.selector.everything:
            if t.timestamp.date() > day or not _pot_transfer(t):
                continue
            name = t.merchant_name or "pot"
            amount, currency, behind = out.get(name, (Decimal(0), t.currency, Selected()))
            behind.add(t, -t.amount)
            out[name] = (amount - t.amount, currency, behind)
        return out

    def _account_label(self, account: str) -> str:
        if account in self.selector.savings_accounts() and not SAVINGS.search(account):
            return f"savings account {account}"
        return account


# -- pure helpers ---------------------------------------------------------------------
def _pot_transfer(t: Transaction) -> bool:
    return str(t.extra.get("Type", t.extra.get("type", ""))).lower() == "pot transfer" or \
        t.description.lower().startswith("pot_")


def fold_has(asked: str, name: str) -> bool:
    """Whether the words asked ("my Holiday pot") name ``name`` ("Holiday")."""
    from .matching import fold

    asked_words = set(fold(asked).split()) - {"pot", "pots", "my", "the", "our"}
    return not asked_words or fold(name) in asked_words or bool(asked_words & set(fold(name).split()))


def _group_key(t: Transaction, by: str | None) -> str:
    if by == "category":
        return t.transaction_category or "Uncategorised"
    if by == "merchant":
        from .matching import payee

        return payee(t.description, t.merchant_name)
    if by == "month":
        return t.month
    if by == "account":
        return t.account_id
    return ""


def _units(per: str, period: Period | None, rows: list[Transaction], today: date) -> tuple[int, str]:
    """How many months (weeks, days) to average over, and how to say it: the period's,
    up to today; without one, from the first to the last row's."""
    if period is not None:
        start, end = period.start, min(period.end, today)
    elif rows:
        start, end = min(t.timestamp.date() for t in rows), max(t.timestamp.date() for t in rows)
    else:
        return 0, "no time"
    if per == "month":
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        return months, f"{months} month{'s' if months != 1 else ''} ({start:%B %Y} to {end:%B %Y})"
    days = (end - start).days + 1
    if per == "week":
        weeks = max(1, round(days / 7))
        return weeks, f"{weeks} weeks"
    return days, f"{days} days"


def _month_name(month: str) -> str:
    """"2026-06" → "June 2026"."""
    if re.fullmatch(r"\d{4}-\d\d", month):
        return f"{date(int(month[:4]), int(month[5:]), 1):%B %Y}"
    return month


def _to(t: Transaction) -> str:
    return f"to {t.merchant_name}" if t.merchant_name else f"for {t.description!r}"


def _chart(title: str, rows: list[list[Any]], value: int = 2) -> dict[str, Any] | None:
    if len(rows) < 2:
        return None
    return {"type": "bar", "title": title,
            "bars": [{"label": str(r[0]), "value": r[value], "currency": r[1]} for r in rows]}
