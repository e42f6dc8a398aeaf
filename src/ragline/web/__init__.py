"""The web page: static files (HTML, CSS, plain JS modules; no build step) served
by the API app itself, so `ragline serve` is all a user needs.

The page talks to the REST API under ``/v1`` with the tenant key the user signs in
with; it holds no server-side state of its own.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"

__all__ = ["STATIC_DIR", "mount"]


def mount(app: FastAPI) -> None:
    """Serve the page at ``/`` (index.html) and its assets beside it.

    Call this after every API route is registered: a mount at ``/`` matches every
    path, so anything added after it would be shadowed. Routes registered earlier
    (``/v1/*``, ``/healthz``, ``/readyz``, ``/metrics``, ``/openapi.json``, ``/docs``)
    keep precedence because Starlette tries routes in order.
    """
    if not (STATIC_DIR / "index.html").is_file():  # a broken install, not a user error
        raise RuntimeError(f"web page files are missing from {STATIC_DIR}")
    app.mount("/", StaticFiles(directory=STATIC_DIR, html=True), name="web")
