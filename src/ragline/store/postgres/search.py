"""PostgreSQL's ``SearchIndex`` read half: cosine search with pgvector (a partial
HNSW index per collection above ``exact_below`` chunks, exact below), and BM25
as SQLite FTS5's ``bm25()`` over packed, weight-ordered posting lists (``keywords``). The
``SearchIndex`` role of the PostgreSQL backend, over the store's ``PostgresDatabase``."""

from __future__ import annotations

import math

import numpy as np

from ...errors import ModelMismatchError
from ...models import Scope
from ..filters import Filter
from ..sql.common import TablesAreTheIndex, check_ref, owner_visibility, row_id
from ..types import CollectionRef
from . import keywords
from .conn import PostgresDatabase
from .filters import compile_postgres, query_lexemes
from .schema import HNSW_MAX_DIM


class PostgresSearch(TablesAreTheIndex):
    """Dense and keyword search over one PostgreSQL database's tables."""

    exact_below = 10_000
    """Collections with fewer chunks are searched exactly (a scan is cheap and exact)."""

    def __init__(self, db: PostgresDatabase, *, ef_search: int, index_enabled: bool = True) -> None:
        self.db = db
        self._ef_search = ef_search
        self.index_enabled = index_enabled

    def close(self) -> None:
        """Nothing of its own to release: the store closes the shared pool."""

    # -- search (SearchIndex) ------------------------------------------------
    def dense_search(self, scope: Scope, collections: list[CollectionRef], vector: np.ndarray, k: int,
                     filters: Filter = ()) -> list[tuple[str, float]]:
        query = np.asarray(vector, dtype=np.float32).ravel()
        where, params = compile_postgres(filters)
        owner_sql, owner_params = owner_visibility(scope, "c", "%s")
        join = " JOIN documents d ON d.id = c.doc_id" if where else ""
        results: list[tuple[str, float]] = []
        with self.db.tx(scope.tenant, pipelined=True) as cur:
            # ef_search below k would cap what one HNSW pass can return.
            for ref in collections:
                check_ref(scope, ref)
            # The settings and the collections' sizes in one round trip.
            sizes = dict(cur.execute(
                "SELECT c.id, c.chunk_total FROM (SELECT set_config('hnsw.ef_search', %s, true), "
                "set_config('hnsw.iterative_scan', 'relaxed_order', true)) s, collections c WHERE c.id = ANY(%s)",
                (str(min(1000, max(self._ef_search, k))), [row_id(ref) for ref in collections])).fetchall())
            for ref in collections:
                if query.shape[0] != ref.dimension:
                    raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection {ref.name!r} "
                                             f"has {ref.dimension}")
                cid = row_id(ref)
                row = (sizes[cid],) if cid in sizes else None
                if not row or row[0] == 0:
                    continue
                # The ANN form repeats the index's expression and predicate (literals, so the
                # planner can match the partial index even under a generic plan).
                ann = self.index_enabled and ref.dimension <= HNSW_MAX_DIM and row[0] >= self.exact_below
                expr = f"c.embedding::vector({int(ref.dimension)})" if ann else "c.embedding"
                rows = cur.execute(
                    f"SELECT id, dist FROM (SELECT c.id, {expr} <=> %s AS dist FROM chunks c{join} "
                    f"WHERE c.collection_id = {cid} AND c.tenant = %s{owner_sql}{where} "
                    f"ORDER BY dist LIMIT %s) nn ORDER BY dist, id",  # re-sorted: relaxed_order is approximate
                    [query, scope.tenant, *owner_params, *params, k]).fetchall()
                results.extend((cid_, _cosine(dist)) for cid_, dist in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> list[tuple[str, float]]:
        lexemes = query_lexemes(terms)
        if not lexemes:
            return []
        results: list[tuple[str, float]] = []
        with self.db.tx(scope.tenant, snapshot=True, pipelined=True) as cur:
            for ref in collections:
                check_ref(scope, ref)
                results.extend(keywords.keyword_search(cur, scope, row_id(ref), lexemes, k, filters))
        results.sort(key=lambda pair: -pair[1])
        return results[:k]


def _cosine(distance: float) -> float:
    # pgvector answers NaN for a zero vector: no direction, scored as orthogonal.
    return 0.0 if distance is None or math.isnan(distance) else 1.0 - float(distance)
