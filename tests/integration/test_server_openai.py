"""Ask over HTTP (JSON and server-sent events) and the OpenAI-compatible endpoint
driven by the official ``openai`` client, unchanged, against a real server."""

from __future__ import annotations

import json

import httpx
import pytest
from openai import NotFoundError, OpenAI

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

POLICY = b"""# Overdraft policy

An unarranged overdraft costs a fee of 5 EUR per day, capped at 30 EUR per month.
Interest on an arranged overdraft is 15.9 percent EAR variable.
"""
CARDS = b"""Lost cards

Freeze a lost card in the app straight away. A replacement card arrives within 3 to 5 business days.
"""
QUESTION = "What is the fee for an unarranged overdraft per day?"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("openai") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        key = create_tenant(server, "bank")
        with server.client(key) as client:
            jobs = client.post("/v1/collections/kb/documents",
                               files=[("files", ("overdraft.md", POLICY)), ("files", ("cards.txt", CARDS))])
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
        server.key = key  # type: ignore[attr-defined]
        yield server


def _sse(text: str) -> list[tuple[str, dict]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_ask_json_has_citations_that_open(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        response = client.post("/v1/ask", json={"question": QUESTION, "collection": "kb"})
        assert response.status_code == 200, response.text
        answer = response.json()
        assert {"answer", "citations", "abstained", "generator", "grounding", "context", "timings_ms"} <= set(answer)
        assert not answer["abstained"] and "5 EUR" in answer["answer"]
        cited = answer["citations"][0]
        assert f"[{cited['n']}]" in answer["answer"] and cited["source"] == "overdraft.md"
        chunk = client.get(f"/v1/documents/{cited['doc_id']}/chunks/{cited['chunk_id']}").json()
        assert "5 EUR per day" in chunk["text"]


def test_ask_streams_deltas_then_the_answer(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        with client.stream("POST", "/v1/ask", json={"question": QUESTION, "collection": "kb", "stream": True}) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            events = _sse(r.read().decode())
        kinds = [kind for kind, _ in events]
        assert kinds[-1] == "done" and set(kinds[:-1]) <= {"delta", "restart"} and "delta" in kinds
        answer = events[-1][1]
        assert "".join(d["text"] for k, d in events if k == "delta").strip() == answer["answer"].strip()
        assert answer["citations"] and not answer["abstained"]
        missing = client.post("/v1/ask", json={"question": QUESTION, "collection": "nope", "stream": True})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_openai_client_non_streaming(live: LiveServer) -> None:
    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    assert [m.id for m in client.models.list()] == ["kb"]
    completion = client.chat.completions.create(
        model="kb", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}])
    message = completion.choices[0].message
    assert message.role == "assistant" and "5 EUR" in message.content and "[1]" in message.content
    assert completion.choices[0].finish_reason == "stop" and completion.usage.total_tokens > 0
    citations = completion.model_extra["citations"]
    assert citations[0]["source"] == "overdraft.md" and "overdraft.md" in message.content  # sources list too
    with pytest.raises(NotFoundError):
        client.chat.completions.create(model="missing", messages=[{"role": "user", "content": QUESTION}])


def test_openai_client_streaming(live: LiveServer) -> None:
    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    stream = client.chat.completions.create(model="kb", messages=[{"role": "user", "content": QUESTION}],
                                            stream=True, user="someone")
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "5 EUR" in text and "[1]" in text
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["citations"][0]["source"] == "overdraft.md"


def test_openai_rejects_wrong_key_and_bad_messages(live: LiveServer) -> None:
    from openai import AuthenticationError, BadRequestError

    with pytest.raises(AuthenticationError):
        OpenAI(base_url=live.url + "/v1", api_key="rl-wrong", max_retries=0).models.list()
    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    with pytest.raises(BadRequestError):
        client.chat.completions.create(model="kb", messages=[{"role": "system", "content": "only a system turn"}])
    raw = httpx.post(live.url + "/v1/chat/completions", json={"model": "kb", "messages": []},
                     headers={"Authorization": f"Bearer {live.key}"})  # type: ignore[attr-defined]
    assert raw.status_code == 422 and raw.json()["error"]["code"] == "invalid_request"


def test_llm_answers_stream_through_ask_and_chat_with_restart_on_failure(tmp_path) -> None:
    """With an OpenAI-compatible provider behind ragline (a fake LLM server over real
    HTTP): deltas pass through as they come, and a provider failing mid-stream shows
    as a ``restart`` event followed by the extractive fallback."""
    from ragline.settings import GeneratorSettings

    from tests.fakes import FakeLLMServer, Reply

    with FakeLLMServer("openai", default=Reply(chunks=4)) as llm:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            server=ServerSettings(admin_key=ADMIN_KEY),
                            generator=GeneratorSettings(name="openai", base_url=llm.base_url, api_key="k",
                                                        model="fake-model", max_retries=1, retry_backoff=0.01))
        with LiveServer(settings) as server:
            key = create_tenant(server, "llmco")
            with server.client(key) as client:
                jobs = client.post("/v1/collections/kb/documents", files=[("files", ("overdraft.md", POLICY))])
                wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
                body = {"question": QUESTION, "collection": "kb", "stream": True}
                with client.stream("POST", "/v1/ask", json=body) as r:
                    events = _sse(r.read().decode())
                assert [k for k, _ in events] == ["delta"] * 4 + ["done"]
                assert events[-1][1]["generator"] == "openai" and events[-1][1]["citations"]

                llm.script = [Reply(chunks=4, break_after=2)]  # the next call breaks mid-stream
                with client.stream("POST", "/v1/ask", json=body) as r:
                    events = _sse(r.read().decode())
                kinds = [k for k, _ in events]
                assert kinds[:3] == ["delta", "delta", "restart"] and kinds[-1] == "done"
                assert events[-1][1]["generator"] == "extractive" and events[-1][1]["fallback_reason"]

            openai = OpenAI(base_url=server.url + "/v1", api_key=key, max_retries=0)
            chunks = list(openai.chat.completions.create(
                model="kb", messages=[{"role": "user", "content": QUESTION}], stream=True))
            contents = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
            assert len(contents) >= 4 and "[1]" in "".join(contents)  # streamed in pieces, cited
            assert any(r.body.get("model") == "fake-model" for r in llm.requests)
