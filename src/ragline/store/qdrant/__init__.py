"""Qdrant as the search index, paired with a relational catalog (SQLite or PostgreSQL)."""

from .index import QdrantIndex, connect, mapped, open_backend, open_catalog

__all__ = ["QdrantIndex", "connect", "mapped", "open_backend", "open_catalog"]
