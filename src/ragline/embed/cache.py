"""Query-side embedding cache: a repeated question costs no embedding.

Bounded (least recently used out first) and in memory: query vectors are cheap to
recompute and a process restart empties it. Keys are (tenant, model id, SHA-256 of
the text): one tenant's question never answers from, or times, another's
(as with ``EmbeddingCache``, a shared cache would tell a tenant whether someone else
had just asked an exact question).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from .base import DelegatingEmbedder, Embedder


class QueryCache:
    """At most ``size`` query vectors, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._vectors: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._vectors)

    @staticmethod
    def key(tenant: str, model_id: str, text: str) -> tuple[str, str, str]:
        return tenant, model_id, hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, key: tuple[str, str, str]) -> np.ndarray | None:
        with self._lock:
            vector = self._vectors.get(key)
            if vector is None:
                self.misses += 1
                return None
            self._vectors.move_to_end(key)
            self.hits += 1
            return vector

    def put(self, key: tuple[str, str, str], vector: np.ndarray) -> None:
        if self.size <= 0:
            return
        frozen = np.array(vector, dtype=np.float32)
        frozen.setflags(write=False)  # shared between callers: nobody may change it in place
        with self._lock:
            self._vectors[key] = frozen
            self._vectors.move_to_end(key)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)

    def for_tenant(self, embedder: Embedder, tenant: str) -> Embedder:
        """``embedder`` with this cache on its queries, for ``tenant``'s questions."""
        return CachedQueryEmbedder(embedder, self, tenant)


class CachedQueryEmbedder(DelegatingEmbedder):
    """An embedder whose ``embed_query`` answers from a ``QueryCache`` when it can.
    Only finite vectors of the right width are kept (a fault is never remembered)."""

    def __init__(self, inner: Embedder, cache: QueryCache, tenant: str) -> None:
        super().__init__(inner)
        self.cache = cache
        self.tenant = tenant

    def embed_query(self, text: str) -> np.ndarray:
        key = QueryCache.key(self.tenant, self.model_id, text)
        vector = self.cache.get(key)
        if vector is None:
            vector = self.inner.embed_query(text)
            array = np.asarray(vector)
            if array.shape == (self.dimension,) and np.isfinite(array).all():
                self.cache.put(key, array)
        return vector
