"""Ingestion-monopoly drill (issue 29): one tenant uploads 2.2 MB of 200,000 nested
``<div>``s, which held the only job worker for the whole 120 s parse time limit
while another tenant's 30-byte text waited 118 s.

- ``refused``: with the default limits the file fails by structure; how long it
  took and what the error says;
- ``slow_file``: with the structure limit raised (the file parsed as before, for
  its whole time limit), how long another tenant's small text waits, from its
  upload to indexed, while the long job holds a parser (target ≤ 5 s).

    .venv/bin/python -m bench.drills.ingest_lanes [--quick]

Writes bench/drills/results/ingest_lanes.json.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import httpx

from .common import serve, write

NESTED = ("<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000 + "</body></html>").encode()
SMALL = {"documents": [{"text": "The overdraft fee is 5 EUR per day.", "source": "fees.txt"}]}


def _job(client: httpx.Client, job_id: str) -> dict:
    return client.get(f"/v1/jobs/{job_id}").json()


def _until_done(client: httpx.Client, job_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while (job := _job(client, job_id))["state"] not in ("indexed", "failed"):
        if time.monotonic() > deadline:
            return job
        time.sleep(0.05)
    return job


def _upload_nested(client: httpx.Client) -> str:
    files = [("files", ("nested.html", NESTED, "text/html"))]
    return client.post("/v1/collections/docs/documents", files=files).json()["jobs"][0]["id"]


def run(quick: bool, output: Path | None = None) -> dict:
    timeout = 30.0 if quick else 120.0
    result: dict = {"file_mb": round(len(NESTED) / 1e6, 2), "parse_timeout_s": timeout}
    with serve() as server, server.client(server.tenant("alpha"), timeout=120) as alpha:
        started = time.perf_counter()
        job = _until_done(alpha, _upload_nested(alpha), 2 * timeout)
        result["refused"] = {"state": job["state"], "seconds": round(time.perf_counter() - started, 2),
                             "error": job["error"]}
    env = {"RAGLINE_LIMITS__MAX_HTML_DEPTH": "1000000", "RAGLINE_LIMITS__PARSE_TIMEOUT_S": str(timeout)}
    with serve(env) as server, server.client(server.tenant("alpha"), timeout=120) as alpha, \
            server.client(server.tenant("beta"), timeout=120) as beta:
        slow = _upload_nested(alpha)
        while _job(alpha, slow)["state"] != "parsing":
            time.sleep(0.05)
        time.sleep(1.0)  # the long parse is under way
        started = time.perf_counter()
        small = beta.post("/v1/collections/docs/documents/text", json=SMALL).json()["jobs"][0]["id"]
        done = _until_done(beta, small, 2 * timeout)
        waited = time.perf_counter() - started
        result["slow_file"] = {"small_job_state": done["state"], "small_job_wait_s": round(waited, 2),
                               "target_s": 5.0, "long_job_state_then": _job(alpha, slow)["state"]}
    write("ingest_lanes", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.quick, args.output)


if __name__ == "__main__":
    main()
