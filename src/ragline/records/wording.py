"""How an exact answer says the plan it ran: "Spending at Thames Water in September
2026: 38.20 GBP, 1 payment [1]." Every template answer begins with the plan in
words (what, which money, when), so a reader sees what was computed before the figure."""

from __future__ import annotations

from calendar import monthrange
from datetime import date

from .kinds import BY_KEY
from .periods import Period
from .plan import QueryPlan

NOUNS = {"spend": "spending", "income": "income", "in": "money in", "refunds": "refunds",
         "transfers_out": "transfers out", "transfers_in": "transfers in", "savings": "money moved into savings",
         "savings_out": "money taken out of savings", "savings_net": "money moved into savings less taken out",
         "net": "income and spending"}
ITEMS = {"spend": ("payment", "payments"), "income": ("payment received", "payments received"),
         "in": ("payment received", "payments received"), "refunds": ("refund", "refunds"),
         "transfers_out": ("transfer", "transfers"), "transfers_in": ("transfer", "transfers"),
         "savings": ("transfer", "transfers"), "savings_out": ("transfer", "transfers"),
         "savings_net": ("transfer", "transfers"), "net": ("transaction", "transactions")}
GROUP_NOUNS = {"category": "category", "merchant": "merchant", "month": "month", "account": "account",
               "name": "what"}


def month_label(period: Period | None) -> str | None:
    """"September 2026" when the period is one calendar month."""
    if period is None:
        return None
    last = monthrange(period.start.year, period.start.month)[1]
    if period.start.day == 1 and period.end == period.start.replace(day=last):
        return f"{period.start:%B %Y}"
    return None


def _name_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


class Wording:
    """The phrases of one plan's answer."""

    def __init__(self, plan: QueryPlan, today: date, period: Period | None = None) -> None:
        self.plan = plan
        self.today = today
        self._period = period or plan.period(0)

    # -- what ------------------------------------------------------------------------
    def subject_noun(self) -> str:
        return NOUNS[self.plan.flow]

    def what(self, name: str | None = None) -> str:
        """" at Thames Water", " on groceries", "" (everything)."""
        f = self.plan.filters
        if name is not None:
            at = f.merchants and name in f.merchants
            return f" {'at' if at else 'on'} {name}"
        parts: list[str] = []
        if f.merchants:
            parts.append("at " + _name_list(list(f.merchants)))
        on = [*f.categories, *(BY_KEY[k].label for k in f.kinds), *(f'"{t}"' for t in f.text)]
        if on:
            parts.append(("on " if not parts else "") + _name_list(on))
        out = (" " + " or ".join(parts)) if parts else ""
        if f.places:
            out += " in " + _name_list(list(f.places))
        if f.exclude:
            out += " apart from " + _name_list([BY_KEY[x].label if x in BY_KEY else x for x in f.exclude])
        if f.accounts:
            out += f" from {_name_list(list(f.accounts))}"
        if f.currency:
            out += f" in {f.currency}"
        return out

    def subject(self, name: str | None = None) -> str:
        noun = self.subject_noun()
        return noun[0].upper() + noun[1:] + self.what(name)

    def recurring_subject(self) -> str:
        lead = {"income": "Regular income", "in": "Regular money in", "savings": "Regular transfers into savings",
                "transfers_out": "Regular transfers out"}.get(self.plan.flow, "Recurring payments")
        return lead + self.what()

    def group_noun(self) -> str:
        return GROUP_NOUNS.get(self.plan.group_by or "", "what")

    def one(self) -> str:
        return ITEMS[self.plan.flow][0]

    def count_noun(self) -> str:
        return ITEMS[self.plan.flow][1]

    def count(self, n: int) -> str:
        return f"{n} {ITEMS[self.plan.flow][0 if n == 1 else 1]}"

    # -- when ------------------------------------------------------------------------
    def when(self, period: Period | None = None) -> str:
        period = period or self._period
        if period is None:
            return " over all your transactions"
        label = period.label
        return f" {label}" if label.split(" ")[0] in ("in", "from", "since", "over", "between", "during") or \
            label.startswith(("last", "this", "today", "yesterday")) else f" in {label}"

    # -- sentences ------------------------------------------------------------------------
    def headline(self, clauses: list[str], *, by: str | None = None, counting: bool = False, single: bool = False,
                 comparing: bool = False) -> str:
        body = "; ".join(clauses)
        if counting:
            head = self.count_noun().capitalize() + self.what()
        elif single:
            head = ("Largest " if self.plan.metric == "max" else "Smallest ") + self.one() + self.what()
            if (self.plan.limit or 1) > 1:
                head = ("Largest " if self.plan.metric == "max" else "Smallest ") + self.count_noun() + self.what()
        elif self.plan.metric == "average":
            head = "Average " + (self.one() if (self.plan.per or "transaction") == "transaction"
                                 else self.subject_noun()) + self.what()
        elif self.plan.metric == "share":
            head = "Share of your " + self.subject_noun() + " that went" + self.what()
        elif self.plan.metric == "list":
            head = self.count_noun().capitalize() + self.what()
        elif comparing:
            head = self.subject() + " compared"
            return f"{head}: {body}."
        elif by == "name":
            head = self.subject()
        elif by:
            head = f"{self.subject()} by {GROUP_NOUNS.get(by, by)}"
        else:
            head = self.subject()
        return f"{head}{self.when()}: {body}."

    def nothing(self) -> str:
        return f"No {self.subject_noun()}{self.what()}{self.when()}: 0.00."

    def stated(self) -> str:
        """The plan in words, for the route and the records panel."""
        metric = {"sum": "total", "count": "number of", "average": "average", "max": "largest", "min": "smallest",
                  "list": "list of", "balance": "balance", "compare": "comparison of", "recurring": "recurring",
                  "share": "share of"}[self.plan.metric]
        if self.plan.metric == "balance":
            accounts = self.plan.filters.accounts
            return "balance" + (f" of {_name_list(list(accounts))}" if accounts else " of every account")
        periods = [self.plan.period(i) for i in range(len(self.plan.periods))]
        when = " vs ".join(p.label for p in periods if p) if len(periods) > 1 else self.when().strip()
        group = f", by {self.group_noun()}" if self.plan.group_by else ""
        per = f" a {self.plan.per}" if self.plan.per and self.plan.per != "transaction" else ""
        return f"{metric} {self.subject_noun()}{self.what()}{per}, {when}{group}"
