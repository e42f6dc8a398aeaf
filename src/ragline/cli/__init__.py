"""The ``ragline`` command line. Each module registers its commands on ``app``;
data goes to stdout, messages and progress to stderr."""

from __future__ import annotations

from . import (
    answer,  # noqa: F401  (ask)
    chat,  # noqa: F401  (chat, conversation …)
    core,  # noqa: F401  (ingest, sync, search, status)
    evaluate,  # noqa: F401
    reembed,  # noqa: F401  (reembed)
    server,  # noqa: F401  (serve, worker, tenant, key, jobs)
    store,  # noqa: F401  (migrate)
    transactions,  # noqa: F401  (import transactions, connect truelayer)
)
from .common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
