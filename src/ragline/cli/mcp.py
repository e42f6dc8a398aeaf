"""``ragline mcp``: the MCP server over stdio, for desktop assistants and IDEs that
start it as a child process (``ragline serve`` offers the same at ``/v1/mcp``)."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import Tenant, app, engine_from_env
from .common import scope as _scope
from .console import say


@app.command()
def mcp(
    tenant: Tenant = "default",
    key: Annotated[str | None, typer.Option("--key", envvar="RAGLINE_API_KEY", show_envvar=True, help=(
        "Scope the server by a tenant API key (`ragline key create --tenant T [--owner U]`): it decides the "
        "tenant, and an owner-bound key the owner, as over the REST API. Without one: the whole of --tenant, "
        "as the other commands."))] = None,
) -> None:
    """Serve ragline's tools (search, ask with citations, collections, documents, passages)
    and document resources over the Model Context Protocol on stdin/stdout."""
    _scope(tenant, None, None)  # a name the API could not address: exit 2
    try:
        from ..server.mcp import run_stdio
    except ImportError as exc:
        say("red", "error", "the MCP server needs the `mcp` package: pip install 'ragline[mcp]'")
        raise typer.Exit(2) from exc
    from ..server.errors import ApiError

    with engine_from_env() as engine:
        try:
            run_stdio(engine, key or None, tenant)
        except ApiError as exc:  # a wrong or revoked key: refused at start
            say("red", "error", f"{exc.message}")
            raise typer.Exit(2) from exc
