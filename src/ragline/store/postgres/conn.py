"""The PostgreSQL store's connections (``PostgresDatabase``): a pool whose connections
load vectors straight into float32 arrays and carry the statement timeout, one
transaction per call scoped to a tenant for row-level security (``tx``), and driver
errors mapped to ragline's at this one boundary (``mapped``). Every role over the
database (catalog, admin, search, conversations, records, usage) shares one. Pooled
connections are in autocommit mode: a transaction is begun explicitly, by ``tx`` (in
the same message as the tenant's scope) or ``one_trip``."""

from __future__ import annotations

import logging
import select
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.abc import Buffer
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg.types.array import ListBinaryDumper
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from ...errors import StoreError, StoreUnavailableError
from .schema import BYPASS, RLS_ROLE, first_line

log = logging.getLogger(__name__)
_BEGIN = {False: b"BEGIN", True: b"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"}
"""How ``tx`` begins a transaction: plain, or a read-only snapshot (``snapshot=True``)."""


class PostgresDatabase:
    """The connection pool of one PostgreSQL store (``sql.common.Database`` for the shared SQL)."""

    mark = "%s"
    greatest = "greatest"

    @staticmethod
    def one_of(column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = ANY(%s)", [list(values)]

    def __init__(self, url: str, kwargs: dict[str, Any], *, pool_size: int, connect_timeout: float,
                 timeout_ms: int, use_role: bool) -> None:
        self.timeout_ms = timeout_ms
        role = f"set_config('role', '{RLS_ROLE}', true), " if use_role else ""
        self._scope_sql = sql.SQL(f"SELECT {role}set_config('ragline.tenant', {{}}, true)")
        self.pool = ConnectionPool(
            url, kwargs=kwargs, min_size=1, max_size=pool_size, name="ragline",
            timeout=connect_timeout,  # a request waits this long for a connection, then 503
            # Give up a reconnection run soon: the next request starts a fresh one at once,
            # so a restarted server is used again within seconds, not after a long backoff.
            reconnect_timeout=max(10.0, 4 * connect_timeout),
            configure=self._configure, check=_check, open=True,
        )

    def _configure(self, conn: psycopg.Connection) -> None:
        register_vector(conn)
        # Load vectors straight into float32 arrays (pgvector's loader makes Vector objects).
        oid = conn.adapters.types["vector"].oid
        conn.adapters.register_loader(oid, VectorTextLoader)
        conn.adapters.register_loader(oid, VectorBinaryLoader)
        # Lists (ids, seqs, terms for ``= ANY(%s)``) travel in binary: a text array is quoted
        # element by element in Python and parsed again by the server (458 chunk ids: 2.1
        # against 1.2 ms for the match counters' read).
        conn.adapters.register_dumper(list, ListBinaryDumper)
        conn.autocommit = True  # transactions are begun explicitly (``tx``, ``one_trip``)
        conn.execute("SELECT set_config('statement_timeout', %s, false)", (f"{self.timeout_ms}ms",))

    @contextmanager
    def tx(self, tenant: str | None, *, snapshot: bool = False) -> Iterator[psycopg.Cursor]:
        """One transaction on a pooled connection, scoped to ``tenant`` for RLS (None:
        the operator/worker bypass). ``snapshot``: a read-only transaction whose
        statements all see one snapshot (REPEATABLE READ). Driver errors leave as
        ragline errors.

        BEGIN and the scope travel in one message (the tenant quoted by psycopg as a
        literal): a round trip fewer than psycopg's own BEGIN before the first statement,
        about 0.1 ms of a transaction's 0.3 ms floor on a local socket. Not in pipeline
        mode: that saved the round trips too, but psycopg's pipeline waits on the socket
        many more times per statement, and transactions on other threads slowed each
        other: four threads of hybrid searches at 100,000 chunks ran 113–117 a second
        pipelined and 149–156 without (docs/scaling.md)."""
        if tenant == BYPASS:
            raise StoreError(f"invalid tenant name {tenant!r}")
        try:
            with self.pool.connection() as conn, conn.cursor() as cur:
                cur.execute(_BEGIN[snapshot] + b"; " + self._scope(conn, BYPASS if tenant is None else tenant),
                            prepare=False)
                try:
                    yield cur
                except BaseException:
                    _rollback(conn)
                    raise
                conn.commit()
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            raise mapped(exc, self.pool.timeout) from exc

    def _scope(self, conn: psycopg.Connection, tenant: str) -> bytes:
        """The statement that scopes a transaction to ``tenant`` (and to the RLS role when
        used), the name quoted by psycopg as a literal: it can travel with BEGIN."""
        return self._scope_sql.format(sql.Literal(tenant)).as_bytes(conn)

    def one_trip(self, tenant: str, sql: str, params: Any) -> tuple | None:
        """One statement in its own tenant-scoped transaction, pipelined (BEGIN, the
        scope, the statement and COMMIT sent together): one network round trip, for
        what a request path pays on every request (the shared rate bucket)."""
        if tenant == BYPASS:
            raise StoreError(f"invalid tenant name {tenant!r}")
        try:
            with self.pool.connection() as conn:
                with conn.pipeline(), conn.transaction():
                    scope, cur = conn.cursor(), conn.cursor()
                    scope.execute(self._scope(conn, tenant), prepare=False)  # a statement per tenant: not kept
                    cur.execute(sql, params)
                return cur.fetchone()
        except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
            raise mapped(exc, self.pool.timeout) from exc

    # -- sql.common.Database ---------------------------------------------------------
    def transaction(self, tenant: str | None) -> AbstractContextManager[psycopg.Cursor]:
        return self.tx(tenant)

    def rows(self, tenant: str | None, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.tx(tenant) as cur:
            return cur.execute(sql, params).fetchall()

    def close(self) -> None:
        self.pool.close()


def _rollback(conn: psycopg.Connection) -> None:
    """Roll back a transaction that failed; a connection that cannot (lost) is left to
    the pool, which discards it: the first error is the one raised."""
    try:
        conn.rollback()
    except psycopg.Error as exc:
        log.warning("rollback failed after an error (the connection is discarded): %s", first_line(exc))


def _check(conn: psycopg.Connection) -> None:
    """The pool's check of a connection it hands out: a round trip only when the server
    wrote to it while it sat idle (an idle connection is sent nothing unless the server
    is closing it: a restart, a terminated backend). A ping on every checkout cost a
    round trip per transaction, five per hybrid search."""
    if select.select([conn.pgconn.socket], [], [], 0)[0]:
        ConnectionPool.check_connection(conn)


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
