"""The route seam (``answer.route``): the engine asks its routes in order, the
first that takes a question answers it, and a new route is one class and one
registration. The records route goes first, the documents route last."""

from __future__ import annotations

from datetime import date

import pytest

from ragline.answer import Answer, Asked, Decision, RAGContext, Router
from ragline.answer.types import AnswerEvents
from ragline.engine import Engine
from ragline.errors import ConfigError
from ragline.models import Block, Document, Scope

DOCS = Scope("acme", ("docs",))
ANN = Scope("acme", ("docs",), "ann")
CSV = b"date,description,amount,currency,category\n2025-01-03,TESCO STORES,-42.50,GBP,groceries\n2025-01-09,GYM LTD,-30.00,GBP,fitness\n"


class OpeningHours:
    """A route of our own: questions about opening hours get a fixed answer."""

    name = "hours"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def decide(self, asked: Asked) -> Decision:
        self.asked.append(asked.query)
        taken = "opening hours" in asked.query.lower()
        return Decision(taken, "asks for opening hours" if taken else "not about opening hours")

    def answer(self, asked: Asked, decision: Decision, generator: object) -> AnswerEvents:
        answer = Answer(question=asked.question, answer="We are open 9 to 5.", citations=[], abstained=False,
                        generator="none", context=RAGContext(enabled=False))
        yield {"type": "delta", "text": answer.answer}
        return answer


@pytest.fixture
def kb(engine: Engine) -> Engine:
    text = "The overdraft fee is 5 euros a day. Card payments abroad cost 2.75% of the amount."
    engine.add_documents([Document(source="fees.md", title="Fees", blocks=[Block(text)])], DOCS)
    return engine


def test_engine_asks_the_records_route_before_the_documents(kb: Engine) -> None:
    assert [route.name for route in kb.router.routes] == ["records", "retrieval"]
    answer = kb.ask("How much is the overdraft fee?", DOCS).to_dict()
    # Declined by the records route (with its reason), answered from the documents.
    assert answer["route"]["name"] == "retrieval"
    assert "not your transactions" in answer["route"]["reason"]
    assert answer["citations"] and not answer["abstained"]


def test_a_money_question_is_answered_exactly_when_the_owner_has_transactions(kb: Engine, tmp_path) -> None:
    kb.transactions.today = date(2025, 1, 20)
    (tmp_path / "ann.csv").write_bytes(CSV)
    kb.transactions.import_file(tmp_path / "ann.csv", Scope("acme", ("docs",), "ann"))
    answer = kb.ask("How much did I spend this month?", ANN).to_dict()
    assert answer["route"]["name"] == "records" and answer["generator"] == "records"
    assert "72.50" in answer["answer"]
    # Without an owner the same question goes to the documents, and the answer says why.
    shared = kb.ask("How much did I spend this month?", DOCS).to_dict()
    assert shared["route"]["name"] == "retrieval" and "no owner" in shared["route"]["reason"]


def test_a_registered_route_answers_and_is_metered_like_any(kb: Engine) -> None:
    hours = OpeningHours()
    kb.router.register(hours)
    assert [route.name for route in kb.router.routes] == ["records", "hours", "retrieval"]
    stream = kb.ask_stream("What are your opening hours?", DOCS)
    events = list(stream)
    assert [e["type"] for e in events] == ["delta", "done"]
    done = events[-1]["answer"]
    assert done["answer"] == "We are open 9 to 5."
    assert done["route"] == {"name": "hours", "reason": "asks for opening hours"}
    assert stream.answer is not None and stream.answer.answer == done["answer"]
    assert kb.usage_report("acme")["questions"] == 1
    # Declined questions fall through to the documents; the route saw each question once.
    assert kb.ask("How much is the overdraft fee?", DOCS).to_dict()["route"]["name"] == "retrieval"
    assert hours.asked == ["What are your opening hours?", "How much is the overdraft fee?"]


def test_the_routes_decide_when_the_first_event_is_asked_for(kb: Engine) -> None:
    hours = OpeningHours()
    kb.router.register(hours)
    stream = kb.ask_stream("What are your opening hours?", DOCS)
    assert hours.asked == []  # nothing decided yet: a caller may still drop the stream
    next(stream)
    assert hours.asked == ["What are your opening hours?"]


def test_bad_input_raises_before_any_route_is_asked(kb: Engine) -> None:
    hours = OpeningHours()
    kb.router.register(hours)
    with pytest.raises(ConfigError, match="question is empty"):
        kb.ask_stream("   ", DOCS)
    with pytest.raises(ConfigError, match="unknown generator"):
        kb.ask("What are your opening hours?", DOCS, generator="nonsense")
    assert hours.asked == []


def test_a_router_needs_a_route() -> None:
    with pytest.raises(ValueError, match="at least one route"):
        Router([], lambda name: None)  # type: ignore[arg-type,return-value]


def test_a_mixed_question_is_split_and_both_halves_are_answered(kb: Engine, tmp_path) -> None:
    kb.transactions.today = date(2025, 1, 20)
    (tmp_path / "ann.csv").write_bytes(CSV)
    kb.transactions.import_file(tmp_path / "ann.csv", ANN)
    stream = kb.ask_stream("How much did I spend at Tesco this month, and what is the overdraft fee?", ANN)
    events = list(stream)
    done = events[-1]["answer"]
    assert "".join(e["text"] for e in events if e["type"] == "delta") == done["answer"]  # streamed as it reads
    first, second = done["answer"].split("\n\n")
    assert first == "Spending at Tesco this month: 42.50 GBP, 1 payment [1]."
    assert second.startswith("On “What is the overdraft fee?”:") and "5 euros a day" in second and "[2]" in second
    (records, fees) = done["citations"]
    assert (records["n"], records["transaction_ids"]) == (1, [kb.transactions.list(ANN)[-1].transaction_id])
    assert (fees["n"], fees["source"]) == (2, "fees.md")  # the documents' [1], numbered after the records'
    assert [k["n"] for k in done["context"]["kept"]] == [2]  # its passage numbered as it is cited
    assert [p["name"] for p in done["route"]["parts"]] == ["records", "retrieval"]
    assert done["records"]["table"]["rows"] == [["GBP", "42.50", 1, "0.00"]]


def test_the_half_that_finds_no_answer_says_so(kb: Engine, tmp_path) -> None:
    kb.transactions.today = date(2025, 1, 20)
    (tmp_path / "ann.csv").write_bytes(CSV)
    kb.transactions.import_file(tmp_path / "ann.csv", ANN)
    answer = kb.ask("How much did I spend at the gym this month, and what is the capital of Peru?", ANN).to_dict()
    assert answer["answer"].startswith("Spending on the gym this month: 30.00 GBP")
    assert "On “What is the capital of Peru?”: " in answer["answer"]
    assert answer["route"]["parts"][1]["abstained"] is True and not answer["abstained"]


def test_citation_marks_split_across_deltas_are_renumbered_whole() -> None:
    from ragline.answer.route import Renumber

    renumber = Renumber(3)
    pieces = [renumber.feed(t) for t in ("The fee is 5 euros [", "1", "] and 2% [2", "].")]
    assert "".join(pieces) + renumber.flush() == "The fee is 5 euros [4] and 2% [5]."
