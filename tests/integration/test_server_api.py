"""End-to-end flows against a real server (uvicorn in a thread, real SQLite, real
files): tenants and keys, uploads as background jobs, documents, search, chunk
fetch, errors in one shape, size limits, metrics, logs and readiness."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

FEES = b"# Fees\n\nThe overdraft fee is 5 EUR per day, capped at 30 EUR a month.\n"
HOURS = b"Branches open from 9:00 to 17:00 on weekdays and close on Sundays.\n"


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(json.loads(record.getMessage()))
        except ValueError:
            pass


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("server") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=2, max_file_mb=0.05,
                                              max_request_mb=0.2))
    with LiveServer(settings) as live:
        yield live


@pytest.fixture(scope="module")
def key(server: LiveServer) -> str:
    return create_tenant(server, "acme")


@pytest.fixture(scope="module")
def client(server: LiveServer, key: str):
    with server.client(key) as c:
        yield c


def _upload(client: httpx.Client, collection: str, files: dict[str, bytes], **form: str) -> list[dict]:
    response = client.post(f"/v1/collections/{collection}/documents",
                           files=[("files", (name, data)) for name, data in files.items()], data=form)
    assert response.status_code == 202, response.text
    return response.json()["jobs"]


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert "Traceback" not in response.text
    return body["error"]["message"]


def test_upload_poll_search_and_fetch_citation(client: httpx.Client) -> None:
    jobs = _upload(client, "docs", {"fees.md": FEES, "hours.txt": HOURS})
    assert [j["state"] for j in jobs] == ["queued", "queued"]
    done = wait_for_jobs(client, [j["id"] for j in jobs])
    assert [j["state"] for j in done] == ["indexed", "indexed"]
    assert all(j["progress"]["done"] == j["progress"]["total"] > 0 and j["tries"] == 1 for j in done)

    docs = client.get("/v1/collections/docs/documents").json()["documents"]
    assert [(d["source"], d["state"]) for d in docs] == [("fees.md", "indexed"), ("hours.txt", "indexed")]
    assert docs[0]["title"] == "Fees" and docs[0]["chunks"] >= 1 and docs[0]["job"]["state"] == "indexed"

    result = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs", "k": 3}).json()
    top = result["hits"][0]
    assert top["source"] == "fees.md" and "5 EUR" in top["text"]
    assert set(top) == {"chunk_id", "doc_id", "source", "score", "text", "collection", "title", "page", "section",
                        "position", "start", "end", "owner", "metadata", "match_count", "last_matched_at"}
    assert top["title"] == "Fees" and top["collection"] == "docs" and "title" not in top["metadata"]
    assert result["mode"] == "hybrid" and {"embed", "dense", "keyword", "fetch"} <= set(result["timings_ms"])

    chunk = client.get(f"/v1/documents/{top['doc_id']}/chunks/{top['chunk_id']}").json()
    assert chunk["text"] == top["text"] and chunk["title"] == "Fees" and chunk["collection"] == "docs"
    _error(client.get(f"/v1/documents/{docs[1]['id']}/chunks/{top['chunk_id']}"), 404, "not_found")

    collection = client.get("/v1/collections/docs").json()
    assert collection["documents"] == 2 and collection["chunks"] >= 2
    assert [m["id"] for m in client.get("/v1/models").json()["data"]] == ["docs"]


def test_reupload_updates_and_reingest_and_delete(client: httpx.Client) -> None:
    first = wait_for_jobs(client, [j["id"] for j in _upload(client, "notes", {"a.md": b"# A\n\nalpha beta gamma\n"})])
    doc_id = first[0]["document_id"]
    again = _upload(client, "notes", {"a.md": b"# A\n\nalpha beta delta\n"})
    assert again[0]["document_id"] == doc_id  # same name, same document
    wait_for_jobs(client, [again[0]["id"]])
    hits = client.post("/v1/search", json={"query": "delta", "collection": "notes", "mode": "keyword"}).json()["hits"]
    assert [h["doc_id"] for h in hits] == [doc_id]
    assert client.get(f"/v1/documents/{doc_id}").json()["chunks"] == 1

    job = client.post(f"/v1/documents/{doc_id}/reingest")
    assert job.status_code == 202 and job.json()["state"] in ("queued", "parsing", "embedding", "indexed")
    wait_for_jobs(client, [job.json()["id"]])

    assert client.delete(f"/v1/documents/{doc_id}").status_code == 204
    _error(client.get(f"/v1/documents/{doc_id}"), 404, "not_found")
    assert client.post("/v1/search", json={"query": "delta", "collection": "notes"}).json()["hits"] == []
    assert client.get("/v1/collections/notes/documents").json()["documents"] == []


def test_text_documents_owner_privacy_and_failed_job_retry(client: httpx.Client) -> None:
    body = {"documents": [{"text": "Private salary slip for Ann: 4200 EUR.", "source": "slip", "title": "Slip"}],
            "owner": "ann"}
    jobs = client.post("/v1/collections/private/documents/text", json=body)
    assert jobs.status_code == 202
    wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
    shared = client.post("/v1/search", json={"query": "salary slip", "collection": "private"}).json()["hits"]
    assert shared == []  # no owner: shared documents only
    own = client.post("/v1/search", json={"query": "salary slip", "collection": "private", "owner": "ann"}).json()
    assert [h["source"] for h in own["hits"]] == ["slip"]
    other = client.post("/v1/search", json={"query": "salary", "collection": "private", "owner": "bob"}).json()
    assert other["hits"] == []
    assert client.get("/v1/collections/private/documents", params={"owner": "bob"}).json()["documents"] == []

    broken = _upload(client, "private", {"broken.pdf": b"not a pdf at all"})
    failed = wait_for_jobs(client, [broken[0]["id"]])[0]
    assert failed["state"] == "failed" and "PDF" in failed["error"] and failed["tries"] == 1
    listed = {d["source"]: d for d in client.get("/v1/collections/private/documents").json()["documents"]}
    assert listed["broken.pdf"]["state"] == "failed"
    retried = client.post(f"/v1/jobs/{failed['id']}/retry")
    assert retried.status_code == 202 and retried.json()["state"] != "indexed"
    assert wait_for_jobs(client, [failed["id"]])[0]["state"] == "failed"
    _error(client.post(f"/v1/jobs/{jobs.json()['jobs'][0]['id']}/retry"), 409, "conflict")  # indexed: nothing to retry
    jobs_list = client.get("/v1/jobs", params={"state": "failed"}).json()["jobs"]
    assert [j["source"] for j in jobs_list] == ["broken.pdf"]


def test_collections_create_settings_conflict_delete(client: httpx.Client) -> None:
    created = client.post("/v1/collections", json={"name": "small", "chunking": {"size": 200, "overlap": 20}})
    assert created.status_code == 201, created.text
    assert created.json()["chunking"]["size"] == 200 and "hashing" in created.json()["model"]
    _error(client.post("/v1/collections", json={"name": "small"}), 409, "conflict")
    _error(client.post("/v1/collections", json={"name": "bad", "chunking": {"size": 100, "overlap": 150}}),
           400, "bad_request")
    _error(client.post("/v1/collections", json={"name": "m", "model": "other-model"}), 400, "bad_request")
    _error(client.post("/v1/collections", json={"name": "../etc"}), 422, "invalid_request")
    names = [c["name"] for c in client.get("/v1/collections").json()["collections"]]
    assert "small" in names
    assert client.delete("/v1/collections/small").status_code == 204
    _error(client.get("/v1/collections/small"), 404, "not_found")
    _error(client.delete("/v1/collections/small"), 404, "not_found")


def test_auth_errors_and_limits(server: LiveServer, client: httpx.Client) -> None:
    with server.client() as anonymous:
        assert _error(anonymous.get("/v1/collections"), 401, "unauthorized").startswith("missing API key")
        _error(anonymous.post("/v1/tenants", json={"name": "x"}), 401, "unauthorized")
    with server.client("rl-not-a-key") as wrong:
        _error(wrong.get("/v1/collections"), 401, "unauthorized")
    _error(client.post("/v1/tenants", json={"name": "x"}), 401, "unauthorized")  # a tenant key is no admin key
    _error(client.get("/v1/nothing-here"), 404, "not_found")
    _error(client.post("/v1/search", json={"collection": "docs"}), 422, "invalid_request")
    _error(client.post("/v1/search", content=b"{not json", headers={"content-type": "application/json"}),
           422, "invalid_request")
    _error(client.post("/v1/search", json={"query": "x", "collection": "missing"}), 404, "not_found")
    _error(client.post("/v1/search", json={"query": "x", "collection": "docs", "filters": {"page": {"near": 1}}}),
           400, "bad_request")
    big = b"x" * 60_000  # over max_file_mb=0.05
    assert "per-file limit" in _error(client.post("/v1/collections/docs/documents", files=[("files", ("big.txt", big))]),
                                      413, "payload_too_large")
    many = [("files", (f"f{i}.txt", b"y" * 40_000)) for i in range(6)]  # over max_request_mb=0.2 in total
    _error(client.post("/v1/collections/docs/documents", files=many), 413, "payload_too_large")

    def chunked():  # no Content-Length: the limit is enforced while reading
        for _ in range(30):
            yield b"z" * 10_000
    _error(client.post("/v1/collections/docs/documents/text", content=chunked(),
                       headers={"content-type": "application/json"}), 413, "payload_too_large")
    _error(client.post("/v1/collections/docs/documents", files=[("files", ("run.exe", b"MZ"))]),
           415, "unsupported_media_type")
    _error(client.delete("/v1/documents/0123"), 404, "not_found")
    _error(client.get("/v1/jobs/nope"), 404, "not_found")


def test_keys_are_hashed_listed_and_revocable(server: LiveServer, tmp_path: Path) -> None:
    key = create_tenant(server, "keyco")
    with server.client(ADMIN_KEY) as admin:
        keys = admin.get("/v1/tenants/keyco/keys").json()["keys"]
        assert len(keys) == 1 and "key" not in keys[0] and key.startswith(keys[0]["prefix"])
        _error(admin.post("/v1/tenants", json={"name": "keyco"}), 409, "conflict")
        _error(admin.post("/v1/tenants/ghost/keys", json={}), 404, "not_found")
        assert "keyco" in [t["name"] for t in admin.get("/v1/tenants").json()["tenants"]]
        store = server.app.state.engine.store.admin
        raw = store._read("SELECT hash FROM api_keys WHERE id = ?", (keys[0]["id"],))[0][0]
        assert key not in raw and len(raw) == 64  # only the sha256 is stored
        with server.client(key) as tenant:
            assert tenant.get("/v1/me").json() == {"tenant": "keyco", "key_id": keys[0]["id"]}
            assert admin.delete(f"/v1/tenants/keyco/keys/{keys[0]['id']}").status_code == 204
            _error(tenant.get("/v1/me"), 401, "unauthorized")


def test_observability_metrics_logs_health(server: LiveServer, client: httpx.Client) -> None:
    lines = _Lines()
    logger = logging.getLogger("ragline.server")
    logger.addHandler(lines)
    try:
        client.post("/v1/search", json={"query": "fee", "collection": "docs"})
        client.get("/v1/jobs/missing")
        client.post("/v1/ask", json={"question": "How much is the overdraft fee?", "collection": "docs"})
    finally:
        logger.removeHandler(lines)
    requests = [line for line in lines.lines if line.get("event") == "request"]
    search = next(line for line in requests if line["route"] == "/v1/search")
    assert search["tenant"] == "acme" and search["status"] == 200 and search["ms"] > 0 and "error" not in search
    assert {"embed", "dense", "keyword", "fetch"} <= set(search["stages_ms"])
    missing = next(line for line in requests if line["route"] == "/v1/jobs/{job_id}")
    assert missing["status"] == 404 and missing["error"] == "not_found"
    ask = next(line for line in requests if line["route"] == "/v1/ask")
    assert {"search", "generate", "total"} <= set(ask["stages_ms"]) and ask["question_chars"] == 30
    assert ask["citations"] >= 1 and ask["sources"] >= 1 and ask["context_tokens"] > 0 and ask["abstained"] is False

    assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(server.url + "/readyz").json()
    assert ready["status"] == "ready" and ready["workers"] == 2 and ready["jobs"]["indexed"] >= 1
    metrics = httpx.get(server.url + "/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert 'ragline_requests_total{method="POST",route="/v1/search",status="200"}' in text
    assert 'ragline_request_seconds_bucket{le="0.005",method="POST",route="/v1/search"}' in text
    assert 'ragline_stage_seconds_count{route="/v1/search",stage="embed"}' in text
    assert 'ragline_stage_seconds_count{route="/v1/ask",stage="generate"}' in text
    assert 'ragline_jobs{state="indexed"}' in text and 'ragline_jobs_finished_total{state="indexed"}' in text


def test_cli_jobs_and_key_commands(server: LiveServer, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragline.cli import app

    env = {"RAGLINE_HOME": str(server.app.state.settings.home), "RAGLINE_EMBEDDER__NAME": "hashing"}
    runner = CliRunner()
    result = runner.invoke(app, ["tenant", "create", "clico"], env=env)
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["key", "create", "--tenant", "clico"], env=env)
    assert result.exit_code == 0
    secret = result.stdout.strip()
    assert secret.startswith("rl-") and "\n" not in secret
    with server.client(secret) as c:
        assert c.get("/v1/me").json()["tenant"] == "clico"
    assert runner.invoke(app, ["key", "create", "--tenant", "ghost"], env=env).exit_code == 3
    assert runner.invoke(app, ["tenant", "create", "bad/name"], env=env).exit_code == 2
    result = runner.invoke(app, ["jobs", "--tenant", "acme", "--json"], env=env)
    rows = json.loads(result.stdout)
    assert rows and {"tenant", "state", "progress", "source"} <= set(rows[0])
    assert all(r["tenant"] == "acme" for r in rows)


def test_store_unavailable_is_503_until_it_is_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "ragline.sqlite").mkdir(parents=True)  # a directory where the database file belongs: cannot open
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"), server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        assert httpx.get(server.url + "/healthz").status_code == 200  # alive, but not ready
        message = _error(httpx.get(server.url + "/readyz"), 503, "store_unavailable")
        assert "ragline.sqlite" in message
        with server.client("rl-any-key") as client:
            _error(client.get("/v1/collections"), 503, "store_unavailable")
        with server.client(ADMIN_KEY) as admin:
            _error(admin.post("/v1/tenants", json={"name": "late"}), 503, "store_unavailable")
            assert 'ragline_requests_total{method="GET",route="/readyz",status="503"}' in admin.get("/metrics").text
            (home / "ragline.sqlite").rmdir()  # the store comes back
            assert httpx.get(server.url + "/readyz").status_code == 200
            assert admin.post("/v1/tenants", json={"name": "late"}).status_code == 201
