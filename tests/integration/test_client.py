"""The Python client (``ragline.client``) against a real server (uvicorn in a thread,
real SQLite, an OpenAI-compatible fake LLM over real HTTP so answers stream in
pieces): every route family, typed results, job waiting with progress, streamed
answers with a provider failing mid-answer, and errors mapped to ragline's tree."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from ragline.client import (
    AsyncClient,
    AuthenticationError,
    Client,
    ConflictError,
    Delta,
    Done,
    Hit,
    JobTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    Restart,
    ServerUnreachableError,
)
from ragline.errors import ConfigError, NotFoundError, RaglineError
from ragline.settings import EmbedderSettings, GeneratorSettings, QuotaSettings, ServerSettings, Settings

from tests.fakes import FakeLLMServer, Reply
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

POLICY = b"""# Overdraft policy

An unarranged overdraft costs a fee of 5 EUR per day, capped at 30 EUR per month.
Interest on an arranged overdraft is 15.9 percent EAR variable.
"""
CARDS = "Lost cards\n\nFreeze a lost card in the app straight away. A replacement card arrives within 3 to 5 days.\n"
QUESTION = "What is the fee for an unarranged overdraft per day?"


@pytest.fixture(scope="module")
def llm():
    with FakeLLMServer("openai", default=Reply(chunks=4)) as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, llm: FakeLLMServer):
    settings = Settings(home=tmp_path_factory.mktemp("client") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY),
                        generator=GeneratorSettings(name="openai", base_url=llm.base_url, api_key="k",
                                                    model="fake-model", max_retries=1, retry_backoff=0.01))
    with LiveServer(settings) as live:
        live.key = create_tenant(live, "bank")  # type: ignore[attr-defined]
        with Client(live.url, live.key) as client:  # type: ignore[attr-defined]
            client.add_texts([{"text": CARDS, "source": "cards.txt"}], collection="kb", wait=True)
        yield live


@pytest.fixture
def client(server: LiveServer):
    with Client(server.url, server.key) as c:  # type: ignore[attr-defined]
        yield c


def test_upload_waits_with_progress_then_search_and_fetch_the_passage(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "overdraft.md"
    path.write_bytes(POLICY)
    seen: list[list[str]] = []
    jobs = client.upload([path, ("hours.txt", b"Branches open at 9:00 on weekdays.\n")], collection="kb", wait=True,
                         progress=lambda js: seen.append([j.state for j in js]), timeout=60)
    assert [j.state for j in jobs] == ["indexed", "indexed"] and seen[-1] == ["indexed", "indexed"]
    assert all(j.progress.done == j.progress.total > 0 for j in jobs)

    assert client.me().tenant == "bank"
    kb = client.collection("kb")
    assert kb.documents == 3 and kb.chunks >= 3 and kb in client.collections()
    assert [d.source for d in client.documents("kb")] == ["cards.txt", "hours.txt", "overdraft.md"]

    result = client.search("overdraft fee per day", collection="kb", k=2)
    assert isinstance(result.hits[0], Hit) and result.hits[0].source == "overdraft.md" and len(result.hits) == 2
    top = result.hits[0]
    passage = client.passage(top.doc_id, top.chunk_id)
    assert passage.text == top.text and passage.title == "Overdraft policy"
    assert client.document(top.doc_id).state == "indexed"


def test_ask_streams_deltas_and_restarts_when_the_provider_fails(client: Client, llm: FakeLLMServer) -> None:
    answer = client.ask(QUESTION, collection="kb")
    assert answer.generator == "openai" and answer.citations and "[1]" in answer.answer
    assert answer.citations[0].source == "overdraft.md" and not answer.abstained

    events = list(client.ask_stream(QUESTION, collection="kb", conversation_id=answer.conversation_id))
    assert [type(e) for e in events] == [Delta] * 4 + [Done]
    done = events[-1].answer  # type: ignore[union-attr]
    assert "".join(e.text for e in events[:-1]) .strip() == done.answer.strip()  # type: ignore[union-attr]
    assert done.conversation_id == answer.conversation_id

    llm.script = [Reply(chunks=4, break_after=2)]  # the next answer breaks mid-stream
    events = list(client.ask_stream(QUESTION, collection="kb"))
    assert [type(e) for e in events[:3]] == [Delta, Delta, Restart] and isinstance(events[-1], Done)
    assert events[-1].answer.generator == "extractive" and events[-1].answer.fallback_reason


def test_conversations_round_trip(client: Client) -> None:
    conversation = client.create_conversation(title="Fees", collections=["kb"])
    client.ask(QUESTION, collection="kb", conversation_id=conversation.id)
    full = client.conversation(conversation.id)
    assert full.messages == 2 and [m["role"] for m in full.history or []] == ["user", "assistant"]
    assert client.rename_conversation(conversation.id, "Overdraft").title == "Overdraft"
    assert conversation.id in [c.id for c in client.conversations()]
    client.delete_conversation(conversation.id)
    with pytest.raises(NotFoundError):
        client.conversation(conversation.id)


def test_usage_counts_questions_and_matches(client: Client) -> None:
    """``/v1/usage`` exists since the usage counters: questions counted, passages matched."""
    before = client.usage().questions
    client.ask(QUESTION, collection="kb", generator="extractive")
    usage = client.usage()
    assert usage.tenant == "bank" and usage.questions == before + 1
    top = client.matches("kb", level="document")
    assert top and top[0].match_count >= 1 and top[0].source


def test_errors_are_ragline_errors(server: LiveServer, client: Client) -> None:
    with pytest.raises(NotFoundError) as missing:
        client.search("anything", collection="nope")
    assert missing.value.status == 404 and missing.value.code == "not_found"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError):  # 422: k over its bound; also a ValueError
        client.search("fee", collection="kb", k=5000)
    with pytest.raises(ConflictError):
        client.create_collection("kb")
    with pytest.raises(NotFoundError):  # refused before the stream starts
        list(client.ask_stream(QUESTION, collection="nope"))
    with Client(server.url, "rl-wrong") as stranger, pytest.raises(AuthenticationError) as refused:
        stranger.collections()
    assert isinstance(refused.value, RaglineError) and refused.value.status == 401  # type: ignore[attr-defined]
    with Client(server.url, ADMIN_KEY) as admin:
        bound = admin._http.post("/v1/tenants/bank/keys", json={"owner": "ann"}).json()["key"]
    with Client(server.url, bound) as ann:
        assert ann.me().owner == "ann"
        with pytest.raises(PermissionDeniedError):
            ann.documents("kb", owner="bob")
    with Client("http://127.0.0.1:9", "k", timeout=2) as nowhere, pytest.raises(ServerUnreachableError):
        nowhere.collections()


def test_upload_takes_the_collection_as_a_keyword_and_the_old_form_warns(client: Client) -> None:
    with pytest.warns(DeprecationWarning, match=r"upload\(\[\.\.\.\]|collection='kb'"):
        old = client.upload("kb", [("old-form.txt", b"The old form still uploads.\n")], wait=True)
    with pytest.warns(DeprecationWarning, match="add_texts"):
        client.add_texts("kb", ["The old add_texts form still adds."], wait=True)
    new = client.upload([("new-form.txt", b"The new form uploads.\n")], collection="kb", wait=True)
    default = client.upload([("default.txt", b"No collection: the default one.\n")], wait=True)
    assert [j.state for j in old + new + default] == ["indexed"] * 3
    assert {"old-form.txt", "new-form.txt"} <= {d.source for d in client.documents("kb")}
    assert [d.source for d in client.documents("default")] == ["default.txt"]
    with pytest.raises(TypeError, match="takes a list"):
        client.upload("a.pdf")
    with pytest.raises(TypeError, match="collection as a keyword"):
        client.upload("kb", ["a.pdf"], collection="kb")


def test_async_client_does_the_same(server: LiveServer) -> None:
    async def main() -> None:
        async with AsyncClient(server.url, server.key) as client:  # type: ignore[attr-defined]
            jobs = await client.add_texts(["Savings accounts pay 2 percent interest a year."], collection="async",
                                          wait=True)
            assert jobs[0].state == "indexed"
            hits = (await client.search("savings interest", collection="async")).hits
            assert hits[0].text.startswith("Savings")
            kinds = [type(e) async for e in client.ask_stream("What interest do savings pay?", collection="async")]
            assert kinds[-1] is Done and Delta in kinds
            with pytest.raises(NotFoundError):
                await client.collection("missing")

    anyio.run(main)


def test_wait_gives_up_and_quotas_are_rate_limit_errors(tmp_path: Path) -> None:
    """No workers: jobs stay queued, so waiting times out; then the tenant's request
    rate (8 a minute) runs out."""
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0),
                        quotas=QuotaSettings(requests_per_minute=8))
    with LiveServer(settings) as live:
        key = create_tenant(live, "slow")
        with Client(live.url, key) as client:
            jobs = client.add_texts(["queued forever"], collection="kb")
            with pytest.raises(JobTimeoutError):
                client.wait(jobs, timeout=0.3, poll=0.1)
            with pytest.raises(RateLimitError) as limited:
                for _ in range(10):
                    client.collections()
            assert limited.value.retry_after is not None and limited.value.retry_after > 0  # type: ignore[attr-defined]
