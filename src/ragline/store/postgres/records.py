"""``Records`` on PostgreSQL: the shared ``transactions`` SQL (``records_sql``) in
tenant-scoped transactions, so row-level security (migration 6) is a second wall."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ..sql.records import RecordsTables


class PostgresRecords(RecordsTables):
    """A mixin for ``PostgresStore`` (its ``_tx``: one pooled connection per transaction)."""

    _mark = "%s"

    def _records_write(self, tenant: str) -> AbstractContextManager[Any]:
        return self._tx(tenant)  # type: ignore[attr-defined]

    def _records_read(self, tenant: str, sql: str, params: list[Any]) -> list[tuple]:
        with self._tx(tenant) as cur:  # type: ignore[attr-defined]
            return cur.execute(sql, params).fetchall()
