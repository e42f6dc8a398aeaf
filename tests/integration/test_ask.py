"""End to end: Engine.ask / ask_stream and ``ragline ask`` over a real SQLite store,
with the extractive generator and with fake providers (including failures)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragline.answer import Answerer
from ragline.cli import app
from ragline.engine import Engine
from ragline.errors import ConfigError, EmbedderError
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, Settings

from tests.fakes import FakeLLMServer, Reply, Status

SCOPE = Scope("acme", ("kb",))
DOCS = {
    "photosynthesis.txt": "Photosynthesis converts light energy into chemical energy stored in sugars. Chlorophyll in "
                          "the leaves absorbs mostly blue and red light and reflects green light. In the Calvin cycle, "
                          "the enzyme RuBisCO fixes carbon dioxide from the air into three-carbon sugars.",
    "volcanoes.md": "A volcano erupts when molten magma rises through cracks in the crust. Rhyolitic magma is thick "
                    "and traps gas, which makes eruptions explosive. Mount Etna in Sicily is one of the most active "
                    "volcanoes in Europe.",
    "tea.txt": "Green tea is made from leaves that are steamed soon after picking, so they do not oxidise. Black tea "
               "leaves are rolled and left to oxidise fully before drying, which darkens them.",
}
IN_CORPUS = "Which enzyme fixes carbon dioxide in the Calvin cycle?"
OFF_TOPIC = "How do I reset my router password?"
KEYS = {"answer", "citations", "abstained", "generator", "fallback_reason", "language", "grounding", "context", "timings_ms",
        "route"}


def make_settings(tmp_path, **generator) -> Settings:
    return Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                    answer=AnswerSettings(relevance_floor=0.2),
                    generator=GeneratorSettings(**{"retry_backoff": 0.01, "max_retries": 2, **generator}))


@pytest.fixture
def kb(tmp_path):
    engine = Engine(make_settings(tmp_path))
    engine.add_documents([Document(source=name, blocks=[Block(text)]) for name, text in DOCS.items()], SCOPE)
    yield engine
    engine.close()


def with_generator(kb: Engine, **generator) -> Engine:
    """Another engine over the same store with other generator settings."""
    settings = kb.settings.model_copy(update={"generator": GeneratorSettings(**{
        "retry_backoff": 0.01, "max_retries": 2, **generator})})
    return Engine(settings, embedder=kb.embedder, store=kb.store)


def test_answers_from_the_right_source_with_citations(kb: Engine) -> None:
    answer = kb.ask(IN_CORPUS, SCOPE)
    data = answer.to_dict()
    assert set(data) == KEYS
    assert set(data["context"]) == {"kept", "dropped", "tokens"}
    assert set(data["timings_ms"]) == {"embed", "search", "generate", "total"}
    assert not answer.abstained and answer.generator == "extractive" and answer.fallback_reason is None
    assert data["language"] == "en"  # an English question: its fixed messages are English
    assert "RuBisCO" in answer.answer and "[1]" in answer.answer
    first = data["citations"][0]
    assert set(first) == {"n", "chunk_id", "doc_id", "source", "page", "score", "transaction_ids"}
    assert first["transaction_ids"] is None  # a document's passage, not a transaction
    assert first["n"] == 1 and first["source"] == "photosynthesis.txt"
    assert data["grounding"]["supported"] >= 1 and data["grounding"]["unsupported"] == 0
    assert data["context"]["tokens"] > 0 and data["timings_ms"]["total"] > 0


def test_abstains_without_calling_the_generator_when_nothing_is_relevant(kb: Engine) -> None:
    with FakeLLMServer("openai") as server:
        engine = with_generator(kb, name="openai", base_url=server.base_url, api_key="k")
        answer = engine.ask(OFF_TOPIC, SCOPE)
    assert answer.abstained and answer.generator == "none" and answer.citations == []
    assert "does not seem to contain" in answer.answer
    assert server.requests == []
    assert answer.context.sources == [] and {d.reason for d in answer.context.dropped} == {"threshold"}


def test_abstains_when_the_collection_is_empty(tmp_path) -> None:
    engine = Engine(make_settings(tmp_path))
    engine.collection(Scope("acme", ("empty",)))
    answer = engine.ask(IN_CORPUS, Scope("acme", ("empty",)))
    assert answer.abstained and "could not find anything" in answer.answer
    engine.close()


def test_answer_through_an_openai_compatible_server(kb: Engine) -> None:
    with FakeLLMServer("openai") as server:
        engine = with_generator(kb, name="openai", base_url=server.base_url, api_key="k", model="fake-model")
        answer = engine.ask(IN_CORPUS, SCOPE)
    assert answer.generator == "openai" and answer.fallback_reason is None
    assert answer.answer.endswith("[1].") and answer.citations[0].source == "photosynthesis.txt"
    assert answer.grounding.supported == 1
    prompt = server.requests[0].body["messages"][1]["content"]
    assert '[1] <source n="1" label="photosynthesis.txt" tag="' in prompt and f"Question: {IN_CORPUS}" in prompt


def test_provider_500_falls_back_to_extractive_and_says_why(kb: Engine) -> None:
    with FakeLLMServer("openai", default=Status(500)) as server:
        engine = with_generator(kb, name="openai", base_url=server.base_url, api_key="k")
        answer = engine.ask(IN_CORPUS, SCOPE)
    assert len(server.requests) == 3  # one try and two retries
    assert answer.generator == "extractive"
    assert answer.fallback_reason == "openai: HTTP 500: fake failure (after 3 attempts)"
    assert "RuBisCO" in answer.answer and answer.citations


def test_model_saying_the_sources_do_not_answer_is_an_abstention(kb: Engine) -> None:
    reply = Reply("The provided sources do not contain the answer to this question.")
    with FakeLLMServer("anthropic", default=reply) as server:
        engine = with_generator(kb, name="anthropic", base_url=server.base_url, api_key="k")
        answer = engine.ask(IN_CORPUS, SCOPE)
    assert answer.abstained and answer.generator == "anthropic" and answer.citations == []


def test_stream_yields_deltas_then_the_final_answer(kb: Engine) -> None:
    with FakeLLMServer("gemini", default=Reply(chunks=3)) as server:
        engine = with_generator(kb, name="gemini", base_url=server.base_url, api_key="k")
        stream = engine.ask(IN_CORPUS, SCOPE, stream=True)
        events = list(stream)
    assert [e["type"] for e in events] == ["delta", "delta", "delta", "done"]
    done = events[-1]["answer"]
    assert "".join(e["text"] for e in events[:-1]) == done["answer"]
    assert done["generator"] == "gemini" and done["citations"][0]["n"] == 1
    json.dumps(events)  # every event is JSON-ready
    assert stream.answer is not None and stream.answer.to_dict() == done


def test_failure_mid_stream_restarts_with_the_fallback(kb: Engine) -> None:
    with FakeLLMServer("openai", default=Reply(chunks=4, break_after=2)) as server:
        engine = with_generator(kb, name="openai", base_url=server.base_url, api_key="k")
        events = list(engine.ask_stream(IN_CORPUS, SCOPE))
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["delta", "delta", "restart"] and kinds[-1] == "done"
    after = "".join(e["text"] for e in events[3:-1])
    done = events[-1]["answer"]
    assert after == done["answer"] and done["generator"] == "extractive"
    assert "stream ended early" in done["fallback_reason"]


def test_generator_argument_overrides_settings_and_bad_names_are_clear(kb: Engine) -> None:
    assert kb.ask(IN_CORPUS, SCOPE, generator="extractive").generator == "extractive"
    with pytest.raises(ConfigError, match="unknown generator 'nope'; choose one of: extractive"):
        kb.ask(IN_CORPUS, SCOPE, generator="nope")
    with pytest.raises(ConfigError, match="generator 'openai' is not allowed; choose one of: extractive"):
        kb.ask(IN_CORPUS, SCOPE, generator="openai")  # a request picks only among the operator's allow-list
    with pytest.raises(ConfigError, match="question is empty"):
        kb.ask("   ", SCOPE)


def test_another_tenant_never_sees_these_sources(kb: Engine) -> None:
    other = Scope("globex", ("kb",))
    kb.collection(other)
    answer = kb.ask(IN_CORPUS, other)
    assert answer.abstained and answer.context.sources == [] and answer.context.dropped == []


class BrokenQueryEmbedder:
    """The stored vectors are fine, but the embedding service is down for queries."""

    def __init__(self, inner) -> None:
        self.inner, self.model_id, self.dimension = inner, inner.model_id, inner.dimension

    def embed_documents(self, texts):
        raise EmbedderError("embedding service unreachable")

    def embed_query(self, text):
        raise EmbedderError("embedding service unreachable")


def test_embedder_down_degrades_to_keyword_search_and_still_answers(kb: Engine) -> None:
    answerer = Answerer(kb.store, BrokenQueryEmbedder(kb.embedder), kb.settings)
    answer = answerer.ask(IN_CORPUS, SCOPE)
    assert answer.degraded and "keyword" in answer.degraded and answer.search_mode == "keyword"
    assert not answer.abstained and "RuBisCO" in answer.answer and answer.citations


# -- CLI ------------------------------------------------------------------------
def cli(kb: Engine, monkeypatch, *args: str, **env: str):
    monkeypatch.setenv("RAGLINE_HOME", str(kb.settings.home))
    monkeypatch.setenv("RAGLINE_EMBEDDER__NAME", "hashing")
    monkeypatch.setenv("RAGLINE_ANSWER__RELEVANCE_FLOOR", "0.2")
    monkeypatch.setenv("RAGLINE_GENERATOR__RETRY_BACKOFF", "0.01")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return CliRunner().invoke(app, ["ask", *args, "--tenant", "acme", "--collection", "kb"])


def test_cli_ask_json(kb: Engine, monkeypatch) -> None:
    result = cli(kb, monkeypatch, IN_CORPUS, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == KEYS and data["citations"][0]["source"] == "photosynthesis.txt"


def test_cli_ask_text_lists_the_sources(kb: Engine, monkeypatch) -> None:
    result = cli(kb, monkeypatch, IN_CORPUS)
    assert result.exit_code == 0
    assert "RuBisCO" in result.stdout and "Sources:" in result.stdout and "[1] photosynthesis.txt" in result.stdout


def test_cli_stream_json_prints_one_event_per_line(kb: Engine, monkeypatch) -> None:
    with FakeLLMServer("openai", default=Reply(chunks=2)) as server:
        result = cli(kb, monkeypatch, IN_CORPUS, "--stream", "--json", "--generator", "openai",
                     RAGLINE_GENERATOR__NAME="openai", RAGLINE_GENERATOR__BASE_URL=server.base_url,
                     OPENAI_API_KEY="k")
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events] == ["delta", "delta", "done"]
    assert events[-1]["answer"]["generator"] == "openai"


def test_cli_reports_the_fallback(kb: Engine, monkeypatch) -> None:
    with FakeLLMServer("openai", default=Status(500)) as server:
        result = cli(kb, monkeypatch, IN_CORPUS, "--generator", "openai",
                     RAGLINE_GENERATOR__NAME="openai", RAGLINE_GENERATOR__BASE_URL=server.base_url,
                     OPENAI_API_KEY="k")
    assert result.exit_code == 0
    assert "RuBisCO" in result.stdout
    assert "fallback" in result.stderr and "HTTP 500" in result.stderr


def test_cli_unknown_generator_exits_2(kb: Engine, monkeypatch) -> None:
    result = cli(kb, monkeypatch, IN_CORPUS, "--generator", "nope")
    # A choice of the registry's names: click names the option and what it takes.
    message = " ".join(result.stderr.replace("│", " ").split())
    assert result.exit_code == 2 and "'nope' is not one of 'extractive', 'openai'" in message, result.stderr


def test_keyword_mode_still_abstains_on_relevance(kb: Engine) -> None:
    question = "How do I reset the password of the tea kettle router?"
    answer = kb.ask(question, SCOPE, mode="keyword")
    assert answer.search_mode == "keyword" and answer.context.sources
    assert all(s.relevance is not None for s in answer.context.sources)  # the question was embedded anyway
    strict = kb.settings.model_copy(update={"answer": AnswerSettings(relevance_floor=0.5)})
    answer = Answerer(kb.store, kb.embedder, strict).ask(question, SCOPE, mode="keyword")
    assert answer.abstained and {d.reason for d in answer.context.dropped} == {"threshold"}
