"""Money questions with an LLM (fake provider servers on real HTTP, each speaking its
own wire protocol):

- the LLM plans: it is asked, by a forced tool call, for the query plan as JSON; ragline
  checks it against the schema and executes it exactly; an invalid plan, no tool call
  or a failing provider leave the offline parser's plan, and the route says why;
- the LLM phrases: it gets the computed figures as numbered sources and its text is
  kept only when every number in it is one of them and every figure sits with its own
  label; otherwise, or when it fails, the computed sentence stands and
  ``fallback_reason`` says why."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from ragline.engine import Engine
from ragline.models import Scope
from ragline.models.records import Transaction
from ragline.records.llm_planner import TOOL
from ragline.settings import EmbedderSettings, GeneratorSettings, RecordsSettings, Settings

from tests.fakes.llm import FakeLLMServer, Reply, Status
from tests.fakes.planner import plan_from_prompt

ANN = Scope("bank", ("transactions",), "ann")
QUESTION = "Where am I spending the most money?"


def _tx(tid: str, day: str, amount: str, category: str, merchant: str | None = None) -> Transaction:
    return Transaction(transaction_id=tid, account_id="cur", timestamp=day, description=f"{category} {tid}",
                       amount=Decimal(amount), currency="GBP", transaction_category=category, merchant_name=merchant)


@pytest.fixture
def engine(tmp_path):
    def make(base_url: str, protocol: str = "openai", planner: str = "auto") -> Engine:
        settings = Settings(home=tmp_path / f"home-{len(made)}", embedder=EmbedderSettings(name="hashing"),
                            generator=GeneratorSettings(name=protocol, base_url=base_url, api_key="k",
                                                        retry_backoff=0.01, max_retries=1),
                            records=RecordsSettings(planner=planner))
        engine = Engine(settings)
        engine.transactions.put([_tx("1", "2024-05-01", "-1100.00", "Rent"),
                                 _tx("2", "2024-05-02", "-45.25", "Groceries", "Tesco"),
                                 _tx("3", "2024-05-09", "-54.75", "Groceries", "Lidl"),
                                 _tx("4", "2024-06-03", "-38.20", "Bills", "Thames Water")], ANN)
        engine.transactions.today = __import__("datetime").date(2024, 6, 20)
        made.append(engine)
        return engine

    made: list[Engine] = []
    yield make
    for e in made:
        e.close()


def _planned(body: dict) -> dict:
    """The fake model's plan, read from the prompt it was sent (never told an answer)."""
    user = "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")
    return plan_from_prompt(user)


# -- the LLM plans ---------------------------------------------------------------------
def test_the_llm_proposes_the_plan_by_a_tool_call_and_the_store_computes_it(engine) -> None:
    plan = {"metric": "sum", "filters": {"merchants": ["Thames Water"]}, "periods": [{"text": "last month"}]}
    with FakeLLMServer("openai", default=Reply(tool=plan)) as server:
        answer = engine(server.base_url).ask("What did the water bill come to last month?", ANN)
    assert answer.route["planner"] == "llm" and "planner_fallback" not in answer.route
    assert answer.records["plan"]["filters"]["merchants"] == ["Thames Water"]
    assert answer.records["plan"]["periods"][0]["start"] == "2024-05-01"  # "last month" read against today
    assert answer.answer.startswith("No spending at Thames Water last month (May 2024)")
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": TOOL}}
    (tool,) = body["tools"]
    assert tool["function"]["name"] == TOOL and tool["function"]["parameters"]["properties"]["metric"]["enum"]
    prompt = body["messages"][1]["content"]
    assert "Today: 2024-06-20" in prompt and "Thames Water" in prompt and "Question: What did the water bill" in prompt
    assert "1100" not in prompt and "38.20" not in prompt  # the model plans; it is never given an amount


def test_a_plan_read_from_the_prompt_answers_like_the_offline_parser(engine) -> None:
    with FakeLLMServer("openai", default=Reply("At Lidl you spent 54.75 GBP [2].", tool=_planned)) as server:
        answer = engine(server.base_url).ask("How much did I spend at Tesco and Lidl in May?", ANN)
    assert answer.route["planner"] == "llm"
    # The phrasing drops Tesco's figure, which was asked for: the computed answer stands.
    assert answer.generator == "records" and "left out computed figures (45.25" in answer.fallback_reason
    assert answer.records["plan"]["group_by"] == "name"
    assert "Tesco 45.25 GBP" in answer.answer and "Lidl 54.75 GBP" in answer.answer
    assert "100.00 GBP in all" in answer.answer
    assert {c.transaction_ids[0] for c in answer.citations} == {"2", "3"}


@pytest.mark.parametrize(("reply", "why"), [
    (Reply(tool={"metric": "median"}), "metric"),  # not in the schema
    (Reply(tool={"metric": "sum", "bogus": 1}), "bogus"),  # a key the schema does not have
    (Reply(tool="{not json"), "not JSON"),
    (Reply(tool={"metric": "sum", "periods": [{"text": "the twelfth of never"}]}), "names no period"),
    (Reply("I would rather just answer: 12.00 GBP."), "did not call"),  # no tool call at all
    (Status(503), "503"),
])
def test_an_unusable_plan_leaves_the_offline_one_and_says_why(engine, reply, why) -> None:
    with FakeLLMServer("openai", default=reply) as server:
        answer = engine(server.base_url).ask("How much did I spend at Tesco in May?", ANN)
    assert answer.route["planner"] == "rules" and why in answer.route["planner_fallback"]
    assert answer.records["plan"]["filters"]["merchants"] == ["Tesco"]
    assert "45.25 GBP" in answer.answer


@pytest.mark.parametrize("protocol", ["anthropic", "gemini"])
def test_anthropic_and_gemini_plan_through_their_own_tool_dialects(engine, protocol: str) -> None:
    plan = {"metric": "count", "filters": {"categories": ["Groceries"]}}
    with FakeLLMServer(protocol, default=Reply(tool=plan)) as server:
        answer = engine(server.base_url, protocol).ask("How many grocery shops did I do?", ANN)
    assert answer.route["planner"] == "llm" and answer.records["plan"]["metric"] == "count"
    assert answer.records["table"]["rows"] == [["Spending on Groceries", "GBP", 2, "100.00"]]
    body = server.requests[0].body
    if protocol == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": TOOL} and body["tools"][0]["input_schema"]
    else:
        declaration = body["tools"][0]["functionDeclarations"][0]
        assert body["toolConfig"]["functionCallingConfig"] == {"mode": "ANY", "allowedFunctionNames": [TOOL]}
        assert "additionalProperties" not in json.dumps(declaration)  # Gemini's OpenAPI subset
        assert declaration["parameters"]["properties"]["filters"]["properties"]["currency"]["nullable"] is True


def test_the_rules_planner_setting_never_asks_the_llm_to_plan(engine) -> None:
    with FakeLLMServer("openai", default=Reply(tool={"metric": "count"})) as server:
        answer = engine(server.base_url, planner="rules").ask("How much did I spend at Tesco in May?", ANN)
    assert answer.route["planner"] == "rules"
    assert all("tools" not in r.body for r in server.requests)


# -- the LLM phrases ------------------------------------------------------------------
def _phrasing(server: FakeLLMServer) -> str:
    (request,) = [r for r in server.requests if "tools" not in r.body]
    return request.body["messages"][1]["content"]


def test_the_llm_phrases_the_computed_figures(engine) -> None:
    text = "Rent takes the most: 1,100.00 GBP, which is 88.8% of your 1,238.20 GBP spending [1]."
    with FakeLLMServer("openai", default=Reply(text)) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert (answer.generator, answer.answer, answer.fallback_reason) == ("openai", text, None)
    prompt = _phrasing(server)
    assert "spending on Rent over all your transactions, GBP: 1 transactions, total 1100.00 GBP" in prompt
    assert "Groceries | GBP | 100.00 | 2 | 8.1%" in prompt  # the table, every figure of it
    assert answer.records["table"]["rows"][0] == ["Rent", "GBP", "1100.00", 1, "88.8%"]


def test_invented_figures_are_refused(engine) -> None:
    with FakeLLMServer("openai", default=Reply("You spent 1,234.56 GBP on rent [1].")) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert answer.generator == "records" and "1,234.56" in answer.fallback_reason
    assert answer.answer.startswith("Spending by category over all your transactions: Rent 1,100.00 GBP")


def test_a_figure_put_with_another_label_is_refused(engine) -> None:
    swapped = "At Tesco you spent 54.75 GBP [1], and at Lidl 45.25 GBP [2]."  # both figures real, swapped
    with FakeLLMServer("openai", default=Reply(swapped)) as server:
        answer = engine(server.base_url, planner="rules").ask("How much did I spend at Tesco and Lidl?", ANN)
    assert answer.generator == "records" and "Tesco with 54.75" in answer.fallback_reason
    assert "Tesco 45.25 GBP" in answer.answer and "Lidl 54.75 GBP" in answer.answer


def test_a_phrasing_that_names_nothing_computed_gets_the_plan_in_front(engine) -> None:
    with FakeLLMServer("openai", default=Reply("That came to 38.20 GBP [1].")) as server:
        answer = engine(server.base_url, planner="rules").ask("How much did I pay Thames Water in June?", ANN)
    assert answer.generator == "openai"
    assert answer.answer == "Spending at Thames Water in June 2024: That came to 38.20 GBP [1]."


def test_a_failing_provider_leaves_the_computed_answer(engine) -> None:
    with FakeLLMServer("openai", default=Status(503)) as server:
        answer = engine(server.base_url).ask(QUESTION, ANN)
    assert answer.generator == "records" and "503" in answer.fallback_reason
    assert "1,100.00 GBP" in answer.answer
    assert answer.citations[0].source == "spending on Rent over all your transactions, GBP"
    assert answer.citations[0].transaction_ids == ["1"]
