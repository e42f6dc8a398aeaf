"""The PostgreSQL store's per-collection HNSW indexes (built, probed, dropped) and its
vacuums: DDL run CONCURRENTLY or outside any transaction, on the pool's connections
(in autocommit, ``conn``), never blocking writers; a failure costs speed, not data,
so it is logged."""

from __future__ import annotations

import logging

import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from ..sql.common import one_row

log = logging.getLogger(__name__)

HNSW_MAX_DIM = 2000  # above it, exact search only (an HNSW index takes 4,000 on halfvec, 2,000 on vector)
INDEX_BUILD_MEMORY = "2GB"  # maintenance_work_mem of an HNSW build: a million 384-d halfvec rows (1.1 GB) fit
HNSW_BUILD = "m = 16, ef_construction = 128"
"""The graph's parameters. At a million clustered 384-d vectors ef_construction 64 (pgvector's
default) gave recall@10 0.846 at ef_search 200 and 0.902 at 800; 128 gave 0.976 at 200 and
0.996 at 400. In the bench the build, packing and vacuum after a million-chunk load took
782 s with it and 2 GB, against 1,327 s with 64 and 1 GB, which the graph outgrew
(docs/scaling.md, Measured). The database server needs the 2 GB free while a build runs."""
_ANN_LOCK = 1 << 62  # + collection id: the advisory lock of one collection's index DDL


def ann_index_name(cid: int) -> str:
    """A collection's HNSW index over half-precision copies of its vectors."""
    return f"chunks_hnswh_{int(cid)}"


def float_ann_index_name(cid: int) -> str:
    """The float32 HNSW index collections had before: searched until the halfvec one is built."""
    return f"chunks_hnsw_{int(cid)}"


def ensure_ann_index(pool: ConnectionPool, cid: int, dimension: int, timeout_ms: int) -> bool:
    """Build a collection's partial HNSW index (on ``embedding::halfvec(D)`` where
    ``collection_id = N``, the expression and predicate dense search repeats) unless
    it exists and is valid; True when it does, and the float32 index of earlier
    versions is then dropped. CONCURRENTLY, outside any transaction, so writers are
    never blocked; a failure only costs speed, so it is logged.

    Half precision: the graph walk reads half the bytes, and the k rows it finds are
    re-ranked by their float32 distance (``search.py``). At 100,000 clustered 384-d
    vectors recall@10 was 0.983 (float32 0.983), 0.978 filtered to half the rows
    (0.983), p50 2.5 ms against 4.1, the index 112 MB against 195 (docs/scaling.md)."""
    name = ann_index_name(cid)
    create = (f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON chunks USING hnsw "
              f"((embedding::halfvec({int(dimension)})) halfvec_cosine_ops) WITH ({HNSW_BUILD}) "
              f"WHERE collection_id = {int(cid)}")
    ready = _index_ddl(pool, cid, name, create, timeout_ms, probe=True)
    if ready:
        old = float_ann_index_name(cid)
        _index_ddl(pool, cid, old, f"DROP INDEX CONCURRENTLY IF EXISTS {old}", timeout_ms, probe=False)
    return ready


def drop_ann_index(pool: ConnectionPool, cid: int, timeout_ms: int) -> bool:
    dropped = True
    for name in (ann_index_name(cid), float_ann_index_name(cid)):
        dropped = _index_ddl(pool, cid, name, f"DROP INDEX CONCURRENTLY IF EXISTS {name}", timeout_ms,
                             probe=False) and dropped
    return dropped


def _index_ddl(pool: ConnectionPool, cid: int, name: str, ddl: str, timeout_ms: int, *, probe: bool) -> bool:
    try:
        with pool.connection() as conn:  # in autocommit (conn.py): CONCURRENTLY runs outside a transaction
            # Try-lock, never wait: a concurrent build in another process waits for
            # our snapshot while we would wait for its lock.
            if not one_row(conn, "SELECT pg_try_advisory_lock(%s)", (_ANN_LOCK + cid,))[0]:
                return False
            try:
                row = conn.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)",
                                   (name,)).fetchone() if probe else None
                if row is not None and row[0]:
                    return True
                # A build may take longer than a query; but waiting for other sessions'
                # transactions (an idle-in-transaction client) must not hang the caller.
                conn.execute(f"SET lock_timeout = {int(timeout_ms)}")
                conn.execute("SET statement_timeout = 0")
                # An HNSW build whose graph fits in memory is several times faster.
                conn.execute(f"SET maintenance_work_mem = '{INDEX_BUILD_MEMORY}'")
                if row is not None:  # left invalid by an interrupted build
                    conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                conn.execute(ddl)
                return True
            finally:
                conn.execute(f"SET statement_timeout = {int(timeout_ms)}")
                conn.execute("RESET lock_timeout")
                conn.execute("RESET maintenance_work_mem")
                conn.execute("SELECT pg_advisory_unlock(%s)", (_ANN_LOCK + cid,))
    except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
        log.warning("HNSW index DDL for collection %s failed (its search stays exact): %s", cid, exc)
        return False


def vacuum(pool: ConnectionPool, tables: list[str], timeout_ms: int) -> bool:
    """``VACUUM (ANALYZE)`` the tables (outside a transaction, as it must run); a failure
    only costs speed until autovacuum comes, so it is logged."""
    try:
        with pool.connection() as conn:  # in autocommit (conn.py): VACUUM runs outside a transaction
            try:
                conn.execute("SET statement_timeout = 0")
                conn.execute(f"VACUUM (ANALYZE) {', '.join(tables)}")
                return True
            finally:
                conn.execute(f"SET statement_timeout = {int(timeout_ms)}")
    except (psycopg.Error, PoolTimeout, PoolClosed) as exc:
        log.warning("VACUUM of %s failed (autovacuum will do it later): %s", ", ".join(tables), exc)
        return False
