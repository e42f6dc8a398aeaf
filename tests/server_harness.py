"""A real ragline server (uvicorn on a free port) in a thread, and small helpers
the server tests share: tenants and keys through the admin API, waiting for jobs."""

from __future__ import annotations

import threading
import time
from typing import Any, Self

import httpx
import uvicorn

from ragline.engine import Engine
from ragline.server import create_app
from ragline.settings import Settings

ADMIN_KEY = "test-admin-key-0123456789"


class LiveServer:
    """``with LiveServer(settings) as server: httpx.get(server.url + "/healthz")``."""

    def __init__(self, settings: Settings, engine: Engine | None = None) -> None:
        self.app = create_app(settings, engine)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)
        self.url = ""

    def __enter__(self) -> Self:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


def create_tenant(server: LiveServer, name: str) -> str:
    """Create a tenant and one key through the admin API; returns the key."""
    with server.client(ADMIN_KEY) as admin:
        response = admin.post("/v1/tenants", json={"name": name})
        assert response.status_code == 201, response.text
        response = admin.post(f"/v1/tenants/{name}/keys", json={"label": "test"})
        assert response.status_code == 201, response.text
        return response.json()["key"]


def wait_for_jobs(client: httpx.Client, job_ids: list[str], timeout: float = 60.0) -> list[dict[str, Any]]:
    """Poll until every job is indexed or failed; returns their last state."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = [client.get(f"/v1/jobs/{job_id}").json() for job_id in job_ids]
        if all(j["state"] in ("indexed", "failed") for j in jobs):
            return jobs
        if time.monotonic() > deadline:
            raise AssertionError(f"jobs not finished after {timeout} s: {jobs}")
        time.sleep(0.05)
