"""Load drill: concurrent ask, search and upload traffic from this process against a
real ``ragline serve`` on loopback while ingestion runs: sustained QPS, latency per
kind and errors.

    .venv/bin/python -m bench.drills.load [--seconds 30] [--clients 8]

Writes bench/drills/results/load.json.
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from pathlib import Path

from .common import serve, stats, write

TOPICS = ["overdraft fees", "card replacement", "international transfers", "branch opening hours", "savings interest",
          "mortgage overpayment", "fraud reporting", "account closure"]


def _doc(rng: random.Random, i: int) -> dict:
    topic = rng.choice(TOPICS)
    body = " ".join(f"Section {j} explains {topic} for customers with policy number {rng.randrange(10**6)}."
                    for j in range(rng.randrange(20, 200)))
    return {"text": f"# {topic.title()} {i}\n\n{body}", "source": f"{topic.replace(' ', '-')}-{i}.md"}


def run(seconds: float, clients: int, output: Path | None = None, embedder: str = "hashing") -> dict:
    with serve({"RAGLINE_EMBEDDER__NAME": embedder}) as server:
        key = server.tenant("acme")
        rng = random.Random(0)
        with server.client(key) as client:
            client.post("/v1/collections/docs/documents/text",
                        json={"documents": [_doc(rng, i) for i in range(50)]}).raise_for_status()
        times: dict[str, list[float]] = {"search": [], "ask": [], "upload": []}
        statuses: dict[str, int] = {}
        lock = threading.Lock()
        deadline = time.monotonic() + seconds

        def worker(n: int) -> None:
            local = random.Random(n)
            with server.client(key, timeout=120) as c:
                while time.monotonic() < deadline:
                    kind = local.choices(["search", "ask", "upload"], weights=[6, 3, 1])[0]
                    started = time.perf_counter()
                    if kind == "search":
                        r = c.post("/v1/search", json={"query": local.choice(TOPICS), "collection": "docs"})
                    elif kind == "ask":
                        r = c.post("/v1/ask", json={"question": f"What about {local.choice(TOPICS)}?",
                                                    "collection": "docs"})
                    else:
                        r = c.post("/v1/collections/docs/documents/text",
                                   json={"documents": [_doc(local, 1000 * n + local.randrange(10**6))]})
                    elapsed = (time.perf_counter() - started) * 1000
                    with lock:
                        times[kind].append(elapsed)
                        statuses[str(r.status_code)] = statuses.get(str(r.status_code), 0) + 1

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with server.client(key) as client:
            jobs = client.get("/v1/jobs", params={"limit": 1000}).json()["jobs"]
    total = sum(len(v) for v in times.values())
    errors = sum(n for s, n in statuses.items() if not s.startswith("2"))
    result = {"seconds": seconds, "clients": clients, "embedder": embedder, "requests": total,
              "qps": round(total / seconds, 1), "errors": errors, "statuses": statuses,
              "latency": {kind: stats(v) for kind, v in times.items()},
              "jobs": {state: sum(j["state"] == state for j in jobs) for state in {j["state"] for j in jobs}}}
    write("load", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.seconds, args.clients, args.output, args.embedder)


if __name__ == "__main__":
    main()
