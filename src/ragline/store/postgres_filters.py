"""A parsed ``Filter`` → a parameterised PostgreSQL condition over documents ``d``
and chunks ``c``. Semantics are defined in ``filters`` and match ``sqlite_filters``;
user metadata is ``jsonb``.

jsonb makes typed equality cheap: ``'2020'::jsonb = '2020.0'::jsonb`` (numbers
compare by value) but never equals ``'"2020"'`` or ``'true'``, which is exactly
the grammar's rule. Ranges cast to ``numeric`` only inside a ``CASE`` that has
checked the value is a number, so a string value never raises a cast error.
"""

from __future__ import annotations

import json
from typing import Any

from .filters import Condition, Filter

_COLUMNS = {
    "doc_id": "d.id", "source": "d.source", "title": "d.title", "media_type": "d.media_type",
    "page": "c.page", "section": "c.section", "owner": "d.owner",
}
_CMP = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_VALUE = "(d.metadata -> %s::text)"


def compile_postgres(conditions: Filter) -> tuple[str, list[Any]]:
    """``(" AND …", params)`` with ``%s`` placeholders; empty when there is no condition."""
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
        return f"{column} IN ({','.join(['%s'] * len(cond.value))})", list(cond.value)
    if cond.value is None:
        return (f"{column} IS NULL", []) if cond.op == "eq" else (f"{column} IS NOT NULL", [])
    if cond.op == "eq":
        return f"{column} = %s", [cond.value]
    if cond.op == "ne":
        return f"{column} IS DISTINCT FROM %s", [cond.value]
    return f"{column} {_CMP[cond.op]} %s", [cond.value]


def _meta(cond: Condition) -> tuple[str, list[Any]]:
    if cond.op == "in":
        return f"{_VALUE} = ANY(%s::jsonb[])", [cond.key, [_json(v) for v in cond.value]]
    if cond.op in _CMP:
        return (f"(CASE WHEN jsonb_typeof({_VALUE}) = 'number' THEN {_VALUE}::numeric {_CMP[cond.op]} %s::numeric "
                f"ELSE false END)", [cond.key, cond.key, cond.value])
    sql, params = _equals(cond.key, cond.value)
    if cond.op == "ne":
        return f"NOT coalesce({sql}, false)", params
    return sql, params


def _equals(key: str, value: Any) -> tuple[str, list[Any]]:
    if value is None:
        # Missing key (SQL NULL) and JSON null both count as null.
        return f"coalesce(jsonb_typeof({_VALUE}), 'null') = 'null'", [key]
    return f"{_VALUE} = %s::jsonb", [key, _json(value)]


def _json(value: Any) -> str:
    return json.dumps(value)
