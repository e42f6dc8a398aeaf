"""The ``ragline`` command line. Each module registers its commands on ``app``;
data goes to stdout, messages and progress to stderr."""

from __future__ import annotations

from . import (
    answer,  # noqa: F401  (ask)
    chat,  # noqa: F401  (chat, conversation …)
    core,  # noqa: F401  (ingest, sync, search, status)
    evaluate,  # noqa: F401
    mcp,  # noqa: F401  (mcp: the MCP server over stdio)
    models,  # noqa: F401  (models install, models status)
    reembed,  # noqa: F401  (reembed)
    remote,  # noqa: F401  (--server URL --key KEY: ingest, search, ask against a server)
    server,  # noqa: F401  (serve, worker, tenant, key, jobs)
    store,  # noqa: F401  (migrate)
    transactions,  # noqa: F401  (import transactions, connect truelayer)
    usage,  # noqa: F401  (usage, stats)
)
from .common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
