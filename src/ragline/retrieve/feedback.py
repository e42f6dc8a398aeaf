"""Pseudo-relevance feedback: a second, better-aimed retrieval from the first one's top hits.

Two kinds, chosen by ``search.feedback`` (docs/quality.md measures both):

- ``keyword`` (RM3-like, Lavrenko & Croft's relevance model interpolated with the
  query): the analysed terms of the top ``feedback_docs`` chunks, each chunk's term
  distribution weighted by its first-pass rank, give the ``feedback_terms`` most
  likely new terms. The store's keyword search takes unweighted terms, so the
  expansion is searched on its own and its scores interpolated with the original
  list's (both min-max normalised): ``(1 − λ)·original + λ·expansion``, λ =
  ``feedback_weight``. The original query terms keep their full weight.
- ``dense`` (Rocchio): the query vector moved towards the mean of the top chunks'
  stored vectors, ``q + β·mean(top)`` renormalised (β = ``feedback_weight``), then
  searched again. The new list replaces the dense list.

The feedback set is the first pass's best chunks: the fused ranking in hybrid mode
(more precise than either list alone), the list itself otherwise. Costs one extra
search per kind, plus reading ``feedback_docs`` chunks (texts or vectors).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

from ..analyzer import analyze

if TYPE_CHECKING:
    from ..models import Scope
    from ..store import Store
    from ..store.facade import ScopedSearch

FEEDBACK_KINDS = ("none", "keyword", "dense", "both")
Ranked = Sequence[tuple[str, float]]


def expansion_terms(query_terms: Sequence[str], texts: Sequence[str], n: int,
                    language: str | None = None) -> list[tuple[str, float]]:
    """The ``n`` most likely terms of the feedback texts (best first) that are not query
    terms, with their relevance-model weight ``Σ_d w_d · tf(t, d) / |d|``, where a text at
    rank r weighs 1 / r (normalised to sum 1). Terms of one letter or digits only are
    skipped: they carry no topic."""
    if n < 1 or not texts:
        return []
    ranks = [1.0 / r for r in range(1, len(texts) + 1)]
    total = sum(ranks)
    known = set(query_terms)
    model: defaultdict[str, float] = defaultdict(float)
    for text, rank in zip(texts, ranks):
        terms = [t for t in analyze(text, language) if len(t) > 1 and not t.isdigit()]
        if not terms:
            continue
        for term, tf in Counter(terms).items():
            if term not in known:
                model[term] += (rank / total) * tf / len(terms)
    # Counter.most_common(n), for float weights: ties keep their first-seen order.
    return heapq.nlargest(n, model.items(), key=itemgetter(1))


def _min_max(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    scores = [s for _, s in ranked]
    low, span = min(scores), max(scores) - min(scores)
    return {item: (s - low) / span if span > 0 else 1.0 for item, s in ranked}


def interpolate(original: Ranked, expansion: Ranked, weight: float) -> list[tuple[str, float]]:
    """``(1 − weight)·original + weight·expansion`` over min-max normalised scores; an
    item missing from one list scores 0 there. ``weight`` 0 keeps the original order."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"feedback weight must be within [0, 1], got {weight}")
    fused: dict[str, float] = {}
    for ranked, w in ((original, 1.0 - weight), (expansion, weight)):
        for item, score in _min_max(ranked).items():
            fused[item] = fused.get(item, 0.0) + w * score
    return sorted(fused.items(), key=lambda pair: -pair[1])


def rocchio(vector: np.ndarray, feedback: Sequence[np.ndarray], beta: float) -> np.ndarray:
    """``q + β·mean(feedback)``, unit length (Rocchio without negative feedback).
    Without feedback vectors the query vector comes back unchanged."""
    if beta < 0:
        raise ValueError(f"feedback weight must not be negative, got {beta}")
    q = np.asarray(vector, dtype=np.float32)
    if not len(feedback) or beta == 0:
        return q
    moved = q + beta * np.mean(np.asarray(feedback, dtype=np.float32), axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype(np.float32) if norm > 0 else q


def keyword_feedback(store: Store, scope: Scope, searches: ScopedSearch, terms: Sequence[str], seeds: Ranked,
                     keyword: Ranked, depth: int, *, docs: int, n_terms: int, weight: float,
                     language: str | None = None) -> list[tuple[str, float]]:
    """The keyword list interpolated with a search for the expansion terms of the
    ``docs`` best ``seeds`` chunks (read through the scoped ``store``)."""
    hits = store.get_hits(scope, list(seeds[:docs]))
    expansion = expansion_terms(terms, [hit.text for hit in hits], n_terms, language)
    if not expansion or weight == 0:
        return list(keyword)
    return interpolate(keyword, searches.keyword([term for term, _ in expansion], depth), weight)


def dense_feedback(store: Store, scope: Scope, searches: ScopedSearch, vector: np.ndarray, seeds: Ranked,
                   depth: int, *, docs: int, weight: float) -> tuple[list[tuple[str, float]], np.ndarray]:
    """(the dense list searched again with the Rocchio vector of the ``docs`` best
    ``seeds`` chunks, that vector)."""
    stored = store.vectors(scope, [chunk_id for chunk_id, _ in seeds[:docs]])
    moved = rocchio(vector, list(stored.values()), weight)
    return list(searches.dense(moved, depth)), moved
