"""Conversations in the library (``engine.conversations``): multi-turn follow-ups over
the real sample knowledge base with the expected sources, both turns stored with
citations, the gate, the bounds, retrieval over the user's own past messages and
every degradation case of seed 004's table, the no-answer policy, the LLM rewrite,
and one JSON log line per turn."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from ragline.conversations import should_retrieve
from ragline.conversations.followup import Turn, carry_terms, followup_reason, plan
from ragline.engine import Engine
from ragline.errors import ConfigError, EmbedderError, NotFoundError, StoreUnavailableError
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, Settings

from tests.fakes import FakeLLMServer, Reply, Status

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "ragline" / "sample"
BANK = Scope("demo", ("bank",))
PROVIDER_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GROQ_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                "ANTHROPIC_API_KEY", "OLLAMA_HOST")


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch) -> None:
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def bank(tmp_path_factory, minilm):
    """The sample knowledge base with the real model (what `make run` serves)."""
    engine = Engine(Settings(home=tmp_path_factory.mktemp("conv") / "home"), embedder=minilm)
    engine.ingest([SAMPLE], BANK)
    engine.conversations.background = False
    yield engine
    engine.close()


@pytest.fixture
def small(tmp_path):
    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                             answer=AnswerSettings(relevance_floor=0.2)))
    engine.add_documents([
        Document(source="cards.txt", blocks=[Block("Lost cards are frozen in the app. A replacement card arrives "
                                                   "within 3 to 5 business days.")]),
        Document(source="transfers.txt", blocks=[Block("SWIFT transfers cost 15 euro and arrive in 1 to 4 business "
                                                       "days.")])], BANK)
    engine.conversations.background = False
    yield engine
    engine.close()


def cited_sources(data: dict) -> set[str]:
    return {c["source"].rsplit("/", 1)[-1] for c in data["citations"]}


# -- a three-turn conversation over the sample knowledge base --------------------------------
def test_three_turn_conversation_answers_follow_ups_from_the_right_documents(bank: Engine) -> None:
    conv = bank.conversations
    first = conv.ask("How much does an unarranged overdraft cost?", BANK)
    cid = first.conversation_id
    assert cid and "€5 per day" in first.data["answer"] and "overdraft-policy.md" in cited_sources(first.data)
    assert first.data["query"]["followup"] is False
    second = conv.ask("And is interest charged on it too?", BANK, conversation_id=cid)
    query = second.data["query"]
    assert query["followup"] and query["method"] == "carry" and "overdraft" in query["carried_terms"]
    assert query["rewritten"].startswith("And is interest charged on it too?") and query["carried_sources"]
    assert "15.9%" in second.data["answer"] and cited_sources(second.data) == {"overdraft-policy.md"}
    third = conv.ask("What if I can't pay it back?", BANK, conversation_id=cid)
    assert "plan is agreed" in third.data["answer"] and "overdraft-policy.md" in cited_sources(third.data)
    assert third.data["conversation_id"] == cid
    # Both turns of every exchange are stored, the answers with their citations and what was searched.
    history = conv.messages("demo", None, cid)
    assert [m.role for m in history] == ["user", "assistant"] * 3
    assert history[3].metadata["citations"] == second.data["citations"]
    assert history[2].metadata["query"]["rewritten"] == query["rewritten"]
    # Citations name their section, so two chips of one file can be told apart.
    assert all(c["section"] for c in second.data["citations"])


def test_a_question_that_moves_on_is_searched_as_written(bank: Engine) -> None:
    conv = bank.conversations
    cid = conv.ask("What is the contactless payment limit?", BANK).conversation_id
    moved = conv.ask("How long does a SWIFT transfer to the United States take to arrive?", BANK,
                     conversation_id=cid)
    assert moved.data["query"]["followup"] is False and moved.data["query"]["method"] == "none"
    assert "1 to 4 business days" in moved.data["answer"]


def test_rewriting_and_carrying_can_be_switched_off_per_request(bank: Engine) -> None:
    conv = bank.conversations
    cid = conv.ask("What are the fees for a SWIFT transfer outside the euro area?", BANK).conversation_id
    off = conv.ask("How long does it take to arrive?", BANK, conversation_id=cid,
                   options={"rewrite": False, "carry_sources": False})
    assert off.data["query"]["followup"] and off.data["query"]["rewritten"] == "How long does it take to arrive?"
    assert off.data["query"]["carried_sources"] == []


# -- the conversation records ---------------------------------------------------------------
def test_create_list_get_rename_delete_per_owner(small: Engine) -> None:
    conv = small.conversations
    mine = conv.create("demo", "alice", title="Cards", collections=["bank"])
    assert [c.id for c in conv.list("demo", "alice")] == [mine.id] and conv.list("demo", "bob") == []
    assert conv.rename("demo", "alice", mine.id, "Lost cards").title == "Lost cards"
    for owner in ("bob", None):
        with pytest.raises(NotFoundError):
            conv.get("demo", owner, mine.id)
        with pytest.raises(NotFoundError):
            conv.ask("hello?", Scope("demo", ("bank",), owner), conversation_id=mine.id)
    with pytest.raises(ConfigError, match="empty"):
        conv.rename("demo", "alice", mine.id, "   ")
    conv.delete("demo", "alice", mine.id)
    with pytest.raises(NotFoundError):
        conv.delete("demo", "alice", mine.id)


def test_history_given_by_the_caller_is_used_when_nothing_is_stored(small: Engine) -> None:
    history = [("user", "How much does a SWIFT transfer cost?"), ("assistant", "15 euro [1].")]
    result = small.conversations.ask("And how long does it take?", BANK, history=history)
    assert result.data["query"]["followup"] and "swift" in result.data["query"]["carried_terms"]
    assert "transfers.txt" in cited_sources(result.data)


# -- the gate ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("message", "retrieve"), [
    ("hello!", False), ("Thanks a lot :)", False), ("bonjour", False), ("ok", False), ("👍", False),
    ("What is the overdraft fee?", True), ("overdraft fee student account", True), ("Hoeveel kost een kaart?", True),
    ("explain SWIFT charges", True),
])
def test_gate(message: str, retrieve: bool) -> None:
    assert should_retrieve(message).retrieve is retrieve


def test_small_talk_skips_retrieval_and_says_why(small: Engine) -> None:
    result = small.conversations.ask("Hello there!", BANK)
    data = result.data
    assert data["gate"] == {"retrieve": False, "reason": "greeting or small talk"}
    assert data["citations"] == [] and not data["abstained"] and data["answer"].startswith("Hello")
    assert data["rag_context"]["enabled"] is False and data["context"]["kept"] == []


def test_retrieval_off_by_request(small: Engine) -> None:
    data = small.conversations.ask("How long does a SWIFT transfer take?", BANK, options={"rag": False}).data
    assert data["gate"]["retrieve"] is False and data["citations"] == [] and data["abstained"]


# -- bounds -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("rag_options", "options", "field"), [
    ({"max_messages": 0}, None, "rag_options.max_messages"), ({"max_messages": 11}, None, "rag_options.max_messages"),
    ({"max_tokens": 99}, None, "rag_options.max_tokens"), ({"max_tokens": 4001}, None, "rag_options.max_tokens"),
    ({"surprise": 1}, None, "rag_options.surprise"), (None, {"max_sources": 11}, "options.max_sources"),
    (None, {"max_tokens": 50}, "options.max_tokens"), (None, {"threshold": 2}, "options.threshold"),
    (None, {"policy": "guess"}, "options.policy"),
])
def test_out_of_range_options_name_the_field(small: Engine, rag_options, options, field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        small.conversations.ask("What does a SWIFT transfer cost?", BANK, rag_options=rag_options, options=options)


def test_answer_options_bound_the_context(small: Engine) -> None:
    data = small.conversations.ask("When does a replacement card arrive?", BANK, options={"max_sources": 1}).data
    assert len(data["context"]["kept"]) == 1
    none = small.conversations.ask("When does a replacement card arrive?", BANK, options={"threshold": 0.99}).data
    assert none["abstained"] and none["citations"] == []


# -- retrieval over the user's own past messages ------------------------------------------------
def test_past_messages_are_found_once_embedded_and_only_the_owners(small: Engine) -> None:
    conv, alice, bob = small.conversations, Scope("demo", ("bank",), "alice"), Scope("demo", ("bank",), "bob")
    conv.ask("My daughter Mila starts university in Utrecht in September?", alice)
    conv.ask("My daughter Mila is moving abroad?", bob)
    fresh = conv.ask("What did I say about my daughter Mila?", alice).data["rag_context"]
    assert fresh["enabled"] and fresh["source_messages"] == [] and fresh["reason"] == "no past messages are embedded yet"
    assert conv.embed_pending() >= 6
    found = conv.ask("What did I say about my daughter Mila?", alice).data["rag_context"]
    assert found["enabled"] and found["source_messages"]
    assert all("Utrecht" in m["content"] or "Mila" not in m["content"] or "abroad" not in m["content"]
               for m in found["source_messages"])
    assert not any("abroad" in m["content"] for m in found["source_messages"])  # bob's, never alice's context
    assert found["context"].startswith(("[user] ", "[assistant] "))
    assert len(found["source_messages"]) <= 5


def test_message_context_keeps_its_token_budget(small: Engine) -> None:
    conv, alice = small.conversations, Scope("demo", ("bank",), "alice")
    for i in range(6):
        conv.ask(f"Note {i}: my savings goal is a sailing boat, " + "a very long description " * 30 + "?", alice)
    conv.embed_pending()
    ctx = conv.ask("What is my savings goal?", alice, rag_options={"max_messages": 10, "max_tokens": 100}).data[
        "rag_context"]
    assert ctx["enabled"] and ctx["tokens"] <= 100
    ctx = conv.ask("What is my savings goal?", alice, rag_options={"max_messages": 2}).data["rag_context"]
    assert 1 <= len(ctx["source_messages"]) <= 2


# -- never breaks chat (seed 004's table) --------------------------------------------------------
def _prime(engine: Engine) -> None:
    engine.conversations.ask("Lost card in Berlin?", Scope("demo", ("bank",), "alice"))
    engine.conversations.embed_pending()


def test_index_unavailable_degrades(small: Engine, monkeypatch) -> None:
    _prime(small)

    def down(*args, **kwargs):
        raise StoreUnavailableError("the store is unreachable")

    monkeypatch.setattr(small.store.conversations, "search_messages", down)
    data = small.conversations.ask("When does a replacement card arrive?", Scope("demo", ("bank",), "alice")).data
    assert data["rag_context"]["enabled"] is False and "unavailable" in data["rag_context"]["reason"]
    assert "3 to 5 business days" in data["answer"]


def test_embedder_failure_degrades(small: Engine, monkeypatch) -> None:
    _prime(small)
    real = small.conversations.memory.embedder

    class Broken:
        model_id, dimension = real.model_id, real.dimension

        def embed_query(self, text):
            raise EmbedderError("model crashed")

    monkeypatch.setattr(small.conversations.memory, "embedder", Broken())
    data = small.conversations.ask("When does a replacement card arrive?", Scope("demo", ("bank",), "alice")).data
    assert data["rag_context"]["enabled"] is False and "embedder failed" in data["rag_context"]["reason"]
    assert "3 to 5 business days" in data["answer"]


def test_slow_search_is_cut_at_its_time_limit(small: Engine, monkeypatch) -> None:
    _prime(small)
    search = small.store.conversations.search_messages

    def slow(*args, **kwargs):
        time.sleep(1.0)
        return search(*args, **kwargs)

    monkeypatch.setattr(small.store.conversations, "search_messages", slow)
    monkeypatch.setattr(small.conversations.memory, "timeout_s", 0.1)
    started = time.perf_counter()
    data = small.conversations.ask("When does a replacement card arrive?", Scope("demo", ("bank",), "alice")).data
    assert data["rag_context"]["enabled"] is False and "timed out" in data["rag_context"]["reason"]
    assert time.perf_counter() - started < 0.9 and "3 to 5 business days" in data["answer"]


def test_background_embedder_failure_leaves_messages_unembedded_and_chat_working(small: Engine, monkeypatch) -> None:
    small.conversations.ask("First question about cards?", BANK)
    monkeypatch.setattr(small.conversations.message_embedder, "embedder", type("E", (), {
        "model_id": "x", "embed_documents": lambda self, texts: (_ for _ in ()).throw(EmbedderError("down"))})())
    with pytest.raises(EmbedderError):
        small.conversations.embed_pending()
    assert len(small.store.conversations.unembedded_messages(10)) == 2
    assert small.conversations.ask("When does a replacement card arrive?", BANK).data["citations"]


def test_store_failure_when_saving_still_answers(small: Engine, monkeypatch) -> None:
    def full(*args, **kwargs):
        raise StoreUnavailableError("disk full")

    monkeypatch.setattr(small.store.conversations, "add_messages", full)
    data = small.conversations.ask("When does a replacement card arrive?", BANK).data
    assert data["saved"] is False and "disk full" in data["save_error"] and "3 to 5" in data["answer"]


# -- an LLM: rewriting, down, and the general policy -------------------------------------------
def _with_llm(engine: Engine, server: FakeLLMServer) -> Engine:
    settings = engine.settings.model_copy(update={"generator": GeneratorSettings(
        name="openai", base_url=server.base_url, model="m", api_key="k", retry_backoff=0.01, max_retries=0)})
    llm = Engine(settings, embedder=engine.embedder, store=engine.store)
    llm.conversations.background = False
    return llm


def _model(prompt: str) -> str:
    if "Standalone query:" in prompt:
        return "How long does a SWIFT transfer take to arrive?"
    if "Question:" in prompt and "[1]" not in prompt:
        return "Paris is the capital of France."
    return "SWIFT transfers arrive in 1 to 4 business days [1]."


def test_llm_rewrites_follow_ups(small: Engine) -> None:
    with FakeLLMServer("openai", default=Reply(text=_model)) as server:
        llm = _with_llm(small, server)
        cid = llm.conversations.ask("How much does a SWIFT transfer cost?", BANK).conversation_id
        data = llm.conversations.ask("And how long does it take?", BANK, conversation_id=cid).data
        assert data["query"]["method"] == "llm" and data["query"]["rewritten"] == \
            "How long does a SWIFT transfer take to arrive?"
        assert "transfers.txt" in cited_sources(data)
        prompts = [json.dumps(r.body) for r in server.requests]
        assert any("Standalone query" in p and "SWIFT transfer cost" in p for p in prompts)
        # The grounded prompt holds the conversation so far, as context and not as a source.
        assert any("The conversation so far" in p for p in prompts)


def test_llm_down_still_answers_with_carry_and_extractive(small: Engine) -> None:
    with FakeLLMServer("openai", default=Status(503)) as server:
        llm = _with_llm(small, server)
        cid = llm.conversations.ask("How much does a SWIFT transfer cost?", BANK).conversation_id
        data = llm.conversations.ask("And how long does it take?", BANK, conversation_id=cid).data
        assert data["query"]["method"] == "carry" and data["query"]["fallback_reason"]
        assert data["generator"] == "extractive" and data["fallback_reason"] and "1 to 4" in data["answer"]
        hello = llm.conversations.ask("hi", BANK).data  # small talk with the model down: the canned reply
        assert hello["answer"].startswith("Hello") and hello["fallback_reason"]


def test_general_policy_answers_from_the_model_marked_as_such(small: Engine) -> None:
    with FakeLLMServer("openai", default=Reply(text=_model)) as server:
        llm = _with_llm(small, server)
        question = "What is the capital of France?"
        assert llm.conversations.ask(question, BANK).data["abstained"]  # the default policy: abstain
        llm.conversations.set_policy("demo", "bank", "general")
        assert llm.conversations.policy("demo", "bank") == "general"
        data = llm.conversations.ask(question, BANK).data
        assert data["general"] and not data["abstained"] and data["citations"] == []
        assert data["answer"].startswith("Not from your documents") and "Paris" in data["answer"]
        per_request = llm.conversations.ask(question, BANK, options={"policy": "abstain"}).data
        assert per_request["abstained"] and not per_request["general"]
    with FakeLLMServer("openai", default=Status(503)) as down:
        data = _with_llm(small, down).conversations.ask(question, BANK).data
        assert data["abstained"] and data["fallback_reason"] and not data["general"]


def test_general_policy_without_a_model_abstains(small: Engine) -> None:
    small.conversations.set_policy("demo", "bank", "general")
    data = small.conversations.ask("What is the capital of France?", BANK).data
    assert data["abstained"] and data["policy"] == "general" and not data["general"]
    with pytest.raises(ConfigError, match="policy"):
        small.conversations.set_policy("demo", "bank", "sometimes")


# -- one JSON log line per turn ----------------------------------------------------------------
def test_one_json_log_line_per_turn(small: Engine, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="ragline.turns"):
        small.conversations.ask("When does a replacement card arrive?", Scope("demo", ("bank",), "alice"))
        small.conversations.ask("hi", BANK)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "ragline.turns"]
    assert len(lines) == 2
    first, second = lines
    for key in ("event", "tenant", "owner", "conversation_id", "message_length", "similar_messages_found",
                "context_length", "context_tokens", "rag_enabled", "execution_ms", "error"):
        assert key in first
    assert (first["event"], first["owner"], first["message_length"]) == ("rag_context_built", "alice", 36)
    assert second["event"] == "rag_disabled" and second["retrieve"] is False


# -- the follow-up planner -------------------------------------------------------------------
def test_follow_up_detection_and_carried_terms() -> None:
    history = [Turn("user", "What are the side effects of aspirin?", query="What are the side effects of aspirin?"),
               Turn("assistant", "Stomach bleeding [1].", cited_docs=["d1"])]
    assert followup_reason("What about its dosage?", history) == "refers back ('its')"
    assert followup_reason("And for children", history) == "continues ('and')"
    assert followup_reason("dosage?", history) == "too short to stand alone"
    assert followup_reason("How does ibuprofen reduce fever in adults?", history) is None
    assert followup_reason("What about its dosage?", []) is None
    assert carry_terms("What about its dosage?", history) == ["side", "effects", "aspirin"]
    result = plan("What about its dosage?", history)
    assert result.query == "What about its dosage? side effects aspirin" and result.carried_sources == ["d1"]
    failing = plan("What about its dosage?", history, llm=lambda q, h: (_ for _ in ()).throw(RuntimeError("x")))
    assert failing.method == "carry" and "RuntimeError" in failing.fallback_reason


def test_migrate_copies_conversations_once(small: Engine, tmp_path) -> None:
    cid = small.conversations.ask("When does a replacement card arrive?", Scope("demo", ("bank",), "alice")).conversation_id
    small.conversations.embed_pending()
    target = str(tmp_path / "target.sqlite")
    assert small.migrate(target).conversations == 1
    assert small.migrate(target).conversations == 0  # idempotent
    from ragline.store import open_store

    moved = open_store(small.settings, target)
    try:
        history = moved.conversations.list_messages("demo", "alice", cid)
        assert [m.role for m in history] == ["user", "assistant"] and all(m.embedded for m in history)
    finally:
        moved.close()


def test_follow_up_recall_over_the_written_conversations(bank: Engine) -> None:
    """The 35 sample-knowledge-base conversations of bench/conversations/: follow-ups
    rewritten by carrying are found in the top 5 (bench/followups.py measures the whole
    pipeline; here retrieval alone, the previous turn's top passages standing in for
    its citations)."""
    import sys

    from ragline.answer.turn import AnswerTurn
    from ragline.retrieve.search import Searcher

    from tests.paths import ROOT

    sys.path.insert(0, str(ROOT))
    from bench.followups import load, matches

    searcher = Searcher(bank.store, bank.embedder, bank.settings.search)
    found = {True: [], False: []}
    for conv in load("bank"):
        history: list[Turn] = []
        for i, turn in enumerate(conv["turns"]):
            for rewrite in (True, False):
                p = plan(turn["q"], history, rewrite=rewrite, carry_sources=rewrite)
                hits = AnswerTurn(query=p.query, carried_sources=p.carried_sources).search(
                    searcher, turn["q"], BANK, mode=None, k=10, filters=None).hits
                if i:
                    found[rewrite].append(any(matches(h, turn) for h in hits[:5]))
                if rewrite:
                    history += [Turn("user", turn["q"], query=p.query, followup=p.followup),
                                Turn("assistant", "…", cited_docs=[h.doc_id for h in hits[:2]])]
    with_, without = (sum(found[k]) / len(found[k]) for k in (True, False))
    assert len(found[True]) == 80 and with_ >= 0.95 and with_ > without, (with_, without)
