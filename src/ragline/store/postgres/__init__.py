"""PostgreSQL (psycopg 3 + pgvector) as catalog, admin tables and search index."""

from .catalog import PostgresStore, open_backend

__all__ = ["PostgresStore", "open_backend"]
