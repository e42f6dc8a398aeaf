"""Issue 16, faults: the disk filling up, on a real small tmpfs (needs root to mount).

While the disk is full, reads and searches keep answering, uploads are refused
with 507 before their body is read, ``/readyz`` says why (507 naming the path); a
job caught by it fails its try with the reason and is retried; once space is
freed everything recovers without a restart: readiness, the job, new uploads."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bench.drills.common import fill_disk

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _until(check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.2)
    return result


def test_a_full_disk_is_reported_and_everything_recovers_when_space_returns(small_disk: Path) -> None:
    settings = Settings(home=small_disk / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1, min_free_mb=1))
    with LiveServer(settings) as server, server.client(create_tenant(server, "acme")) as client:
        first = client.post("/v1/collections/docs/documents/text",
                            json={"documents": [{"text": "The overdraft fee is 5 EUR per day.", "source": "fees"}]})
        assert wait_for_jobs(client, [first.json()["jobs"][0]["id"]])[0]["state"] == "indexed"
        big = " ".join(f"paragraph {i} about branch opening hours and card limits." for i in range(6_000))
        job = client.post("/v1/collections/docs/documents/text",
                          json={"documents": [{"text": big, "source": "big"}]}).json()["jobs"][0]
        fillers = fill_disk(small_disk)  # while the big job is being written

        ready = httpx.get(server.url + "/readyz")
        assert ready.status_code == 507 and ready.json()["error"]["code"] == "insufficient_storage"
        assert str(small_disk / "home") in ready.json()["error"]["message"]
        hits = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"})
        assert hits.status_code == 200 and hits.json()["hits"][0]["source"] == "fees"  # reads still work
        assert client.get("/v1/collections").status_code == 200
        refused = client.post("/v1/collections/docs/documents/text",
                              json={"documents": [{"text": "written while full", "source": "full"}]})
        assert refused.status_code == 507 and "free space" in refused.json()["error"]["message"]

        for filler in fillers:
            filler.unlink()
        _until(lambda: httpx.get(server.url + "/readyz").status_code == 200)
        state = wait_for_jobs(client, [job["id"]], timeout=120)[0]
        if state["state"] == "failed":  # its tries ran out while the disk was full: a retry finishes it
            assert "full" in state["error"], state
            assert client.post(f"/v1/jobs/{job['id']}/retry").status_code == 202
            state = wait_for_jobs(client, [job["id"]], timeout=120)[0]
        assert state["state"] == "indexed", state
        again = client.post("/v1/collections/docs/documents/text",
                            json={"documents": [{"text": "written after", "source": "after"}]}).json()["jobs"][0]
        assert wait_for_jobs(client, [again["id"]])[0]["state"] == "indexed"
        found = client.post("/v1/search", json={"query": "card limits branch", "collection": "docs"}).json()
        assert any(h["source"] == "big" for h in found["hits"])
