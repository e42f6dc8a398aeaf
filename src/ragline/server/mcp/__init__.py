"""ragline as a Model Context Protocol server (``pip install 'ragline[mcp]'``):
``ragline mcp`` over stdio, and ``/v1/mcp`` (streamable HTTP) in ``ragline serve``.
Named ``mcp_server`` so it never shadows the ``mcp`` SDK it is built on."""

from __future__ import annotations

from .server import build_server
from .transports import HTTP_PATH, http_lifespan, mount_http, run_stdio

__all__ = ["HTTP_PATH", "build_server", "http_lifespan", "mount_http", "run_stdio"]
