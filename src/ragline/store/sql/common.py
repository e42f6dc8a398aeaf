"""What the two relational backends (SQLite, PostgreSQL) build alike, with the
placeholder (``?`` or ``%s``) as the only difference: the connection seam the
role objects share (``Database``), filter conditions on document and chunk fields,
owner visibility (rendered from ``store.visibility``), the job-list query's
conditions, a job update's fields, and the (empty) write half of an index that is
the catalog's own tables."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from ...errors import ConfigError, ModelMismatchError, StoreError
from ...models import Scope
from ..filters import Condition, Filter
from ..types import FINISHED, JOB_UPDATABLE, QUEUED, ChunkRecord, CollectionRef, DocumentRecord
from ..visibility import Owners, changeable_owners, visible_owners


class Database(Protocol):
    """One relational store's connections, shared by the role objects over its tables
    (records, usage, conversations, search): each backend has one (``SQLiteDatabase``,
    ``PostgresDatabase``) and hands it to every role, so no role reaches into another."""

    mark: str
    """The placeholder: ``?`` (SQLite) or ``%s`` (PostgreSQL)."""
    greatest: str
    """The larger of two values: ``max`` (SQLite) or ``greatest`` (PostgreSQL)."""

    def one_of(self, column: str, values: Sequence[Any]) -> Clause:
        """``column`` is one of ``values``: ``IN (?, …)`` (SQLite) or ``= ANY(%s)`` with
        one array (PostgreSQL: one placeholder, so hundreds of ids cost no query parsing)."""
        ...

    def transaction(self, tenant: str | None) -> AbstractContextManager[Any]:
        """One write transaction (scoped to ``tenant`` where the backend scopes them;
        None: the operators' path), giving a cursor with ``execute``/``executemany``."""
        ...

    def rows(self, tenant: str | None, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """The rows of one read."""
        ...


class Executes(Protocol):
    """A cursor or connection (sqlite3's or psycopg's): ``execute`` returns a cursor."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...


def one_row(cur: Executes, query: str, params: Sequence[Any] | None = None) -> tuple[Any, ...]:
    """The row of a query that always returns one (an aggregate, a function call, a
    ``RETURNING`` of a row the transaction holds): ``cur.execute(query, params).fetchone()``
    without the None, or ``StoreError`` naming the query should no row come back.
    Without ``params`` the query is sent as it is (psycopg then reads no placeholders)."""
    executed = cur.execute(query) if params is None else cur.execute(query, params)
    row = executed.fetchone()
    if row is None:
        raise StoreError(f"no row from the query {' '.join(query.split())[:100]!r}")
    return row


FIELD_COLUMNS = {
    "doc_id": "d.id", "source": "d.source", "title": "d.title", "media_type": "d.media_type",
    "page": "c.page", "section": "c.section", "owner": "d.owner",
}
"""Filter fields → columns of documents ``d`` and chunks ``c``."""

COMPARISONS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

Clause = tuple[str, list[Any]]


def compile_conditions(conditions: Filter, mark: str, meta: Callable[[Condition], Clause]) -> Clause:
    """``(" AND …", params)`` for a parsed filter; ``meta`` compiles user-metadata
    conditions (each backend stores metadata its own way). Empty for no condition."""
    if not conditions:
        return "", []
    clauses: list[str] = []
    params: list[Any] = []
    for cond in conditions:
        sql, values = field_condition(cond, mark) if cond.field else meta(cond)
        clauses.append(sql)
        params += values
    return " AND " + " AND ".join(clauses), params


def field_condition(cond: Condition, mark: str) -> Clause:
    """A condition on a document or chunk column (SQL NULL is a missing value)."""
    column = FIELD_COLUMNS[cond.key]
    if cond.op == "in":
        return f"{column} IN ({','.join([mark] * len(cond.value))})", list(cond.value)
    if cond.value is None:
        return (f"{column} IS NULL", []) if cond.op == "eq" else (f"{column} IS NOT NULL", [])
    if cond.op == "eq":
        return f"{column} = {mark}", [cond.value]
    if cond.op == "ne":  # a missing value is "not equal" too
        return f"{column} IS DISTINCT FROM {mark}", [cond.value]
    return f"{column} {COMPARISONS[cond.op]} {mark}", [cond.value]


def job_list_conditions(tenant: str, mark: str, *, collection: str | None, state: str | None,
                        doc_id: str | None, all_owners: bool, owner: str | None) -> Clause:
    """``list_jobs``'s WHERE (without the keyword) and its params."""
    where, params = [f"tenant = {mark}"], [tenant]
    for column, value in (("collection", collection), ("state", state), ("doc_id", doc_id)):
        if value is not None:
            where.append(f"{column} = {mark}")
            params.append(value)
    if not all_owners:  # what ``owner`` may see, as for documents: shared jobs, plus its own
        visible, owners = owner_in("owner", visible_owners(owner), mark)
        where.append(visible)
        params += owners
    return " AND ".join(where), params


def job_update(fields: dict[str, Any]) -> dict[str, Any]:
    """The columns an ``update_job`` sets: the given fields (``ConfigError`` for any not
    in ``JOB_UPDATABLE``), the time, and the lease rules: back to queued forgets the
    worker and its lease; finished gives up the lease and keeps the worker on record."""
    unknown = set(fields) - JOB_UPDATABLE
    if unknown:
        raise ConfigError(f"unknown job fields: {sorted(unknown)}")
    out = {**fields, "updated": time.time()}
    if out.get("state") == QUEUED:
        out.update(worker=None, lease_until=None)
    elif out.get("state") in FINISHED:
        out.update(lease_until=None)
    return out


def owner_in(column: str, owners: Owners, mark: str) -> Clause:
    """``(column IS NULL OR column = mark …)`` for a set of owners (``visibility``),
    without the leading AND; parenthesised when there is more than one."""
    parts = [f"{column} IS NULL" if owner is None else f"{column} = {mark}" for owner in owners]
    sql = parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"
    return sql, [owner for owner in owners if owner is not None]


def owner_visibility(scope: Scope, alias: str, mark: str) -> Clause:
    """`` AND …`` keeping the rows of ``alias`` the scope may read (``visibility``:
    shared ones, plus the scope owner's own)."""
    sql, params = owner_in(f"{alias}.owner", visible_owners(scope.owner), mark)
    return " AND " + sql, params


def owned_exactly(scope: Scope, column: str, mark: str) -> Clause:
    """`` AND …`` keeping the rows the scope may change (``visibility``: exactly the
    scope owner's; shared ones for an owner-less scope). ``column`` names the owner column."""
    sql, params = owner_in(column, changeable_owners(scope.owner), mark)
    return " AND " + sql, params


def row_id(ref: CollectionRef) -> int:
    """The collection's row id, the first part of the key ``<id>.<random>``."""
    return int(ref.key.split(".", 1)[0])


def check_ref(scope: Scope, ref: CollectionRef) -> None:
    """A resolved collection must belong to the scope's tenant (a second check: the
    facade resolves collections through the scope)."""
    if ref.tenant != scope.tenant:
        raise StoreError("a collection of another tenant was passed to a scoped search")


class TablesAreTheIndex:
    """``SearchIndex``'s write half for a backend whose catalog tables are the index:
    the catalog's own transaction writes it, so there is nothing to do here."""

    external = False

    def upsert(self, collection: CollectionRef, owner: str | None, document: DocumentRecord,
               chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        return None

    def delete_chunks(self, collection: CollectionRef, owner: str | None, chunk_ids: list[str]) -> None:
        return None

    def remove_documents(self, collection: CollectionRef, doc_ids: list[str]) -> None:
        return None

    def drop(self, collection: CollectionRef) -> None:
        return None


# -- switching a collection's embedding model (``Catalog.switch_model``) -------------------
class SwitchIncomplete(Exception):
    """Raised inside the switch transaction to roll it back: chunks had no new vector."""

    def __init__(self, missing: list[str]) -> None:
        super().__init__(f"{len(missing)} chunks without a new vector")
        self.missing = missing


def check_switch(collection: str, current: str, old_model: str) -> None:
    """The collection must still be filled by the model the caller re-embedded from."""
    if current != old_model:
        raise ModelMismatchError(f"collection {collection!r} is filled by {current}, not {old_model}: "
                                 "another switch came first")


def lookup_batches(chunks: list[tuple], vectors: Any, dimension: int, missing: list[str],
                   size: int = 1000) -> Iterator[tuple[list[tuple], dict[str, np.ndarray]]]:
    """``(rows, vectors by chunk id)`` per batch of ``(row key, chunk id, content hash)``
    rows, each vector float32 of ``dimension`` (``ModelMismatchError`` otherwise); chunk
    ids ``vectors`` has nothing for are appended to ``missing``."""
    for start in range(0, len(chunks), size):
        part = chunks[start:start + size]
        given = vectors([(r[1], r[2]) for r in part])
        found: dict[str, np.ndarray] = {}
        for r in part:
            if r[1] not in given:
                missing.append(r[1])
                continue
            vector = np.asarray(given[r[1]], dtype=np.float32)
            if vector.shape != (dimension,) or not np.isfinite(vector).all():
                raise ModelMismatchError(f"new vector of chunk {r[1]} has shape {vector.shape} or non-finite "
                                         f"values; expected ({dimension},)")
            found[r[1]] = vector
        yield part, found
