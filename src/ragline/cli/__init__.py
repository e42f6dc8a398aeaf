"""The ``ragline`` command line. Each module registers its commands on ``app``;
data goes to stdout, messages and progress to stderr.

Modules load lazily: ``main()`` imports only the module that defines the command
being run (plus ``remote``, whose callback holds the global ``--server`` /
``--key`` options), so ``ragline search`` does not pay for the server, the MCP
SDK or the evaluation code; a local search or ask imports ONNX Runtime in a
background thread meanwhile (issue 13, cold start). ``ragline --help``, an unknown command, and
``from ragline.cli import app`` load every module (the full command list)."""

from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer

# Module of each top-level command or command group (tests check this is complete).
COMMANDS = {
    "ask": "answer",
    "chat": "chat", "conversation": "chat",
    "ingest": "core", "sync": "core", "search": "core", "status": "core",
    "eval": "evaluate", "bench": "evaluate",
    "mcp": "mcp",
    "models": "models",
    "reembed": "reembed",
    "serve": "server", "worker": "server", "jobs": "server", "tenant": "server", "key": "server",
    "migrate": "store", "reindex": "store",
    "import": "transactions", "connect": "transactions", "transactions": "transactions",
    "usage": "usage", "stats": "usage",
}
MODULES = ("answer", "chat", "core", "evaluate", "mcp", "models", "reembed", "remote", "server", "store",
           "transactions", "usage")
_GLOBAL_OPTIONS_WITH_VALUE = ("--server", "--key")  # remote's callback options


def load(*modules: str) -> typer.Typer:
    """Import the named command modules (all of them by default); the Typer app."""
    for name in modules or MODULES:
        importlib.import_module(f"{__name__}.{name}")
    from .common import app
    from .help import conventional

    conventional(app)
    return app


def command_in(argv: list[str]) -> str | None:
    """The command word of a ``ragline`` argument list (after the global options)."""
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_OPTIONS_WITH_VALUE:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def _preload_runtime(argv: list[str]) -> None:
    """For a local ``search`` or ``ask``, start importing ONNX Runtime in a background
    thread while this one imports the command (what overlaps is what either spends
    outside the GIL: file reads, the dynamic loader); ``Engine.warm_up`` then builds the
    session. Best effort: a failure is left for the real import to report."""
    if command_in(argv) not in ("search", "ask") or any(a.startswith("--server") for a in argv) \
            or "keyword" in argv or os.environ.get("RAGLINE_EMBEDDER__NAME", "minilm") not in ("minilm", "local"):
        return

    def run() -> None:
        try:
            import onnxruntime  # noqa: F401
        except Exception:  # noqa: BLE001, S110
            pass

    threading.Thread(target=run, name="ragline-preload", daemon=True).start()


def main() -> None:
    _preload_runtime(sys.argv[1:])
    module = COMMANDS.get(command_in(sys.argv[1:]) or "")
    app = load("remote", module) if module is not None else load()
    app()


def __getattr__(name: str) -> Any:
    if name == "app":
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "app", "command_in", "load", "main"]
