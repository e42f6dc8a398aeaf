"""ragline: an offline-first retrieval-augmented generation engine.

The names below load on first use, so importing a submodule (the parser worker,
the CLI's fast paths) does not pull in the engine, NumPy and the models."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .version import __version__ as __version__

if TYPE_CHECKING:
    from .engine import Engine
    from .errors import RaglineError
    from .models import Document, Hit, Scope
    from .settings import Settings

__all__ = ["Document", "Engine", "Hit", "RaglineError", "Scope", "Settings"]

_HOMES = {"Engine": ".engine", "RaglineError": ".errors", "Document": ".models", "Hit": ".models",
          "Scope": ".models", "Settings": ".settings"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name], __name__), name)
    raise AttributeError(f"module 'ragline' has no attribute {name!r}")
