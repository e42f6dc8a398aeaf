"""Issue 16: SIGTERM stops ``ragline serve`` within seconds even while a request is
in flight (here an answer waiting on a provider that takes a minute). uvicorn's
graceful shutdown is bounded by ``server.shutdown_timeout_s``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import EmbedderSettings, Settings

from tests.fakes.llm import FakeLLMServer, Slow

SHUTDOWN_S = 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"server did not start: {log.read_text()[-2000:]}")
        time.sleep(0.1)


@pytest.mark.timeout(120)
def test_sigterm_stops_the_server_with_a_request_in_flight(tmp_path: Path) -> None:
    home = tmp_path / "home"
    setup = Engine(Settings(home=home, embedder=EmbedderSettings(name="hashing")))
    setup.ensure_tenant("acme")
    _, key = setup.create_api_key("acme")
    setup.add_documents([Document(source="fees.md", blocks=[Block(text="The overdraft fee is 5 EUR per day.")])],
                        Scope("acme", ("kb",)))
    setup.close()
    with FakeLLMServer("openai", default=Slow(delay=60)) as provider:
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
               "RAGLINE_GENERATOR__NAME": "openai", "RAGLINE_GENERATOR__BASE_URL": provider.base_url,
               "RAGLINE_GENERATOR__MODEL": "m", "RAGLINE_GENERATOR__API_KEY": "k",
               "RAGLINE_GENERATOR__TIMEOUT": "120", "RAGLINE_GENERATOR__MAX_RETRIES": "0",
               "RAGLINE_ANSWER__RELEVANCE_FLOOR": "-1", "RAGLINE_SERVER__SHUTDOWN_TIMEOUT_S": str(SHUTDOWN_S)}
        log = tmp_path / "serve.log"
        with log.open("wb") as out:
            process = subprocess.Popen([sys.executable, "-m", "ragline", "serve", "--port", str(port)], env=env,
                                       stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_ready(url, process, log)

            def ask() -> None:
                try:
                    httpx.post(url + "/v1/ask", json={"question": "What is the overdraft fee?", "collection": "kb"},
                               headers={"Authorization": f"Bearer {key}"}, timeout=90)
                except httpx.HTTPError:
                    pass  # the server went away under it: expected

            asker = threading.Thread(target=ask, daemon=True)
            asker.start()
            deadline = time.monotonic() + 30
            while not provider.requests:  # the answer is now waiting on the slow provider
                assert time.monotonic() < deadline and asker.is_alive(), log.read_text()[-2000:]
                time.sleep(0.05)
            sent = time.monotonic()
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(SHUTDOWN_S + 15)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still running {SHUTDOWN_S + 15} s after SIGTERM, with a request in flight")
            assert time.monotonic() - sent < SHUTDOWN_S + 15
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
