"""Issue 29: ``ragline serve`` as a front over two app processes (``server.processes``).

A real server in a subprocess: each tenant's requests are served by one app process
(seen in the merged ``/metrics``), everything the API does passes the relay intact
(uploads, streamed answers, early refusals, HEAD, the page), an app process that dies
costs its tenants nothing but a retry-free move, and readiness names it meanwhile.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ADMIN = "admin-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Front:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def apps(self) -> list[int]:
        """The app processes' pids (children of the front running ``app_child``)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == self.process.pid and b"ragline.server.app_child" in cmdline:
                found.append(int(entry.name))
        return sorted(found)

    def tenant(self, name: str) -> str:
        admin = {"Authorization": f"Bearer {ADMIN}"}
        assert httpx.post(self.url + "/v1/tenants", json={"name": name}, headers=admin).status_code == 201
        key = httpx.post(f"{self.url}/v1/tenants/{name}/keys", headers=admin).json()["key"]
        assert httpx.post(self.url + "/v1/collections", json={"name": "kb"},
                          headers={"Authorization": f"Bearer {key}"}).status_code == 201
        return key


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Front]:
    home = tmp_path_factory.mktemp("front")
    port = free_port()
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
           "RAGLINE_SERVER__ADMIN_KEY": ADMIN, "RAGLINE_SERVER__MAX_REQUEST_MB": "1",
           "RAGLINE_SERVER__PROCESSES": "2"}
    log = home / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port)], env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    served = Front(f"http://127.0.0.1:{port}", process, log)
    try:
        _wait_ready(served)
        yield served
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


def _wait_ready(served: Front) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            if httpx.get(served.url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert served.process.poll() is None and time.monotonic() < deadline, served.log.read_text()[-3000:]
        time.sleep(0.2)


def _search_counts(url: str) -> dict[str, float]:
    """Search requests answered so far, per app process (the merged metrics)."""
    counts: dict[str, float] = {}
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith("ragline_requests_total") and 'route="/v1/search"' in line:
            process = re.search(r'process="(\d+)"', line)
            assert process is not None, line
            counts[process.group(1)] = counts.get(process.group(1), 0) + float(line.rsplit(" ", 1)[1])
    return counts


def test_each_tenants_requests_are_served_by_its_own_app_process(front: Front) -> None:
    assert len(front.apps()) == 2
    keys = {name: front.tenant(name) for name in ("north", "south")}
    before = _search_counts(front.url)
    with httpx.Client(base_url=front.url) as client:
        for name, times in (("north", 5), ("south", 3)):
            for _ in range(times):
                answer = client.post("/v1/search", json={"query": "fees", "collection": "kb"},
                                     headers={"Authorization": f"Bearer {keys[name]}"})
                assert answer.status_code == 200, answer.text
    after = _search_counts(front.url)
    grown = sorted(after.get(p, 0) - before.get(p, 0) for p in after)
    assert grown == [3, 5]  # one process answered all of north's, the other all of south's


def test_uploads_streamed_answers_and_refusals_pass_the_relay_intact(front: Front) -> None:
    key = front.tenant("relay")
    auth = {"Authorization": f"Bearer {key}"}
    text = "".join(f"Line {i}: the gym membership costs 35 euros a month.\n" for i in range(2000))
    with httpx.Client(base_url=front.url, headers=auth, timeout=60) as client:
        job = client.post("/v1/collections/kb/documents", files={"files": ("gym.txt", text.encode())}).json()
        job_id = job["jobs"][0]["id"]
        deadline = time.monotonic() + 60
        while client.get(f"/v1/jobs/{job_id}").json()["state"] != "indexed":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        hits = client.post("/v1/search", json={"query": "gym membership", "collection": "kb", "k": 3}).json()["hits"]
        assert hits and "gym membership costs 35 euros" in hits[0]["text"]
        with client.stream("POST", "/v1/ask", json={"question": "What does the gym cost?", "collection": "kb",
                                                     "stream": True}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            events = [line for line in stream.iter_lines() if line.startswith("event: ")]
        assert events[-1] == "event: done" and "event: delta" in events
        # The app refuses a body over server.max_request_mb (1 MB here) before reading it: its
        # 413 must reach the client, not a relay error.
        refused = client.post("/v1/collections/kb/documents", files={"files": ("big.txt", b"x" * 30_000_000)})
        assert refused.status_code == 413, refused.text
        assert refused.json()["error"]["code"] == "payload_too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: the app counts as it reads, then stops reading
            for _ in range(200):
                yield b"y" * 100_000

        streamed = client.post("/v1/collections/kb/documents/text", content=chunks(),
                               headers={"content-type": "application/json"})
        assert streamed.status_code == 413, streamed.text
        assert client.head("/").status_code == 200  # headers only: the relay must not wait for a body
    assert httpx.get(front.url + "/v1/search", headers={"Authorization": "Bearer wrong"}).status_code == 401
    page = httpx.get(front.url + "/")
    assert page.status_code == 200 and "content-security-policy" in page.headers


def test_a_dead_app_process_costs_its_tenants_nothing_and_readiness_names_it(front: Front) -> None:
    keys = {name: front.tenant(name) for name in ("east", "west")}
    with httpx.Client(base_url=front.url, timeout=30) as client:
        for key in keys.values():  # both active: one on each process
            assert client.post("/v1/search", json={"query": "fees", "collection": "kb"},
                               headers={"Authorization": f"Bearer {key}"}).status_code == 200
        victim_pid = front.apps()[1]
        os.kill(victim_pid, signal.SIGKILL)
        time.sleep(0.2)
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["error"]["code"] == "backend_unavailable", ready.text
        for _ in range(5):  # every tenant is answered: the dead process's tenant moves to the live one
            for key in keys.values():
                answer = client.post("/v1/search", json={"query": "fees", "collection": "kb"},
                                     headers={"Authorization": f"Bearer {key}"})
                assert answer.status_code == 200, answer.text
        deadline = time.monotonic() + 60  # and the process is restarted
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, front.log.read_text()[-2000:]
            time.sleep(0.3)
    pids = front.apps()
    assert len(pids) == 2 and victim_pid not in pids


def test_sigterm_stops_the_front_and_every_app_process(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path), "RAGLINE_EMBEDDER__NAME": "hashing",
           "RAGLINE_SERVER__PROCESSES": "2"}
    with (tmp_path / "serve.log").open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port)], env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    served = Front(f"http://127.0.0.1:{port}", process, tmp_path / "serve.log")
    try:
        _wait_ready(served)
        apps = served.apps()
        sockets = list(Path(tempfile.gettempdir()).glob(f"ragline-front-{process.pid}-*"))
        assert len(sockets) == 1  # the private folder of the app processes' sockets
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down
        for pid in apps:
            assert not Path(f"/proc/{pid}").exists(), f"app process {pid} outlived the front"
        assert not sockets[0].exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_one_process_serves_the_app_itself(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path), "RAGLINE_EMBEDDER__NAME": "hashing"}
    with (tmp_path / "serve.log").open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port), "--processes", "1"],
                                   env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Front(f"http://127.0.0.1:{port}", process, tmp_path / "serve.log")
    try:
        _wait_ready(served)
        assert served.apps() == []
        assert 'process="' not in httpx.get(served.url + "/metrics").text
    finally:
        process.kill()
        process.wait(10)
