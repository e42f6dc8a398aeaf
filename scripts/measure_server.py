"""Server figures on this machine: upload → indexed time for the sample knowledge
base through the job queue, and HTTP latency of search and ask (p50/p95), with the
default embedder (MiniLM) unless RAGLINE_EMBEDDER__NAME says otherwise.

    .venv/bin/python scripts/measure_server.py [--out docs/measurements/server.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = ["How much is the fee for an unarranged overdraft?", "How do I report a lost card?",
             "How long does a SEPA transfer take?", "What is the contactless limit?",
             "How long are transaction records kept?", "When is the Utrecht branch open on Saturday?"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def main() -> None:
    from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

    from ragline.settings import ServerSettings, Settings

    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "docs" / "measurements" / "server.json"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sample = sorted((ROOT / "src" / "ragline" / "sample").iterdir())
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), server=ServerSettings(admin_key=ADMIN_KEY))
        with LiveServer(settings) as server:
            key = create_tenant(server, "bench")
            with server.client(key) as client:
                started = time.perf_counter()
                jobs = client.post("/v1/collections/kb/documents",
                                   files=[("files", (p.name, p.read_bytes())) for p in sample]).json()["jobs"]
                accepted = time.perf_counter() - started
                while any(client.get(f"/v1/jobs/{j['id']}").json()["state"] not in ("indexed", "failed") for j in jobs):
                    time.sleep(0.05)
                indexed = time.perf_counter() - started
                chunks = client.get("/v1/collections/kb").json()["chunks"]
                search_ms, ask_ms = [], []
                for _ in range(args.repeat):
                    for question in QUESTIONS:
                        t = time.perf_counter()
                        assert client.post("/v1/search", json={"query": question, "collection": "kb"}).status_code == 200
                        search_ms.append((time.perf_counter() - t) * 1000)
                        t = time.perf_counter()
                        assert client.post("/v1/ask", json={"question": question, "collection": "kb"}).status_code == 200
                        ask_ms.append((time.perf_counter() - t) * 1000)
    figures = {
        "embedder": settings.embedder.name, "files": len(sample), "chunks": chunks,
        "upload_accepted_ms": round(accepted * 1000, 1), "upload_to_indexed_s": round(indexed, 2),
        "search_ms": {"n": len(search_ms), "p50": pct(search_ms, 0.5), "p95": pct(search_ms, 0.95),
                      "mean": round(statistics.mean(search_ms), 1)},
        "ask_extractive_ms": {"n": len(ask_ms), "p50": pct(ask_ms, 0.5), "p95": pct(ask_ms, 0.95),
                              "mean": round(statistics.mean(ask_ms), 1)},
        "command": "python scripts/measure_server.py",
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":  # the parser sandbox re-imports the main module in its worker
    main()
