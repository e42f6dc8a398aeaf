"""Metadata filters → a parameterised SQL condition over documents ``d`` and chunks ``c``."""

from __future__ import annotations

import re
from typing import Any

from ..errors import ConfigError

_COLUMNS = {
    "doc_id": "d.id", "source": "d.source", "title": "d.title", "media_type": "d.media_type",
    "page": "c.page", "section": "c.section", "owner": "d.owner",
}
_OPS = {"eq": "=", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_KEY = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")


_SCALARS = (str, int, float, bool)


def _check(key: str, value: Any) -> Any:
    if value is not None and not isinstance(value, _SCALARS):
        raise ConfigError(f"filter {key!r}: values must be strings, numbers, booleans or null, got {value!r}")
    return value


def filter_sql(filters: dict[str, Any] | None) -> tuple[str, list[Any]]:
    """Return ``(" AND ...", params)``; empty when there are no filters."""
    if not filters:
        return "", []
    if not isinstance(filters, dict):
        raise ConfigError(f"filters must be an object of key → condition, got {filters!r}")
    clauses: list[str] = []
    params: list[Any] = []
    for key, value in filters.items():
        if not _KEY.match(key):
            raise ConfigError(f"invalid filter key {key!r}: use letters, digits, '_', '-', '.'")
        column = _COLUMNS.get(key)
        if column is None:
            column = "json_extract(d.metadata, ?)"
            path = [f'$."{key}"']
        else:
            path = []
        if isinstance(value, dict):
            for op, operand in value.items():
                if op == "in":
                    if not isinstance(operand, list) or not operand:
                        raise ConfigError(f"filter {key}.in needs a non-empty list, got {operand!r}")
                    clauses.append(f"{column} IN ({','.join('?' * len(operand))})")
                    params += path + [_check(key, v) for v in operand]
                elif op in _OPS:
                    clauses.append(f"{column} {_OPS[op]} ?")
                    params += path + [_check(key, operand)]
                else:
                    raise ConfigError(f"unknown filter operator {op!r} for {key!r}; use one of: {', '.join([*_OPS, 'in'])}")
        elif isinstance(value, list):
            if not value:
                raise ConfigError(f"filter {key!r} has an empty list")
            clauses.append(f"{column} IN ({','.join('?' * len(value))})")
            params += path + [_check(key, v) for v in value]
        elif value is None:
            clauses.append(f"{column} IS NULL")
            params += path
        else:
            clauses.append(f"{column} = ?")
            params += path + [_check(key, value)]
    return " AND " + " AND ".join(clauses), params
