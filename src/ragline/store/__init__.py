"""Stores: the system of record and its indexes, behind one scoped protocol."""

from __future__ import annotations

from ..errors import ConfigError
from ..settings import Settings
from .base import ChunkRecord, CollectionInfo, DocumentInfo, DocumentRecord, Filters, Store

STORES = ("sqlite",)


def open_store(settings: Settings) -> Store:
    """Open the backend named by ``settings.store``."""
    if settings.store == "sqlite":
        from .sqlite import SQLiteStore

        return SQLiteStore(settings.db_path)
    raise ConfigError(f"unknown store {settings.store!r}; choose one of: {', '.join(STORES)}")


__all__ = ["STORES", "ChunkRecord", "CollectionInfo", "DocumentInfo", "DocumentRecord", "Filters", "Store", "open_store"]
