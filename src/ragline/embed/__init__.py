"""Embedders: text → unit vectors. ``make_embedder`` picks one by name."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..settings import EmbedderSettings
from .base import Embedder, EmbeddingCache

EMBEDDERS = ("minilm", "hashing")


def make_embedder(settings: EmbedderSettings, cache_dir: Path | None = None) -> Embedder:
    """Build the embedder named in settings (models load lazily, on first use)."""
    if settings.name == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=settings.batch_size, threads=settings.threads, cache_dir=cache_dir)
    if settings.name == "hashing":
        from .hashing import HashingEmbedder

        return HashingEmbedder()
    raise ConfigError(f"unknown embedder {settings.name!r}; choose one of: {', '.join(EMBEDDERS)}")


__all__ = ["EMBEDDERS", "Embedder", "EmbeddingCache", "make_embedder"]
