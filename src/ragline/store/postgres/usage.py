"""``Usage`` on PostgreSQL: the shared SQL (``usage_sql``) in tenant-scoped
transactions, so row-level security (migration 8, ``postgres_schema``) is a second wall."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ..sql.usage import UsageTables


class PostgresUsage(UsageTables):
    """A mixin for ``PostgresStore`` (its ``_tx``: one pooled connection per transaction)."""

    _mark = "%s"
    _greatest = "greatest"

    def _usage_write(self, tenant: str) -> AbstractContextManager[Any]:
        return self._tx(tenant)  # type: ignore[attr-defined]

    def _usage_read(self, tenant: str, sql: str, params: list[Any]) -> list[tuple]:
        with self._tx(tenant) as cur:  # type: ignore[attr-defined]
            return cur.execute(sql, params).fetchall()
