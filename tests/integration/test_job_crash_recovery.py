"""Crash safety of background ingestion: a server in a subprocess is killed with
SIGKILL while a job is embedding; started again, it takes the job again once
its lease expires (a short lease here), and the
collection ends with exactly the chunks of a clean ingest — none missing, none
duplicated."""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import EmbedderSettings, Settings

from tests.server_harness import wait_for_jobs

FILES = 10
WORDS_PER_FILE = 90_000  # ~600 chunks each: a job takes long enough to be caught mid-embedding


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _corpus(directory: Path) -> list[Path]:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(5000)]
    paths = []
    for n in range(FILES):
        path = directory / f"report{n}.txt"
        words = rng.choices(vocabulary, k=WORDS_PER_FILE)
        path.write_text("\n\n".join(" ".join(words[i:i + 60]) for i in range(0, len(words), 60)))
        paths.append(path)
    return paths


class _Server:
    def __init__(self, home: Path, log: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
               "RAGLINE_SERVER__JOB_WORKERS": "1", "RAGLINE_SERVER__JOB_LEASE_S": "2"}
        self.log = log.open("ab")
        self.process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(self.port)],
                                        env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


def _chunk_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT id FROM chunks")]


@pytest.mark.timeout(300)
def test_sigkill_mid_ingest_then_restart_completes_exactly(tmp_path: Path) -> None:
    files = _corpus(tmp_path)
    home = tmp_path / "home"
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"))
    setup = Engine(settings)
    setup.ensure_tenant("acme")
    _, key = setup.create_api_key("acme")
    setup.close()
    headers = {"Authorization": f"Bearer {key}"}

    server = _Server(home, tmp_path / "server.log")
    try:
        with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
            upload = [("files", (p.name, p.read_bytes())) for p in files]
            jobs = client.post("/v1/collections/docs/documents", files=upload).json()["jobs"]
            assert len(jobs) == FILES
            caught = False
            while not caught:
                states = client.get("/v1/jobs").json()["jobs"]
                # Any job in its embedding stage will do: its chunks are being written or about to be.
                caught = any(j["state"] == "embedding" and j["progress"]["done"] < j["progress"]["total"]
                             for j in states)
                assert caught or any(j["state"] in ("queued", "parsing", "embedding") for j in states), \
                    "every job finished before one was seen mid-embedding"
                time.sleep(0.005)
            server.kill()
    finally:
        if server.process.poll() is None:
            server.kill()
    with sqlite3.connect(home / "ragline.sqlite") as conn:  # what the dead server left behind
        interrupted = [r[0] for r in conn.execute("SELECT id FROM jobs WHERE state IN ('parsing', 'embedding')")]
        indexed_before = conn.execute("SELECT count(*) FROM jobs WHERE state = 'indexed'").fetchone()[0]
    # One job worker and the idle-tenant lane: the lane may take this tenant's next job in the
    # moment between the worker finishing one and claiming another, so one or two were running.
    assert 1 <= len(interrupted) <= 2 and indexed_before < FILES

    restarted = _Server(home, tmp_path / "server.log")
    try:
        with httpx.Client(base_url=restarted.url, headers=headers, timeout=60) as client:
            final = wait_for_jobs(client, [j["id"] for j in jobs], timeout=180)
            assert [j["state"] for j in final] == ["indexed"] * FILES
            resumed = [j for j in final if j["id"] in interrupted]
            assert [j["tries"] for j in resumed] == [2] * len(interrupted)  # running when killed, ran again
            served = client.get("/v1/collections/docs").json()
    finally:
        restarted.stop()
    assert '"event": "job_resumed"' in (tmp_path / "server.log").read_text()

    clean_home = tmp_path / "clean"
    clean = Engine(Settings(home=clean_home, embedder=EmbedderSettings(name="hashing")))
    summary = clean.ingest(files, Scope("acme", ("docs",)))
    clean.close()
    assert summary.added == FILES and not summary.failed
    after_crash, reference = _chunk_ids(home / "ragline.sqlite"), _chunk_ids(clean_home / "ragline.sqlite")
    assert len(after_crash) == len(set(after_crash))  # no duplicates
    assert sorted(after_crash) == sorted(reference)  # none missing, none extra
    assert served["chunks"] == len(reference) == summary.chunks and served["documents"] == FILES
