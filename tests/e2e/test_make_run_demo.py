"""``make run`` end to end: ``python -m ragline.demo`` with the default (real
MiniLM) embedder in a subprocess: it ingests the sample knowledge base, prints the
URL, a demo key and a curl example that works; a second run keeps the same key
and re-embeds nothing."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest


def _run_demo(home: Path, log: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_SERVER__PORT": "0"}
    env.pop("RAGLINE_EMBEDDER__NAME", None)  # the default embedder, as make run uses
    process = subprocess.Popen([sys.executable, "-m", "ragline.demo"], env=env, stdout=subprocess.PIPE,
                               stderr=log.open("ab"))
    banner, deadline = b"", time.monotonic() + 240
    while b"Press Ctrl+C" not in banner:
        assert process.poll() is None, f"demo exited: {log.read_text()[-2000:]}"
        assert time.monotonic() < deadline, f"no banner: {banner!r} {log.read_text()[-2000:]}"
        # Raw reads: a buffered readline() could hold the rest of the banner where select() cannot see it.
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        if ready:
            banner += os.read(process.stdout.fileno(), 65536)
    return process, banner.decode()


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.mark.timeout(480)
def test_make_run_serves_the_sample_with_a_working_key_and_curl(tmp_path: Path) -> None:
    home, log = tmp_path / "home", tmp_path / "demo.log"
    process, banner = _run_demo(home, log)
    try:
        url = re.search(r"ragline is running: (http://\S+)", banner).group(1)
        key = re.search(r"demo tenant API key: (rl-\S+)", banner).group(1)
        curl = re.search(r"curl -s (\S+/v1/ask) .*?-d '(\{.*?\})'", banner, re.DOTALL)
        assert curl and curl.group(1) == url + "/v1/ask"
        response = httpx.post(curl.group(1), content=curl.group(2), timeout=120,
                              headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        answer = response.json()
        assert response.status_code == 200 and not answer["abstained"], answer
        assert "€5 per day" in answer["answer"] and answer["citations"][0]["source"].endswith("overdraft-policy.md")
        collection = httpx.get(url + "/v1/collections/bank", headers={"Authorization": f"Bearer {key}"}).json()
        assert collection["documents"] == 7 and "MiniLM" in collection["model"]
        assert httpx.get(url + "/").status_code == 200  # the web page
    finally:
        _stop(process)
    assert "sample: added 7," in log.read_text()

    again, banner = _run_demo(home, log)
    _stop(again)
    assert f"demo tenant API key: {key}" in banner
    assert "sample: added 0, updated 0, unchanged 7," in log.read_text()
