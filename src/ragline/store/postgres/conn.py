"""The PostgreSQL store's connections: a pool whose connections load vectors straight
into float32 arrays and carry the statement timeout, one transaction per call scoped
to a tenant for row-level security (``_tx``), and driver errors mapped to ragline's
at this one boundary (``mapped``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.abc import Buffer
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from ...errors import StoreError, StoreUnavailableError
from .schema import BYPASS, first_line


class PostgresConnections:
    """Connection handling for ``PostgresStore`` (which sets ``_pool``, ``_scope_sql`` and
    ``_timeout_ms``)."""

    _pool: ConnectionPool
    _scope_sql: str
    _timeout_ms: int

    def _configure(self, conn: psycopg.Connection) -> None:
        register_vector(conn)
        # Load vectors straight into float32 arrays (pgvector's loader makes Vector objects).
        oid = conn.adapters.types["vector"].oid
        conn.adapters.register_loader(oid, VectorTextLoader)
        conn.adapters.register_loader(oid, VectorBinaryLoader)
        conn.execute("SELECT set_config('statement_timeout', %s, false)", (f"{self._timeout_ms}ms",))
        conn.commit()

    @contextmanager
    def _tx(self, tenant: str | None) -> Iterator[psycopg.Cursor]:
        """One transaction on a pooled connection, scoped to ``tenant`` for RLS (None:
        the operator/worker bypass). Driver errors leave as ragline errors."""
        if tenant == BYPASS:
            raise StoreError(f"invalid tenant name {tenant!r}")
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                cur.execute(self._scope_sql, (BYPASS if tenant is None else tenant,))
                yield cur
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            raise mapped(exc, self._pool.timeout) from exc

    def close(self) -> None:
        self._pool.close()


class VectorTextLoader(Loader):
    format = Format.TEXT

    def load(self, data: Buffer) -> np.ndarray:
        return np.array(bytes(data)[1:-1].split(b","), dtype=np.float32)


class VectorBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data: Buffer) -> np.ndarray:
        dim = int.from_bytes(bytes(data[:2]), "big")
        return np.frombuffer(data, dtype=">f4", count=dim, offset=4).astype(np.float32)


def mapped(exc: BaseException, timeout: float) -> StoreError:
    """Driver errors → ragline's: the ones that mean "try again later" become
    ``StoreUnavailableError`` (HTTP 503)."""
    text = first_line(exc)
    if isinstance(exc, PoolClosed):
        return StoreError("the store is closed")
    if isinstance(exc, PoolTimeout):
        return StoreUnavailableError(f"the PostgreSQL store is unreachable (no connection within {timeout:g} s); "
                                     "check RAGLINE_STORE__URL and the server, or retry later")
    if isinstance(exc, psycopg.errors.TransactionRollback):
        return StoreUnavailableError(f"the PostgreSQL store was busy (retry): {text}")
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return StoreUnavailableError(f"a PostgreSQL statement timed out (store.statement_timeout_s): {text}")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return StoreUnavailableError(f"the PostgreSQL store is unreachable (retry later): {text}")
    if isinstance(exc, psycopg.errors.UniqueViolation):
        return StoreError(f"store write refused, duplicate id: {text}")
    return StoreError(f"store operation failed: {text}")
