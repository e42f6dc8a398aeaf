"""Pure fusion functions over ranked lists of (id, score), best first.

Four ways to fuse the dense and keyword lists (``search.fusion``), compared on four
datasets in docs/quality.md:

- ``rrf``: reciprocal rank fusion, ranks only.
- ``weighted``: a convex combination of min-max normalised scores.
- ``dbsf``: distribution-based score fusion (Qdrant's DBSF): each list's scores scaled
  between its mean ± 3 standard deviations, so one outlier or a flat tail does not
  stretch the scale as min-max does.
- ``adaptive``: DBSF with per-query weights: each list weighted by how far its best
  score stands above the rest of its list (its top z-score), so a list with no clear
  match (a keyword list of stray term hits, say) counts less for that query.
- ``confidence``: per-query weights from the two lists' confidence: the dense weight
  moved on the logit scale by ``slope`` × (dense's top z-score − keyword's), each over
  its first ``depth`` scores with a missing hit counted as 0 (a chunk the keyword
  search did not find shares none of the query's terms), then DBSF. A keyword list
  whose best hit does not stand out (stray hits on common words) counts less for that
  query; one with a clear match, or a dense list with none, counts more.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import itemgetter

Ranked = Sequence[tuple[str, float]]
Normaliser = Callable[[Ranked], dict[str, float]]
FUSIONS = ("rrf", "weighted", "dbsf", "adaptive", "confidence")


def reciprocal_rank_fusion(lists: Sequence[Ranked], k: int = 60, weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """RRF (Cormack et al. 2009): score(d) = Σ w_i / (k + rank_i(d)), ranks from 1."""
    weights = weights or [1.0] * len(lists)
    fused: dict[str, float] = {}
    for ranked, weight in zip(lists, weights):
        for rank, (item, _) in enumerate(ranked, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return sorted(fused.items(), key=lambda pair: -pair[1])


def min_max(ranked: Ranked) -> dict[str, float]:
    """Scale scores to [0, 1] within one list (all-equal scores become 1)."""
    if not ranked:
        return {}
    ids, scores = zip(*ranked)
    low, high = min(scores), max(scores)
    span = high - low
    if span <= 0:
        return dict.fromkeys(ids, 1.0)
    scale = 1.0 / span
    return dict(zip(ids, [(s - low) * scale for s in scores]))


def _mean_std(ranked: Ranked) -> tuple[float, float]:
    scores = [s for _, s in ranked]
    mean = sum(scores) / len(scores)
    return mean, math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))


def distribution(ranked: Ranked) -> dict[str, float]:
    """DBSF's normalisation: (s − (μ − 3σ)) / 6σ, clipped to [0, 1] (all-equal scores become 1)."""
    if not ranked:
        return {}
    mean, std = _mean_std(ranked)
    if std == 0:
        return {item: 1.0 for item, _ in ranked}
    low = mean - 3 * std
    return {item: min(1.0, max(0.0, (s - low) / (6 * std))) for item, s in ranked}


def top_z(ranked: Ranked) -> float:
    """How many standard deviations the best score stands above its list's mean (0 if flat)."""
    if len(ranked) < 2:
        return 0.0
    mean, std = _mean_std(ranked)
    return (ranked[0][1] - mean) / std if std > 0 else 0.0


def normalised_fusion(lists: Sequence[Ranked], weights: Sequence[float],
                      normalise: Normaliser = min_max) -> list[tuple[str, float]]:
    """Σ w_i · normalise_i(score); an item absent from a list scores 0 there."""
    fused: dict[str, float] = {}
    for ranked, weight in zip(lists, weights):
        normalised = normalise(ranked)
        if not fused:
            fused = {item: weight * score for item, score in normalised.items()}
            continue
        get = fused.get
        for item, score in normalised.items():
            fused[item] = get(item, 0.0) + weight * score
    return sorted(fused.items(), key=itemgetter(1), reverse=True)  # stable: ties keep their order


def weighted_fusion(lists: Sequence[Ranked], weights: Sequence[float]) -> list[tuple[str, float]]:
    """Convex combination of min-max normalised scores; absent items score 0 in that list."""
    return normalised_fusion(lists, weights, min_max)


def adaptive_weights(lists: Sequence[Ranked], weights: Sequence[float]) -> list[float]:
    """The static weights scaled by each list's top z-score, renormalised to the same sum.
    Lists that all lack a standout (or one list alone) keep the static weights."""
    confidence = [weight * max(top_z(ranked), 0.0) for ranked, weight in zip(lists, weights)]
    total = sum(confidence)
    if total <= 0:
        return list(weights)
    return [c * sum(weights) / total for c in confidence]


def padded_top_z(ranked: Ranked, depth: int) -> float:
    """``top_z`` of the list's first ``depth`` scores, a list shorter than ``depth``
    padded with zeros (the score of an item the search did not return)."""
    top = [score for _, score in ranked[:depth]]
    if not top:
        return 0.0
    top += [0.0] * (depth - len(top))
    mean = sum(top) / len(top)
    std = math.sqrt(sum((s - mean) ** 2 for s in top) / len(top))
    return (top[0] - mean) / std if std > 0 else 0.0


def confidence_weight(dense: Ranked, keyword: Ranked, dense_weight: float, *, slope: float,
                      depth: int) -> float:
    """The dense list's weight for this query: ``dense_weight`` moved on the logit scale
    by ``slope`` × (dense's padded top z-score − keyword's). Equal confidence keeps it;
    a weight of 0 or 1 stays put; an empty list gets weight 0."""
    if not keyword:
        return 1.0
    if not dense:
        return 0.0
    if dense_weight <= 0.0 or dense_weight >= 1.0:
        return dense_weight
    shift = slope * (padded_top_z(dense, depth) - padded_top_z(keyword, depth))
    logit = math.log(dense_weight / (1 - dense_weight)) + shift
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, logit))))


def fuse(method: str, dense: Ranked, keyword: Ranked, *, dense_weight: float = 0.5,
         rrf_k: int = 60, slope: float = 0.5, depth: int = 20) -> list[tuple[str, float]]:
    """The dense and keyword lists fused by ``method`` (one of ``FUSIONS``); ``slope`` and
    ``depth`` shape ``confidence`` only."""
    lists, weights = [dense, keyword], [dense_weight, 1 - dense_weight]
    if method == "rrf":
        return reciprocal_rank_fusion(lists, k=rrf_k, weights=[2 * w for w in weights])
    if method == "weighted":
        return normalised_fusion(lists, weights, min_max)
    if method == "dbsf":
        return normalised_fusion(lists, weights, distribution)
    if method == "adaptive":
        return normalised_fusion(lists, adaptive_weights(lists, weights), distribution)
    if method == "confidence":
        weight = confidence_weight(dense, keyword, dense_weight, slope=slope, depth=depth)
        return normalised_fusion(lists, [weight, 1 - weight], distribution)
    raise ValueError(f"unknown fusion {method!r}; choose one of: {', '.join(FUSIONS)}")
