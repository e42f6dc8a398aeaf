"""Embedders: text → unit vectors. ``make_embedder`` builds one by name from the
registry (``EMBEDDERS``, in ``registry.py``)."""

from __future__ import annotations

from .base import DelegatingEmbedder, Embedder, EmbeddingCache
from .registry import EMBEDDERS, make_embedder
from .vectors import check_vectors

__all__ = ["EMBEDDERS", "DelegatingEmbedder", "Embedder", "EmbeddingCache", "check_vectors", "make_embedder"]
