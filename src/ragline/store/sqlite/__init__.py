"""The embedded default backend: SQLite (WAL) as catalog, admin tables and search
index in one file, with HNSW and tantivy side indexes for large collections."""

from .catalog import SQLiteStore, open_backend

__all__ = ["SQLiteStore", "open_backend"]
