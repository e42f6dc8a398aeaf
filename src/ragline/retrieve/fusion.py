"""Pure fusion functions over ranked lists of (id, score), best first."""

from __future__ import annotations

from collections.abc import Sequence

Ranked = Sequence[tuple[str, float]]


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
    scores = [s for _, s in ranked]
    low, high = min(scores), max(scores)
    span = high - low
    return {item: (s - low) / span if span > 0 else 1.0 for item, s in ranked}


def weighted_fusion(lists: Sequence[Ranked], weights: Sequence[float]) -> list[tuple[str, float]]:
    """Convex combination of min-max normalised scores; absent items score 0 in that list."""
    fused: dict[str, float] = {}
    for ranked, weight in zip(lists, weights):
        for item, score in min_max(ranked).items():
            fused[item] = fused.get(item, 0.0) + weight * score
    return sorted(fused.items(), key=lambda pair: -pair[1])
