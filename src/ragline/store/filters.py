"""Metadata filters: one neutral parse-and-validate step; each backend compiles
the result (``sqlite.filters``, ``postgres.filters``, ``qdrant.filters``).

The grammar, as users write it (JSON)::

    {"source": "a.pdf", "page": {"gte": 2}, "year": [2020, 2021], "draft": null}

- A key is a document field (``FIELDS``) or, for any other name, a key of the
  document's user metadata.
- A value is a scalar (equality), a list (any of), ``null`` (missing or null), or an
  object of operators: ``eq ne gt gte lt lte in``.

Semantics every backend implements identically (the contract suite checks them):

- Equality is typed: ``1`` matches the number 1 (or 1.0), never the string "1" or
  ``true``; ``true`` matches only booleans.
- ``ne`` matches every document whose value is not that one, including those
  that lack the key; ``{"ne": null}`` means the key is present and not null.
- ``gt gte lt lte`` take a number and match only numeric values.
- Conditions on several keys, and several operators on one key, all must hold.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

FIELDS: dict[str, type] = {
    "doc_id": str, "source": str, "title": str, "media_type": str, "section": str, "owner": str, "page": int,
}
"""Document and chunk fields a filter can name, with the type their values take."""

OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in")
RANGE_OPS = ("gt", "gte", "lt", "lte")
MAX_CONDITIONS = 64
MAX_IN_VALUES = 1000
_INT64 = 2**63 - 1
_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]{0,99}$")

Scalar = str | int | float | bool | None
Filters = dict[str, Any]
"""Filters as users write them (the grammar above), before ``parse_filters``."""


@dataclass(frozen=True)
class Condition:
    """One validated condition. ``field`` is true for a document field (``FIELDS``),
    false for a user-metadata key. ``value`` is a scalar, or a tuple for ``in``."""

    key: str
    field: bool
    op: str
    value: Any


Filter = tuple[Condition, ...]
"""A parsed filter: every condition must hold. Empty means no filter."""


def parse_filters(raw: Any) -> Filter:
    """Validate user filters into a ``Filter``; ``ConfigError`` names what is wrong."""
    if raw is None or raw == {}:
        return ()
    if isinstance(raw, tuple) and all(isinstance(c, Condition) for c in raw):
        return raw
    if not isinstance(raw, dict):
        raise ConfigError(f"filters must be an object of key → condition, got {_show(raw)}")
    conditions: list[Condition] = []
    for key, value in raw.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise ConfigError(f"invalid filter key {_show(key)}: use up to 100 letters, digits, '_' or '-'")
        is_field = key in FIELDS
        if isinstance(value, dict):
            if not value:
                raise ConfigError(f"filter {key!r} has no operator; use one of: {', '.join(OPERATORS)}")
            for op, operand in value.items():
                conditions.append(_condition(key, is_field, op, operand))
        elif isinstance(value, list):
            conditions.append(_condition(key, is_field, "in", value))
        else:
            conditions.append(_condition(key, is_field, "eq", value))
        if len(conditions) > MAX_CONDITIONS:
            raise ConfigError(f"too many filter conditions (more than {MAX_CONDITIONS})")
    return tuple(conditions)


def _condition(key: str, is_field: bool, op: str, operand: Any) -> Condition:
    if op not in OPERATORS:
        raise ConfigError(f"unknown filter operator {_show(op)} for {key!r}; use one of: {', '.join(OPERATORS)}")
    if op == "in":
        if not isinstance(operand, list) or not operand:
            raise ConfigError(f"filter {key}.in needs a non-empty list, got {_show(operand)}")
        if len(operand) > MAX_IN_VALUES:
            raise ConfigError(f"filter {key}.in has {len(operand)} values; at most {MAX_IN_VALUES}")
        values = tuple(_scalar(key, v, is_field) for v in operand)
        if any(v is None for v in values):
            raise ConfigError(f"filter {key}.in cannot hold null; use {{\"{key}\": null}}")
        return Condition(key, is_field, "in", values)
    value = _scalar(key, operand, is_field)
    if op in RANGE_OPS and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ConfigError(f"filter {key}.{op} needs a number, got {_show(operand)}")
    return Condition(key, is_field, op, value)


def _scalar(key: str, value: Any, is_field: bool) -> Scalar:
    if value is None:
        return None
    if isinstance(value, bool):
        if is_field:
            raise ConfigError(f"filter {key!r} takes a {FIELDS[key].__name__}, got {_show(value)}")
        return value
    if isinstance(value, int):
        if abs(value) > _INT64:
            raise ConfigError(f"filter {key!r}: the number {_show(value)} is out of range")
        if is_field and FIELDS[key] is not int:
            raise ConfigError(f"filter {key!r} takes a string, got {_show(value)}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"filter {key!r}: numbers must be finite, got {value!r}")
        if is_field and FIELDS[key] is not int:
            raise ConfigError(f"filter {key!r} takes a string, got {_show(value)}")
        return value
    if isinstance(value, str):
        if is_field and FIELDS[key] is int:
            raise ConfigError(f"filter {key!r} takes a number, got {_show(value)}")
        if len(value) > 10_000:
            raise ConfigError(f"filter {key!r}: a value is longer than 10,000 characters")
        return value
    raise ConfigError(f"filter {key!r}: values must be strings, numbers, booleans or null, got {_show(value)}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
