"""``Records`` on the embedded store: the shared ``transactions`` SQL (``records_sql``)
over ``SQLiteStore``'s write transaction and reads."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ..sql.records import RecordsTables


class SQLiteRecords(RecordsTables):
    """A mixin for ``SQLiteStore`` (its ``_write``/``_read``: one file, one writer)."""

    _mark = "?"

    def _records_write(self, tenant: str) -> AbstractContextManager[Any]:
        return self._write()  # type: ignore[attr-defined]

    def _records_read(self, tenant: str, sql: str, params: list[Any]) -> list[tuple]:
        return self._read(sql, params)  # type: ignore[attr-defined]
