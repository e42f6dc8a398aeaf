"""What a client sees of the API (issue 30): plain text in JSON (markdown escaped
only in the chat endpoint's rendered footer), each cited file once in that footer
with its sections, ``models.retrieve``, an OpenAI-compatible ``/v1/embeddings``
on the server's own model driven by the official ``openai`` client, and clear
errors for unknown routes (a missing MCP extra: tests/integration/test_mcp.py)."""

from __future__ import annotations

import numpy as np
import pytest
from openai import NotFoundError, OpenAI

from ragline.client import Client
from ragline.settings import ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

POLICY = b"""# Overdraft policy

## Arranged overdrafts

Interest on an arranged overdraft is 15.9 percent EAR variable. Arranged overdrafts are agreed in advance.

## Unarranged overdrafts

An unarranged overdraft costs a fee of 5 EUR per day, capped at 30 EUR per month.
The unarranged overdraft fee is charged at the end of each day you are overdrawn.
"""
CARDS = b"""Lost cards

Freeze a lost card in the app straight away. A replacement card arrives within 3 to 5 business days.
"""
QUESTION = "What is the fee for an unarranged overdraft per day?"
SECTION = "Overdraft policy > Unarranged overdrafts"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    # The bundled MiniLM (the default embedder): /v1/embeddings serves the real local model.
    settings = Settings(home=tmp_path_factory.mktemp("polish") / "home", server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        key = create_tenant(server, "bank")
        with server.client(key) as client:
            jobs = client.post("/v1/collections/kb/documents",
                               files=[("files", ("overdraft-policy.md", POLICY)), ("files", ("cards.txt", CARDS))])
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
        server.key = key  # type: ignore[attr-defined]
        yield server


def test_sections_are_plain_text_in_ask_chat_and_the_client(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        asked = client.post("/v1/ask", json={"question": QUESTION, "collection": "kb"}).json()
        chat = client.post("/v1/chat/completions",
                           json={"model": "kb", "messages": [{"role": "user", "content": QUESTION}]}).json()
    with Client(live.url, live.key) as python:  # type: ignore[attr-defined]
        answer = python.ask(QUESTION, collection="kb")
    sections = ([c.get("section") for c in asked["citations"]] + [k["section"] for k in asked["context"]["kept"]]
                + [c.get("section") for c in chat["citations"]] + [getattr(c, "section", None) for c in answer.citations])
    assert SECTION in sections
    assert not any("\\" in s for s in sections if s), sections


def test_the_sources_footer_names_each_file_once_with_its_sections(live: LiveServer) -> None:
    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    completion = client.chat.completions.create(
        model="kb", messages=[{"role": "user", "content": "What do arranged and unarranged overdrafts cost?"}])
    content = completion.choices[0].message.content
    footer = content.split("\n\nSources:\n", 1)[1].splitlines()
    citations = completion.model_extra["citations"]
    files = list(dict.fromkeys(c["source"] for c in citations))
    assert len(footer) == len(files), footer  # one line per cited file, not per citation
    for line, source in zip(footer, files, strict=True):
        numbers = "".join(f"[{c['n']}]" for c in citations if c["source"] == source)
        assert line.startswith(f"{numbers} {source}"), line
    policy = next(line for line in footer if "overdraft-policy.md" in line)
    assert "Overdraft policy \\> Unarranged overdrafts" in policy  # markdown escaped where it is rendered


def test_models_retrieve_a_collection_and_the_embedding_model(live: LiveServer) -> None:
    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    assert client.models.retrieve("kb").id == "kb"
    assert client.models.retrieve("all-MiniLM-L6-v2").id == "sentence-transformers/all-MiniLM-L6-v2"
    with pytest.raises(NotFoundError):
        client.models.retrieve("missing")


def test_embeddings_serve_the_local_model_to_the_openai_client(live: LiveServer) -> None:
    from ragline.embed import make_embedder
    from ragline.settings import EmbedderSettings

    client = OpenAI(base_url=live.url + "/v1", api_key=live.key, max_retries=0)  # type: ignore[attr-defined]
    texts = ["How do I report a lost card?", "Freeze a lost card in the app.", "Overdraft interest is 15.9% EAR."]
    result = client.embeddings.create(model="sentence-transformers/all-MiniLM-L6-v2", input=texts)  # base64 on the wire
    vectors = np.array([d.embedding for d in result.data], dtype=np.float32)
    assert [d.index for d in result.data] == [0, 1, 2] and vectors.shape == (3, 384)
    assert result.model == "sentence-transformers/all-MiniLM-L6-v2" and result.usage.prompt_tokens > 0
    local = make_embedder(EmbedderSettings(), cache_dir=live.app.state.settings.home / "models").embed_documents(texts)
    assert np.allclose(vectors, local, atol=1e-5)  # the same model, the same vectors
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # and they mean something
    floats = client.embeddings.create(model="minilm", input="lost card", encoding_format="float")
    assert len(floats.data) == 1 and len(floats.data[0].embedding) == 384
    with pytest.raises(NotFoundError):
        client.embeddings.create(model="text-embedding-3-small", input="x")
    with live.client(live.key) as raw:  # type: ignore[attr-defined]
        tokens = raw.post("/v1/embeddings", json={"model": "minilm", "input": [[1, 2, 3]]})
    assert tokens.status_code == 422 and "send strings" in tokens.json()["error"]["message"]


def test_unknown_v1_routes_get_a_404_and_wrong_methods_a_405(live: LiveServer) -> None:
    with live.client(live.key) as client:  # type: ignore[attr-defined]
        unknown = client.post("/v1/nothing-here", json={})
        wrong = client.delete("/v1/ask")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    assert "POST /v1/nothing-here" in unknown.json()["error"]["message"]
    assert wrong.status_code == 405 and "POST" in wrong.json()["error"]["message"] and wrong.headers["allow"] == "POST"

