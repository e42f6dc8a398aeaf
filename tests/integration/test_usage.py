"""Usage counters and usage per tenant, through the engine, the CLI and the API:
every returned hit counted off the query path, sort and filter by the counters,
most and never matched lists, LLM tokens as each provider's ``usage`` fields report
them (fake providers on real HTTP), and an estimated cost from the price table."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragline.cli import app
from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, Price, Settings, UsageSettings

from tests.fakes import FakeLLMServer
from tests.fakes.llm import count_tokens, prompt_tokens

SCOPE = Scope("acme", ("kb",))
DOCS = {
    "fees.txt": "The wire transfer fee is 5 EUR. Card replacement costs 10 EUR.",
    "cards.txt": "A lost card is blocked at once when you call the bank.",
    "branches.txt": "Branches open at nine and close at five on weekdays.",
}
PRICES = {"fake-model": Price(input=2.0, output=8.0)}


def make_settings(tmp_path, **generator) -> Settings:
    return Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                    answer=AnswerSettings(relevance_floor=0.0),
                    generator=GeneratorSettings(**{"retry_backoff": 0.01, "max_retries": 1, **generator}),
                    usage=UsageSettings(prices=PRICES, flush_interval_s=3600))  # flushed by the test, not a timer


@pytest.fixture
def kb(tmp_path):
    engine = Engine(make_settings(tmp_path))
    engine.add_documents([Document(source=name, blocks=[Block(text)]) for name, text in DOCS.items()], SCOPE)
    yield engine
    engine.close()


def test_every_returned_hit_is_counted_off_the_query_path(kb: Engine) -> None:
    first = kb.search("fee", SCOPE, mode="keyword").hits
    assert [h.source for h in first] == ["fees.txt"] and first[0].match_count == 0
    kb.search("fee card", SCOPE, mode="keyword")
    ids = {h.source: h.chunk_id for h in kb.search("fee card", SCOPE, mode="keyword").hits}
    assert kb.store.chunk_matches(SCOPE, list(ids.values())) == {}  # noted in memory only, so far
    kb.meter.flush()
    counts = {source: kb.store.chunk_matches(SCOPE, [cid])[cid][0] for source, cid in ids.items()}
    assert counts == {"fees.txt": 3, "cards.txt": 2}
    hits = kb.search("fee card", SCOPE, mode="keyword", sort="match_count").hits
    assert [(h.source, h.match_count) for h in hits] == [("fees.txt", 3), ("cards.txt", 2)]
    assert hits[0].last_matched_at is not None and hits[0].to_dict()["match_count"] == 3
    assert [h.source for h in kb.search("fee card branches", SCOPE, mode="keyword", max_matches=0).hits] == [
        "branches.txt"]


def test_stats_list_the_most_and_never_matched(kb: Engine) -> None:
    for _ in range(2):
        kb.search("fee", SCOPE, mode="keyword")
    kb.search("card", SCOPE, mode="keyword")
    most = kb.match_stats(SCOPE, level="document")  # flushes what is pending first
    assert [(s.source, s.match_count) for s in most] == [("fees.txt", 3), ("cards.txt", 1)]
    assert [s.source for s in kb.match_stats(SCOPE, level="document", order="never")] == ["branches.txt"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("protocol", ["openai", "gemini", "anthropic"])
def test_llm_tokens_come_from_the_providers_usage_fields(tmp_path, protocol: str, stream: bool) -> None:
    with FakeLLMServer(protocol) as server:
        engine = Engine(make_settings(tmp_path, name=protocol, base_url=server.base_url, api_key="k",
                                      model="fake-model"))
        try:
            engine.add_documents([Document(source=n, blocks=[Block(t)]) for n, t in DOCS.items()], SCOPE)
            answer = engine.ask("What is the wire transfer fee?", SCOPE, stream=stream)
            if stream:
                events = list(answer)
                answer = answer.answer
                assert events[-1]["answer"]["usage"] == answer.usage
            sent = server.requests[-1].body
            expected_in, expected_out = prompt_tokens(protocol, sent), count_tokens(answer.answer)
            assert answer.generator == protocol and expected_in > 50
            assert answer.usage == {"model": "fake-model", "input_tokens": expected_in, "output_tokens": expected_out,
                                    "reported": True}
            if protocol == "openai" and stream:
                assert sent["stream_options"] == {"include_usage": True}
            report = engine.usage_report("acme")
        finally:
            engine.close()
    assert (report["questions"], report["llm_input_tokens"], report["llm_output_tokens"]) == (
        1, expected_in, expected_out)
    assert report["texts_embedded"] == len(DOCS)
    assert report["cost"] == round((expected_in * 2.0 + expected_out * 8.0) / 1e6, 6)
    assert report["unpriced"] == [] and report["currency"] == "USD"


def test_extractive_answers_count_questions_and_sources(kb: Engine) -> None:
    answer = kb.ask("What is the wire transfer fee?", SCOPE)
    assert answer.usage is None and "usage" not in answer.to_dict()
    report = kb.usage_report("acme")
    assert (report["questions"], report["llm_input_tokens"], report["cost"]) == (1, 0, 0.0)
    assert [(r["kind"], r["model"]) for r in report["by_model"]] == [("ask", "extractive"),
                                                                     ("embed", kb.embedder.model_id)]
    cited = {s.hit.source for s in answer.context.sources}
    assert {s.source for s in kb.match_stats(SCOPE, level="document")} == cited


def test_usage_and_stats_cli(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RAGLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGLINE_EMBEDDER__NAME", "hashing")
    runner = CliRunner()
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    assert runner.invoke(app, ["ingest", str(docs), "-t", "acme", "-c", "kb"]).exit_code == 0
    for question in ("wire transfer fee", "lost card"):
        assert runner.invoke(app, ["search", question, "-t", "acme", "-c", "kb", "--mode", "keyword"]).exit_code == 0
    result = runner.invoke(app, ["stats", "-t", "acme", "-c", "kb", "--json"])
    assert result.exit_code == 0, result.output
    lists = json.loads(result.stdout)
    assert [d["source"] for d in lists["never_matched_documents"]] == ["docs/branches.txt"]
    assert {d["source"] for d in lists["most_matched_documents"]} == {"docs/fees.txt", "docs/cards.txt"}
    result = runner.invoke(app, ["usage", "--tenant", "acme", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["tenant"], report["texts_embedded"], report["questions"]) == ("acme", 3, 0)
    assert runner.invoke(app, ["usage", "--since", "yesterday"]).exit_code == 2
    table = runner.invoke(app, ["usage"])
    assert table.exit_code == 0 and "acme" in table.stdout


def test_usage_api(tmp_path) -> None:
    from ragline.settings import ServerSettings

    from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

    with FakeLLMServer("openai") as llm:
        settings = make_settings(tmp_path, name="openai", base_url=llm.base_url, api_key="k", model="fake-model")
        settings = settings.model_copy(update={"server": ServerSettings(admin_key=ADMIN_KEY, job_process=False)})
        with LiveServer(settings) as server:
            key = create_tenant(server, "acme")
            with server.client(key) as client:
                text = {"documents": [{"source": "fees.txt", "text": DOCS["fees.txt"]}]}
                jobs = client.post("/v1/collections/kb/documents/text", json=text).json()["jobs"]
                wait_for_jobs(client, [j["id"] for j in jobs])
                for _ in range(2):
                    assert client.post("/v1/ask", json={"question": "What is the wire fee?",
                                                        "collection": "kb"}).status_code == 200
                report = client.get("/v1/usage").json()
                assert report["questions"] == 2 and report["llm_output_tokens"] > 0 and report["cost"] > 0
                assert client.get("/v1/usage", params={"since": "2999-01-01"}).json()["questions"] == 0
                assert client.get("/v1/usage", params={"since": "soon"}).status_code == 422
                top = client.get("/v1/usage/matches", params={"collection": "kb", "level": "document"}).json()
                assert [(i["source"], i["match_count"]) for i in top["items"]] == [("fees.txt", 2)]
                hits = client.post("/v1/search", json={"query": "wire fee", "collection": "kb",
                                                       "sort": "match_count"}).json()["hits"]
                assert hits[0]["match_count"] == 2
            with server.client(ADMIN_KEY) as admin:
                bound = admin.post("/v1/tenants/acme/keys", json={"label": "ann", "owner": "ann"}).json()["key"]
            with server.client(bound) as client:
                assert client.get("/v1/usage").status_code == 403

