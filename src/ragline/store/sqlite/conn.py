"""The SQLite store's connections (``SQLiteDatabase``): one per thread (WAL, foreign
keys on), writes in ``BEGIN IMMEDIATE`` transactions, and driver errors mapped to
ragline's at this one boundary (``mapped``). A connection that saw a full disk or an
I/O error is replaced. Every role over the file (catalog, admin, search,
conversations, records, usage) shares one ``SQLiteDatabase``."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from ...errors import DiskFullError, StoreError, StoreUnavailableError


class SQLiteDatabase:
    """The connections to one SQLite file (``sql.common.Database`` for the shared SQL)."""

    mark = "?"
    greatest = "max"

    @staticmethod
    def one_of(column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} IN ({','.join('?' * len(values))})", list(values)

    def __init__(self, path: Path, busy_timeout_s: float = 5.0) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s  # how long a write waits for another's lock
        self._local = threading.local()

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(str(self.path), timeout=self.busy_timeout_s, isolation_level=None,
                                       check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA foreign_keys=ON")
            except sqlite3.Error as exc:
                raise StoreUnavailableError(f"cannot open the store at {self.path}: {exc}") from exc
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``: writers queue on SQLite's lock)."""
        conn = self.conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite may have rolled back already (e.g. disk full)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            # A failed COMMIT (disk full, I/O error) can leave the transaction open on this
            # thread's connection; every later write on it would then fail too.
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            error = mapped("store write failed", exc)
            if isinstance(error, DiskFullError) or "i/o error" in str(exc).lower():
                # Such a connection can keep failing after the disk recovers (seen with
                # SQLITE_FULL mid-transaction in WAL mode): the next write opens a new one.
                self._local.conn = None
                conn.close()
            raise error from exc

    def probe_write(self, timeout_s: float) -> None:
        """Take the write lock and give it back at once, waiting at most ``timeout_s``:
        ``StoreUnavailableError`` when another process holds it that long (readiness:
        reads still work then, but every write would wait ``busy_timeout_s`` and fail)."""
        conn = self.conn()
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(timeout_s * 1000)}")
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
        except sqlite3.Error as exc:
            raise mapped("the store's write lock is not free", exc) from exc

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        try:
            return self.conn().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise mapped("store read failed", exc) from exc

    # -- sql.common.Database: one file, one writer, no tenant scoping -------------------
    def transaction(self, tenant: str | None) -> AbstractContextManager[sqlite3.Connection]:
        return self.write()

    def rows(self, tenant: str | None, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.read(sql, params)

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


_UNAVAILABLE = ("unable to open", "disk i/o error", "database or disk is full", "database is locked",
                "readonly database", "no such table")


def mapped(what: str, exc: sqlite3.Error) -> StoreError:
    """Driver errors → ragline's: the ones that mean "try again later" become
    ``StoreUnavailableError`` (HTTP 503)."""
    message = f"{what}: {exc}"
    if "disk is full" in str(exc).lower():
        return DiskFullError(f"{message} (free space on the disk holding the store; writes resume then)")
    if isinstance(exc, sqlite3.OperationalError) and "database is locked" in str(exc).lower():
        return StoreUnavailableError(f"{message} (another process holds the SQLite file's write lock; a write "
                                     "waits store.sqlite_busy_timeout_s for it)")
    if isinstance(exc, sqlite3.OperationalError) and any(s in str(exc).lower() for s in _UNAVAILABLE):
        return StoreUnavailableError(message)
    return StoreError(message)
