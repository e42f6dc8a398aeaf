"""``Usage`` on the embedded store: the shared SQL (``usage_sql``) over
``SQLiteStore``'s write transaction and reads."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ..sql.usage import UsageTables


class SQLiteUsage(UsageTables):
    """A mixin for ``SQLiteStore``."""

    _mark = "?"
    _greatest = "max"

    def _usage_write(self, tenant: str) -> AbstractContextManager[Any]:
        return self._write()  # type: ignore[attr-defined]

    def _usage_read(self, tenant: str, sql: str, params: list[Any]) -> list[tuple]:
        return self._read(sql, params)  # type: ignore[attr-defined]
