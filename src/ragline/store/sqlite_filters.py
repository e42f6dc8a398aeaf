"""A parsed ``Filter`` → a parameterised SQLite condition over documents ``d`` and
chunks ``c``. Semantics are defined in ``filters``; user metadata is JSON text."""

from __future__ import annotations

from typing import Any

from .filters import Condition, Filter

_COLUMNS = {
    "doc_id": "d.id", "source": "d.source", "title": "d.title", "media_type": "d.media_type",
    "page": "c.page", "section": "c.section", "owner": "d.owner",
}
_CMP = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_NUMBER = "json_type(d.metadata, ?) IN ('integer', 'real')"


def compile_sqlite(conditions: Filter) -> tuple[str, list[Any]]:
    """``(" AND …", params)``; empty when there is no condition."""
    if not conditions:
        return "", []
    clauses: list[str] = []
    params: list[Any] = []
    for cond in conditions:
        sql, values = _field(cond) if cond.field else _meta(cond)
        clauses.append(sql)
        params += values
    return " AND " + " AND ".join(clauses), params


def _field(cond: Condition) -> tuple[str, list[Any]]:
    column = _COLUMNS[cond.key]
    if cond.op == "in":
        return f"{column} IN ({','.join('?' * len(cond.value))})", list(cond.value)
    if cond.value is None:
        return (f"{column} IS NULL", []) if cond.op == "eq" else (f"{column} IS NOT NULL", [])
    if cond.op == "eq":
        return f"{column} = ?", [cond.value]
    if cond.op == "ne":
        return f"{column} IS NOT ?", [cond.value]
    return f"{column} {_CMP[cond.op]} ?", [cond.value]


def _meta(cond: Condition) -> tuple[str, list[Any]]:
    path = '$."' + cond.key + '"'
    if cond.op == "in":
        parts, params = zip(*(_equals(path, v) for v in cond.value))
        return "(" + " OR ".join(parts) + ")", [p for group in params for p in group]
    if cond.op in _CMP:
        return f"({_NUMBER} AND json_extract(d.metadata, ?) {_CMP[cond.op]} ?)", [path, path, cond.value]
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
