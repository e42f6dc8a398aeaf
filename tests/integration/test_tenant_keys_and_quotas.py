"""Issue 16, tenancy: one tenant (or one user of a tenant) cannot hurt another.

Owner-bound keys, authentication without the write lock, per-tenant quotas (429
with Retry-After) and authentication before the body is read, each through a
real server (``LiveServer``: uvicorn in a thread) where the behaviour is the
server's. Fair claiming is in the store contract (``tests/contract/store_contract.py``)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ragline.engine import Engine
from ragline.errors import StoreUnavailableError
from ragline.models import Scope
from ragline.settings import EmbedderSettings, QuotaSettings, ServerSettings, Settings, StoreSettings, TenantQuota
from ragline.store.types import TenantUsage

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs


def _settings(home: Path, **quotas) -> Settings:
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                    server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1),
                    quotas=QuotaSettings(**quotas))


def _bound_key(server: LiveServer, tenant: str, owner: str) -> str:
    with server.client(ADMIN_KEY) as admin:
        response = admin.post(f"/v1/tenants/{tenant}/keys", json={"label": "browser", "owner": owner})
        assert response.status_code == 201, response.text
        assert response.json()["owner"] == owner
        listed = admin.get(f"/v1/tenants/{tenant}/keys").json()["keys"]
        assert {k["owner"] for k in listed} == {None, owner}
        return response.json()["key"]


def _add(client, collection: str, text: str, source: str, owner: str | None = None) -> str:
    body = {"documents": [{"text": text, "source": source}], "owner": owner}
    response = client.post(f"/v1/collections/{collection}/documents/text", json=body)
    assert response.status_code == 202, response.text
    return response.json()["jobs"][0]["id"]


# -- 1. owner-bound keys -------------------------------------------------------------------
def test_an_owner_bound_key_sees_only_shared_and_its_owners_documents(tmp_path: Path) -> None:
    with LiveServer(_settings(tmp_path / "home")) as server:
        tenant_key = create_tenant(server, "acme")
        ann_key = _bound_key(server, "acme", "ann")
        with server.client(tenant_key) as tenant, server.client(ann_key) as ann:
            jobs = [_add(tenant, "kb", "shared handbook zebra", "shared"),
                    _add(tenant, "kb", "bob's private zebra notes", "bob-notes", owner="bob"),
                    _add(ann, "kb", "ann's private zebra diary", "ann-diary")]  # no owner named: forced to ann
            assert all(j["state"] == "indexed" for j in wait_for_jobs(tenant, jobs))
            assert ann.get("/v1/me").json() == {"tenant": "acme", "key_id": ann.get("/v1/me").json()["key_id"],
                                                "owner": "ann"}

            docs = {d["source"]: d["owner"] for d in ann.get("/v1/collections/kb/documents").json()["documents"]}
            assert docs == {"shared": None, "ann-diary": "ann"}
            hits = ann.post("/v1/search", json={"collection": "kb", "query": "zebra", "k": 10}).json()["hits"]
            assert {h["source"] for h in hits} == {"shared", "ann-diary"}
            assert {j["source"] for j in ann.get("/v1/jobs").json()["jobs"]} == {"shared", "ann-diary"}
            assert ann.get("/v1/jobs", params={"owner": "ann"}).status_code == 200  # naming itself is fine

            # Naming another owner is refused, wherever the owner is named.
            for response in (ann.get("/v1/collections/kb/documents", params={"owner": "bob"}),
                             ann.post("/v1/search", json={"collection": "kb", "query": "zebra", "owner": "bob"}),
                             ann.post("/v1/ask", json={"collection": "kb", "question": "zebra?", "owner": "bob"}),
                             ann.post("/v1/collections/kb/documents/text",
                                      json={"documents": [{"text": "x"}], "owner": "bob"}),
                             ann.post("/v1/collections/kb/documents", files=[("files", ("x.txt", b"x"))],
                                      data={"owner": "bob"}),
                             ann.get("/v1/jobs", params={"owner": "bob"}),
                             ann.delete("/v1/collections/kb")):  # every owner's documents at once
                assert response.status_code == 403, response.text
                assert response.json()["error"]["code"] == "forbidden"

            # Its own document it deletes without naming itself; the shared one it cannot.
            diary = next(d for d in ann.get("/v1/collections/kb/documents").json()["documents"]
                         if d["source"] == "ann-diary")
            shared = next(d for d in tenant.get("/v1/collections/kb/documents").json()["documents"]
                          if d["source"] == "shared")
            assert ann.delete(f"/v1/documents/{shared['id']}").status_code == 404
            assert ann.delete(f"/v1/documents/{diary['id']}").status_code == 204
            assert tenant.get("/v1/collections/kb").json()["documents"] == 2  # shared and bob's stay


def test_cli_creates_owner_bound_keys_and_migrate_keeps_the_owner(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing"}
    env.pop("RAGLINE_STORE__URL", None)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", *args], capture_output=True, text=True, env=env,
                              timeout=120, check=False)

    assert cli("tenant", "create", "acme").returncode == 0
    created = cli("key", "create", "--tenant", "acme", "--owner", "ann")
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip()
    assert "bound to owner ann" in created.stderr and secret.startswith("rl-")
    assert cli("key", "create", "--tenant", "acme", "--owner", "bad\nowner").returncode == 2
    with closing(Engine(Settings(home=home, embedder=EmbedderSettings(name="hashing")))) as engine:
        assert engine.verify_api_key(secret).owner == "ann"
        engine.migrate(str(tmp_path / "copy.sqlite"))
    copy = Settings(home=tmp_path / "other", embedder=EmbedderSettings(name="hashing"),
                    store=StoreSettings(url=str(tmp_path / "copy.sqlite")))
    with closing(Engine(copy)) as engine:
        assert engine.verify_api_key(secret).owner == "ann"  # the owner came along with the hash


# -- 2. authentication needs no write lock ------------------------------------------------
def test_authentication_does_not_wait_for_the_write_lock(tmp_path: Path) -> None:
    """Another connection holds SQLite's write lock (a large document being written):
    authenticated reads are served at once, and ``last_used`` is written later."""
    settings = _settings(tmp_path / "home")
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        engine: Engine = server.app.state.engine
        blocker = sqlite3.connect(settings.db_path, timeout=0, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # holds the write lock until ROLLBACK
        try:
            started = time.monotonic()
            with server.client(key) as client:
                assert client.get("/v1/me").status_code == 200
                assert client.get("/v1/collections").status_code == 200
            assert time.monotonic() - started < 3.0  # before: each waited for the lock (30 s busy timeout)
            assert engine.store.key_usage.pending(engine.list_api_keys("acme")[0].id) is not None
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert engine.store.key_usage.flush() is True
        (stored,) = engine.store.admin.list_api_keys("acme")
        assert stored.last_used is not None and stored.last_used >= started - 60


def test_a_full_store_still_authenticates(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    engine.ensure_tenant("acme")
    info, secret = engine.create_api_key("acme")

    def full(*_args, **_kwargs):
        raise StoreUnavailableError("store write failed: database or disk is full")

    monkeypatch.setattr(engine.store.admin, "_write", full)  # every write fails, as on a full disk
    assert engine.verify_api_key(secret).id == info.id
    assert engine.store.key_usage.flush() is False and engine.list_api_keys("acme")[0].last_used is not None


# -- 4. quotas -------------------------------------------------------------------------------
def test_quota_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGLINE_QUOTAS__TENANTS", '{"acme": {"requests_per_minute": 600, "documents": null}}')
    monkeypatch.setenv("RAGLINE_QUOTAS__CHUNKS", "5000")
    quotas = Settings().quotas
    acme, other = quotas.for_tenant("acme"), quotas.for_tenant("other")
    assert (acme.requests_per_minute, acme.documents, acme.chunks) == (600, None, 5000)
    assert (other.requests_per_minute, other.documents, other.chunks) == (6000, 1_000_000, 5000)


def test_requests_per_minute_are_limited_per_tenant(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "home", tenants={"acme": TenantQuota(requests_per_minute=3)})
    with LiveServer(settings) as server:
        acme_key, other_key = create_tenant(server, "acme"), create_tenant(server, "other")
        with server.client(acme_key) as acme, server.client(other_key) as other:
            assert [acme.get("/v1/collections").status_code for _ in range(3)] == [200, 200, 200]
            refused = acme.get("/v1/collections")
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(refused.headers["Retry-After"]) <= 20  # one token every 20 s
            assert all(other.get("/v1/collections").status_code == 200 for _ in range(10))  # others unaffected


def test_stored_documents_are_limited_per_tenant(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "home", tenants={"acme": TenantQuota(documents=2)})
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        with server.client(key) as client:
            jobs = [_add(client, "kb", "first", "one"), _add(client, "kb", "second", "two")]
            assert all(j["state"] == "indexed" for j in wait_for_jobs(client, jobs))
            for response in (client.post("/v1/collections/kb/documents/text", json={"documents": [{"text": "3"}]}),
                             client.post("/v1/collections/kb/documents", files=[("files", ("3.txt", b"three"))])):
                assert response.status_code == 429, response.text
                assert response.json()["error"]["code"] == "quota_exceeded"
                assert "2 documents stored" in response.json()["error"]["message"]
                assert int(response.headers["Retry-After"]) > 0
            assert client.get("/v1/collections/kb/documents").status_code == 200  # reads still work
            gone = client.get("/v1/collections/kb/documents").json()["documents"][0]["id"]
            assert client.delete(f"/v1/documents/{gone}").status_code == 204  # deleting frees the quota
            assert wait_for_jobs(client, [_add(client, "kb", "third", "three")])[0]["state"] == "indexed"


def test_upload_bytes_are_limited_per_tenant(tmp_path: Path) -> None:
    """A tenant over its upload budget gets 429 before its next body is read; what it
    stored stays, reads work, and another tenant uploads as usual."""
    budget_mb = 0.3  # 5,243 bytes a second; the budget holds ten seconds' worth (52,429)
    settings = _settings(tmp_path / "home", tenants={"acme": TenantQuota(upload_mb_per_minute=budget_mb)})
    with LiveServer(settings) as server:
        acme_key, other_key = create_tenant(server, "acme"), create_tenant(server, "other")
        big = "word " * 16_000  # 80,000 bytes: admitted on a full budget, leaves the tenant in debt
        with server.client(acme_key) as acme, server.client(other_key) as other:
            first = _add(acme, "kb", big, "big")
            refused = acme.post("/v1/collections/kb/documents/text", json={"documents": [{"text": "small"}]})
            assert refused.status_code == 429, refused.text
            error = refused.json()["error"]
            assert error["code"] == "rate_limited" and "quotas.upload_mb_per_minute" in error["message"]
            assert 3 <= int(refused.headers["Retry-After"]) <= 10  # ~28 KB of debt at 5.2 KB/s
            multipart = acme.post("/v1/collections/kb/documents", files=[("files", ("a.txt", b"alpha"))])
            assert multipart.status_code == 429  # file uploads share the budget
            assert acme.post("/v1/search", json={"query": "word", "collection": "kb"}).status_code == 200
            assert wait_for_jobs(acme, [first])[0]["state"] == "indexed"  # the admitted upload is kept
            assert all(j["state"] == "indexed" for j in wait_for_jobs(other, [_add(other, "kb", big, f"b{i}")
                                                                            for i in range(3)]))


def test_storage_quota_counts_chunks_and_bytes() -> None:
    from ragline.server.errors import ApiError
    from ragline.server.quotas import Quotas

    class FakeEngine:
        def __init__(self, usage: TenantUsage) -> None:
            self.used = usage

        def stored(self, tenant: str) -> TenantUsage:
            return self.used

    quotas = Quotas(QuotaSettings(documents=10, chunks=100, stored_mb=1.0))
    quotas.check_storage(FakeEngine(TenantUsage(5, 50, 1000)), "acme", new_documents=5)
    for usage, new, field in ((TenantUsage(5, 50, 1000), 6, "quotas.documents"),
                              (TenantUsage(1, 100, 10), 0, "quotas.chunks"),
                              (TenantUsage(1, 1, 2**20), 0, "quotas.stored_mb")):
        with pytest.raises(ApiError, match=field) as refused:
            quotas.check_storage(FakeEngine(usage), "acme", new_documents=new)
        assert refused.value.status == 429 and refused.value.headers["Retry-After"]
    unlimited = Quotas(QuotaSettings(documents=None, chunks=None, stored_mb=None))
    unlimited.check_storage(FakeEngine(TenantUsage(10**9, 10**9, 10**15)), "acme", new_documents=10)


def test_concurrent_jobs_are_capped_per_tenant_when_claimed(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "home", concurrent_jobs=2, tenants={"big": TenantQuota(concurrent_jobs=3)})
    with closing(Engine(settings)) as engine:
        for tenant in ("small", "big"):
            engine.ensure_tenant(tenant)
            for i in range(5):
                engine.create_job(Scope(tenant, ("kb",)), doc_id=f"{tenant}{i}", source=str(i), kind="text", path="/p")
        claimed = [job.tenant for n in range(8) if (job := engine.claim_job(f"w{n}")) is not None]
        assert sorted(claimed) == ["big", "big", "big", "small", "small"]


# -- 5. authenticate before the body --------------------------------------------------------
def _partial_upload(url: str, path: str, headers: dict[str, str], declared: int = 100_000_000,
                    sent: int = 256 * 1024) -> tuple[str, float]:
    """Declare a large multipart body, send only its start, and read what the server
    says meanwhile: (status line, seconds). A server that waits for the body answers
    nothing before the timeout."""
    parts = urlsplit(url)
    boundary = "ragline-test-boundary"
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n'
            "Content-Type: text/plain\r\n\r\n").encode()
    lines = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}",
             f"Content-Type: multipart/form-data; boundary={boundary}", f"Content-Length: {declared}",
             *(f"{k}: {v}" for k, v in headers.items())]
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        started = time.monotonic()
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + head + b"x" * sent)
        sock.settimeout(5)
        try:
            answer = sock.recv(65536).decode("latin-1")
        except TimeoutError:
            return "", time.monotonic() - started
        return answer.split("\r\n", 1)[0], time.monotonic() - started


def test_unauthenticated_uploads_are_refused_before_the_body(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "home", tenants={"slow": TenantQuota(requests_per_minute=1),
                                                     "full": TenantQuota(documents=0)})
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        slow, full = create_tenant(server, "slow"), create_tenant(server, "full")
        upload = "/v1/collections/kb/documents"
        for headers, status in (({}, "401"), ({"Authorization": "Bearer rl-wrong"}, "401"),
                                ({"Authorization": f"Bearer {full}"}, "429"),
                                ({"Authorization": f"Bearer {slow}"}, "429")):
            if headers.get("Authorization") == f"Bearer {slow}":
                with server.client(slow) as client:
                    assert client.get("/v1/collections").status_code == 200  # its one request this minute
            line, seconds = _partial_upload(server.url, upload, headers)
            assert line.startswith(f"HTTP/1.1 {status}"), (headers, line)  # answered with 99.7 MB still unsent
            assert seconds < 5
        line, _ = _partial_upload(server.url, "/v1/tenants", {"Authorization": "Bearer not-the-admin-key"})
        assert line.startswith("HTTP/1.1 401")
        # A valid key gets past the check; the body then goes to the route as before.
        with server.client(key) as client:
            response = client.post(upload, files=[("files", ("ok.txt", b"fine"))])
            assert response.status_code == 202, response.text
            logged = json.dumps(response.json())
            assert "ok.txt" in logged


def test_ingesting_a_document_holds_no_write_lock_while_it_embeds(tmp_path: Path) -> None:
    """Another tenant's write must not queue behind a document's embedding: the write
    transaction holds only the finished rows. While the embedder works, a second
    connection with no busy wait at all can take the write lock."""
    from ragline.embed.hashing import HashingEmbedder
    from ragline.models import Block, Document

    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"))
    probes: list[str] = []

    class ProbingEmbedder(HashingEmbedder):
        def embed_documents(self, texts):  # type: ignore[no-untyped-def]
            with closing(sqlite3.connect(settings.db_path, timeout=0, isolation_level=None)) as other:
                try:
                    other.execute("BEGIN IMMEDIATE")
                    other.execute("ROLLBACK")
                    probes.append("free")
                except sqlite3.OperationalError as exc:
                    probes.append(str(exc))
            return super().embed_documents(texts)

    engine = Engine(settings, embedder=ProbingEmbedder())
    scope = Scope("acme", ("docs",))
    text = "\n\n".join(f"Paragraph {i} about branch hours and card limits, told at some length." * 4
                       for i in range(400))
    summary = engine.add_documents([Document(source="big", blocks=[Block(text)])], scope)
    assert summary.added == 1 and len(probes) > 1
    assert set(probes) == {"free"}, probes


def test_rate_refusals_are_held_briefly_and_only_so_many_per_tenant(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that ignores Retry-After and asks again at once gets its next refusal
    only after a pause (a sleeping coroutine, no thread), so it cannot make the server
    refuse it a hundred times a second; past a cap per tenant refusals go out at once."""
    import asyncio

    from ragline.server import quotas as quotas_module
    from ragline.server.errors import ApiError

    monkeypatch.setattr(quotas_module, "REFUSAL_HOLD_S", 0.05)
    monkeypatch.setattr(quotas_module, "REFUSALS_HELD_PER_TENANT", 3)
    quotas = quotas_module.Quotas(QuotaSettings())
    limited = ApiError(429, "rate_limited", "over", headers={"Retry-After": "4"})

    async def scenario() -> tuple[list[float], float, float, float]:
        held = await asyncio.gather(*(quotas.hold_refusal("acme", limited) for _ in range(4)))
        other_tenant = await quotas.hold_refusal("other", limited)
        busy = await quotas.hold_refusal("acme", ApiError(429, "busy", "queue full", headers={"Retry-After": "3"}))
        unauthenticated = await quotas.hold_refusal(None, limited)
        return sorted(held), other_tenant, busy, unauthenticated

    held, other_tenant, busy, unauthenticated = asyncio.run(scenario())
    assert held == [0.0, 0.05, 0.05, 0.05]  # the fourth at once: three of acme's were being held
    assert other_tenant == 0.05 and busy == 0.0 and unauthenticated == 0.0
    assert quotas._held == {}  # nothing left counted once they were sent


def test_the_ingestion_process_runs_in_the_idle_scheduling_class(tmp_path: Path) -> None:
    """The job process (and the worker threads it starts) get a core only when the
    server's threads do not want it: nice alone does not keep it off the server's cores."""
    if not hasattr(os, "SCHED_IDLE"):
        pytest.skip("no SCHED_IDLE on this platform")
    with LiveServer(_settings(tmp_path / "home")) as server, server.client(create_tenant(server, "acme")) as client:
        assert wait_for_jobs(client, [_add(client, "kb", "the overdraft fee", "a")])[0]["state"] == "indexed"
        child = server.app.state.runner._process.pid
        assert os.sched_getscheduler(child) == os.SCHED_IDLE
        policies = [int(Path(f"/proc/{child}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()[38])
                    for tid in os.listdir(f"/proc/{child}/task")]  # field 41 of a thread's stat: its policy
        assert policies.count(os.SCHED_IDLE) >= 2  # the worker thread, started after, inherits it
    settings = _settings(tmp_path / "home2")
    settings.server.job_idle = False
    with LiveServer(settings) as server, server.client(create_tenant(server, "acme")) as client:
        assert wait_for_jobs(client, [_add(client, "kb", "the overdraft fee", "a")])[0]["state"] == "indexed"
        assert os.sched_getscheduler(server.app.state.runner._process.pid) == os.SCHED_OTHER


def test_tenant_routes_authenticate_without_the_middleware_in_front(tmp_path: Path) -> None:
    """``tenant_principal`` (async, so a request costs no thread hop when ``AuthFirst``
    has checked it) still authenticates and applies the quotas itself in an app
    without ``AuthFirst``."""
    from ragline.server.auth import AuthFirst

    server = LiveServer(_settings(tmp_path / "home", requests_per_minute=3))
    server.app.user_middleware = [m for m in server.app.user_middleware if m.cls is not AuthFirst]
    with server:
        key = create_tenant(server, "acme")
        with server.client("not-a-key") as stranger:
            assert stranger.get("/v1/collections").status_code == 401
        with server.client(key) as client:
            assert client.get("/v1/collections").status_code == 200
            codes = [client.get("/v1/collections").status_code for _ in range(3)]
            assert codes[-1] == 429  # the rate quota, checked by the dependency itself
    layer, layers = server.app.middleware_stack, []
    while layer is not None:
        layers.append(type(layer))
        layer = getattr(layer, "app", None)
    assert AuthFirst not in layers and len(layers) > 2  # the stack was built without it
