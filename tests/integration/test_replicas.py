"""Issue 31, replicas that share everything: two API replicas over one PostgreSQL
admit together what one would (the request rate is a bucket in the store), keep
uploads in the catalog so a worker with another home (another machine) ingests
them, and say in /readyz which dependency is missing. Each replica is a real
server (``LiveServer``) with its own engine, as two processes would be."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import httpx

from ragline.settings import EmbedderSettings, QuotaSettings, ServerSettings, Settings, StoreSettings, TenantQuota

from tests.pg_server import pg_url  # noqa: F401  (fixture)
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

RPM = 6


def _settings(home: Path, url: str, *, workers: int = 0, rpm: int | None = None) -> Settings:
    quotas = QuotaSettings(tenants={"acme": TenantQuota(requests_per_minute=rpm)} if rpm else {})
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"), store=StoreSettings(url=url),
                    server=ServerSettings(admin_key=ADMIN_KEY, job_workers=workers, job_process=False),
                    quotas=quotas)


def _admitted_by_two_replicas(tmp_path: Path, url: str, shared: bool | None) -> tuple[int, float]:
    """Requests of one tenant sent at once through two replicas: (admitted, seconds taken)."""
    settings = [_settings(tmp_path / name, url, rpm=RPM) for name in ("one", "two")]
    for s in settings:
        s.quotas.rate_shared = shared
    with ExitStack() as stack:
        one, two = (stack.enter_context(LiveServer(s)) for s in settings)
        key = create_tenant(one, "acme")
        clients = [stack.enter_context(server.client(key)) for server in (one, two)]
        started = time.monotonic()
        with ThreadPoolExecutor(16) as pool:
            codes = list(pool.map(lambda n: clients[n % 2].get("/v1/collections").status_code, range(4 * RPM)))
        elapsed = time.monotonic() - started
    assert set(codes) <= {200, 429}, codes
    return codes.count(200), elapsed


def test_two_replicas_admit_what_one_would(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    admitted, elapsed = _admitted_by_two_replicas(tmp_path, pg_url, shared=None)  # the default on PostgreSQL
    refilled = int(elapsed * RPM / 60)  # a token comes back every 10 s
    assert RPM <= admitted <= RPM + refilled, (admitted, elapsed)


def test_counted_per_process_two_replicas_admit_twice_the_rate(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """What the shared bucket fixes (and what ``rate_shared=false`` still does)."""
    admitted, _ = _admitted_by_two_replicas(tmp_path, pg_url, shared=False)
    assert admitted >= 2 * RPM


# -- kept uploads in the catalog --------------------------------------------------------
def test_a_worker_with_another_home_ingests_uploads_kept_in_the_catalog(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """The replica that takes the upload runs no workers; the one that ingests it has its
    own home (another machine): nothing is shared but PostgreSQL."""
    import psycopg

    with LiveServer(_settings(tmp_path / "api", pg_url)) as api, \
            LiveServer(_settings(tmp_path / "worker", pg_url, workers=1)):
        key, other_key = create_tenant(api, "acme"), create_tenant(api, "other")
        with api.client(key) as client, api.client(other_key) as other:
            files = [("files", ("notes.md", b"# Notes\n\nThe zqkept word lives in the catalog.\n" * 50))]
            job = client.post("/v1/collections/kb/documents", files=files).json()["jobs"][0]
            text = client.post("/v1/collections/kb/documents/text",
                               json={"documents": [{"text": "A text zqtext kept too.", "source": "t"}]})
            jobs = [job["id"], text.json()["jobs"][0]["id"]]
            assert [j["state"] for j in wait_for_jobs(client, jobs)] == ["indexed", "indexed"]
            assert not (tmp_path / "api" / "uploads").exists() and not (tmp_path / "worker" / "uploads").exists()
            hits = client.post("/v1/search", json={"query": "zqkept", "collection": "kb"}).json()["hits"]
            assert hits and hits[0]["source"] == "notes.md"
            # Another tenant sees none of it, and re-ingesting reads the kept file again.
            assert other.post("/v1/search", json={"query": "zqkept", "collection": "kb"}).status_code in (200, 404)
            assert not other.post("/v1/search", json={"query": "zqkept", "collection": "kb"}).json().get("hits")
            again = client.post(f"/v1/documents/{job['document_id']}/reingest").json()
            assert wait_for_jobs(client, [again["id"]])[0]["state"] == "indexed"
            with psycopg.connect(pg_url) as conn:
                kept = conn.execute("SELECT count(*) FROM kept_uploads WHERE tenant = 'acme'").fetchone()[0]
                assert kept == 2  # one part each: the file and the text document
                assert client.delete(f"/v1/documents/{job['document_id']}").status_code == 204
                left = conn.execute("SELECT doc_id FROM kept_uploads WHERE tenant = 'acme'").fetchall()
                assert [r[0] for r in left] == [text.json()["jobs"][0]["document_id"]]


# -- readiness says which dependency is missing -------------------------------------------
def _not_ready(url: str, code: str, check: str) -> str:
    """The problem ``/readyz`` names for the dependency ``check``, in the API's error shape."""
    response = httpx.get(url + "/readyz")
    body = response.json()
    assert response.status_code == 503 and set(body) == {"error"} and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert message.startswith("not ready: ") and f"{check}: " in message, message
    return message.split(f"{check}: ", 1)[1]


def test_readiness_names_an_unreachable_database(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql://ragline@127.0.0.1:{port}/ragline?connect_timeout=1"
    settings = _settings(tmp_path / "home", url)
    settings.store.connect_timeout = 1.0
    with LiveServer(settings) as server:
        problem = _not_ready(server.url, "store_unavailable", "store")
        assert "unreachable" in problem and "(schema not checked without the store)" in problem


def test_readiness_names_missing_migrations(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    import psycopg

    with LiveServer(_settings(tmp_path / "home", pg_url)) as server:
        ready = httpx.get(server.url + "/readyz")
        assert ready.status_code == 200, ready.text
        with psycopg.connect(pg_url, autocommit=True) as conn:  # the database as an older ragline left it
            conn.execute("DELETE FROM schema_migrations WHERE version = 12")
            assert "lacks migrations 12" in _not_ready(server.url, "schema_behind", "schema")
            conn.execute("INSERT INTO schema_migrations VALUES (12, 0)")
            conn.execute("INSERT INTO schema_migrations VALUES (99, 0)")  # a newer ragline migrated it
            assert "newer than this ragline" in _not_ready(server.url, "schema_behind", "schema")
            conn.execute("DELETE FROM schema_migrations WHERE version = 99")
        ready = httpx.get(server.url + "/readyz").json()
        assert ready["status"] == "ready" and set(ready["checks"].values()) == {"ok"}, ready


def test_readiness_names_unwritable_upload_storage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "uploads").write_text("a file where the uploads folder belongs")
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_process=False))
    with LiveServer(settings) as server:
        assert "uploads" in _not_ready(server.url, "uploads_unwritable", "uploads")
        (home / "uploads").unlink()
        assert httpx.get(server.url + "/readyz").status_code == 200


def test_readiness_names_a_missing_model(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="local", path=str(tmp_path / "gone")),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_process=False))
    with LiveServer(settings) as server:
        problem = _not_ready(server.url, "model_unavailable", "model")
        assert "gone" in problem and "store:" not in problem  # the store is fine: only the model is named


def test_migrate_copies_uploads_kept_in_the_catalog(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """A job copied by ``ragline migrate`` still finds its file in the new store."""
    import io

    from ragline.engine import Engine
    from ragline.models import Scope
    from ragline.server.uploads import Uploads
    from ragline.store.migrate import migrate

    scope = Scope("acme", ("kb",), "ann")
    source = Engine(_settings(tmp_path / "source", pg_url))
    target = Engine(Settings(home=tmp_path / "target", embedder=EmbedderSettings(name="hashing")))
    try:
        source.ensure_tenant("acme")
        source.collection(scope)
        doc_id, key = Uploads(tmp_path / "source", source, "catalog").save_file(scope, "a.txt", io.BytesIO(b"kept"))
        source.create_job(scope, doc_id=doc_id, source="a.txt", kind="file", path=key)
        first, again = migrate(source.store, target.store), migrate(source.store, target.store)
        assert (first.jobs, first.uploads, again.uploads) == (1, 1, 0)
        with Uploads(tmp_path / "target", target, "local").open(scope, key) as path:
            assert path.read_bytes() == b"kept"
    finally:
        source.close()
        target.close()
