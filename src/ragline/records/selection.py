"""Which transactions a plan means: the store's scoped query for the period, the
currency and the account, then the plan's flow and named filters read on each row.

Flows, as an answer counts them (amounts are never changed, only chosen):

- ``spend``: payments and refunds (a refund reduces spending), negated;
- ``income``: money in that is neither a refund nor a transfer;
- ``refunds``: refunds;
- ``transfers_out`` / ``transfers_in``: moves between one's own accounts;
- ``savings``: moves into savings — out of an everyday account to savings, or into
  a savings account from one the owner has not imported (never both sides of one move).

A row the bank left as spending or income is a transfer when its description says
it moves money between the owner's own accounts (``OWN_TRANSFER``) or when another
of the owner's accounts shows the opposite amount within ``PAIR_DAYS`` days.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from ..models.records import Transaction, TransactionQuery, key
from .kinds import BY_KEY, kind_matches
from .matching import fold, name_matches
from .periods import Period
from .plan import PlanFilters, named_values

PAIR_DAYS = 3
SAVINGS = re.compile(r"\b(savings?|saver|isa|pot|vault|sparen|sparkonto|spar|tagesgeld|festgeld|rainy day|"
                     r"emergency fund|nest ?egg)\b", re.IGNORECASE)
OWN_TRANSFER = re.compile(r"\b(to|from|into)\s+(my\s+)?(own\s+)?(savings?|saver|isa|pot|vault|current|joint|"
                          r"credit card|account)\b|\b(own account|internal|umbuchung|übertrag|ubertrag|"
                          r"eigenes konto|sparplan|savings transfer|transfer to savings|transfer from savings|"
                          r"credit card (re)?payment|card repayment)\b", re.IGNORECASE)
SAVINGS_ACCOUNT = re.compile(r"sav|isa|spar|tagesgeld|festgeld|reserve|vault|pot", re.IGNORECASE)

Matcher = Callable[[str, str | None, str], bool]
"""(name as asked, merchant, description) → whether they are that merchant."""


def merchant_matcher(name: str, merchant: str | None, description: str) -> bool:
    return name_matches(name, merchant, description)


@dataclass
class Selected:
    """The rows behind one figure, each with the value it counts for (positive)."""

    rows: list[Transaction] = field(default_factory=list)
    values: list[Decimal] = field(default_factory=list)

    def add(self, t: Transaction, value: Decimal) -> None:
        self.rows.append(t)
        self.values.append(value)

    @property
    def total(self) -> Decimal:
        return sum(self.values, Decimal(0))

    @property
    def ids(self) -> list[str]:
        return [t.transaction_id for t in self.rows]

    def by_currency(self) -> dict[str, Selected]:
        out: dict[str, Selected] = defaultdict(Selected)
        for t, v in zip(self.rows, self.values):
            out[t.currency].add(t, v)
        return dict(sorted(out.items(), key=lambda cv: (-len(cv[1].rows), cv[0])))


class Selector:
    """Reads rows through the scoped store API and keeps those a plan means."""

    def __init__(self, find: Callable[[TransactionQuery], list[Transaction]], matcher: Matcher = merchant_matcher,
                 accounts: Iterable[str] = ()) -> None:
        self.find = find  # the store's find_transactions, bound to the owner's scope
        self.matcher = matcher
        self.accounts = list(accounts)  # every account of the owner
        self._pairs: dict[tuple[date | None, date | None], set[str]] = {}

    def rows(self, period: Period | None, filters: PlanFilters) -> list[Transaction]:
        """The rows of the period (and currency, accounts) with the named filters applied."""
        query = TransactionQuery(start=period.start if period else None, end=period.end if period else None,
                                 currency=filters.currency)
        return [t for t in self.find(query) if self._accounts_ok(t, filters) and self.named_ok(t, filters)]

    def select(self, period: Period | None, filters: PlanFilters, flow: str) -> Selected:
        """The rows of ``flow`` with their values (see the module docstring)."""
        rows = self.rows(period, filters)
        paired = self.paired(period)
        out = Selected()
        for t in rows:
            value = self.value(t, flow, t.transaction_id in paired)
            if value is not None:
                out.add(t, value)
        return out

    def value(self, t: Transaction, flow: str, paired: bool = False) -> Decimal | None:
        """What ``t`` counts for in ``flow`` (None: it is not of that flow)."""
        kind = self.flow_of(t, paired)
        if flow == "spend":
            return -t.amount if kind in ("spend", "refund") else None
        if flow == "income":
            return t.amount if kind == "income" else None
        if flow == "refunds":
            return t.amount if kind == "refund" else None
        if flow == "transfers_out":
            return -t.amount if kind == "transfer" and t.amount < 0 else None
        if flow == "transfers_in":
            return t.amount if kind == "transfer" and t.amount > 0 else None
        if flow == "savings":
            return self._into_savings(t, kind)
        raise ValueError(f"flow {flow!r}")

    def flow_of(self, t: Transaction, paired: bool = False) -> str:
        if t.flow in ("spend", "income") and (paired or OWN_TRANSFER.search(_text(t))):
            return "transfer"
        return t.flow

    def _into_savings(self, t: Transaction, kind: str) -> Decimal | None:
        if kind != "transfer":
            return None
        on_savings = bool(SAVINGS_ACCOUNT.search(t.account_id))
        if t.amount < 0 and not on_savings and SAVINGS.search(_text(t)):
            return -t.amount
        if t.amount > 0 and on_savings and not self._has_savings_source():
            return t.amount
        return None

    def _has_savings_source(self) -> bool:
        """Whether an everyday account is imported (its outgoing moves then count, not the savings side)."""
        return any(not SAVINGS_ACCOUNT.search(a) for a in self.accounts) and len(self.accounts) > 1

    def paired(self, period: Period | None) -> set[str]:
        """Ids of rows another of the owner's accounts mirrors (the opposite amount within
        ``PAIR_DAYS`` days): moves between their own accounts."""
        span = (period.start - timedelta(days=PAIR_DAYS) if period else None,
                period.end + timedelta(days=PAIR_DAYS) if period else None)
        if span not in self._pairs:
            rows = self.find(TransactionQuery(start=span[0], end=span[1]))
            by_amount: dict[tuple[str, Decimal], list[Transaction]] = defaultdict(list)
            for t in rows:
                if t.flow != "refund":
                    by_amount[(t.currency, abs(t.amount))].append(t)
            found: set[str] = set()
            for group in by_amount.values():
                outs = [t for t in group if t.amount < 0]
                ins = [t for t in group if t.amount > 0]
                used: set[str] = set()
                for o in outs:
                    for i in ins:
                        if i.transaction_id in used or i.account_id == o.account_id:
                            continue
                        if abs((i.timestamp.date() - o.timestamp.date()).days) <= PAIR_DAYS:
                            found.update((o.transaction_id, i.transaction_id))
                            used.add(i.transaction_id)
                            break
            self._pairs[span] = found
        return self._pairs[span]

    # -- filters -----------------------------------------------------------------
    def _accounts_ok(self, t: Transaction, filters: PlanFilters) -> bool:
        return not filters.accounts or any(account_matches(a, t.account_id) for a in filters.accounts)

    def named_ok(self, t: Transaction, filters: PlanFilters) -> bool:
        """Categories, merchants, kinds and text are alternatives: one of them must hold
        (none named: every row)."""
        if not (filters.categories or filters.merchants or filters.kinds or filters.text):
            return True
        return any(self.name_of(t, kind, name) for kind, name in named_values(filters))

    def name_of(self, t: Transaction, kind: str, name: str) -> bool:
        """Whether ``t`` is what one named filter value means."""
        if kind == "category":
            return key(t.transaction_category) == key(name)
        if kind == "merchant":
            return self.matcher(name, t.merchant_name, t.description)
        if kind == "kind":
            return kind_matches(BY_KEY[name], t.transaction_category, t.merchant_name, t.description)
        return fold(name) in fold(_text(t)) or name_matches(name, t.merchant_name, t.description)


def account_matches(name: str, account_id: str) -> bool:
    return fold(name) == fold(account_id) or name_matches(name, account_id) or (
        bool(SAVINGS.search(name)) and bool(SAVINGS_ACCOUNT.search(account_id)))


def _text(t: Transaction) -> str:
    return " ".join(filter(None, (t.description, t.merchant_name, t.transaction_category)))
