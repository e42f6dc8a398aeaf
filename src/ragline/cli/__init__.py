"""The ``ragline`` command line. Each module registers its commands on ``app``;
data goes to stdout, messages and progress to stderr."""

from __future__ import annotations

from . import core  # noqa: F401  (ingest, sync, search, status)
from .common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
