"""The searcher: dense, keyword, or hybrid (fused) retrieval through the store."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

import numpy as np

from ..analyzer import DEFAULT_LANGUAGE, query_terms
from ..embed import check_vectors
from ..embed.base import Embedder
from ..errors import ConfigError, EmbedderError, ModelMismatchError, NotFoundError
from ..models import Hit, Scope
from ..pause import pause_point
from ..settings import SEARCH_MODES, SearchSettings
from ..store import Store
from ..store.facade import ScopedSearch
from ..store.filters import Filters
from ..tracing import span, traced
from .feedback import dense_feedback, keyword_feedback
from .fusion import fuse
from .rerank import Reranker

MODES: tuple[str, ...] = SEARCH_MODES
# A hybrid query up to this long runs its keyword search beside the query embedding
# (both wait in native code: ONNX Runtime, SQLite, tantivy): 3-5 ms off a 10 ms query.
# Longer ones run their stages one after another, with a pause point between them.
BESIDE_MAX_CHARS = 1_000


@dataclass
class SearchResult:
    hits: list[Hit]
    mode: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    degraded: str | None = None  # why the search fell back (e.g. embedder down → keyword)


def _beside(fn: Callable, *args: object) -> Future:
    """``fn(*args)`` on a thread of its own, in a copy of the caller's context (tracing
    spans, the pause hook); the future holds (its result, its milliseconds) or its error.
    A thread per call, not a shared pool: one tenant's queries never queue behind another's."""
    future: Future = Future()

    def run() -> None:
        started = time.perf_counter()
        try:
            with span("keyword"):
                out = fn(*args)
        except BaseException as exc:  # noqa: BLE001 — re-raised on the caller's thread by result()
            future.set_exception(exc)
        else:
            future.set_result((out, (time.perf_counter() - started) * 1000))

    threading.Thread(target=contextvars.copy_context().run, args=(run,), daemon=True, name="ragline-keyword").start()
    return future


class Searcher:
    def __init__(self, store: Store, embedder: Embedder, settings: SearchSettings, *,
                 reranker: Reranker | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker  # re-sorts the top ``settings.rerank_depth`` before the cut to k

    def language(self, scope: Scope) -> str:
        """The keyword language of the scope's collections (``keyword_language``)."""
        try:
            return keyword_language(self.store.scoped(scope))
        except (ConfigError, NotFoundError):
            return DEFAULT_LANGUAGE

    @traced("search")
    def search(self, query: str, scope: Scope, *, mode: str | None = None, k: int | None = None,
               threshold: float | None = None, filters: Filters | None = None) -> SearchResult:
        mode = mode or self.settings.mode
        if mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
        k = self.settings.k if k is None else k
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        if not query.strip():
            raise ConfigError("query is empty")
        timings: dict[str, float] = {}
        # Hybrid fuses deeper lists than it returns: min-max fusion normalises each list
        # against its own floor, which a 500-deep list estimates better (docs/quality.md).
        depth = max(k, self.settings.overfetch) if mode == "hybrid" else k
        if self.reranker is not None:
            depth = max(depth, self.settings.rerank_depth)
        dense: list[tuple[str, float]] = []
        keyword: list[tuple[str, float]] = []
        degraded = None
        vector = None
        searches = self.store.scoped(scope, filters)  # collections resolved, filters parsed: once
        pause_point()  # before the query is embedded: the first stage a lighter tenant may go ahead of
        beside = None
        if mode in ("dense", "hybrid"):
            for ref in searches.collections:  # another model's vectors would rank garbage, silently
                if ref.model_id and ref.model_id != self.embedder.model_id:
                    raise ModelMismatchError.between(ref.name, ref.model_id, ref.dimension, self.embedder.model_id,
                                                     self.embedder.dimension)
            if mode == "hybrid" and len(query) <= BESIDE_MAX_CHARS:
                beside = _beside(_keyword, searches, query, depth)
            started = time.perf_counter()
            try:
                # Any embedder's vector is checked here: a NaN or wrong-width query vector
                # would rank garbage or fail deep in the store instead of degrading.
                with span("embed"):
                    vector = check_vectors([self.embedder.embed_query(query)], 1, self.embedder.dimension,
                                           self.embedder.model_id)[0]
            except EmbedderError as exc:
                if mode == "dense":
                    raise
                degraded, mode = f"embedder unavailable ({exc}); keyword search only", "keyword"
            else:
                timings["embed"] = (time.perf_counter() - started) * 1000
                started = time.perf_counter()
                with span("dense"):
                    dense = searches.dense(vector, depth)
                timings["dense"] = (time.perf_counter() - started) * 1000
        if beside is not None:
            keyword, timings["keyword"] = beside.result()
        elif mode in ("keyword", "hybrid"):
            pause_point()  # between stages, a host may let another tenant's newer request run
            started = time.perf_counter()
            with span("keyword"):
                keyword = _keyword(searches, query, depth)
            timings["keyword"] = (time.perf_counter() - started) * 1000
        if mode == "hybrid":
            started = time.perf_counter()
            with span("fuse", fusion=self.settings.fusion):
                scored = self._fuse(dense, keyword)
            timings["fuse"] = (time.perf_counter() - started) * 1000
        else:
            scored = dense if mode == "dense" else keyword
        if self.settings.feedback != "none" and scored:
            started = time.perf_counter()
            with span("feedback", kind=self.settings.feedback):
                scored = self._feedback(query, searches, scope, mode, vector, dense, keyword, scored, depth)
            timings["feedback"] = (time.perf_counter() - started) * 1000
        if threshold is not None:  # a cosine in every mode, never a fused rank score or a BM25 score
            scored, vector, degraded = self._above(threshold, query, vector, dense, scored, scope, degraded)
        pause_point()
        started = time.perf_counter()
        if self.reranker is None:
            hits = self.store.get_hits(scope, scored[:k])
            timings["fetch"] = (time.perf_counter() - started) * 1000
        else:
            hits = self.store.get_hits(scope, scored[:max(k, self.settings.rerank_depth)])
            timings["fetch"] = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            hits = self.reranker.rerank(query, vector, hits, scope)[:k]
            timings["rerank"] = (time.perf_counter() - started) * 1000
        return SearchResult(hits=hits, mode=mode, timings_ms=timings, degraded=degraded)

    def _above(self, threshold: float, query: str, vector: np.ndarray | None, dense: list[tuple[str, float]],
               scored: list[tuple[str, float]], scope: Scope,
               degraded: str | None) -> tuple[list[tuple[str, float]], np.ndarray | None, str | None]:
        """The scored pairs whose chunk's cosine to the query is at least ``threshold``,
        in their order. Cosines come from the dense list, else from the stored vectors
        (keyword-only hits; the query is embedded for a keyword search). Without a query
        vector (embedder down) nothing can be judged: all kept, and ``degraded`` says so."""
        if vector is None:
            try:
                vector = check_vectors([self.embedder.embed_query(query)], 1, self.embedder.dimension,
                                       self.embedder.model_id)[0]
            except EmbedderError as exc:
                note = f"threshold not applied: the embedder is unavailable ({exc})"
                return scored, None, f"{degraded}; {note}" if degraded else note
        cosine = dict(dense)
        unknown = [chunk_id for chunk_id, _ in scored if chunk_id not in cosine]
        if unknown:
            stored = self.store.vectors(scope, unknown)
            cosine.update((chunk_id, float(np.dot(v, vector))) for chunk_id, v in stored.items())
        return [pair for pair in scored if cosine.get(pair[0], -2.0) >= threshold], vector, degraded

    def _feedback(self, query: str, searches: ScopedSearch, scope: Scope, mode: str, vector: np.ndarray | None,
                  dense: list[tuple[str, float]], keyword: list[tuple[str, float]], scored: list[tuple[str, float]],
                  depth: int) -> list[tuple[str, float]]:
        """The first pass's best chunks (``scored``) searched again as ``search.feedback``
        says (ragline.retrieve.feedback); a kind that needs a list this mode lacks is skipped.
        The threshold and the reranker still judge by the question's own vector."""
        s, kind = self.settings, self.settings.feedback
        if kind in ("keyword", "both") and mode in ("keyword", "hybrid"):
            language = keyword_language(searches)
            keyword = keyword_feedback(self.store, scope, searches, query_terms(query, language=language), scored,
                                       keyword, depth, docs=s.feedback_docs, n_terms=s.feedback_terms,
                                       weight=s.feedback_keyword_weight, language=language)
        if kind in ("dense", "both") and mode in ("dense", "hybrid") and vector is not None:
            dense, _ = dense_feedback(self.store, scope, searches, vector, scored, depth, docs=s.feedback_docs,
                                      weight=s.feedback_dense_weight)
        if mode == "hybrid":
            return self._fuse(dense, keyword)
        return dense if mode == "dense" else keyword

    def _fuse(self, dense: list[tuple[str, float]], keyword: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """The dense and keyword lists fused as ``search.fusion`` says."""
        s = self.settings
        return fuse(s.fusion, dense, keyword, dense_weight=s.dense_weight, rrf_k=s.rrf_k, slope=s.confidence_slope,
                    depth=s.confidence_depth)


def _keyword(searches: ScopedSearch, query: str, k: int) -> list[tuple[str, float]]:
    """Keyword search with the query analyzed in each collection's language (collections
    of one language searched together); BM25 scores of different collections are merged
    by score, as a backend merges them within one call."""
    by_language: dict[str, list] = {}
    for ref in searches.collections:
        by_language.setdefault(ref.config.get("language") or DEFAULT_LANGUAGE, []).append(ref)
    merged: list[tuple[str, float]] = []
    for language, refs in by_language.items():
        merged += replace(searches, collections=refs).keyword(query_terms(query, language=language), k)
    return sorted(merged, key=lambda pair: -pair[1])[:k]


def keyword_language(searches: ScopedSearch) -> str:
    """The searched collections' keyword language when they share one, else the default."""
    languages = {ref.config.get("language") or DEFAULT_LANGUAGE for ref in searches.collections}
    return languages.pop() if len(languages) == 1 else DEFAULT_LANGUAGE
