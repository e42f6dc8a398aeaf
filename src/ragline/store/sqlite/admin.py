"""``Admin`` on the embedded store: tenants' API keys and the job queue.

A mixin for ``SQLiteStore`` (it uses the store's ``_write``/``_read``), kept in
its own module so the catalog and the server's bookkeeping evolve separately.
Keys are stored as the sha256 of a high-entropy secret, never the secret. Every
job read or write takes the tenant; only the workers' ``claim_job`` spans
tenants, because it serves all of them. Claims are leased: several processes
(``ragline serve``, ``ragline worker``) can share one queue on one file, and fair
across tenants (see ``claim_job``). Authentication is a pure read: it never waits
for SQLite's write lock, which one large document can hold for seconds.
"""

from __future__ import annotations

import hmac
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...models import Scope
from ..sql.common import job_list_conditions, job_update
from ..types import (
    FAILED,
    JOB_COLUMNS,
    JOB_STATES,
    KEY_COLUMNS,
    RUNNING,
    ApiKeyInfo,
    JobInfo,
    StoredKey,
    caps_params,
    hash_key,
    new_api_key,
    token_wait,
)
from .conn import SQLiteDatabase

SCHEMA_ADMIN = """
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    label TEXT,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    last_used REAL,
    revoked REAL,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    collection TEXT NOT NULL,
    owner TEXT,
    doc_id TEXT NOT NULL,
    source TEXT NOT NULL,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    tries INTEGER NOT NULL DEFAULT 0,
    not_before REAL NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    started REAL,
    finished REAL,
    worker TEXT,
    lease_until REAL
);
CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (state, not_before, created);
CREATE INDEX IF NOT EXISTS jobs_tenant ON jobs (tenant, collection, created);
CREATE INDEX IF NOT EXISTS jobs_doc ON jobs (tenant, doc_id);
CREATE TABLE IF NOT EXISTS rate_buckets (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    bucket TEXT NOT NULL,
    tokens REAL NOT NULL,
    updated REAL NOT NULL,
    took INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, bucket)
);
CREATE TABLE IF NOT EXISTS kept_uploads (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    collection TEXT NOT NULL,
    owner TEXT,
    doc_id TEXT NOT NULL,
    name TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (tenant, collection, doc_id, name, part)
);
"""

# Fair claims: a tenant's running jobs, and when it was last served, by index seek.
# Created after the column migrations (stores older than ``lease_until`` lack it).
INDEXES_ADMIN = """
CREATE INDEX IF NOT EXISTS jobs_running ON jobs (tenant, state, lease_until);
CREATE INDEX IF NOT EXISTS jobs_served ON jobs (tenant, started);
"""

# Fair claim, in two steps inside the claim's write transaction. Runnable jobs
# first, then per tenant that has one: its running jobs (live leases), when it was
# last served (its latest claim), and its cap (the JSON overrides, else the default).
_FAIR_CANDIDATE = """
WITH runnable AS (
    SELECT q.id, q.tenant, q.not_before, q.created FROM jobs q
    WHERE ((q.state = 'queued' AND q.not_before <= :now)
           OR (q.state IN ('parsing', 'embedding') AND coalesce(q.lease_until, 0) < :now))
      AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.tenant = q.tenant AND r.doc_id = q.doc_id AND r.id != q.id
                      AND r.state IN ('parsing', 'embedding') AND r.lease_until >= :now)
), load AS (
    SELECT t.tenant,
           (SELECT count(*) FROM jobs r WHERE r.tenant = t.tenant AND r.state IN ('parsing', 'embedding')
            AND r.lease_until >= :now) AS running,
           (SELECT coalesce(max(s.started), 0) FROM jobs s WHERE s.tenant = t.tenant) AS served,
           coalesce((SELECT c.value FROM json_each(:caps) c WHERE c.key = t.tenant), :cap) AS cap
    FROM (SELECT DISTINCT tenant FROM runnable) t
)
SELECT r.id FROM runnable r JOIN load l ON l.tenant = r.tenant
WHERE l.running < l.cap
ORDER BY l.running, l.served, r.not_before, r.created, r.id
LIMIT 1
"""

_JOB_COLUMNS = ", ".join(JOB_COLUMNS)
_KEY_COLUMNS = ", ".join(KEY_COLUMNS)


def _job(row: tuple) -> JobInfo:
    return JobInfo(*row)


def _key(row: tuple) -> ApiKeyInfo:
    return ApiKeyInfo(*row[:len(KEY_COLUMNS)])


class AdminTables:
    """API keys and ingestion jobs on the SQLite file: the ``Admin`` role, which
    ``SQLiteStore`` (the catalog of the same file) also plays, over its ``db``."""

    db: SQLiteDatabase

    # Reads and writes of these tables and the catalog's (one place to wrap or fail them).
    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.db.read(sql, params)

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.db.write()

    # -- API keys ----------------------------------------------------------
    def create_api_key(self, tenant: str, label: str | None = None,
                       owner: str | None = None) -> tuple[ApiKeyInfo, str]:
        """A new key for an existing tenant: (its record, the secret — shown once)."""
        key_id, secret = new_api_key()
        now = time.time()
        with self._write() as conn:
            conn.execute("INSERT INTO api_keys (id, tenant, label, prefix, hash, created, owner) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (key_id, tenant, label, secret[:10], hash_key(secret), now,
                                                         owner))
        return ApiKeyInfo(id=key_id, tenant=tenant, label=label, prefix=secret[:10], created=now, owner=owner), secret

    def verify_api_key(self, secret: str) -> ApiKeyInfo | None:
        """The live key matching ``secret``, or None. Looked up by hash; the hash is
        compared again in constant time so the index lookup is the only branch.
        Read-only (see ``touch_api_keys``)."""
        digest = hash_key(secret)
        rows = self._read(f"SELECT {_KEY_COLUMNS}, hash FROM api_keys "
                          "WHERE hash = ? AND revoked IS NULL", (digest,))
        if not rows or not hmac.compare_digest(rows[0][len(KEY_COLUMNS)], digest):
            return None
        return _key(rows[0])

    def touch_api_keys(self, uses: Mapping[str, float]) -> None:
        if not uses:
            return
        with self._write() as conn:
            conn.executemany("UPDATE api_keys SET last_used = max(coalesce(last_used, 0), ?) WHERE id = ?",
                             [(when, key_id) for key_id, when in uses.items()])

    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]:
        rows = self._read(f"SELECT {_KEY_COLUMNS} FROM api_keys "
                          "WHERE tenant = ? AND revoked IS NULL ORDER BY created", (tenant,))
        return [_key(r) for r in rows]

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        with self._write() as conn:
            cur = conn.execute("UPDATE api_keys SET revoked = ? WHERE tenant = ? AND id = ? AND revoked IS NULL",
                               (time.time(), tenant, key_id))
        return cur.rowcount > 0

    # -- jobs ----------------------------------------------------------------
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo:
        """Queue ingestion of one kept upload. A job already queued for the same
        document is reused (its file was just replaced), so nothing runs twice."""
        now = time.time()
        with self._write() as conn:
            row = conn.execute(
                f"SELECT {_JOB_COLUMNS} FROM jobs WHERE tenant = ? AND doc_id = ? AND state = 'queued' "
                "ORDER BY created DESC LIMIT 1", (scope.tenant, doc_id)).fetchone()
            if row is not None:
                conn.execute("UPDATE jobs SET path = ?, kind = ?, source = ?, updated = ?, tries = 0, error = NULL, "
                             "not_before = 0 WHERE id = ?", (path, kind, source, now, row[0]))
                job_id = row[0]
            else:
                job_id = uuid.uuid4().hex
                conn.execute(
                    "INSERT INTO jobs (id, tenant, collection, owner, doc_id, source, kind, path, created, updated) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (job_id, scope.tenant, scope.collection, scope.owner, doc_id, source, kind, path, now, now))
        job = self.get_job(scope.tenant, job_id)
        assert job is not None
        return job

    def claim_job(self, worker: str, lease_s: float, max_tries: int, *, max_running: int | None = None,
                  max_running_for: Mapping[str, int | None] | None = None) -> JobInfo | None:
        now = time.time()
        caps, cap = caps_params(max_running, max_running_for)
        with self._write() as conn:  # BEGIN IMMEDIATE: claims are serialised, so caps hold exactly
            # A job whose worker died too often fails here instead of crash-looping.
            conn.execute(
                "UPDATE jobs SET state = ?, error = ?, finished = ?, updated = ?, worker = NULL, lease_until = NULL "
                "WHERE state IN (?, ?) AND coalesce(lease_until, 0) < ? AND tries >= ?",
                (FAILED, f"the worker running this job stopped {max_tries} times; not retried", now, now,
                 *RUNNING, now, max_tries))
            pick = conn.execute(_FAIR_CANDIDATE, {"now": now, "caps": caps, "cap": cap}).fetchone()
            if pick is None:
                return None
            row = conn.execute(
                "UPDATE jobs SET state = 'parsing', tries = tries + 1, started = ?, updated = ?, done = 0, "
                f"error = NULL, worker = ?, lease_until = ? WHERE id = ? RETURNING {_JOB_COLUMNS}",
                (now, now, worker, now + lease_s, pick[0])).fetchone()
        return _job(row) if row else None

    def renew_lease(self, tenant: str, job_id: str, worker: str, lease_s: float) -> bool:
        with self._write() as conn:
            cur = conn.execute("UPDATE jobs SET lease_until = ? WHERE tenant = ? AND id = ? AND worker = ? "
                               "AND state IN (?, ?)", (time.time() + lease_s, tenant, job_id, worker, *RUNNING))
        return cur.rowcount > 0

    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool:
        """Set job fields (state, done, total, error, …); False if the job is gone."""
        fields = job_update(fields)
        sets = ", ".join(f"{name} = ?" for name in fields)
        with self._write() as conn:
            cur = conn.execute(f"UPDATE jobs SET {sets} WHERE tenant = ? AND id = ?",
                               [*fields.values(), tenant, job_id])
        return cur.rowcount > 0

    def get_job(self, tenant: str, job_id: str) -> JobInfo | None:
        rows = self._read(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE tenant = ? AND id = ?", (tenant, job_id))
        return _job(rows[0]) if rows else None

    def list_jobs(self, tenant: str, *, collection: str | None = None, state: str | None = None,
                  doc_id: str | None = None, latest_per_document: bool = False, limit: int = 1000,
                  all_owners: bool = True, owner: str | None = None) -> list[JobInfo]:
        """A tenant's jobs, newest first; optionally only the newest per document.
        With ``all_owners=False``, only the jobs ``owner`` may see, as for documents:
        shared ones, plus its own (filtered before ``limit``)."""
        where, params = job_list_conditions(tenant, "?", collection=collection, state=state, doc_id=doc_id,
                                            all_owners=all_owners, owner=owner)
        sql = f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {where}"
        if latest_per_document:
            sql = (f"SELECT {_JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY doc_id "
                   f"ORDER BY created DESC, rowid DESC) AS n FROM jobs WHERE {where}) WHERE n = 1")
        return [_job(r) for r in self._read(f"{sql} ORDER BY created DESC, id LIMIT ?", [*params, limit])]

    def requeue_job(self, tenant: str, job_id: str) -> bool:
        """Put a finished job back in the queue (retry / re-ingest)."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE jobs SET state = 'queued', tries = 0, done = 0, error = NULL, not_before = 0, "
                "finished = NULL, worker = NULL, lease_until = NULL, updated = ? "
                "WHERE tenant = ? AND id = ? AND state IN ('indexed', 'failed')",
                (time.time(), tenant, job_id))
        return cur.rowcount > 0

    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int:
        sql, params = "DELETE FROM jobs WHERE tenant = ? AND collection = ?", [tenant, collection]
        if doc_id is not None:
            sql, params = sql + " AND doc_id = ?", [*params, doc_id]
        with self._write() as conn:
            return conn.execute(sql, params).rowcount

    def job_counts(self, tenant: str | None = None) -> dict[str, int]:
        """Jobs by state (one tenant's, or all for metrics)."""
        if tenant is None:
            rows = self._read("SELECT state, count(*) FROM jobs GROUP BY state")
        else:
            rows = self._read("SELECT state, count(*) FROM jobs WHERE tenant = ? GROUP BY state", (tenant,))
        counts: dict[str, int] = {state: 0 for state in JOB_STATES}
        counts.update(dict(rows))
        return counts

    # -- moving ----------------------------------------------------------------
    def export_keys(self, tenant: str) -> list[StoredKey]:
        rows = self._read(f"SELECT {_KEY_COLUMNS}, hash, revoked FROM api_keys WHERE tenant = ? ORDER BY created",
                          (tenant,))
        n = len(KEY_COLUMNS)
        return [StoredKey(info=_key(r), hash=r[n], revoked=r[n + 1]) for r in rows]

    def import_key(self, key: StoredKey) -> bool:
        i = key.info
        with self._write() as conn:
            cur = conn.execute("INSERT OR IGNORE INTO api_keys (id, tenant, label, prefix, hash, created, last_used, "
                               "revoked, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (i.id, i.tenant, i.label, i.prefix, key.hash, i.created, i.last_used, key.revoked,
                                i.owner))
        return cur.rowcount > 0

    def export_jobs(self, tenant: str) -> list[JobInfo]:
        return [_job(r) for r in self._read(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE tenant = ? ORDER BY created",
                                            (tenant,))]

    def import_job(self, job: JobInfo) -> bool:
        marks = ",".join("?" * len(JOB_COLUMNS))
        with self._write() as conn:
            cur = conn.execute(f"INSERT OR IGNORE INTO jobs ({_JOB_COLUMNS}) VALUES ({marks})",
                               [getattr(job, c) for c in JOB_COLUMNS])
        return cur.rowcount > 0

    # -- what replicas share (on one file: processes of one machine) --------------------
    def draw_tokens(self, tenant: str, bucket: str, amount: float, *, capacity: float, rate: float,
                    debt: bool = False) -> float:
        with self._write() as conn:
            row = conn.execute(_DRAW, {"t": tenant, "b": bucket, "amt": float(amount), "cap": float(capacity),
                                       "rate": float(rate), "debt": int(debt), "now": time.time()}).fetchone()
        return token_wait(row[0], bool(row[1]), amount, rate, debt)

    def put_upload(self, scope: Scope, doc_id: str, name: str, parts: Iterable[bytes]) -> int:
        total = 0
        with self._write() as conn:
            conn.execute("DELETE FROM kept_uploads WHERE tenant = ? AND collection = ? AND doc_id = ? AND name = ?",
                         (scope.tenant, scope.collection, doc_id, name))
            for n, data in enumerate(parts):
                conn.execute("INSERT INTO kept_uploads (tenant, collection, owner, doc_id, name, part, data) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (scope.tenant, scope.collection, scope.owner, doc_id, name, n, data))
                total += len(data)
        return total

    def read_upload(self, scope: Scope, doc_id: str, name: str) -> Iterator[bytes] | None:
        where = "tenant = ? AND collection = ? AND owner IS ? AND doc_id = ? AND name = ?"
        params = (scope.tenant, scope.collection, scope.owner, doc_id, name)
        if not self._read(f"SELECT 1 FROM kept_uploads WHERE {where} LIMIT 1", params):
            return None

        def parts() -> Iterator[bytes]:
            last = -1
            while True:  # part by part: a file is never held whole in memory
                rows = self._read(f"SELECT part, data FROM kept_uploads WHERE {where} AND part > ? "
                                  "ORDER BY part LIMIT 1", (*params, last))
                if not rows:
                    return
                last = rows[0][0]
                yield bytes(rows[0][1])

        return parts()

    def delete_uploads(self, tenant: str, *, collection: str, doc_id: str | None = None,
                       name: str | None = None) -> int:
        sql, params = "DELETE FROM kept_uploads WHERE tenant = ? AND collection = ?", [tenant, collection]
        if doc_id is not None:
            sql, params = sql + " AND doc_id = ?", [*params, doc_id]
        if name is not None:
            sql, params = sql + " AND name = ?", [*params, name]
        with self._write() as conn:
            return conn.execute(sql, params).rowcount


# As PostgreSQL's (postgres/admin.py), with this machine's clock: the bucket's level after
# refilling, the draw taken when there is enough (or debt is allowed).
_LEVEL = "min(:cap, b.tokens + max(0, :now - b.updated) * :rate)"
_DRAW = (
    "INSERT INTO rate_buckets AS b (tenant, bucket, tokens, updated, took) "
    "VALUES (:t, :b, :cap - CASE WHEN :debt OR :cap >= :amt THEN :amt ELSE 0 END, :now, :debt OR :cap >= :amt) "
    "ON CONFLICT (tenant, bucket) DO UPDATE SET "
    f"took = :debt OR {_LEVEL} >= :amt, "
    f"tokens = {_LEVEL} - CASE WHEN :debt OR {_LEVEL} >= :amt THEN :amt ELSE 0 END, "
    "updated = max(b.updated, :now) "
    "RETURNING tokens, took")
