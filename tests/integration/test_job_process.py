"""Issue 16: ingestion in its own supervised process. The server's job workers run in
``python -m ragline.server.worker_child`` at a lower priority; the child ingests the
server's jobs with the server's settings, is restarted when it dies (readiness says
so meanwhile), and never outlives the server."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z" if Path(f"/proc/{pid}").exists() else False


def _upload(client: httpx.Client, source: str) -> dict:
    body = {"documents": [{"text": f"{source}: the overdraft fee is 5 EUR per day.", "source": source}]}
    return wait_for_jobs(client, [client.post("/v1/collections/docs/documents/text", json=body).json()["jobs"][0]["id"]])[0]


def test_the_ingestion_process_is_supervised_and_leaves_with_the_server(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1, job_nice=7))
    with LiveServer(settings) as server, server.client(create_tenant(server, "acme")) as client:
        runner = server.app.state.runner
        first = runner._process.pid
        assert first != os.getpid()
        assert _upload(client, "one")["state"] == "indexed"  # by then the child has lowered its priority
        # job_nice is added to the server's own niceness (the suite may itself run under `nice`)
        assert os.getpriority(os.PRIO_PROCESS, first) == min(os.getpriority(os.PRIO_PROCESS, 0) + 7, 19)

        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        seen_down = False
        while (child := runner._process) is None or child.pid == first or child.poll() is not None:
            seen_down |= httpx.get(server.url + "/readyz").status_code == 503
            assert time.monotonic() < deadline, "the ingestion process was not restarted"
            time.sleep(0.05)
        assert seen_down  # readiness said so while it was down
        assert httpx.get(server.url + "/readyz").json()["workers"] == 1
        assert _upload(client, "two")["state"] == "indexed"  # the new child ingests
        second = runner._process.pid
    deadline = time.monotonic() + 15
    while _alive(second):
        assert time.monotonic() < deadline, "the ingestion process outlived the server"
        time.sleep(0.1)
