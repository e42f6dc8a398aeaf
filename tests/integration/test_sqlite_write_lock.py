"""Issue 29: under another process's SQLite write lock an ask (a conversation turn,
which writes) waited 30 s, and /readyz said ready. A write now waits at most
``store.sqlite_busy_timeout_s``: the ask answers once that wait is over, with its
turn not stored (the conversation service's own degradation); readiness probes the
write lock with a short wait and says not ready; both recover when the lock goes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from ragline.settings import EmbedderSettings, ServerSettings, Settings, StoreSettings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()  # until the test says so
conn.execute("ROLLBACK")
"""


def test_a_foreign_write_lock_makes_writes_fail_fast_and_readiness_say_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                        store=StoreSettings(sqlite_busy_timeout_s=1.0),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1))
    assert StoreSettings().sqlite_busy_timeout_s <= 5  # the default: not the 30 s it was
    ask = {"question": "How much is the overdraft fee?", "collection": "docs"}
    with LiveServer(settings) as server, server.client(create_tenant(server, "acme")) as client:
        body = {"documents": [{"text": "The overdraft fee is 5 EUR per day.", "source": "fees.txt"}]}
        job = client.post("/v1/collections/docs/documents/text", json=body).json()["jobs"][0]["id"]
        assert wait_for_jobs(client, [job])[0]["state"] == "indexed"
        assert httpx.get(server.url + "/readyz").status_code == 200
        holder = subprocess.Popen([sys.executable, "-c", HOLD, str(home / "ragline.sqlite")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            ready = httpx.get(server.url + "/readyz")
            assert ready.status_code == 503 and ready.json()["error"]["code"] == "store_unavailable"
            assert "write lock" in ready.json()["error"]["message"]
            started = time.monotonic()
            degraded = client.post("/v1/ask", json=ask)
            assert time.monotonic() - started < 10  # a hang guard: before, 30 s
            assert degraded.status_code == 200 and "5 EUR" in degraded.json()["answer"], degraded.text
            searched = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"})
            assert searched.status_code == 200 and searched.json()["hits"]  # reads go on
        finally:
            if holder.stdin is not None:
                holder.stdin.write("\n")
                holder.stdin.flush()
            holder.wait(10)
        assert httpx.get(server.url + "/readyz").status_code == 200
        answered = client.post("/v1/ask", json=ask)
        assert answered.status_code == 200 and "5 EUR" in answered.json()["answer"]
