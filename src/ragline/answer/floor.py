"""The relevance floor of one collection, from its own scores.

The model's floor (``embed.models``: 0.39 for MiniLM) was measured on SciFact, a
biomedical set. A bank's or a shop's pages score otherwise: a paraphrased fee
question can reach only 0.38 against the page that answers it, while questions
about nothing in the collection stay far lower. So each collection (as a scope
reads it) gets its own floor from its *background*: the best cosine that
questions about nothing in it reach — a fixed set of everyday off-topic
questions in English and Spanish (``PROBES``), searched like any question.

    floor = clamp(highest background + MARGIN, base - MAX_LOWER, base)

The floor is only ever lowered, never raised above the model's, and by at most
``MAX_LOWER``: questions near the collection's topic but not answered by it are
the near-miss checks' job (``constraints``), not the floor's. Computed once per
scope and size of its collections (a new document recomputes it), about 20 dense
searches the first time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from ..embed.base import Embedder
from ..errors import EmbedderError
from ..models import Scope

# Everyday questions about nothing a knowledge base holds: what an unrelated question scores here.
PROBES = (
    "What's the weather forecast for tomorrow?", "Who won the football match last night?",
    "How do I bake sourdough bread at home?", "What is the capital of Australia?",
    "Recommend a good science fiction novel.", "How many calories are in a banana?",
    "When was the Eiffel Tower built?", "How do I fix a flat bicycle tyre?",
    "What time does the train to the airport leave?", "How tall is Mount Everest?",
    "Write a short poem about the sea.", "Which planet is closest to the sun?",
    "¿Qué tiempo hará mañana?", "¿Quién ganó el partido de fútbol ayer?",
    "¿Cómo se hace una tortilla de patatas?", "¿Cuál es la capital de Australia?",
    "Recomiéndame una película de miedo.", "¿A qué hora sale el tren al aeropuerto?",
)
MARGIN = 0.03  # above the highest background
MAX_LOWER = 0.12  # at most this far below the model's floor


class FloorCalibrator:
    """Per-scope floors, cached until the scope's collections change size."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._probes: np.ndarray | None = None
        self._floors: dict[tuple[object, ...], float] = {}
        self._lock = threading.Lock()

    def floor(self, scope: Scope, base: float, size: tuple[str, ...],
              best: Callable[[np.ndarray], float | None]) -> float:
        """The floor for ``scope``: ``base`` lowered to its background (module
        docstring). ``size`` identifies the collections' contents (names and chunk counts);
        ``best(vector)`` is the highest cosine a query vector reaches in the scope."""
        key = (scope.tenant, scope.collections, scope.owner, size, base)
        with self._lock:
            known = self._floors.get(key)
        if known is not None:
            return known
        vectors = self._probe_vectors()
        if vectors is None:
            return base
        background = [b for b in (best(v) for v in vectors) if b is not None]
        floor = calibrated(base, background)
        with self._lock:
            if len(self._floors) > 1024:
                self._floors.clear()
            self._floors[key] = floor
        return floor

    def _probe_vectors(self) -> np.ndarray | None:
        if self._probes is None:
            try:
                self._probes = np.stack([self.embedder.embed_query(p) for p in PROBES])
            except EmbedderError:
                return None
        return self._probes


def calibrated(base: float, background: Sequence[float]) -> float:
    """``base`` lowered towards the highest background score (see the module docstring)."""
    if not background:
        return base
    return float(min(base, max(max(background) + MARGIN, base - MAX_LOWER)))
