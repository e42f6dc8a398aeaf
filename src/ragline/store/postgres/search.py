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
from .indexes import HNSW_MAX_DIM


class PostgresSearch(TablesAreTheIndex):
    """Dense and keyword search over one PostgreSQL database's tables."""

    exact_below = 10_000
    """Collections with fewer chunks are searched exactly (a scan is cheap and exact)."""

    def __init__(self, db: PostgresDatabase, *, ef_search: int, keyword_budget: int,
                 index_enabled: bool = True) -> None:
        self.db = db
        self._ef_search = ef_search
        self.keyword_budget = keyword_budget  # postings one keyword search reads per collection, at most
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
        with self.db.tx(scope.tenant) as cur:
            for ref in collections:
                check_ref(scope, ref)
            # The settings, the collections' sizes and whether each has its halfvec index built
            # (a collection indexed by an earlier version keeps its float32 one until then).
            # ef_search below k would cap what one HNSW pass can return. Asked for hundreds of
            # rows (hybrid's depth) with a wide ef_search, the planner costed the walk above
            # reading the collection's rows and sorting them, which reads every vector (55 ms
            # against 8 at 12,000 chunks): sorting is what the walk saves, so that path is
            # ruled out (an exact search sorts anyway).
            sizes = {cid: (total, half) for cid, total, half in cur.execute(
                "SELECT c.id, c.chunk_total, EXISTS (SELECT 1 FROM pg_index i WHERE i.indisvalid "
                "AND i.indexrelid = to_regclass('chunks_hnswh_' || c.id)) "
                "FROM (SELECT set_config('hnsw.ef_search', %s, true), "
                "set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_sort', 'off', true), "
                "set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)) s, "
                "collections c WHERE c.id = ANY(%s)",
                (str(min(1000, max(self._ef_search, k))), [row_id(ref) for ref in collections])).fetchall()}
            for ref in collections:
                if query.shape[0] != ref.dimension:
                    raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection {ref.name!r} "
                                             f"has {ref.dimension}")
                cid = row_id(ref)
                total, half = sizes.get(cid, (0, False))
                if not total:
                    continue
                ann = self.index_enabled and ref.dimension <= HNSW_MAX_DIM and total >= self.exact_below
                sql, twice = dense_sql(cid, int(ref.dimension), "ann" if ann and half else "float" if ann else "exact",
                                       join, f"{owner_sql}{where}")
                rows = cur.execute(sql, [query, scope.tenant, *owner_params, *params, *([query] if twice else []),
                                         k]).fetchall()
                results.extend((cid_, _cosine(dist)) for cid_, dist in rows)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> list[tuple[str, float]]:
        lexemes = query_lexemes(terms)
        if not lexemes:
            return []
        results: list[tuple[str, float]] = []
        with self.db.tx(scope.tenant, snapshot=True) as cur:
            for ref in collections:
                check_ref(scope, ref)
                results.extend(keywords.keyword_search(cur, scope, row_id(ref), lexemes, k, filters,
                                                       self.keyword_budget))
        results.sort(key=keywords.ranking)
        return results[:k]


def dense_sql(cid: int, dim: int, walk: str, join: str, where: str) -> tuple[str, bool]:
    """One collection's k nearest rows: parameters (query, tenant, the ``where`` ones,
    the query again when the second value is True, k). ``walk`` is ``ann`` (the
    halfvec HNSW index), ``float`` (the float32 one an earlier version built, until
    the halfvec one is) or ``exact``. The ANN forms repeat the index's expression and
    predicate as literals, so the planner matches the partial index even under a
    generic plan; the walk orders by its own precision, and the k rows it finds carry
    their float32 distance and are re-sorted by it (the walk is approximate)."""
    order = {"ann": f"c.embedding::halfvec({dim}) <=> %s::halfvec({dim})",
             "float": f"c.embedding::vector({dim}) <=> %s", "exact": "dist"}[walk]
    sql = (f"SELECT id, dist FROM (SELECT c.id, c.embedding <=> %s AS dist FROM chunks c{join} "
           f"WHERE c.collection_id = {int(cid)} AND c.tenant = %s{where} "
           f"ORDER BY {order} LIMIT %s) nn ORDER BY dist, id")
    return sql, walk != "exact"


def _cosine(distance: float) -> float:
    # pgvector answers NaN for a zero vector: no direction, scored as orthogonal.
    return 0.0 if distance is None or math.isnan(distance) else 1.0 - float(distance)
