"""Issue 16, ingestion jobs at the API: a job's error text is bounded whatever the
file held, bad configuration fails a job at once (no retries), and an encrypted
PDF's password goes with its upload without landing in the job table or logs."""

from __future__ import annotations

import json
import logging
import re
import stat
import time
from pathlib import Path

import httpx
import pytest

from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.engine_admin import MAX_JOB_TRIES
from ragline.server.jobs import ERROR_MAX_CHARS
from ragline.server.uploads import PASSWORD_FILE
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.paths import PDF_SAMPLES, needs
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

ENCRYPTED = PDF_SAMPLES / "005-libreoffice-writer-password" / "libreoffice-writer-password.pdf"
PASSWORD = "openpassword"


def _settings(home: Path, workers: int) -> Settings:
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                    server=ServerSettings(admin_key=ADMIN_KEY, job_workers=workers, job_process=False))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    with LiveServer(_settings(tmp_path_factory.mktemp("jobs") / "home", 1)) as live:
        yield live


@pytest.fixture(scope="module")
def client(server: LiveServer):
    with server.client(create_tenant(server, "acme")) as c:
        yield c


def _upload(client: httpx.Client, collection: str, name: str, data: bytes, **form: str) -> dict:
    response = client.post(f"/v1/collections/{collection}/documents", files=[("files", (name, data))], data=form)
    assert response.status_code == 202, response.text
    return response.json()["jobs"][0]


def test_job_error_text_is_bounded(client: httpx.Client) -> None:
    lines = [json.dumps({"_id": "good", "text": "One good record about fees."})]
    lines += ["{not json " + "z" * 500 for _ in range(3000)]
    lines += [json.dumps({"_id": "i" * 50_000, "text": "a record"})] * 3  # duplicate ids, each 50,000 characters
    job = _upload(client, "records", "bad.jsonl", "\n".join(lines).encode())
    (done,) = wait_for_jobs(client, [job["id"]])
    assert done["state"] == "indexed", done  # the good record is stored; the rest are reported
    error = done["error"]
    assert len(error) <= ERROR_MAX_CHARS <= 4096
    assert "bad.jsonl:2" in error and re.search(r"more failures \(3,00[23] in all\)$", error)
    only_bad = _upload(client, "records", "worse.jsonl", "\n".join(lines[1:3001]).encode())
    (failed,) = wait_for_jobs(client, [only_bad["id"]])
    assert failed["state"] == "failed" and len(failed["error"]) <= ERROR_MAX_CHARS


def test_bad_configuration_fails_a_job_once_without_retries(client: httpx.Client) -> None:
    # Token chunking needs the embedder's tokenizer; the hashing embedder has none (a ValueError).
    created = client.post("/v1/collections", json={"name": "tokens", "chunking": {"unit": "tokens", "size": 100,
                                                                                   "overlap": 10}})
    assert created.status_code == 201, created.text
    job = _upload(client, "tokens", "a.txt", b"Some text to chunk by tokens.")
    (done,) = wait_for_jobs(client, [job["id"]], timeout=30)
    assert done["state"] == "failed" and "tokenizer" in done["error"]
    assert done["tries"] == 1  # retrying cannot fix a setting


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.text.append(record.getMessage())


@needs(ENCRYPTED)
def test_pdf_password_is_used_for_the_job_and_never_stored(tmp_path: Path) -> None:
    home = tmp_path / "home"
    logs = _Records()
    logger = logging.getLogger("ragline.server")
    logger.addHandler(logs)
    try:
        with LiveServer(_settings(home, 0)) as server, server.client(create_tenant(server, "acme")) as client:
            locked = _upload(client, "pdfs", "locked.pdf", ENCRYPTED.read_bytes())
            job = _upload(client, "pdfs", "secret.pdf", ENCRYPTED.read_bytes(), password=PASSWORD)
            engine, runner = server.app.state.engine, server.app.state.runner
            kept = Path(engine.get_job("acme", job["id"]).path)
            secret = kept.parent / PASSWORD_FILE
            assert secret.read_text() == PASSWORD and stat.S_IMODE(secret.stat().st_mode) == 0o600
            assert not (Path(engine.get_job("acme", locked["id"]).path).parent / PASSWORD_FILE).exists()
            while (claimed := engine.claim_job("test-worker")) is not None:  # no worker threads: run them here
                runner.run(claimed, "test-worker")
            done = {j["id"]: j for j in wait_for_jobs(client, [locked["id"], job["id"]])}
            assert done[locked["id"]]["state"] == "failed" and "password" in done[locked["id"]]["error"]
            assert done[job["id"]]["state"] == "indexed", done[job["id"]]
            assert client.get(f"/v1/documents/{job['document_id']}").json()["chunks"] > 0
            assert not secret.exists()  # gone once its job finished
            hits = client.post("/v1/search", json={"query": "lorem ipsum", "collection": "pdfs", "mode": "keyword"}).json()
            assert any(h["source"] == "secret.pdf" for h in hits["hits"])
    finally:
        logger.removeHandler(logs)
    for path in home.rglob("*"):  # the job table (SQLite and its WAL) and everything else under home
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path
    assert not any(PASSWORD in line for line in logs.text)


class _FlakyEmbedder(HashingEmbedder):
    """The hashing embedder, failing as a provider that is down would (a transient error)
    while ``down`` is set."""

    down = True

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        if self.down:
            raise RuntimeError("the embedding provider is unreachable")
        return super().embed_documents(texts)


def test_a_failed_job_says_whether_a_retry_can_succeed(tmp_path: Path) -> None:
    """`retryable`: false for a file that cannot be parsed (the same bytes fail the same
    way), true for a job that ran out of tries on a transient error; the web page offers
    Retry only on the second."""
    settings = _settings(tmp_path / "home", 0)
    embedder = _FlakyEmbedder()
    engine = Engine(settings, embedder=embedder)
    try:
        with LiveServer(settings, engine) as server, server.client(create_tenant(server, "acme")) as client:
            broken = _upload(client, "kb", "scan.pdf", b"%PDF-1.4 this is not really a PDF")
            flaky = _upload(client, "kb", "notes.txt", b"Notes about the quarterly plan.")
            assert broken["retryable"] is False and flaky["retryable"] is False  # queued: nothing to retry
            runner = server.app.state.runner
            deadline = time.monotonic() + 60
            while {client.get(f"/v1/jobs/{j['id']}").json()["state"] for j in (broken, flaky)} != {"failed"}:
                assert time.monotonic() < deadline, "the jobs did not fail"
                claimed = engine.claim_job("test-worker")
                if claimed is None:
                    time.sleep(0.2)  # the transient failure's backoff (2 s, then 4 s)
                else:
                    runner.run(claimed, "test-worker")
            parse = client.get(f"/v1/jobs/{broken['id']}").json()
            assert parse["retryable"] is False and parse["tries"] == 1 and "PDF" in parse["error"]
            transient = client.get(f"/v1/jobs/{flaky['id']}").json()
            assert transient["retryable"] is True and transient["tries"] == MAX_JOB_TRIES
            assert "unreachable" in transient["error"]
            listed = {d["source"]: d for d in client.get("/v1/collections/kb/documents").json()["documents"]}
            assert listed["scan.pdf"]["job"]["retryable"] is False and listed["notes.txt"]["job"]["retryable"] is True
            embedder.down = False  # the provider is back: the retry succeeds
            assert client.post(f"/v1/jobs/{flaky['id']}/retry").json()["retryable"] is False
            claimed = engine.claim_job("test-worker")
            assert claimed is not None
            runner.run(claimed, "test-worker")
            assert client.get(f"/v1/jobs/{flaky['id']}").json()["state"] == "indexed"
    finally:
        engine.close()
