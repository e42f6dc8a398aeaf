"""How ragline's data maps onto Qdrant's: points (payload and vectors) and filters.

Payload: ``tenant``, ``collection``, ``owner`` (null when shared), ``doc_id``,
``chunk_id``, ``source``, ``title``, ``media_type``, ``page``, ``section`` at the top
level, and the user's metadata under ``meta``.

Keyword vectors: each analyzed term is hashed to a 32-bit sparse index (blake2b,
stable across processes), and its value is BM25's term-frequency part
``tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))``. A query sends each distinct term
with 1.0; Qdrant's ``Modifier.IDF`` multiplies in ``ln(1 + (N − df + 0.5)/(df + 0.5))``
over the Qdrant collection, so the dot product is exactly BM25.

``avgdl`` is a constant (``AVGDL``), as in Qdrant's own ``qdrant/bm25`` encoder: a
point's weights are fixed when it is written, so a running average would leave
old points normalised against a stale value and couple every write to all the
others. 100 analyzed terms is about one default chunk (1000 characters, about 170
words, about 100 terms once stopwords are gone); it sets only how strongly length
is normalised, never the order of chunks of equal length.

Filter semantics are defined in ``filters`` and must match ``sqlite.filters`` exactly:

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

import hashlib
import json
import uuid
from collections import Counter
from typing import Any

import numpy as np
from qdrant_client import models

from ...models import Scope
from ..filters import RANGE_OPS, Condition, Filter
from ..types import ChunkRecord, CollectionRef, DocumentRecord
from ..visibility import visible_owners

DENSE, KEYWORD = "dense", "keyword"
K1, B, AVGDL = 1.2, 0.75, 100.0
_POINT_NS = uuid.uuid5(uuid.NAMESPACE_URL, "ragline:chunk")

_EXACT_FLOAT = 2**53  # beyond this a float range cannot tell neighbouring integers apart


# -- points ---------------------------------------------------------------------------
def point_id(chunk_id: str, owner: str | None = None) -> str:
    """A chunk's point id (Qdrant takes only UUIDs and integers). The owner is part of
    it, so a write in one owner's scope can never overwrite another owner's point."""
    return str(uuid.uuid5(_POINT_NS, chunk_id if owner is None else f"{owner}\x1f{chunk_id}"))


def term_index(term: str) -> int:
    """A term's sparse index: a stable 32-bit hash (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def keyword_vector(terms: str) -> models.SparseVector | None:
    """BM25's saturated term frequencies of a chunk's analyzed terms (None if it has none)."""
    counts = Counter(term_index(t) for t in terms.split())
    if not counts:
        return None
    norm = K1 * (1 - B + B * sum(counts.values()) / AVGDL)
    indices = sorted(counts)
    return models.SparseVector(indices=indices, values=[counts[i] * (K1 + 1) / (counts[i] + norm) for i in indices])


def query_vector(terms: list[str]) -> models.SparseVector:
    """Each distinct query term with weight 1.0; Qdrant multiplies in its IDF."""
    indices = sorted({term_index(t) for t in terms})
    return models.SparseVector(indices=indices, values=[1.0] * len(indices))


def make_point(ref: CollectionRef, owner: str | None, document: DocumentRecord, chunk: ChunkRecord,
               vector: np.ndarray) -> models.PointStruct:
    """One chunk as a point."""
    named: dict[str, Any] = {DENSE: vector.tolist()}
    sparse = keyword_vector(chunk.terms)
    if sparse is not None:  # a chunk without terms stays out of the keyword index (and its N)
        named[KEYWORD] = sparse
    payload = {
        "tenant": ref.tenant, "collection": ref.name, "owner": owner or None, "doc_id": document.id,
        "chunk_id": chunk.id, "source": document.source, "title": document.title,
        "media_type": document.media_type, "page": chunk.page, "section": chunk.section,
        # JSON round trip: the values the catalog stores (json.dumps(default=str)).
        "meta": json.loads(json.dumps(document.metadata, default=str)),
    }
    return models.PointStruct(id=point_id(chunk.id, owner or None), vector=named, payload=payload)


# -- filters --------------------------------------------------------------------------
def compile_qdrant(conditions: Filter) -> list[Any]:
    """The conditions as a ``must`` list (all must hold); empty for no filter."""
    return [_condition(cond) for cond in conditions]


def scope_conditions(scope: Scope, ref: CollectionRef) -> list[Any]:
    """Tenant, collection and owner visibility, applied inside every search.

    Each Qdrant collection already holds one ragline collection only; these
    conditions are defence in depth against a mis-addressed write or search."""
    return [_match("tenant", scope.tenant), _match("collection", ref.name), owner_visibility(scope.owner)]


def owner_visibility(owner: str | None) -> Any:
    """The points a scope with ``owner`` may read (``visibility.visible_owners``): shared
    ones (no owner in the payload), plus its own."""
    parts: list[models.Condition] = [_is_empty("owner") if o is None else _match("owner", o)
                                     for o in visible_owners(owner)]
    return parts[0] if len(parts) == 1 else models.Filter(should=parts)


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
