"""How long one big document holds the SQLite write lock, and what another tenant's
small write waits meanwhile (the issue measured 25 s when embedding ran inside the
document's transaction).

    .venv/bin/python -m bench.drills.write_lock [--chunks 10000]

Writes bench/drills/results/write_lock.json.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import EmbedderSettings, Settings

from .common import write


def run(chunks: int, output: Path | None = None) -> dict:
    home = Path(tempfile.mkdtemp(prefix="ragline-drill-lock-"))
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"))
    engine = Engine(settings)
    scope = Scope("big-tenant", ("docs",))
    held: list[float] = []
    put = engine.store.put_document

    def timed_put(*args, **kwargs):  # the write transaction of one document
        started = time.perf_counter()
        try:
            return put(*args, **kwargs)
        finally:
            held.append(time.perf_counter() - started)

    engine.store.put_document = timed_put  # type: ignore[method-assign]
    waits: list[float] = []
    stop = threading.Event()

    def other_tenant() -> None:
        other = Engine(settings)
        while not stop.is_set():
            started = time.perf_counter()
            other.ensure_tenant(f"small-{len(waits)}")
            waits.append(time.perf_counter() - started)
            time.sleep(0.02)

    thread = threading.Thread(target=other_tenant)
    thread.start()
    text = "\n\n".join(f"Paragraph {i}: the branch at street {i} opens at nine and its card limit is {i} euros. " * 8
                       for i in range(chunks))
    started = time.perf_counter()
    summary = engine.add_documents([Document(source="big", blocks=[Block(text)])], scope)
    total = time.perf_counter() - started
    stop.set()
    thread.join()
    result = {"chunks": summary.chunks, "ingest_s": round(total, 2), "write_transaction_s": round(max(held), 3),
              "other_tenant_writes": len(waits), "other_tenant_max_wait_s": round(max(waits), 3),
              "other_tenant_p50_wait_ms": round(sorted(waits)[len(waits) // 2] * 1000, 2)}
    write("write_lock", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.chunks, args.output)


if __name__ == "__main__":
    main()
