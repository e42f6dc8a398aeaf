"""The check every embedder's output passes before it may reach a store or cache."""

from __future__ import annotations

import numpy as np

from ..errors import EmbedderError


def check_vectors(vectors: object, count: int, dimension: int, model_id: str) -> np.ndarray:
    """``vectors`` as a float32 ``(count, dimension)`` array, or ``EmbedderError``
    saying what is wrong: another shape (a model or library mix-up) or any NaN or
    infinite value (a numeric fault). Such vectors must never reach a store or cache,
    where they would poison every later search."""
    try:
        array = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbedderError(f"{model_id}: output is not a numeric array: {exc}") from exc
    if array.ndim != 2 or array.shape[1] != dimension:
        raise EmbedderError(f"{model_id}: output has shape {array.shape}, expected dimension {dimension}")
    if array.shape[0] != count:
        raise EmbedderError(f"{model_id}: {array.shape[0]} vectors for {count} texts")
    bad = ~np.isfinite(array).all(axis=1)
    if bad.any():
        raise EmbedderError(f"{model_id}: NaN or infinite values in {int(bad.sum())} of {count} vectors")
    return array
