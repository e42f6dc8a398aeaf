"""The LLM planner: the configured LLM proposes the query plan by calling one tool,
``money_query_plan``, whose parameters are the plan's JSON schema
(``records.plan.plan_schema``); ragline checks the arguments against the schema
and for sense, and the store computes every figure. The model is told today's
date and the owner's own names (categories, merchants, accounts, currencies) and
the kinds of spending it may name; it is never given an amount.

When the provider fails, the model calls no tool, or its plan does not fit, the
offline parser's plan is used and ``Planned.fallback_reason`` says why.
"""

from __future__ import annotations

from ..answer.generators import ToolCaller, ToolRequest
from ..errors import GeneratorError
from .kinds import KINDS
from .plan import PlanError, Planned, QueryPlan, Vocabulary, plan_schema

TOOL = "money_query_plan"
MAX_NAMES = 300  # merchants listed in the prompt (the most frequent first)

SYSTEM = """You plan answers to a bank customer's questions about their own transactions.
Call the tool money_query_plan with the plan for the question; never answer with text and never compute an amount: \
ragline computes every figure from the transactions.

How to fill the plan:
- metric: sum (a total), count (how many payments), average (per payment, or per month/week/day with "per"), \
max / min (the largest / smallest single payments; "limit" for the top N), list (the transactions), \
balance (what is in the accounts now), compare (two periods in "periods", or the named things with \
group_by "name"), recurring (repeating payments and what they cost a month: subscriptions, "what does X cost me"), \
share (the part the named things take of all the money of that flow, in %).
- flow: spend (payments net of refunds; the default), income, refunds, transfers_out, transfers_in, \
savings (money moved into savings), net (income minus spending; "how much did I save" without a savings account \
means net).
- filters: categories and merchants from the customer's own lists below (a merchant may be named as the \
customer says it: matching is fuzzy), kinds of spending from the list below for everyday words ("takeaways", \
"the cinema", "food shopping"), text for other words a statement prints (a place: "Munich"). Every named \
category, merchant, kind and text is an alternative (Tesco or Lidl); accounts and currency restrict.
- periods: words as the customer said them, resolved against today ({"text": "last month"}, \
{"text": "September 2026"}, {"text": "since January"}), or days ({"start": "2026-09-01", "end": "2026-09-30"}). \
No period: all the transactions.
- group_by: category, merchant, month, account, or name (each named thing on its own).
- assumptions: say what you assumed where the question is open."""


def prompt(question: str, vocabulary: Vocabulary) -> str:
    """The user message: today, the owner's own names, the kinds, then the question."""
    kinds = "; ".join(f"{k.key} ({', '.join(k.phrases[:4])})" for k in KINDS)
    merchants = list(vocabulary.merchants)[:MAX_NAMES]
    lines = [f"Today: {vocabulary.today.isoformat()} ({vocabulary.today:%A %-d %B %Y})",
             f"Your categories: {', '.join(vocabulary.categories) or '(none: the bank gives none)'}",
             f"Your merchants: {', '.join(merchants) or '(none named by the bank)'}",
             f"Your accounts: {', '.join(vocabulary.accounts)}",
             f"Your currencies: {', '.join(vocabulary.currencies)}",
             f"Kinds of spending: {kinds}",
             f"Question: {question}"]
    return "\n".join(lines)


class LLMPlanner:
    """``records.plan.Planner`` over a generator that can call tools."""

    name = "llm"

    def __init__(self, generator: ToolCaller, fallback: Planned, *, temperature: float = 0.0,
                 max_output_tokens: int = 1024) -> None:
        self.generator = generator
        self.fallback = fallback  # the offline parser's verdict on the same question
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self.request: ToolRequest | None = None  # the last request (its usage, for the answer)

    def plan(self, question: str, vocabulary: Vocabulary) -> Planned:
        self.request = ToolRequest(system=SYSTEM, user=prompt(question, vocabulary), name=TOOL,
                                   description="The query plan of a money question; ragline computes the figures.",
                                   parameters=plan_schema(), temperature=self.temperature,
                                   max_output_tokens=self.max_output_tokens)
        try:
            arguments = self.generator.call_tool(self.request)
            plan = QueryPlan.from_dict(arguments).resolved(vocabulary.today)
        except (GeneratorError, PlanError) as exc:
            return self._fallen(f"{self.generator.name}'s plan was not used: {exc}")
        except Exception as exc:  # noqa: BLE001 — any provider failure: the offline plan stands
            return self._fallen(f"{self.generator.name}'s plan was not used: {type(exc).__name__}: {exc}")
        reason = f"{self.fallback.reason}; planned by {self.generator.name}"
        return Planned(plan, reason, self.name, rest=self.fallback.rest, question=self.fallback.question)

    def _fallen(self, why: str) -> Planned:
        f = self.fallback
        return Planned(f.plan, f.reason, f.planner, rest=f.rest, question=f.question, fallback_reason=why)
