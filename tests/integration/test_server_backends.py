"""The REST API on every store backend: the whole path works (upload, search, ask,
cited passage, delete); and on PostgreSQL, when the database goes away mid-use,
every request gets a clear 503 (reads, writes, readiness), nothing is
half-written, and the same server recovers when the database returns."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from ragline.settings import EmbedderSettings, ServerSettings, Settings, StoreSettings

from tests.pg_server import (
    fresh_database,
    pg_url,  # noqa: F401  (fixture)
    restart_server,
    start_server,
    stop_server,
)
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs


def _until(check, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while True:
        try:
            result = check()
            if result:
                return result
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.2)


@pytest.mark.timeout(300)
def test_database_going_away_is_503_then_recovers(tmp_path: Path) -> None:
    srv = start_server()
    try:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            server=ServerSettings(admin_key=ADMIN_KEY),
                            store=StoreSettings(url=fresh_database(srv), connect_timeout=1.0))
        with LiveServer(settings) as server:
            key = create_tenant(server, "acme")
            with server.client(key) as client:
                upload = [("files", ("fees.md", b"# Fees\n\nAn unarranged overdraft costs 5 EUR per day."))]
                jobs = client.post("/v1/collections/docs/documents", files=upload).json()["jobs"]
                assert [j["state"] for j in wait_for_jobs(client, [j["id"] for j in jobs])] == ["indexed"]
                before = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"}).json()
                assert before["hits"][0]["source"] == "fees.md"

                stop_server(srv)
                for response in (client.post("/v1/search", json={"query": "overdraft", "collection": "docs"}),
                                 client.get("/v1/collections"),
                                 client.post("/v1/collections/docs/documents/text",
                                             json={"documents": [{"text": "written while down", "source": "down"}]}),
                                 httpx.get(server.url + "/readyz")):
                    assert response.status_code == 503, response.text
                    error = response.json()["error"]
                    assert error["code"] == "store_unavailable" and "unreachable" in error["message"]
                    assert "RAGLINE_STORE__URL" in error["message"]

                restart_server(srv)
                _until(lambda: httpx.get(server.url + "/readyz").status_code == 200)
                after = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"}).json()
                assert [h["chunk_id"] for h in after["hits"]] == [h["chunk_id"] for h in before["hits"]]
                docs = client.get("/v1/collections/docs/documents").json()["documents"]
                assert [d["source"] for d in docs] == ["fees.md"]  # nothing half-written while down
                jobs = client.post("/v1/collections/docs/documents/text",
                                   json={"documents": [{"text": "written after", "source": "after"}]}).json()["jobs"]
                assert wait_for_jobs(client, [j["id"] for j in jobs])[0]["state"] == "indexed"
    finally:
        srv.cleanup()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql", "qdrant"])
def test_the_api_works_on_every_backend(tmp_path: Path, backend: str, request) -> None:
    url = {"sqlite": None, "qdrant": f"qdrant://{tmp_path}/qdrant"}.get(backend) or request.getfixturevalue("pg_url")
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY), store=StoreSettings(url=url))
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        with server.client(key) as client:
            upload = [("files", ("fees.md", b"# Fees\n\nAn unarranged overdraft costs 5 EUR per day.")),
                      ("files", ("hours.txt", b"Branches open at nine and close at five on weekdays."))]
            jobs = client.post("/v1/collections/docs/documents", files=upload).json()["jobs"]
            assert {j["state"] for j in wait_for_jobs(client, [j["id"] for j in jobs])} == {"indexed"}
            hits = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"}).json()["hits"]
            assert hits[0]["source"] == "fees.md" and hits[0]["title"] == "Fees"
            answer = client.post("/v1/ask", json={"question": "How much is an unarranged overdraft?",
                                                  "collection": "docs"}).json()
            assert not answer["abstained"] and "5 EUR" in answer["answer"]
            cited = answer["citations"][0]
            passage = client.get(f"/v1/documents/{cited['doc_id']}/chunks/{cited['chunk_id']}").json()
            assert "5 EUR" in passage["text"]
            assert client.delete(f"/v1/documents/{hits[0]['doc_id']}").status_code == 204
            hits = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"}).json()["hits"]
            assert all(h["source"] != "fees.md" for h in hits)
            assert client.delete("/v1/collections/docs").status_code == 204
            assert client.get("/v1/collections").json()["collections"] == []
