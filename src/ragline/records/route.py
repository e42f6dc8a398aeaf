"""The records route (``answer.route.Route``): a money question about the asker's
own transactions is answered exactly from them, before the documents are searched."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..answer.route import Asked, Decision
from ..answer.types import AnswerEvents
from .router import MoneyRoute

if TYPE_CHECKING:
    from ..answer.generators import Generator
    from .service import Transactions


class RecordsRoute:
    """Takes a question when the money router sends it to the records (``records.router``)
    and the scope's owner has transactions; its reason says why it did or did not."""

    name = "records"

    def __init__(self, transactions: Transactions) -> None:
        self.transactions = transactions

    def decide(self, asked: Asked) -> Decision:
        routed = self.transactions.route(asked.query, asked.scope)
        return Decision(routed.target == "records", routed.reason, routed)

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        routed: MoneyRoute = decision.plan
        answer = self.transactions.answer(asked.query, asked.scope, routed, generator)
        yield {"type": "delta", "text": answer.answer}
        return answer
