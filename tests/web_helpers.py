"""Helpers for the browser tests: Debian's headless Chromium driven by Playwright,
and screenshots kept as test artifacts. (The real ragline server in a thread comes from
``server_harness``.)

Playwright's own browser download does not work offline, so the tests drive the
system Chromium (`scripts/ensure_chromium.sh` installs it). Missing browser or
Playwright: a skip on a developer machine, an error in CI (``CI`` set), where the
browser tests must run.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path(os.environ.get("RAGLINE_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def require_browser() -> None:
    """Skip (developer machine) or fail (CI) when Playwright or Chromium is missing."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "playwright is not installed (pip install -e '.[dev]')"
    if problem is None and not CHROMIUM.exists():
        problem = f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)"
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {problem}", pytrace=False)
    pytest.skip(problem)


@contextmanager
def launch_chromium() -> Iterator[object]:
    """A headless Chromium (Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: object, name: str, *, full_page: bool = False) -> Path:
    """Save a PNG under test-artifacts/screenshots/ (kept by CI, ignored by git)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)  # type: ignore[attr-defined]
    return path


@contextmanager
def serve_app(app: object) -> Iterator[str]:
    """Any ASGI app with uvicorn in a thread on a free port; yields its base URL.
    (The real ragline server has its own harness: ``server_harness.LiveServer``.)"""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def ask(page, question: str):  # type: ignore[no-untyped-def]
    """Ask on the page's Ask tab and wait until the answer has finished streaming;
    returns the answer's element."""
    count = page.locator(".msg-answer").count()
    page.get_by_label("Your question").fill(question)
    page.keyboard.press("Enter")
    answer = page.locator(".msg-answer").nth(count)
    answer.and_(page.locator("[aria-busy=false]")).wait_for()
    return answer
