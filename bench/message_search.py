"""Retrieval over a user's past messages (seed 004: under 500 ms at 10k messages):
one owner with 10k and with 100k embedded messages (384-dim, as MiniLM), among
other owners' messages, searched through the store seam on SQLite and PostgreSQL.
Writes ``bench/message_search.{json,md}``.

    .venv/bin/python bench/message_search.py [--sizes 10000 100000] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragline.settings import Settings, StoreSettings
from ragline.store import open_store
from ragline.store.conversations import NewMessage

DIM, MODEL, QUERIES = 384, "bench/model", 50


def fill(store, owner: str, n: int, rng: np.random.Generator, per_conversation: int = 50) -> None:
    conv = store.conversations
    done = 0
    while done < n:
        cid = conv.create_conversation("bench", owner, title="t", collections=["kb"]).id
        batch = min(per_conversation, n - done)
        written = conv.add_messages("bench", owner, cid, [
            NewMessage("user" if i % 2 == 0 else "assistant", f"message {done + i} of {owner}") for i in range(batch)])
        vectors = rng.normal(size=(batch, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        conv.set_message_embeddings("bench", MODEL, [(m.id, v) for m, v in zip(written, vectors)])
        done += batch


def measure(store, owner: str, rng: np.random.Generator, k: int = 5) -> dict:
    times = []
    for _ in range(QUERIES):
        q = rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        started = time.perf_counter()
        found = store.conversations.search_messages("bench", owner, q, k, model_id=MODEL)
        times.append((time.perf_counter() - started) * 1000)
        assert len(found) == k and all(m.owner == owner for m, _ in found)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(len(times) * 0.95) - 1], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--output", type=Path, default=ROOT / "bench")
    args = parser.parse_args()
    rng = np.random.default_rng(4)
    results: dict = {"dim": DIM, "k": 5, "queries": QUERIES, "rows": []}
    with tempfile.TemporaryDirectory(prefix="ragline-msgbench-") as scratch:
        for backend in args.backends.split(","):
            if backend == "postgresql":
                from tests.pg_server import fresh_database

                url = fresh_database()
            else:
                url = str(Path(scratch) / f"{backend}.sqlite")
            store = open_store(Settings(home=Path(scratch), store=StoreSettings(url=url)))
            try:
                fill(store, "neighbour", 5_000, rng)  # another owner's messages share the table
                have = 0
                for size in sorted(args.sizes):
                    started = time.perf_counter()
                    fill(store, "user", size - have, rng)
                    have = size
                    row = {"backend": backend, "messages": size, "fill_s": round(time.perf_counter() - started, 1),
                           **measure(store, "user", rng)}
                    results["rows"].append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
            finally:
                store.close()
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "message_search.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = ["# Search over one user's past messages", "",
             (f"{DIM}-dim embeddings, top {results['k']}, {QUERIES} queries, exact cosine through the store seam "
              "(the owner's rows by index, another owner's 5,000 beside them). Seed 004's target: < 500 ms at 10k."),
             "", "| backend | messages of the user | p50 ms | p95 ms |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {r['backend']} | {r['messages']:,} | {r['p50_ms']} | {r['p95_ms']} |" for r in results["rows"]]
    (args.output / "message_search.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
