"""Conversations over HTTP: the routes, owner walls, ``conversation_id`` on
``/v1/ask`` (JSON and SSE), 422s naming the field, the answer policy, and the
official ``openai`` client holding a multi-turn chat against ``/v1/chat/completions``."""

from __future__ import annotations

import json

import pytest
from openai import OpenAI

from ragline.settings import AnswerSettings, EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

POLICY = b"""# Overdraft policy

## Unarranged overdrafts

An unarranged overdraft costs a fee of 5 EUR per day, capped at 30 EUR per month.
Interest on an unarranged overdraft is charged at 15.9 percent EAR variable.
"""
CARDS = b"""Lost cards

Freeze a lost card in the app straight away. A replacement card arrives within 3 to 5 business days.
"""
TRANSFERS = b"""International transfers

A SWIFT transfer outside the euro area costs 15 EUR and arrives in 1 to 4 business days.
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("conv-api") / "home", embedder=EmbedderSettings(name="hashing"),
                        answer=AnswerSettings(relevance_floor=0.15), server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        key = create_tenant(server, "bank")
        other = create_tenant(server, "other")
        with server.client(key) as client:
            jobs = client.post("/v1/collections/kb/documents", files=[
                ("files", ("overdraft.md", POLICY)), ("files", ("cards.txt", CARDS)),
                ("files", ("transfers.txt", TRANSFERS))])
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
        with server.client(ADMIN_KEY) as admin:
            bound = admin.post("/v1/tenants/bank/keys", json={"label": "alice", "owner": "alice"})
            assert bound.status_code == 201, bound.text
        server.key, server.other, server.alice = key, other, bound.json()["key"]  # type: ignore[attr-defined]
        yield server


def _sse(text: str) -> list[tuple[str, dict]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_ask_continues_a_conversation_and_stores_both_turns(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        first = client.post("/v1/ask", json={"collection": "kb", "question": "How much is an unarranged overdraft?"})
        assert first.status_code == 200, first.text
        cid = first.json()["conversation_id"]
        assert cid and "5 EUR per day" in first.json()["answer"]
        second = client.post("/v1/ask", json={"collection": "kb", "question": "And what interest is charged on it?",
                                              "conversation_id": cid})
        data = second.json()
        assert data["conversation_id"] == cid and data["query"]["followup"] and data["query"]["method"] == "carry"
        assert "15.9" in data["answer"] and {c["source"] for c in data["citations"]} == {"overdraft.md"}
        assert set(data["rag_context"]) >= {"context", "source_messages", "enabled"}
        got = client.get(f"/v1/conversations/{cid}").json()
        assert [m["role"] for m in got["history"]] == ["user", "assistant", "user", "assistant"]
        assert got["history"][3]["citations"] == data["citations"] and got["messages"] == 4
        assert got["history"][2]["query"]["rewritten"] == data["query"]["rewritten"]


def test_streamed_ask_carries_the_conversation(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        cid = client.post("/v1/conversations", json={"title": "Cards", "collections": ["kb"]}).json()["id"]
        response = client.post("/v1/ask", json={"collection": "kb", "question": "I lost my card, what now?",
                                                "conversation_id": cid, "stream": True})
        events = _sse(response.text)
        assert events[-1][0] == "done" and events[-1][1]["conversation_id"] == cid
        follow = _sse(client.post("/v1/ask", json={"collection": "kb", "question": "How long until it arrives?",
                                                   "conversation_id": cid, "stream": True}).text)[-1][1]
        assert "3 to 5 business days" in follow["answer"] and follow["query"]["followup"]


def test_crud_and_walls(live: LiveServer) -> None:
    with live.client(live.key) as client, live.client(live.other) as other:  # type: ignore[attr-defined]
        created = client.post("/v1/conversations", json={"title": "Fees", "owner": "bob"})
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        assert cid in [c["id"] for c in client.get("/v1/conversations", params={"owner": "bob"}).json()["conversations"]]
        assert cid not in [c["id"] for c in client.get("/v1/conversations").json()["conversations"]]
        renamed = client.patch(f"/v1/conversations/{cid}", params={"owner": "bob"}, json={"title": "Fee questions"})
        assert renamed.status_code == 200 and renamed.json()["title"] == "Fee questions"
        for response in (client.get(f"/v1/conversations/{cid}"), client.get(f"/v1/conversations/{cid}",
                                                                             params={"owner": "carol"}),
                         other.get(f"/v1/conversations/{cid}", params={"owner": "bob"}),
                         other.delete(f"/v1/conversations/{cid}", params={"owner": "bob"}),
                         client.post("/v1/ask", json={"collection": "kb", "question": "fees?", "conversation_id": cid})):
            assert response.status_code == 404, response.text
        missing = client.get("/v1/conversations/conv_0000000000000000", params={"owner": "bob"})
        hidden = other.get(f"/v1/conversations/{cid}", params={"owner": "bob"})
        assert missing.json()["error"]["message"].replace("conv_0000000000000000", "X") == \
            hidden.json()["error"]["message"].replace(cid, "X")
        assert client.delete(f"/v1/conversations/{cid}", params={"owner": "bob"}).status_code == 204
        assert client.get(f"/v1/conversations/{cid}", params={"owner": "bob"}).status_code == 404
        assert client.patch(f"/v1/conversations/{cid}", json={"title": ""}).status_code == 422


def test_an_owner_bound_key_sees_only_its_owners_conversations(live: LiveServer) -> None:
    with live.client(live.alice) as alice, live.client(live.key) as admin:  # type: ignore[attr-defined]
        mine = alice.post("/v1/ask", json={"collection": "kb", "question": "What does a SWIFT transfer cost?"}).json()
        bobs = admin.post("/v1/conversations", json={"owner": "bob"}).json()["id"]
        assert alice.get(f"/v1/conversations/{mine['conversation_id']}").json()["owner"] == "alice"
        assert alice.get(f"/v1/conversations/{bobs}", params={"owner": "bob"}).status_code == 403
        assert alice.get(f"/v1/conversations/{bobs}").status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"rag_options": {"max_messages": 11}}, ["body", "rag_options", "max_messages"]),
    ({"rag_options": {"max_messages": 0}}, ["body", "rag_options", "max_messages"]),
    ({"rag_options": {"max_tokens": 99}}, ["body", "rag_options", "max_tokens"]),
    ({"rag_options": {"max_tokens": 4001}}, ["body", "rag_options", "max_tokens"]),
    ({"options": {"max_sources": 0}}, ["body", "options", "max_sources"]),
    ({"options": {"threshold": 1.5}}, ["body", "options", "threshold"]),
])
def test_out_of_range_options_are_422_naming_the_field(live: LiveServer, body: dict, field: list) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        for path, base in (("/v1/ask", {"collection": "kb", "question": "fees?"}),
                           ("/v1/chat/completions", {"model": "kb", "messages": [{"role": "user", "content": "fees?"}]})):
            response = client.post(path, json={**base, **body})
            assert response.status_code == 422, response.text
            assert field[1] in response.text and field[2] in response.text


def test_answer_policy_route(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        assert client.get("/v1/collections/kb/answer-policy").json() == {"collection": "kb", "policy": "abstain"}
        assert client.put("/v1/collections/kb/answer-policy", json={"policy": "sometimes"}).status_code == 422
        assert client.put("/v1/collections/nope/answer-policy", json={"policy": "general"}).status_code == 404
        assert client.put("/v1/collections/kb/answer-policy", json={"policy": "general"}).json()["policy"] == "general"
        assert client.get("/v1/collections/kb/answer-policy").json()["policy"] == "general"
        client.put("/v1/collections/kb/answer-policy", json={"policy": "abstain"})


def test_openai_client_holds_a_multi_turn_chat(live: LiveServer) -> None:
    sdk = OpenAI(base_url=live.url + "/v1", api_key=live.key)  # type: ignore[attr-defined]
    messages = [{"role": "system", "content": "You are the bank's assistant."},
                {"role": "user", "content": "What does a SWIFT transfer outside the euro area cost?"}]
    first = sdk.chat.completions.create(model="kb", messages=messages)
    assert "15 EUR" in first.choices[0].message.content
    messages += [{"role": "assistant", "content": first.choices[0].message.content},
                 {"role": "user", "content": "And how long does it take to arrive?"}]
    second = sdk.chat.completions.create(model="kb", messages=messages)
    assert "1 to 4 business days" in second.choices[0].message.content
    assert second.citations[0]["source"] == "transfers.txt"  # type: ignore[attr-defined]
    cid = second.conversation_id  # type: ignore[attr-defined]
    messages += [{"role": "assistant", "content": second.choices[0].message.content},
                 {"role": "user", "content": "How do I report a lost card?"}]
    third = sdk.chat.completions.create(model="kb", messages=messages, extra_body={"conversation_id": cid})
    assert "Freeze" in third.choices[0].message.content and third.conversation_id == cid  # type: ignore[attr-defined]
    stream = sdk.chat.completions.create(model="kb", stream=True, messages=messages + [
        {"role": "assistant", "content": third.choices[0].message.content},
        {"role": "user", "content": "How long until the new one arrives?"}], extra_body={"conversation_id": cid})
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert "3 to 5 business days" in text
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        history = client.get(f"/v1/conversations/{cid}").json()["history"]
        assert [m["content"] for m in history if m["role"] == "user"][-2:] == [
            "How do I report a lost card?", "How long until the new one arrives?"]
