"""The query plan: what a money question asks for, typed, JSON-serialisable and
checked against one JSON schema, so that either planner (the offline rule parser,
``records.parser``, or an LLM through tool calling, ``records.llm_planner``) can
propose it and the store executes it exactly (``records.exact``). The LLM never
does arithmetic: it only fills this structure.

    {"metric": "sum", "flow": "spend",
     "filters": {"merchants": ["Thames Water"], "categories": [], "kinds": [], "text": [], "accounts": [],
                 "currency": null},
     "periods": [{"text": "September 2026"}], "group_by": null, "per": null, "limit": null,
     "assumptions": []}

- ``metric``: ``sum``, ``count``, ``average``, ``max``, ``min``, ``list``, ``balance``
  (what the accounts held at the end of the period; today without one),
  ``compare`` (two periods, or the groups of ``group_by``: each figure and the
  difference), ``recurring`` (repeating payments and their monthly cost), ``share``
  (each group's part of the whole).
- ``flow``: which money: ``spend`` (payments net of refunds), ``income``, ``in``
  (every payment received: income and transfers in), ``refunds``, ``transfers_out``,
  ``transfers_in``, ``savings`` (moved into savings), ``savings_out`` (taken out of
  savings), ``savings_net`` (into savings less taken out), ``net`` (income minus spending).
- ``filters``: what was bought — the owner's categories, merchants (matched
  normalised and fuzzily, aliases and spellings included, ``records.matching``),
  kinds of spending in everyday words (``records.kinds``: ``coffee``, ``takeaways``,
  ``gym``…) and description text — all alternatives to one another (Tesco *or*
  coffee); ``places`` (a town or country a statement prints, "Munich" for
  "MUENCHEN"), which every row must also be in; ``exclude``: names whose rows are
  left out ("bills apart from rent"); accounts and one currency, which every row
  must meet (a currency the rows were not in is read from their local amount: "how
  many euros"); ``fees``: the bank's foreign-transaction fee lines go with the
  payments they belong to.
- ``periods``: one period, two to compare, or none (all the history; for
  ``balance``: now). A period is words resolved against today (``{"text": "last
  month"}``, ``records.periods``) or days (``{"start": "2026-09-01", "end":
  "2026-09-30"}``).
- ``group_by``: ``category``, ``merchant``, ``month``, ``account``, ``name`` (each
  named filter value on its own: "Tesco and Lidl", "coffee vs takeaways"), or none.
- ``per``: for ``average``: ``transaction`` (default), ``month``, ``week``, ``day``.
- ``assumptions``: what the planner assumed where the question was open; every
  answer states them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from functools import cache
from typing import Any, Literal, Protocol

from pydantic import ConfigDict, TypeAdapter, ValidationError

from ..errors import ConfigError
from .kinds import KINDS
from .periods import Period, parse_period

Metric = Literal["sum", "count", "average", "max", "min", "list", "balance", "compare", "recurring", "share"]
Flow = Literal["spend", "income", "in", "refunds", "transfers_out", "transfers_in", "savings", "savings_out",
               "savings_net", "net"]
Group = Literal["category", "merchant", "month", "account", "name"]
Per = Literal["transaction", "month", "week", "day"]

METRICS: tuple[str, ...] = Metric.__args__  # type: ignore[attr-defined]
FLOWS: tuple[str, ...] = Flow.__args__  # type: ignore[attr-defined]
GROUPS: tuple[str, ...] = Group.__args__  # type: ignore[attr-defined]
KIND_KEYS: tuple[str, ...] = tuple(k.key for k in KINDS)
MAX_LIMIT = 50
_STRICT = ConfigDict(extra="forbid")  # an unknown key is an error, not ignored


@dataclass(frozen=True)
class PlanFilters:
    """Which transactions, beyond flow and period. Values of one kind are alternatives."""

    __pydantic_config__ = _STRICT

    categories: tuple[str, ...] = ()
    merchants: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    accounts: tuple[str, ...] = ()
    currency: str | None = None
    fees: bool = False

    def __bool__(self) -> bool:
        return bool(self.categories or self.merchants or self.kinds or self.text or self.places or self.accounts
                    or self.currency)


@dataclass(frozen=True)
class PeriodRef:
    """A period as the plan names it: words (``text``) or days (``start``/``end``,
    ISO dates, both inclusive); once resolved, days and a ``label`` to say it with."""

    __pydantic_config__ = _STRICT

    text: str | None = None
    start: str | None = None
    end: str | None = None
    label: str | None = None

    def resolve(self, today: date) -> Period:
        """Days and a label, the words read against ``today`` (``ConfigError`` when
        neither words nor days say which period)."""
        if self.start or self.end:
            try:
                start = date.fromisoformat(self.start) if self.start else date(1900, 1, 1)
                end = date.fromisoformat(self.end) if self.end else today
            except ValueError as exc:
                raise ConfigError(f"period {self.start!r}..{self.end!r}: {exc}") from None
            if end < start:
                raise ConfigError(f"period ends ({end}) before it starts ({start})")
            return Period(start, end, self.label or _days_label(start, end))
        if self.text:
            found = parse_period(self.text, today)
            if found is None:
                raise ConfigError(f"period {self.text!r} names no period ragline can read")
            return found
        raise ConfigError("a period needs words (text) or days (start, end)")

    @staticmethod
    def of(period: Period) -> PeriodRef:
        return PeriodRef(start=period.start.isoformat(), end=period.end.isoformat(), label=period.label)


def _days_label(start: date, end: date) -> str:
    from calendar import monthrange

    if start.day == 1 and end == start.replace(day=monthrange(start.year, start.month)[1]):
        return f"in {start:%B %Y}"
    if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31) and start.year == end.year:
        return f"in {start.year}"
    return f"from {start:%-d %B %Y} to {end:%-d %B %Y}"


@dataclass(frozen=True)
class QueryPlan:
    """What to compute (see the module docstring); ``to_dict``/``from_dict`` are its JSON."""

    __pydantic_config__ = _STRICT

    metric: Metric = "sum"
    flow: Flow = "spend"
    filters: PlanFilters = field(default_factory=PlanFilters)
    periods: tuple[PeriodRef, ...] = ()
    group_by: Group | None = None
    per: Per | None = None
    limit: int | None = None
    assumptions: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return json.loads(json.dumps(asdict(self)))  # tuples as lists: the JSON shape exactly

    @staticmethod
    def from_dict(data: Any) -> QueryPlan:
        """A plan from its JSON (an LLM's tool arguments, a stored plan), checked against
        the schema and for sense; ``PlanError`` says what is wrong."""
        try:
            plan = _adapter().validate_python(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'plan'}: {e['msg']}"
                                 for e in exc.errors()[:5])
            raise PlanError(f"the plan does not fit the schema: {problems}") from None
        return plan.checked()

    def checked(self) -> QueryPlan:
        """This plan, with the cross-field rules the schema cannot say (``PlanError``)."""
        if self.metric == "balance" and len(self.periods) > 1:
            raise PlanError("a balance is as of one day: at most one period (its last day)")
        if len(self.periods) > 12:
            raise PlanError("at most 12 periods")
        if self.limit is not None and not 1 <= self.limit <= MAX_LIMIT:
            raise PlanError(f"limit must be 1 to {MAX_LIMIT}")
        if self.per is not None and self.metric != "average":
            raise PlanError("per applies to the average only")
        if self.filters.currency is not None and (len(self.filters.currency) != 3
                                                  or not self.filters.currency.isalpha()):
            raise PlanError(f"currency {self.filters.currency!r} is not a three-letter code")
        for ref in self.periods:
            if not (ref.text or ref.start or ref.end):
                raise PlanError("a period needs words (text) or days (start, end)")
        unknown = [k for k in self.filters.kinds if k not in KIND_KEYS]
        if unknown:
            raise PlanError(f"unknown kinds {unknown}; known: {', '.join(KIND_KEYS)}")
        if self.group_by == "name" and not named_values(self.filters):
            raise PlanError("group_by name needs named categories, merchants, kinds or text")
        names = [*self.filters.categories, *self.filters.merchants, *self.filters.text, *self.filters.places,
                 *self.filters.exclude, *self.filters.accounts]
        if any(not n.strip() or len(n) > 100 for n in names) or len(names) > 20:
            raise PlanError("filters hold at most 20 names of 1 to 100 characters")
        return replace(self, filters=replace(self.filters, currency=self.filters.currency.upper()
                                             if self.filters.currency else None))

    def resolved(self, today: date) -> QueryPlan:
        """The same plan with every period in days (``ConfigError`` for one that names none)."""
        try:
            return replace(self, periods=tuple(PeriodRef.of(p.resolve(today)) for p in self.periods))
        except ConfigError as exc:
            raise PlanError(str(exc)) from None

    def period(self, i: int = 0) -> Period | None:
        """The i-th period, resolved (call ``resolved`` first)."""
        if i >= len(self.periods):
            return None
        ref = self.periods[i]
        assert ref.start and ref.end, "resolve the plan first"
        return Period(date.fromisoformat(ref.start), date.fromisoformat(ref.end), ref.label or "")


def named_values(filters: PlanFilters) -> list[tuple[str, str]]:
    """(what, value) for every named filter value, in order: what is ``category``,
    ``merchant``, ``kind`` or ``text``."""
    return ([("category", c) for c in filters.categories] + [("merchant", m) for m in filters.merchants]
            + [("kind", k) for k in filters.kinds] + [("text", x) for x in filters.text])


class PlanError(ConfigError):
    """A plan that does not fit the schema or makes no sense (an LLM's, mostly)."""


@cache
def _adapter() -> TypeAdapter[QueryPlan]:
    return TypeAdapter(QueryPlan)


@cache
def plan_schema() -> dict[str, Any]:
    """The JSON schema of a plan (what an LLM's tool takes), inlined: no ``$ref``, so
    every provider's function-calling dialect reads it."""
    schema = _adapter().json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].split("/")[-1]])
            return {k: inline(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    out = inline(schema)
    out["properties"]["filters"]["properties"]["kinds"]["items"]["enum"] = list(KIND_KEYS)
    out["description"] = "A money question as a query plan; ragline computes the figures exactly."
    return out


@dataclass(frozen=True)
class Vocabulary:
    """What a planner may name: the owner's own categories, merchants, accounts and
    currencies, and today (periods are read against it)."""

    today: date
    categories: tuple[str, ...] = ()
    merchants: tuple[str, ...] = ()
    accounts: tuple[str, ...] = ()
    currencies: tuple[str, ...] = ()
    descriptions: tuple[str, ...] = ()  # distinct descriptions (for words a statement prints)


@dataclass(frozen=True)
class Planned:
    """A planner's verdict: a plan (None: not a money question about one's own
    transactions), why, who planned it, and the part of the question left for other
    routes (a mixed question's document half)."""

    plan: QueryPlan | None
    reason: str
    planner: str
    rest: str | None = None
    question: str | None = None  # the money half of a mixed question (None: all of it)
    fallback_reason: str | None = None  # why the LLM planner's plan was not used


class Planner(Protocol):
    """Proposes the plan for a question (the rules offline; an LLM when configured)."""

    name: str

    def plan(self, question: str, vocabulary: Vocabulary) -> Planned:
        """The plan for ``question`` over the owner's ``vocabulary``; never raises for
        the question's sake (a planner that cannot plan says so in ``Planned``)."""
        ...
