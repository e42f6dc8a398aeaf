"""``Admin`` on PostgreSQL: tenants' API keys and the job queue several processes share.

A mixin for ``PostgresStore`` (it uses the store's ``_tx``). Behaviour mirrors
``sqlite.admin``; what differs is how concurrency is made safe without SQLite's
single writer:

- ``claim_job`` takes candidates with ``FOR UPDATE SKIP LOCKED`` (claimers never
  wait on each other's rows) and then a transaction-level advisory lock on the
  job's document, so two jobs of one document never run at once even when two
  claimers pick them in the same instant; ``create_job`` takes the same lock, so
  reusing a queued job cannot race a claim of it.
- Times are this process's ``time.time()``, as in SQLite, so leases compare with
  the ``not_before`` values callers write.
- Fair claims order candidates as SQLite does (fewest running, least recently
  served, oldest job); that order is best effort between racing claimers, but a
  tenant's cap is exact: the claim of a capped tenant takes the tenant's advisory
  lock and counts its running jobs again in a fresh snapshot.
"""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from ...models import Scope
from ..sql.common import job_list_conditions, job_update, one_row
from ..types import (
    FAILED,
    JOB_COLUMNS,
    JOB_STATES,
    KEY_COLUMNS,
    RUNNING,
    UNCAPPED,
    ApiKeyInfo,
    JobInfo,
    StoredKey,
    caps_params,
    hash_key,
    new_api_key,
    token_wait,
)
from .conn import PostgresDatabase

_JOB_COLUMNS = ", ".join(JOB_COLUMNS)
_KEY_COLUMNS = ", ".join(KEY_COLUMNS)
_CLAIM_ATTEMPTS = 32  # candidates skipped (document busy) before giving up for this call
_RUNNABLE = ("((q.state = 'queued' AND q.not_before <= %s) "
             "OR (q.state IN ('parsing', 'embedding') AND coalesce(q.lease_until, 0) < %s))")
_SIBLING_RUNNING = ("EXISTS (SELECT 1 FROM jobs r WHERE r.tenant = {t} AND r.doc_id = {d} AND r.id <> {i} "
                    "AND r.state IN ('parsing', 'embedding') AND r.lease_until >= %s)")
_RUNNING_COUNT = ("SELECT count(*) FROM jobs r WHERE r.tenant = {t} AND r.state IN ('parsing', 'embedding') "
                  "AND r.lease_until >= %s")
# Per tenant with a runnable job: running jobs, latest claim, cap (JSON overrides, else
# the default). Materialized, so the FOR UPDATE below locks job rows only.
_CANDIDATE = (
    "WITH load AS MATERIALIZED (SELECT t.tenant, "
    f"({_RUNNING_COUNT.format(t='t.tenant')}) AS running, "
    "(SELECT coalesce(max(s.started), 0) FROM jobs s WHERE s.tenant = t.tenant) AS served, "
    "coalesce((SELECT c.value::bigint FROM jsonb_each_text(%s::jsonb) c WHERE c.key = t.tenant), %s) AS cap "
    f"FROM (SELECT DISTINCT q.tenant FROM jobs q WHERE {_RUNNABLE}) t) "
    f"SELECT q.id, q.tenant, q.doc_id, l.cap FROM jobs q JOIN load l ON l.tenant = q.tenant "
    f"WHERE {_RUNNABLE} AND q.id <> ALL(%s) AND q.tenant <> ALL(%s) AND l.running < l.cap "
    f"AND NOT {_SIBLING_RUNNING.format(t='q.tenant', d='q.doc_id', i='q.id')} "
    "ORDER BY l.running, l.served, q.not_before, q.created, q.seq LIMIT 1 FOR UPDATE OF q SKIP LOCKED")
_SIBLING_CHECK = "SELECT " + _SIBLING_RUNNING.format(t="%s", d="%s", i="%s")


def _job(row: tuple) -> JobInfo:
    return JobInfo(*row)


def _key(row: tuple) -> ApiKeyInfo:
    return ApiKeyInfo(*row[:len(KEY_COLUMNS)])


def document_lock(tenant: str, doc_id: str) -> int:
    """The advisory lock key of one document's jobs (a signed 64-bit hash)."""
    digest = hashlib.sha256(f"ragline-job\x1f{tenant}\x1f{doc_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def tenant_lock(tenant: str) -> int:
    """The advisory lock key of one tenant's claims (for its running-jobs cap)."""
    digest = hashlib.sha256(f"ragline-tenant-claims\x1f{tenant}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class AdminTables:
    """API keys and ingestion jobs in PostgreSQL: the ``Admin`` role, which
    ``PostgresStore`` (the catalog of the same database) also plays, over its ``db``."""

    db: PostgresDatabase

    def _tx(self, tenant: str | None) -> AbstractContextManager[psycopg.Cursor]:
        """One transaction scoped to ``tenant`` (``PostgresDatabase.tx``), for these tables
        and the catalog's."""
        return self.db.tx(tenant)

    # -- API keys ------------------------------------------------------------
    def create_api_key(self, tenant: str, label: str | None = None,
                       owner: str | None = None) -> tuple[ApiKeyInfo, str]:
        key_id, secret = new_api_key()
        now = time.time()
        with self._tx(tenant) as cur:
            cur.execute("INSERT INTO api_keys (id, tenant, label, prefix, hash, created, owner) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        (key_id, tenant, label, secret[:10], hash_key(secret), now, owner))
        return ApiKeyInfo(id=key_id, tenant=tenant, label=label, prefix=secret[:10], created=now, owner=owner), secret

    def verify_api_key(self, secret: str) -> ApiKeyInfo | None:
        """Looked up by hash across tenants (the bypass: the key names the tenant); the
        hash is compared again in constant time so the index lookup is the only branch.
        Read-only (see ``touch_api_keys``)."""
        digest = hash_key(secret)
        with self._tx(None) as cur:
            row = cur.execute(f"SELECT {_KEY_COLUMNS}, hash FROM api_keys WHERE hash = %s AND revoked IS NULL",
                              (digest,)).fetchone()
        if row is None or not hmac.compare_digest(row[len(KEY_COLUMNS)], digest):
            return None
        return _key(row)

    def touch_api_keys(self, uses: Mapping[str, float]) -> None:
        if not uses:
            return
        with self._tx(None) as cur:  # keys of several tenants: the operator bypass
            cur.executemany("UPDATE api_keys SET last_used = greatest(coalesce(last_used, 0), %s) WHERE id = %s",
                            [(when, key_id) for key_id, when in sorted(uses.items())])  # sorted: no lock cycles

    def list_api_keys(self, tenant: str) -> list[ApiKeyInfo]:
        with self._tx(tenant) as cur:
            rows = cur.execute(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant = %s AND revoked IS NULL "
                               "ORDER BY created, id", (tenant,)).fetchall()
        return [_key(r) for r in rows]

    def revoke_api_key(self, tenant: str, key_id: str) -> bool:
        with self._tx(tenant) as cur:
            cur.execute("UPDATE api_keys SET revoked = %s WHERE tenant = %s AND id = %s AND revoked IS NULL",
                        (time.time(), tenant, key_id))
            return cur.rowcount > 0

    # -- jobs ----------------------------------------------------------------
    def create_job(self, scope: Scope, *, doc_id: str, source: str, kind: str, path: str) -> JobInfo:
        now = time.time()
        with self._tx(scope.tenant) as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (document_lock(scope.tenant, doc_id),))
            row = cur.execute(
                "SELECT id FROM jobs WHERE tenant = %s AND doc_id = %s AND state = 'queued' "
                "ORDER BY created DESC, seq DESC LIMIT 1", (scope.tenant, doc_id)).fetchone()
            if row is not None:
                job_id = row[0]
                cur.execute("UPDATE jobs SET path = %s, kind = %s, source = %s, updated = %s, tries = 0, "
                            "error = NULL, not_before = 0 WHERE id = %s", (path, kind, source, now, job_id))
            else:
                job_id = uuid.uuid4().hex
                cur.execute(
                    "INSERT INTO jobs (id, tenant, collection, owner, doc_id, source, kind, path, created, updated) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (job_id, scope.tenant, scope.collection, scope.owner, doc_id, source, kind, path, now, now))
            return _job(one_row(cur, f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = %s", (job_id,)))

    def claim_job(self, worker: str, lease_s: float, max_tries: int, *, max_running: int | None = None,
                  max_running_for: Mapping[str, int | None] | None = None) -> JobInfo | None:
        now = time.time()
        caps, cap = caps_params(max_running, max_running_for)
        with self._tx(None) as cur:
            # A job whose worker died too often fails here instead of crash-looping.
            cur.execute(
                "UPDATE jobs SET state = %s, error = %s, finished = %s, updated = %s, worker = NULL, "
                "lease_until = NULL WHERE state IN (%s, %s) AND coalesce(lease_until, 0) < %s AND tries >= %s",
                (FAILED, f"the worker running this job stopped {max_tries} times; not retried", now, now,
                 *RUNNING, now, max_tries))
            skipped: list[str] = []
            full: list[str] = []  # tenants found at their cap in a fresh look
            for _ in range(_CLAIM_ATTEMPTS):
                row = cur.execute(_CANDIDATE, (now, caps, cap, now, now, now, now, skipped, full, now)).fetchone()
                if row is None:
                    return None
                job_id, tenant, doc_id, tenant_cap = row
                # The document lock, then a fresh look (new snapshot): a claim of a sibling
                # that committed after this statement's snapshot is seen now.
                locked = one_row(cur, "SELECT pg_try_advisory_xact_lock(%s)", (document_lock(tenant, doc_id),))[0]
                if not locked or one_row(cur, _SIBLING_CHECK, (tenant, doc_id, job_id, now))[0]:
                    skipped.append(job_id)
                    continue
                if tenant_cap < UNCAPPED:
                    # Claimers of one capped tenant take turns (held to commit, never while waiting
                    # on anything else), and count again in a snapshot that sees the last claim.
                    cur.execute("SELECT pg_advisory_xact_lock(%s)", (tenant_lock(tenant),))
                    if one_row(cur, _RUNNING_COUNT.format(t="%s"), (tenant, now))[0] >= tenant_cap:
                        full.append(tenant)
                        continue
                claimed = one_row(  # the candidate row is locked (FOR UPDATE) by this transaction
                    cur, "UPDATE jobs SET state = 'parsing', tries = tries + 1, started = %s, updated = %s, done = 0, "
                    f"error = NULL, worker = %s, lease_until = %s WHERE id = %s RETURNING {_JOB_COLUMNS}",
                    (now, now, worker, now + lease_s, job_id))
                return _job(claimed)
        return None

    def renew_lease(self, tenant: str, job_id: str, worker: str, lease_s: float) -> bool:
        with self._tx(tenant) as cur:
            cur.execute("UPDATE jobs SET lease_until = %s WHERE tenant = %s AND id = %s AND worker = %s "
                        "AND state IN (%s, %s)", (time.time() + lease_s, tenant, job_id, worker, *RUNNING))
            return cur.rowcount > 0

    def update_job(self, tenant: str, job_id: str, **fields: Any) -> bool:
        fields = job_update(fields)
        sets = ", ".join(f"{name} = %s" for name in fields)  # names come from JOB_UPDATABLE only
        with self._tx(tenant) as cur:
            cur.execute(f"UPDATE jobs SET {sets} WHERE tenant = %s AND id = %s", [*fields.values(), tenant, job_id])
            return cur.rowcount > 0

    def get_job(self, tenant: str, job_id: str) -> JobInfo | None:
        with self._tx(tenant) as cur:
            row = cur.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE tenant = %s AND id = %s",
                              (tenant, job_id)).fetchone()
        return _job(row) if row else None

    def list_jobs(self, tenant: str, *, collection: str | None = None, state: str | None = None,
                  doc_id: str | None = None, latest_per_document: bool = False, limit: int = 1000,
                  all_owners: bool = True, owner: str | None = None) -> list[JobInfo]:
        where, params = job_list_conditions(tenant, "%s", collection=collection, state=state, doc_id=doc_id,
                                            all_owners=all_owners, owner=owner)
        sql = f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {where}"
        if latest_per_document:
            sql = (f"SELECT {_JOB_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY doc_id "
                   f"ORDER BY created DESC, seq DESC) AS n FROM jobs WHERE {where}) j WHERE n = 1")
        with self._tx(tenant) as cur:
            rows = cur.execute(f"{sql} ORDER BY created DESC, id LIMIT %s", [*params, limit]).fetchall()
        return [_job(r) for r in rows]

    def requeue_job(self, tenant: str, job_id: str) -> bool:
        with self._tx(tenant) as cur:
            cur.execute(
                "UPDATE jobs SET state = 'queued', tries = 0, done = 0, error = NULL, not_before = 0, "
                "finished = NULL, worker = NULL, lease_until = NULL, updated = %s "
                "WHERE tenant = %s AND id = %s AND state IN ('indexed', 'failed')", (time.time(), tenant, job_id))
            return cur.rowcount > 0

    def delete_jobs(self, tenant: str, *, collection: str, doc_id: str | None = None) -> int:
        sql, params = "DELETE FROM jobs WHERE tenant = %s AND collection = %s", [tenant, collection]
        if doc_id is not None:
            sql, params = sql + " AND doc_id = %s", [*params, doc_id]
        with self._tx(tenant) as cur:
            cur.execute(sql, params)
            return cur.rowcount

    def job_counts(self, tenant: str | None = None) -> dict[str, int]:
        with self._tx(tenant) as cur:
            if tenant is None:
                rows = cur.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall()
            else:
                rows = cur.execute("SELECT state, count(*) FROM jobs WHERE tenant = %s GROUP BY state",
                                   (tenant,)).fetchall()
        counts: dict[str, int] = {state: 0 for state in JOB_STATES}
        counts.update(dict(rows))
        return counts

    # -- moving --------------------------------------------------------------
    def export_keys(self, tenant: str) -> list[StoredKey]:
        with self._tx(tenant) as cur:
            rows = cur.execute(f"SELECT {_KEY_COLUMNS}, hash, revoked FROM api_keys WHERE tenant = %s "
                               "ORDER BY created, id", (tenant,)).fetchall()
        n = len(KEY_COLUMNS)
        return [StoredKey(info=_key(r), hash=r[n], revoked=r[n + 1]) for r in rows]

    def import_key(self, key: StoredKey) -> bool:
        i = key.info
        with self._tx(i.tenant) as cur:
            cur.execute("INSERT INTO api_keys (id, tenant, label, prefix, hash, created, last_used, revoked, owner) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        (i.id, i.tenant, i.label, i.prefix, key.hash, i.created, i.last_used, key.revoked, i.owner))
            return cur.rowcount > 0

    def export_jobs(self, tenant: str) -> list[JobInfo]:
        with self._tx(tenant) as cur:
            rows = cur.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE tenant = %s ORDER BY created, seq",
                               (tenant,)).fetchall()
        return [_job(r) for r in rows]

    def import_job(self, job: JobInfo) -> bool:
        marks = ", ".join(["%s"] * len(JOB_COLUMNS))
        with self._tx(job.tenant) as cur:
            cur.execute(f"INSERT INTO jobs ({_JOB_COLUMNS}) VALUES ({marks}) ON CONFLICT DO NOTHING",
                        [getattr(job, c) for c in JOB_COLUMNS])
            return cur.rowcount > 0

    # -- what replicas share -----------------------------------------------------
    def draw_tokens(self, tenant: str, bucket: str, amount: float, *, capacity: float, rate: float,
                    debt: bool = False) -> float:
        """One statement, timed by the database's clock (replicas' clocks may differ):
        the refill and the take happen together in the row's UPSERT."""
        row = self.db.one_trip(tenant, _DRAW, {"t": tenant, "b": bucket, "amt": float(amount),
                                               "cap": float(capacity), "rate": float(rate), "debt": debt})
        assert row is not None  # an UPSERT … RETURNING always returns its row
        return token_wait(row[0], bool(row[1]), amount, rate, debt)

    def put_upload(self, scope: Scope, doc_id: str, name: str, parts: Iterable[bytes]) -> int:
        total = 0
        with self._tx(scope.tenant) as cur:
            cur.execute("DELETE FROM kept_uploads WHERE tenant = %s AND collection = %s AND doc_id = %s "
                        "AND name = %s", (scope.tenant, scope.collection, doc_id, name))
            for n, data in enumerate(parts):
                cur.execute("INSERT INTO kept_uploads (tenant, collection, owner, doc_id, name, part, data) "
                            "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                            (scope.tenant, scope.collection, scope.owner, doc_id, name, n, data))
                total += len(data)
        return total

    def read_upload(self, scope: Scope, doc_id: str, name: str) -> Iterator[bytes] | None:
        where = ("tenant = %s AND collection = %s AND owner IS NOT DISTINCT FROM %s AND doc_id = %s AND name = %s")
        params = (scope.tenant, scope.collection, scope.owner, doc_id, name)
        with self._tx(scope.tenant) as cur:
            if cur.execute(f"SELECT 1 FROM kept_uploads WHERE {where} LIMIT 1", params).fetchone() is None:
                return None

        def parts() -> Iterator[bytes]:
            with self._tx(scope.tenant) as cur:  # one snapshot: a re-upload meanwhile is not mixed in
                for (data,) in cur.stream(f"SELECT data FROM kept_uploads WHERE {where} ORDER BY part", params):
                    yield bytes(data)

        return parts()

    def delete_uploads(self, tenant: str, *, collection: str, doc_id: str | None = None,
                       name: str | None = None) -> int:
        sql, params = "DELETE FROM kept_uploads WHERE tenant = %s AND collection = %s", [tenant, collection]
        if doc_id is not None:
            sql, params = sql + " AND doc_id = %s", [*params, doc_id]
        if name is not None:
            sql, params = sql + " AND name = %s", [*params, name]
        with self._tx(tenant) as cur:
            cur.execute(sql, params)
            return cur.rowcount


# The bucket's level after refilling for the time since its last draw (never above capacity):
# the draw is taken when there is enough (or debt is allowed), and the row says whether it was.
_LEVEL = ("least(%(cap)s, b.tokens + greatest(0, extract(epoch from statement_timestamp())::float8 - b.updated) "
          "* %(rate)s)")
_DRAW = (
    "INSERT INTO rate_buckets AS b (tenant, bucket, tokens, updated, took) "
    "VALUES (%(t)s, %(b)s, %(cap)s - CASE WHEN %(debt)s OR %(cap)s >= %(amt)s THEN %(amt)s ELSE 0 END, "
    "extract(epoch from statement_timestamp())::float8, %(debt)s OR %(cap)s >= %(amt)s) "
    "ON CONFLICT (tenant, bucket) DO UPDATE SET "
    f"took = %(debt)s OR {_LEVEL} >= %(amt)s, "
    f"tokens = {_LEVEL} - CASE WHEN %(debt)s OR {_LEVEL} >= %(amt)s THEN %(amt)s ELSE 0 END, "
    "updated = greatest(b.updated, extract(epoch from statement_timestamp())::float8) "
    "RETURNING tokens, took")
