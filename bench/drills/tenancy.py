"""Tenancy drill: what one hostile tenant costs another on one server.

A real ``ragline serve`` holds two tenants. The victim sends searches one after
another and we record their latency: first alone, then while the hostile tenant
floods the server from another process (``--hostile-threads`` connections, each
sending the longest searches the API takes with k=100, or uploads of 40,000-word
documents, which the server's ingestion process then chunks and embeds). The
hostile client runs at a lower CPU priority: on a 2-core machine it stands in for
clients on other machines, and should not be what slows the victim down.

    .venv/bin/python -m bench.drills.tenancy [--seconds 20] [--hostile-threads 6]

Writes bench/drills/results/tenancy.json; the target is p95_ratio <= 2.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from .common import serve, stats, write

WORDS = [f"word{i}" for i in range(5000)]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def victim(url: str, key: str, seconds: float) -> tuple[list[float], int]:
    """Searches one after another for ``seconds``: latencies, and non-200 answers."""
    rng, times, errors = random.Random(1), [], 0
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = client.post("/v1/search", json={"query": _text(rng, 8), "collection": "docs", "k": 5})
            times.append((time.perf_counter() - started) * 1000)
            errors += response.status_code != 200
    return times, errors


def hostile(url: str, key: str, threads: int, seconds: float, mix: str = "both") -> dict[str, int]:
    """The flood (run in its own process by ``main``): response counts by status."""
    rng = random.Random(100)
    uploads = [json.dumps({"documents": [{"text": _text(rng, 40_000), "source": f"big-{i}"}]}) for i in range(4)]
    searches = [json.dumps({"query": _text(rng, 1200)[:10_000], "collection": "spam", "k": 100}) for _ in range(8)]
    counts: dict[str, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def flood(n: int) -> None:
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            i = 0
            while time.monotonic() < deadline:
                i += 1
                if mix == "upload" or (mix == "both" and n % 3 == 0):
                    response = client.post("/v1/collections/spam/documents/text", content=uploads[i % len(uploads)])
                else:
                    response = client.post("/v1/search", content=searches[i % len(searches)])
                with lock:
                    counts[str(response.status_code)] = counts.get(str(response.status_code), 0) + 1

    workers = [threading.Thread(target=flood, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return counts


def run(seconds: float, hostile_threads: int, output: Path | None = None, env: dict[str, str] | None = None,
        mix: str = "both") -> dict:
    with serve(env) as server:
        keys = {t: server.tenant(t) for t in ("victim", "hostile")}
        rng = random.Random(0)
        with server.client(keys["victim"]) as c:
            docs = [{"text": _text(rng, 300), "source": f"d{i}"} for i in range(200)]
            jobs = c.post("/v1/collections/docs/documents/text", json={"documents": docs}).json()["jobs"]
            while any(c.get(f"/v1/jobs/{j['id']}").json()["state"] != "indexed" for j in jobs[-3:]):
                time.sleep(0.5)
        with server.client(keys["hostile"]) as c:
            c.post("/v1/collections/spam/documents/text",
                   json={"documents": [{"text": _text(rng, 3000), "source": "s"}]}).raise_for_status()
            time.sleep(2)
        victim(server.url, keys["victim"], 2)  # warm-up
        solo, solo_errors = victim(server.url, keys["victim"], seconds)
        flood = subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "bench.drills.tenancy", "--as-hostile",
                                  server.url, keys["hostile"], str(hostile_threads), str(seconds + 4), mix],
                                 stdout=subprocess.PIPE, cwd=Path(__file__).parents[2])
        time.sleep(2)
        attacked, attacked_errors = victim(server.url, keys["victim"], seconds)
        counts = json.loads(flood.communicate(timeout=seconds + 180)[0] or b"{}")
    alone, under = stats(solo), stats(attacked)
    result = {
        "seconds": seconds, "hostile_threads": hostile_threads, "mix": mix, "victim_alone": alone, "victim_with_hostile": under,
        "victim_errors": solo_errors + attacked_errors, "hostile_responses": counts,
        "p95_ratio": round(under["p95_ms"] / alone["p95_ms"], 2), "target_p95_ratio": 2.0}
    write("tenancy", result, output)
    return result


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--as-hostile":
        url, key, threads, seconds, mix = sys.argv[2:7]
        print(json.dumps(hostile(url, key, int(threads), float(seconds), mix)))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--hostile-threads", type=int, default=6)
    parser.add_argument("--mix", choices=("both", "search", "upload"), default="both",
                        help="what the hostile threads send: searches, uploads, or both (a third upload)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.seconds, args.hostile_threads, args.output, mix=args.mix)


if __name__ == "__main__":
    main()
