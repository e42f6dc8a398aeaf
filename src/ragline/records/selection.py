"""Which transactions a plan means: the store's scoped query for the period, then
the plan's flow and filters read on each row.

Flows, as an answer counts them (amounts are never changed, only chosen):

- ``spend``: payments and refunds (a refund reduces spending), negated;
- ``income``: money in that is neither a refund nor a transfer; ``in``: any money
  in but refunds (income and transfers in);
- ``refunds``: refunds;
- ``transfers_out`` / ``transfers_in``: moves between one's own accounts (savings
  included);
- ``savings``: moves into savings, ``savings_out``: taken out of savings,
  ``savings_net``: the one less the other — counted on the savings account when it
  is imported, else on the everyday account (a pot, a saver not imported), never on both.

A row the bank left as spending or income is a transfer when its description says
it moves money between the owner's own accounts (``OWN_TRANSFER``), when another of
the owner's accounts shows the opposite amount within ``PAIR_DAYS`` days, or when it
is a savings account's credit or debit other than interest. A savings account is
one named so, or one that earns interest and makes no card payments.

Filters: categories, merchants, kinds and text are alternatives (one must hold);
places must hold too (a row is in a place when its description, address or notes
name it); ``exclude`` leaves rows out. The bank's foreign-fee lines ("NON-STERLING
TRANSACTION FEE") count only as fees, never as another kind, and with ``fees`` (or a
place) they go with the payment they were charged on (same account, same day).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from ..models.records import Transaction, TransactionQuery, key
from .kinds import BY_KEY, Kind, category_is, kind_matches
from .matching import fold, name_matches
from .merchants import KNOWN, merchant_matches
from .periods import Period
from .plan import PlanFilters, named_values

PAIR_DAYS = 3
SAVINGS = re.compile(r"\b(savings?|saver|isa|pots?|vault|sparen|sparkonto|spar|tagesgeld|festgeld|rainy day|"
                     r"emergency fund|nest ?egg)\b|\bpot_", re.IGNORECASE)
OWN_TRANSFER = re.compile(r"\b(to|from|into)\s+(my\s+)?(own\s+)?(savings?|saver|isa|pot|vault|current|joint|"
                          r"credit card|account)\b|\b(own account|internal|umbuchung|übertrag|ubertrag|"
                          r"eigenes konto|sparplan|savings transfer|transfer to savings|transfer from savings|"
                          r"credit card (re)?payment|card repayment)\b|^pot_", re.IGNORECASE)
SAVINGS_ACCOUNT = re.compile(r"sav|isa\b|spar|tagesgeld|festgeld|reserve|vault", re.IGNORECASE)
INTEREST = re.compile(r"\binterest\b|\bzinsen\b|\bhabenzins", re.IGNORECASE)
FEE_LINE = re.compile(r"\b(non[- ]sterling|foreign|fx|exchange|cross[- ]border|currency conversion|"
                      r"auslandseinsatz)\b.*\b(fee|charge|entgelt)\b", re.IGNORECASE)
_EXTRA_TEXT = ("Address", "Notes and #tags", "Notes", "address", "notes", "reference", "memo", "name", "Name",
               "counterparty", "location", "city", "Type", "type", "payment_type")
_KNOWN_NAMES = frozenset(fold(name) for name, _, _ in KNOWN)

Matcher = Callable[[str, str | None, str], bool]
"""(name as asked, merchant, description) → whether they are that merchant."""


@dataclass
class Selected:
    """The rows behind one figure, each with the value it counts for (positive)."""

    rows: list[Transaction] = field(default_factory=list)
    values: list[Decimal] = field(default_factory=list)
    currency: dict[str, str] = field(default_factory=dict)  # transaction id → the currency its value is in

    def add(self, t: Transaction, value: Decimal, currency: str | None = None) -> None:
        self.rows.append(t)
        self.values.append(value)
        if currency and currency != t.currency:
            self.currency[t.transaction_id] = currency

    def currency_of(self, t: Transaction) -> str:
        return self.currency.get(t.transaction_id, t.currency)

    @property
    def total(self) -> Decimal:
        return sum(self.values, Decimal(0))

    @property
    def ids(self) -> list[str]:
        return [t.transaction_id for t in self.rows]

    def by_currency(self) -> dict[str, Selected]:
        out: dict[str, Selected] = defaultdict(Selected)
        for t, v in zip(self.rows, self.values):
            out[self.currency_of(t)].add(t, v, self.currency_of(t))
        return dict(sorted(out.items(), key=lambda cv: (-len(cv[1].rows), cv[0])))


class Selector:
    """Reads rows through the scoped store API and keeps those a plan means."""

    def __init__(self, find: Callable[[TransactionQuery], list[Transaction]],
                 matcher: Matcher = merchant_matches, everything: list[Transaction] | None = None) -> None:
        self.find = find  # the store's find_transactions, bound to the owner's scope
        self.matcher = matcher
        self._pairs: dict[tuple[date | None, date | None], set[str]] = {}
        self._all: list[Transaction] | None = everything  # every row of the owner's (read once)
        self._bank_categories: set[str] | None = None
        self._places: tuple[str, ...] = ()

    # -- the owner's accounts and merchants -------------------------------------------------
    @property
    def everything(self) -> list[Transaction]:
        if self._all is None:
            self._all = self.find(TransactionQuery())
        return self._all

    def _in(self, start: date | None, end: date | None) -> list[Transaction]:
        """The owner's rows between two days (inclusive; None: open), from the rows read once."""
        return [t for t in self.everything if (start is None or t.timestamp.date() >= start)
                and (end is None or t.timestamp.date() <= end)]

    @property
    def accounts(self) -> list[str]:
        return sorted({t.account_id for t in self.everything})

    def savings_accounts(self) -> set[str]:
        """Accounts named as savings, or that earn interest and make no card payments."""
        interest: set[str] = set()
        spending: defaultdict[str, int] = defaultdict(int)
        for t in self.everything:
            if t.amount > 0 and INTEREST.search(_text(t)):
                interest.add(t.account_id)
            if t.amount < 0 and not OWN_TRANSFER.search(_text(t)) and t.flow == "spend" and \
                    not _looks_like_a_move(t):
                spending[t.account_id] += 1
        return {a for a in self.accounts if SAVINGS_ACCOUNT.search(a) or (a in interest and spending[a] <= 1)}

    def merchants(self) -> set[str]:
        return {t.merchant_name for t in self.everything if t.merchant_name}

    # -- selection -------------------------------------------------------------------------
    def rows(self, period: Period | None, filters: PlanFilters) -> list[Transaction]:
        """The rows of the period (and accounts) with the named filters applied."""
        rows = [t for t in self._in(period.start if period else None, period.end if period else None)
                if self._accounts_ok(t, filters)]
        self._places = filters.places
        out = []
        for t in rows:
            fee = bool(FEE_LINE.search(t.description))
            if filters.places and not (self._in_places(t, filters.places) or
                                       (fee and self._fee_in_place(t, rows, filters))):
                continue
            if filters.exclude and any(self.excluded(t, name) for name in filters.exclude):
                continue
            if self.named_ok(t, filters) or (fee and filters.fees and self._fee_of_named(t, rows, filters)):
                out.append(t)
        return out

    def select(self, period: Period | None, filters: PlanFilters, flow: str) -> Selected:
        """The rows of ``flow`` with their values (see the module docstring)."""
        rows = self.rows(period, filters)
        paired = self.paired(period)
        savings = self.savings_accounts()
        out = Selected()
        for t in rows:
            value = self.value(t, flow, t.transaction_id in paired, savings)
            if value is None:
                continue
            currency = filters.currency
            if currency and currency != t.currency:  # "how many euros": the local amount the bank printed
                local = _local(t, currency)
                if local is None:
                    continue
                value = local if value >= 0 else -local
            out.add(t, value, currency if currency and currency != t.currency else None)
        return out

    def value(self, t: Transaction, flow: str, paired: bool = False, savings: set[str] | None = None) -> Decimal | None:
        """What ``t`` counts for in ``flow`` (None: it is not of that flow)."""
        savings = self.savings_accounts() if savings is None else savings
        kind = self.flow_of(t, paired, savings)
        if flow == "spend":
            return -t.amount if kind in ("spend", "refund") else None
        if flow == "income":
            return t.amount if kind == "income" else None
        if flow == "in":
            return t.amount if t.amount > 0 and kind in ("income", "transfer") else None
        if flow == "refunds":
            return t.amount if kind == "refund" else None
        if flow == "transfers_out":
            return -t.amount if kind == "transfer" and t.amount < 0 else None
        if flow == "transfers_in":
            return t.amount if kind == "transfer" and t.amount > 0 else None
        if flow in ("savings", "savings_out", "savings_net"):
            move = self._savings_move(t, kind, savings, paired)
            if move is None:
                return None
            if flow == "savings":
                return move if move > 0 else None
            if flow == "savings_out":
                return -move if move < 0 else None
            return move
        raise ValueError(f"flow {flow!r}")

    def flow_of(self, t: Transaction, paired: bool = False, savings: set[str] | None = None) -> str:
        savings = self.savings_accounts() if savings is None else savings
        if t.account_id in savings and not INTEREST.search(_text(t)) and t.flow in ("income", "spend"):
            return "transfer"
        if t.flow in ("spend", "income") and (paired or OWN_TRANSFER.search(_text(t))):
            return "transfer"
        return t.flow

    def _savings_move(self, t: Transaction, kind: str, savings: set[str], paired: bool) -> Decimal | None:
        """Into savings (positive) or out of them (negative), or None: not a savings move."""
        if kind != "transfer":
            return None
        if t.account_id in savings:
            return t.amount  # a credit of the saver goes in, a debit comes out
        if not SAVINGS.search(_text(t)):
            return None
        if paired and savings:  # the saver's own line counts this move
            return None
        return -t.amount

    def paired(self, period: Period | None) -> set[str]:
        """Ids of rows another of the owner's accounts mirrors (the opposite amount within
        ``PAIR_DAYS`` days): moves between their own accounts."""
        span = (period.start - timedelta(days=PAIR_DAYS) if period else None,
                period.end + timedelta(days=PAIR_DAYS) if period else None)
        if span not in self._pairs:
            rows = self._in(*span)
            by_amount: dict[tuple[str, Decimal], list[Transaction]] = defaultdict(list)
            for t in rows:
                if t.flow != "refund":
                    by_amount[(t.currency, abs(t.amount))].append(t)
            found: set[str] = set()
            for group in by_amount.values():
                outs = sorted((t for t in group if t.amount < 0), key=lambda t: t.timestamp)
                ins = sorted((t for t in group if t.amount > 0), key=lambda t: t.timestamp)
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
        return not filters.accounts or any(self.account_matches(a, t.account_id) for a in filters.accounts)

    def account_matches(self, name: str, account_id: str) -> bool:
        if fold(name) == fold(account_id) or name_matches(name, account_id):
            return True
        return bool(SAVINGS.search(name)) and account_id in self.savings_accounts()

    def named_ok(self, t: Transaction, filters: PlanFilters) -> bool:
        """Categories, merchants, kinds and text are alternatives: one of them must hold
        (none named: every row)."""
        if not (filters.categories or filters.merchants or filters.kinds or filters.text):
            return True
        return any(self.name_of(t, kind, name) for kind, name in named_values(filters))

    def name_of(self, t: Transaction, kind: str, name: str) -> bool:
        """Whether ``t`` is what one named filter value means."""
        fee = bool(FEE_LINE.search(t.description)) and not re.search(r"\b(fee|fees|charge|charges)\b", name,
                                                                      re.IGNORECASE)
        if kind == "category":
            return key(t.transaction_category) == key(name) and not fee
        if kind == "merchant":
            return not fee and self.merchant_is(name, t)
        if kind == "kind":
            if FEE_LINE.search(t.description):
                return name == "fees"
            return self.kind_is(BY_KEY[name], t, places=bool(self._places))
        if fee:
            return False
        haystack = _haystack(t)
        return fold(name) in fold(haystack) or name_matches(name, haystack)

    def kind_is(self, kind: Kind, t: Transaction, *, places: bool = False) -> bool:
        """Whether ``t`` is of ``kind``. Where the bank itself has a category for the kind
        (Groceries) and filed this row under another one, the bank's filing stands (a shop at
        REWE on holiday is Holidays), unless the question is about a place (a trip's meals)."""
        if category_is(kind, t.transaction_category):
            return True
        if not places and t.category_source == "bank" and t.transaction_category and \
                any(category_is(kind, c) for c in self.bank_categories()):
            return False
        return kind_matches(kind, t.transaction_category, t.merchant_name, _haystack(t))

    def bank_categories(self) -> set[str]:
        if self._bank_categories is None:
            self._bank_categories = {t.transaction_category for t in self.everything
                                     if t.transaction_category and t.category_source == "bank"}
        return self._bank_categories

    def merchant_is(self, name: str, t: Transaction) -> bool:
        """``name`` as asked names ``t``'s merchant — but not a more specific merchant of the
        owner's that is a brand of its own ("Uber" is not "Uber Eats"; "Tesco" is "Tesco Express").
        """
        if not self.matcher(name, t.merchant_name, t.description):
            return False
        merchant = fold(t.merchant_name or "")
        asked = fold(name)
        if not merchant or merchant == asked or not merchant.startswith(asked):
            return True
        return merchant not in _KNOWN_NAMES or not any(fold(m) == asked for m in self.merchants())

    def excluded(self, t: Transaction, name: str) -> bool:
        what = "kind" if name in BY_KEY else "merchant"
        if what == "merchant" and not self.merchant_is(name, t):
            return self.name_of(t, "text", name) or key(t.transaction_category) == key(name)
        return self.name_of(t, what, name)

    def _in_places(self, t: Transaction, places: Iterable[str]) -> bool:
        haystack = _haystack(t)
        return any(name_matches(p, haystack) or merchant_matches(p, None, haystack) for p in places)

    def _charged_on(self, fee: Transaction, rows: list[Transaction]) -> list[Transaction]:
        """The payments a fee line was charged on: the same account and day."""
        return [r for r in rows if r.account_id == fee.account_id and r.day == fee.day
                and not FEE_LINE.search(r.description)]

    def _fee_in_place(self, fee: Transaction, rows: list[Transaction], filters: PlanFilters) -> bool:
        return any(self._in_places(r, filters.places) for r in self._charged_on(fee, rows))

    def _fee_of_named(self, fee: Transaction, rows: list[Transaction], filters: PlanFilters) -> bool:
        return any(self.named_ok(r, filters) for r in self._charged_on(fee, rows))


def _text(t: Transaction) -> str:
    return " ".join(filter(None, (t.description, t.merchant_name, t.transaction_category)))


def _haystack(t: Transaction) -> str:
    """Everything a statement says about where and what: description, merchant, address, notes."""
    extra = [str(t.extra.get(k)) for k in _EXTRA_TEXT if t.extra.get(k)]
    return " ".join(filter(None, (t.description, t.merchant_name, *extra)))


def _looks_like_a_move(t: Transaction) -> bool:
    return bool(re.search(r"\b(transfer|to \d\d-\d\d-\d\d|faster payment)\b", t.description, re.IGNORECASE))


def _local(t: Transaction, currency: str) -> Decimal | None:
    """The row's amount in ``currency`` when the bank printed it (a local amount), positive."""
    extra = {k.lower(): v for k, v in t.extra.items()}
    if str(extra.get("local currency") or extra.get("local_currency") or "").upper() != currency:
        return None
    try:
        return abs(Decimal(str(extra.get("local amount") or extra.get("local_amount")).replace(",", "")))
    except (InvalidOperation, ValueError):
        return None
