"""ragline as a Model Context Protocol server (``pip install 'ragline[mcp]'``):
``ragline mcp`` over stdio, and ``/v1/mcp`` (streamable HTTP) in ``ragline serve``.
It lives in the server because it is mounted by it and shares its key
authentication, error mapping and owner binding; its absolute ``mcp`` imports
name the SDK, never this package."""

from __future__ import annotations

from .server import build_server
from .transports import HTTP_PATH, http_lifespan, mount_http, run_stdio

__all__ = ["HTTP_PATH", "build_server", "http_lifespan", "mount_http", "run_stdio"]
