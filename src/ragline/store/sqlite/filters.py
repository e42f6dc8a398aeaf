"""A parsed ``Filter`` → a parameterised SQLite condition over documents ``d`` and
chunks ``c``. Semantics are defined in ``filters``; user metadata is JSON text."""

from __future__ import annotations

from typing import Any

from ..filters import Condition, Filter
from ..sql.common import COMPARISONS, compile_conditions

_NUMBER = "json_type(d.metadata, ?) IN ('integer', 'real')"


def compile_sqlite(conditions: Filter) -> tuple[str, list[Any]]:
    """``(" AND …", params)``; empty when there is no condition."""
    return compile_conditions(conditions, "?", _meta)


def _meta(cond: Condition) -> tuple[str, list[Any]]:
    path = '$."' + cond.key + '"'
    if cond.op == "in":
        parts, params = zip(*(_equals(path, v) for v in cond.value))
        return "(" + " OR ".join(parts) + ")", [p for group in params for p in group]
    if cond.op in COMPARISONS:
        return f"({_NUMBER} AND json_extract(d.metadata, ?) {COMPARISONS[cond.op]} ?)", [path, path, cond.value]
    sql, params = _equals(path, cond.value)
    if cond.op == "ne":
        return f"NOT coalesce({sql}, 0)", params
    return sql, params


def _equals(path: str, value: Any) -> tuple[str, list[Any]]:
    if value is None:
        return "coalesce(json_type(d.metadata, ?), 'null') = 'null'", [path]
    if isinstance(value, bool):
        return "json_type(d.metadata, ?) = ?", [path, "true" if value else "false"]
    if isinstance(value, int | float):
        return f"({_NUMBER} AND json_extract(d.metadata, ?) = ?)", [path, path, value]
    return "(json_type(d.metadata, ?) = 'text' AND json_extract(d.metadata, ?) = ?)", [path, path, value]
