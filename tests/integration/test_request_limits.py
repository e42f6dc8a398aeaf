"""Issue 16, request limits and error boundaries of the API (a real server on
loopback): chat messages and query terms are capped, invented methods and paths
cannot grow /metrics, an upload is checked whole before anything is kept or
queued, and bad values are 400s that leave the connection usable."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from ragline.analyzer import MAX_QUERY_TERMS, analyze, query_terms
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("reliability") / "home",
                        embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1))
    with LiveServer(settings) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer):
    with server.client(create_tenant(server, "acme")) as c:
        posted = c.post("/v1/collections/docs/documents/text",
                        json={"documents": [{"text": "The overdraft fee is 5 EUR per day.", "source": "fees"}]})
        assert posted.status_code == 202, posted.text
        wait_for_jobs(c, [j["id"] for j in posted.json()["jobs"]])
        yield c


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == code, body
    return body["error"]["message"]


def _chat(client: httpx.Client, *messages: dict) -> httpx.Response:
    return client.post("/v1/chat/completions", json={"model": "docs", "messages": list(messages)})


# -- 1. huge chat messages and query terms ------------------------------------
def test_chat_messages_are_capped_each_and_in_all(client: httpx.Client) -> None:
    assert "10,000" in _error(_chat(client, {"role": "user", "content": "fee " * 2501}), 422, "invalid_request")
    parts = [{"type": "text", "text": "x" * 32_001}]
    assert "32,000 per message" in _error(_chat(client, {"role": "system", "content": parts},
                                                {"role": "user", "content": "fee?"}), 422, "invalid_request")
    history = [{"role": "assistant", "content": "y" * 30_000}] * 9
    assert "256,000 in all" in _error(_chat(client, *history, {"role": "user", "content": "fee?"}),
                                      422, "invalid_request")
    many = [{"role": "user", "content": "fee?"}] * 201
    _error(_chat(client, *many), 422, "invalid_request")
    # At the limit, a question is answered, and fast: its keyword terms are capped.
    question = " ".join(f"term{i}" for i in range(1400))[:9_990] + " fee"
    started = time.perf_counter()
    response = _chat(client, {"role": "user", "content": question})
    assert response.status_code == 200, response.text
    assert time.perf_counter() - started < 10


def test_query_terms_are_capped_in_order() -> None:
    text = " ".join(f"word{i}" for i in range(5000))
    terms = query_terms(text)
    assert len(terms) == MAX_QUERY_TERMS == 64
    assert terms == list(dict.fromkeys(analyze(text)))[:64]
    for question in ("How much is the Overdraft fee?", "İstanbul Straße naïve cafés running RAN ran"):
        assert query_terms(question) == list(dict.fromkeys(analyze(question)))  # same as the index's terms


# -- 2. metrics cardinality ----------------------------------------------------
def test_invented_methods_and_paths_share_one_label(server: LiveServer) -> None:
    before = len(httpx.get(server.url + "/metrics").content)
    with httpx.Client(base_url=server.url) as anonymous:
        for i in range(60):
            # A method HTTP does not define is refused by the parser (httptools) before the app.
            assert anonymous.request(f"INVENTED{i}", f"/v1/search/{i}").status_code == 400
            anonymous.request(("PROPFIND", "PURGE", "MKCOL", "LOCK")[i % 4], f"/v1/search/{i}")  # defined, unusual
            anonymous.get(f"/no/such/path/{i}")
        anonymous.request("X" * 2000, "/healthz")
    text = httpx.get(server.url + "/metrics").text
    assert "INVENTED" not in text and "XXXX" not in text and "/no/such" not in text and "PROPFIND" not in text
    assert 'method="other",route="(unmatched)"' in text
    assert len(text) - before < 20_000  # one series (and its histogram) per fixed label, not one per request


# -- 4. the whole upload is checked first ---------------------------------------
def test_upload_is_checked_whole_before_anything_is_kept(server: LiveServer, client: httpx.Client) -> None:
    euro = "€" * 90 + ".txt"  # 90 characters, 274 bytes: over the file system's 255
    files = [("files", ("first.txt", b"kept?")), ("files", (euro, b"x"))]
    assert "255 bytes" in _error(client.post("/v1/collections/names/documents", files=files), 400, "bad_request")
    _error(client.post("/v1/collections/names/documents",
                       files=[("files", ("a.txt", b"a")), ("files", ("a.txt", b"b"))]), 400, "bad_request")
    _error(client.post("/v1/collections/names/documents",
                       files=[("files", ("ok.txt", b"a")), ("files", (".ragline-password", b"b"))]), 400, "bad_request")
    _error(client.post("/v1/collections/names/documents",
                       files=[("files", ("ok.txt", b"a")), ("files", ("run.exe", b"MZ"))]),
           415, "unsupported_media_type")
    assert client.get("/v1/jobs", params={"collection": "names"}).json()["jobs"] == []
    uploads = Path(server.app.state.settings.home) / "uploads" / "acme" / "names"
    assert not uploads.exists() or not any(p.is_file() for p in uploads.rglob("*"))
    longest = "é" * 125 + ".txt"  # 254 bytes: allowed
    posted = client.post("/v1/collections/names/documents", files=[("files", (longest, b"long names work"))])
    assert posted.status_code == 202, posted.text
    (job,) = wait_for_jobs(client, [j["id"] for j in posted.json()["jobs"]])
    assert job["state"] == "indexed" and job["source"] == longest


# -- 5. bad values are 400s, never 500s or a reset connection -------------------
def test_value_errors_and_unparsable_bodies_are_400(server: LiveServer, client: httpx.Client,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    engine = server.app.state.engine

    def bad_setting(*args: object, **kwargs: object) -> None:
        raise ValueError("chunking.unit='tokens' needs a tokenizer")

    monkeypatch.setattr(engine, "search", bad_setting)
    assert "needs a tokenizer" in _error(client.post("/v1/search", json={"query": "fee", "collection": "docs"}),
                                         400, "bad_request")
    monkeypatch.undo()
    huge = b'{"query": "fee", "collection": "docs", "filters": {"page": ' + b"9" * 5000 + b"}}"
    message = _error(client.post("/v1/search", content=huge, headers={"content-type": "application/json"}),
                     400, "bad_request")
    assert "4300 digits" in message
    big = {"query": "fee", "collection": "docs", "filters": {"page": 10**30}}
    assert "out of range" in _error(client.post("/v1/search", json=big), 400, "bad_request")
    big = {"query": "fee", "collection": "docs", "filters": {"year": {"gt": -(10**30)}}}
    assert "out of range" in _error(client.post("/v1/search", json=big), 400, "bad_request")
    keys = {"query": "fee", "collection": "docs", "filters": {f"k{i}": i for i in range(1001)}}
    assert "too many filter conditions" in _error(client.post("/v1/search", json=keys), 400, "bad_request")
    # The same connection still answers: nothing above reset it.
    assert client.post("/v1/search", json={"query": "fee", "collection": "docs"}).status_code == 200
