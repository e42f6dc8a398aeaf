"""``make run``: the server on the embedded default with a sample knowledge base.

On first run it creates a ``demo`` tenant and an API key (kept in
``RAGLINE_HOME/demo-key.txt`` so the printed key stays valid across runs),
ingests the sample documents (incrementally: unchanged files do no work), then
serves the API and the web page, printing the URL, the key and a curl example.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from .engine import Engine
from .models import Scope
from .settings import Settings

TENANT = "demo"
COLLECTION = "bank"
SAMPLE_DIR = Path(__file__).parent / "sample"
KEY_FILE = "demo-key.txt"


def demo_key(engine: Engine) -> str:
    """The demo tenant's key: the kept one while it is still valid, else a new one."""
    path = engine.settings.home / KEY_FILE
    if path.is_file():
        key = path.read_text(encoding="utf-8").strip()
        info = engine.verify_api_key(key)
        if info is not None and info.tenant == TENANT:
            return key
    engine.ensure_tenant(TENANT)
    _, key = engine.create_api_key(TENANT, "demo (make run)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # a secret: owner-only
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key + "\n")
    return key


def banner(url: str, key: str) -> str:
    curl_url = url + "/v1/ask"
    return f"""
ragline is running: {url}   (web page at /, API docs at {url}/docs)

  demo tenant API key: {key}

  curl -s {curl_url} -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
       -d '{{"collection": "{COLLECTION}", "question": "How much is the fee for an unarranged overdraft?"}}'

  curl -s {url}/v1/search -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
       -d '{{"collection": "{COLLECTION}", "query": "lost card", "k": 3}}'

Press Ctrl+C to stop.
"""


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main() -> None:
    from .server import serve

    # SIGTERM (a supervisor, or `make run` being stopped) unwinds like Ctrl+C, so the
    # server, its job workers and the parser sandbox shut down rather than being left
    # behind. While serving, uvicorn takes the signal over and raises it again once it
    # has stopped, which lands here.
    signal.signal(signal.SIGTERM, _stop)
    settings = Settings()
    engine = Engine(settings)
    try:
        key = demo_key(engine)
        print(f"loading the sample knowledge base into {settings.home} (tenant {TENANT!r}, collection "
              f"{COLLECTION!r}) with {settings.embedder.name} …", file=sys.stderr, flush=True)
        summary = engine.ingest([SAMPLE_DIR], Scope(TENANT, (COLLECTION,)))
        print(f"sample: added {summary.added}, updated {summary.updated}, unchanged {summary.unchanged}, "
              f"failed {len(summary.failed)}, {summary.chunks} chunks in {summary.seconds:.1f} s",
              file=sys.stderr, flush=True)
    finally:
        engine.close()
    # Served as `ragline serve` is: the server's own engine, its ingestion in a child process.
    serve(settings, on_started=lambda url: print(banner(url, key), flush=True))


if __name__ == "__main__":
    main()
