"""The web page: static files (HTML, CSS, plain JS modules; no build step) served
by the API app itself, so `ragline serve` is all a user needs.

The page talks to the REST API under ``/v1`` with the tenant key the user signs in
with; it holds no server-side state of its own. Every file of it is sent with
``SECURITY_HEADERS``: a Content-Security-Policy allowing only the page's own
scripts, styles and API (no inline script or style, no other origin), and no
framing or content sniffing.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

STATIC_DIR = Path(__file__).parent / "static"
# What the page needs: its own modules and stylesheet, the API on the same origin, and
# data: images (the empty favicon). Nothing inline, nothing from elsewhere, no framing.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"}

__all__ = ["CSP", "SECURITY_HEADERS", "STATIC_DIR", "mount"]


class _Page(StaticFiles):
    """The page's files, each sent with ``SECURITY_HEADERS``."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(SECURITY_HEADERS)
        return response


def mount(app: FastAPI) -> None:
    """Serve the page at ``/`` (index.html) and its assets beside it.

    Call this after every API route is registered: a mount at ``/`` matches every
    path, so anything added after it would be shadowed. Routes registered earlier
    (``/v1/*``, ``/healthz``, ``/readyz``, ``/metrics``, ``/openapi.json``, ``/docs``)
    keep precedence because Starlette tries routes in order.
    """
    if not (STATIC_DIR / "index.html").is_file():  # a broken install, not a user error
        raise RuntimeError(f"web page files are missing from {STATIC_DIR}")
    app.mount("/", _Page(directory=STATIC_DIR, html=True), name="web")
