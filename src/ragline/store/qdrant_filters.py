"""A parsed ``Filter`` (and a scope) → ``qdrant_client.models`` conditions.

Semantics are defined in ``filters`` and must match ``sqlite_filters`` exactly:

- Document and chunk fields (``FIELDS``) are top-level payload keys; user metadata
  lives under the ``meta`` object, addressed as ``meta."key"`` (quoted, so a key
  with ``-`` is never read as path syntax; the key grammar forbids ``"`` and ``.``).
- Equality is typed. Numbers compare through a ``Range`` with ``gte = lte = v``:
  Qdrant's ``MatchValue`` takes only int, str or bool and never matches a float
  payload, while a range matches ints and floats alike and never strings or
  booleans. Integers beyond 2**53 (where a float range would blur neighbours) use
  an exact integer match instead. Strings and booleans use ``MatchValue``, which
  Qdrant keeps typed (``true`` never equals ``1``).
- ``null`` means missing or null: ``IsEmpty``. (Qdrant also counts an empty array
  as empty; SQLite does not. Arrays are the one documented difference: Qdrant
  matches a condition against each element of an array value, SQLite never
  matches an array.)
- ``ne`` is a ``must_not`` of the equality, so documents lacking the key match.
"""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from ..models import Scope
from .filters import RANGE_OPS, Condition, Filter
from .types import CollectionRef

_EXACT_FLOAT = 2**53  # beyond this a float range cannot tell neighbouring integers apart


def compile_qdrant(conditions: Filter) -> list[Any]:
    """The conditions as a ``must`` list (all must hold); empty for no filter."""
    return [_condition(cond) for cond in conditions]


def scope_conditions(scope: Scope, ref: CollectionRef) -> list[Any]:
    """Tenant, collection and owner visibility, applied inside every search.

    Each Qdrant collection already holds one ragline collection only; these
    conditions are defence in depth against a mis-addressed write or search."""
    shared = _is_empty("owner")
    if scope.owner is None:
        visible: Any = shared
    else:
        visible = models.Filter(should=[shared, _match("owner", scope.owner)])
    return [_match("tenant", scope.tenant), _match("collection", ref.name), visible]


def payload_key(cond: Condition) -> str:
    """Where a condition's value lives in a point's payload."""
    return cond.key if cond.field else f'meta."{cond.key}"'


def _condition(cond: Condition) -> Any:
    key = payload_key(cond)
    if cond.op == "in":
        return _any_of(key, cond.value)
    if cond.op in RANGE_OPS:
        return models.FieldCondition(key=key, range=models.Range(**{cond.op: float(cond.value)}))
    equals = _equals(key, cond.value)
    if cond.op == "ne":
        return models.Filter(must_not=[equals])
    return equals


def _equals(key: str, value: Any) -> Any:
    if value is None:
        return _is_empty(key)
    if isinstance(value, bool | str):
        return _match(key, value)
    if isinstance(value, int) and abs(value) > _EXACT_FLOAT:
        return _match(key, value)
    return models.FieldCondition(key=key, range=models.Range(gte=float(value), lte=float(value)))


def _any_of(key: str, values: tuple[Any, ...]) -> Any:
    # Strings go into one MatchAny; numbers and booleans need their own typed test.
    strings = [v for v in values if isinstance(v, str)]
    parts = [_equals(key, v) for v in values if not isinstance(v, str)]
    if strings:
        parts.append(models.FieldCondition(key=key, match=models.MatchAny(any=strings)))
    return parts[0] if len(parts) == 1 else models.Filter(should=parts)


def _match(key: str, value: str | int | bool) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def _is_empty(key: str) -> models.IsEmptyCondition:
    return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))
