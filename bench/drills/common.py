"""What the drills share: a real ``ragline serve`` in a subprocess (its own
process group, stopped with SIGTERM and checked to leave nothing behind), tenants
and keys through the admin API, latency statistics, and the results file.

Drills write ``bench/drills/results/<drill>.json``; ``make drills`` runs them all
and ``docs/reliability.md`` quotes the figures."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

ADMIN = "drill-admin-key-0123456789"
RESULTS = Path(__file__).parent / "results"


@dataclass
class Served:
    url: str
    home: Path
    process: subprocess.Popen

    def admin(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60)

    def client(self, key: str, timeout: float = 60) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout)

    def tenant(self, name: str) -> str:
        """Create a tenant and return a key for it."""
        with self.admin() as admin:
            return create_tenant(admin, name)


def create_tenant(admin: httpx.Client, name: str) -> str:
    """Create a tenant through an admin client and return a new key for it."""
    admin.post("/v1/tenants", json={"name": name}).raise_for_status()
    response = admin.post(f"/v1/tenants/{name}/keys", json={})
    response.raise_for_status()
    return response.json()["key"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become ready in {timeout:g} s")


@contextmanager
def serve(env: dict[str, str] | None = None, home: Path | None = None) -> Iterator[Served]:
    """``ragline serve`` on a free port with the hashing embedder (the cores go to the
    server, not a model) unless ``env`` says otherwise."""
    home = home or Path(tempfile.mkdtemp(prefix="ragline-drill-"))
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    full_env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
                "RAGLINE_SERVER__ADMIN_KEY": ADMIN, **(env or {})}
    with open(home / "server.log", "ab") as log:  # the JSON log lines, one per request
        process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port)], env=full_env,
                                   stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url)
        yield Served(url, home, process)
    finally:
        stop(process)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM the server's process group; SIGKILL what is left after 30 s."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def fill_disk(root: Path) -> list[Path]:
    """Take every free byte of the filesystem holding ``root`` (big blocks, then small
    ones); returns the files to delete to give the space back."""
    fillers = []
    for block in (1 << 20, 4096, 1):
        path = root / f"filler-{block}"
        try:
            with open(path, "wb") as handle:
                fillers.append(path)
                while True:
                    handle.write(b"\0" * block)
                    handle.flush()
        except OSError:
            pass
    return fillers


def stats(times_ms: list[float]) -> dict[str, float]:
    if not times_ms:
        return {"requests": 0}
    return {"requests": len(times_ms), "p50_ms": round(float(np.percentile(times_ms, 50)), 1),
            "p95_ms": round(float(np.percentile(times_ms, 95)), 1),
            "max_ms": round(float(max(times_ms)), 1)}


def write(name: str, result: dict, output: Path | None = None) -> Path:
    path = output or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    result = {"drill": name, "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "cpus": os.cpu_count(), **result}
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return path
