"""The REST API server: ``create_app(settings)`` and ``serve(settings)``."""

from __future__ import annotations

from .app import create_app, serve

__all__ = ["create_app", "serve"]
