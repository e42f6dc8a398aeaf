"""Tenancy drill: what one hostile tenant costs another on one server.

A real ``ragline serve`` (subprocess, hashing embedder so the machine's two cores
go to the server, not to a model) holds two tenants. The victim sends searches one
after another and we record their latency: first alone, then while the hostile
tenant floods the server from several threads (searches with long questions and
uploads of large text documents). Writes bench/drill_tenancy.json.

    .venv/bin/python bench/drill_tenancy.py [--seconds 20] [--hostile-threads 6]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

ADMIN = "drill-admin-key-0123456789"
WORDS = [f"word{i}" for i in range(5000)]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def _victim(url: str, key: str, seconds: float) -> list[float]:
    rng, times = random.Random(1), []
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = client.post("/v1/search", json={"query": _text(rng, 8), "collection": "docs", "k": 5})
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
    return times


def _hostile(url: str, key: str, stop: threading.Event, n: int, counts: dict[str, int]) -> None:
    rng = random.Random(100 + n)
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        while not stop.is_set():
            if n % 3 == 0:  # uploads of large documents (ingestion work)
                body = {"documents": [{"text": _text(rng, 40_000), "source": f"big-{rng.random()}"}]}
                response = client.post("/v1/collections/spam/documents/text", json=body)
            else:  # searches with the longest question the API takes
                response = client.post("/v1/search", json={"query": _text(rng, 1200)[:10_000], "collection": "spam",
                                                           "k": 100})
            counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--hostile-threads", type=int, default=6)
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "drill_tenancy.json")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="ragline-drill-"))
    port = _port()
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
           "RAGLINE_SERVER__ADMIN_KEY": ADMIN, "RAGLINE_SERVER__JOB_WORKERS": "1"}
    server = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        keys = {}
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}) as admin:
            for tenant in ("victim", "hostile"):
                admin.post("/v1/tenants", json={"name": tenant})
                keys[tenant] = admin.post(f"/v1/tenants/{tenant}/keys", json={}).json()["key"]
        rng = random.Random(0)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {keys['victim']}"}, timeout=60) as c:
            docs = [{"text": _text(rng, 300), "source": f"d{i}"} for i in range(200)]
            jobs = c.post("/v1/collections/docs/documents/text", json={"documents": docs}).json()["jobs"]
            while any(c.get(f"/v1/jobs/{j['id']}").json()["state"] != "indexed" for j in jobs[-3:]):
                time.sleep(0.5)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {keys['hostile']}"}, timeout=60) as c:
            c.post("/v1/collections/spam/documents/text", json={"documents": [{"text": _text(rng, 3000), "source": "s"}]})
            time.sleep(2)
        solo = _victim(url, keys["victim"], args.seconds)
        stop, counts = threading.Event(), {}
        threads = [threading.Thread(target=_hostile, args=(url, keys["hostile"], stop, n, counts), daemon=True)
                   for n in range(args.hostile_threads)]
        for t in threads:
            t.start()
        time.sleep(2)
        attacked = _victim(url, keys["victim"], args.seconds)
        stop.set()
        for t in threads:
            t.join(130)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)

    def stats(times: list[float]) -> dict[str, float]:
        return {"requests": len(times), "p50_ms": round(float(np.percentile(times, 50)), 1),
                "p95_ms": round(float(np.percentile(times, 95)), 1)}

    result = {"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "seconds": args.seconds,
              "hostile_threads": args.hostile_threads, "victim_alone": stats(solo),
              "victim_with_hostile": stats(attacked), "hostile_responses": counts,
              "p95_ratio": round(stats(attacked)["p95_ms"] / stats(solo)["p95_ms"], 2)}
    args.output.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
