"""The two ways to reach the MCP server, each with its way of knowing the caller:

- **stdio** (``ragline mcp``): a desktop assistant starts ragline as a child
  process. Without a key it acts as the CLI does, for the local user who owns the
  data directory: the whole of one tenant (``--tenant``, default ``default``).
  With ``--key KEY`` (or ``RAGLINE_API_KEY``) it is scoped by that key, verified
  on every call.
- **streamable HTTP** under the REST server (``/v1/mcp``): stateless, so any
  replica answers any request; ``AuthFirst`` authenticates each request from its
  ``Authorization: Bearer`` header and applies the tenant's rate quota before the
  MCP SDK sees it, exactly as for every other ``/v1`` route."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from ...engine import Engine
from ...store.types import ApiKeyInfo
from ..auth import authenticate
from ..errors import ApiError
from .server import Caller, build_server

HTTP_PATH = "/v1/mcp"


def key_caller(engine: Engine, secret: str) -> Caller:
    """The caller for a process that holds one key (stdio): checked on each call."""

    def caller(ctx: Context) -> ApiKeyInfo:
        return authenticate(engine, secret)

    return caller


def request_caller(ctx: Context) -> ApiKeyInfo:
    """The key ``AuthFirst`` authenticated for this HTTP request."""
    request: Any = ctx.request_context.request
    info = getattr(getattr(request, "state", None), "api_key", None)
    if not isinstance(info, ApiKeyInfo):
        raise ApiError(401, "unauthorized", "missing API key: send 'Authorization: Bearer <key>'")
    return info


def local_caller(tenant: str) -> Caller:
    """The caller for the local user (stdio without a key): the whole tenant, as the CLI."""
    local = ApiKeyInfo(id="local", tenant=tenant, label="local user", prefix="", created=0.0)

    def caller(ctx: Context) -> ApiKeyInfo:
        return local

    return caller


def run_stdio(engine: Engine, secret: str | None, tenant: str = "default") -> None:
    """Serve MCP on stdin/stdout until the client closes them (stdout carries only
    protocol messages; logs go to stderr): scoped by ``secret``'s key, or without
    one as the local user over ``tenant``."""
    if secret is None:
        build_server(engine, local_caller(tenant)).run("stdio")
        return
    authenticate(engine, secret)  # a wrong key fails at start, not on the first call
    build_server(engine, key_caller(engine, secret)).run("stdio")


def mount_http(app: Any, engine: Engine, host: str) -> MCPServer:
    """Add ``/v1/mcp`` to the FastAPI ``app``; run ``http_lifespan(server)`` in the
    app's lifespan. ``host`` is the address served: on a loopback address the SDK
    also checks the Host and Origin headers (DNS rebinding)."""
    server = build_server(engine, request_caller)
    starlette = server.streamable_http_app(streamable_http_path=HTTP_PATH, stateless_http=True, host=host)
    app.router.routes.extend(starlette.routes)
    return server


@asynccontextmanager
async def http_lifespan(server: MCPServer) -> AsyncIterator[None]:
    """The MCP session manager's task group, for as long as the REST server runs."""
    async with server.session_manager.run():
        yield
