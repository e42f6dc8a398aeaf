"""The records route (``answer.route.Route``): a money question about the asker's own
transactions is planned (``records.plan``) and answered exactly from them, before
the documents are searched.

``decide`` is cheap and offline: the owner must have transactions, and the rule
parser (``records.parser``) must read the question as a money question (or a
mixed one: then the decision's ``rest`` is the half the documents answer).
``answer`` plans again with the request's LLM when it can call tools and the
settings allow it (``records.llm_planner``; the offline plan is the fallback),
executes the plan (``records.exact``), and phrases it (``records.phrasing``).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from ..answer.generators import ToolCaller
from ..answer.route import Asked, Decision
from ..answer.types import Answer, AnswerEvents
from ..models import Scope
from ..models.records import Transaction, TransactionQuery
from .exact import PlanExecutor
from .llm_planner import LLMPlanner
from .matching import payee
from .parser import RuleParser
from .phrasing import records_answer
from .plan import Planned, Planner, Vocabulary

if TYPE_CHECKING:
    from ..answer.generators import Generator
    from .service import Transactions

MAX_DESCRIPTIONS = 3000  # distinct descriptions the parser looks words up in


@dataclass(frozen=True)
class RecordsPlan:
    """What ``decide`` found, handed to ``answer``: the offline verdict and the owner's names."""

    planned: Planned
    vocabulary: Vocabulary
    rows: list[Transaction] = field(default_factory=list)  # every row of the owner's, as read to decide


class RecordsRoute:
    """Takes a money question when the scope's owner has transactions; its reason
    says why it did or did not."""

    name = "records"

    def __init__(self, transactions: Transactions, planner: Planner | None = None) -> None:
        self.transactions = transactions
        self.planner = planner or RuleParser()

    def decide(self, asked: Asked) -> Decision:
        scope = asked.scope
        if scope.owner is None:
            verdict = self.planner.plan(asked.query, Vocabulary(today=self._today()))
            why = verdict.reason if verdict.plan is None else f"{verdict.reason}; but no owner is named, " \
                                                              f"and transactions belong to one"
            return Decision(False, why)
        rows: list[Transaction] = []
        vocabulary = self.vocabulary(scope, rows)
        if vocabulary is None:
            verdict = self.planner.plan(asked.query, Vocabulary(today=self._today()))
            why = verdict.reason if verdict.plan is None else f"{verdict.reason}; but {scope.owner!r} has no " \
                                                              f"transactions"
            return Decision(False, why)
        planned = self.planner.plan(asked.query, vocabulary)
        return Decision(planned.plan is not None, planned.reason, RecordsPlan(planned, vocabulary, rows),
                        rest=planned.rest)

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        started = time.perf_counter()
        found: RecordsPlan = decision.plan
        planned = found.planned
        question = planned.question or asked.query
        settings = self.transactions.settings
        llm: LLMPlanner | None = None
        if (settings.records.planner == "auto" and isinstance(generator, ToolCaller)
                and generator.name != "extractive"):
            llm = LLMPlanner(generator, planned, temperature=0.0)
            planned = llm.plan(question, found.vocabulary)
        assert planned.plan is not None
        executor = PlanExecutor(self.transactions.records, asked.scope, found.vocabulary.today,
                                everything=found.rows or None)
        exact = executor.run(planned.plan)
        route: dict[str, Any] = {"name": self.name, "reason": planned.reason, "planner": planned.planner,
                                 "intent": exact.metric, "stated": exact.stated, "plan": exact.plan.to_dict()
                                 if exact.plan else None}
        if planned.fallback_reason:
            route["planner_fallback"] = planned.fallback_reason
        if planned.rest:
            route["rest"] = planned.rest
        answer: Answer = records_answer(asked.question if not planned.question else question, exact, route,
                                        generator, settings.generator)
        if llm is not None and llm.request is not None and llm.request.usage.reported:
            used = llm.request.usage
            answer.usage = _added(answer.usage, getattr(generator, "model", None) or generator.name,
                                  used.input_tokens, used.output_tokens)
        answer.timings_ms["total"] = (time.perf_counter() - started) * 1000
        yield {"type": "delta", "text": answer.answer}
        return answer

    # -- the owner's names -------------------------------------------------------------
    def vocabulary(self, scope: Scope, rows: list[Transaction] | None = None) -> Vocabulary | None:
        """The owner's categories, merchants (the bank's, else payees read from the
        descriptions, most frequent first), accounts, currencies and descriptions;
        None when they have no transactions."""
        records = self.transactions.records
        everything = TransactionQuery()
        currencies = [a.key for a in records.aggregate_transactions(scope, everything, "currency") if a.key]
        if not currencies:
            return None
        categories = [a.key for a in records.aggregate_transactions(scope, everything, "category") if a.key]
        accounts = [a.key for a in records.aggregate_transactions(scope, everything, "account") if a.key]
        found = records.find_transactions(scope, everything)
        if rows is not None:
            rows[:] = found
        rows = found
        payees = Counter(payee(t.description, t.merchant_name) for t in rows)
        descriptions = list(dict.fromkeys(" ".join(filter(None, (t.description, t.merchant_name))) for t in rows))
        return Vocabulary(today=self._today(), categories=tuple(categories),
                          merchants=tuple(name for name, _ in payees.most_common() if name),
                          accounts=tuple(accounts), currencies=tuple(currencies),
                          descriptions=tuple(descriptions[:MAX_DESCRIPTIONS]))

    def _today(self) -> date:
        return self.transactions.today or date.today()


def _added(usage: dict[str, Any] | None, model: str, input_tokens: int, output_tokens: int) -> dict[str, Any]:
    """The planning call's tokens added to the phrasing call's (one answer, one usage)."""
    if usage is None:
        return {"model": model, "input_tokens": input_tokens, "output_tokens": output_tokens, "reported": True}
    return {**usage, "input_tokens": usage.get("input_tokens", 0) + input_tokens,
            "output_tokens": usage.get("output_tokens", 0) + output_tokens, "reported": True}
