"""Tokens embedded at ingestion, per tenant: an embedder wrapper that notes each
batch on the meter. Tokens are the embedder's own count: for the local models
exact, taken from the tokenization they embed (``embed_documents_counted``); for
remote APIs, whose tokenizers cannot be fetched offline, the bundled wordpiece
count (``count_tokens``), an upper bound (docs/usage.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..embed.base import DelegatingEmbedder, Embedder
from ..models.usage import EMBED
from .meter import UsageMeter


class MeteredEmbedder(DelegatingEmbedder):
    """Notes ``embed_documents`` calls (texts and tokens) as the tenant's usage."""

    def __init__(self, inner: Embedder, meter: UsageMeter, tenant: str) -> None:
        super().__init__(inner)
        self.meter = meter
        self.tenant = tenant
        self.tokens = 0  # tokens noted so far (the embeddings endpoint reports them)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        counted = getattr(self.inner, "embed_documents_counted", None)
        if counted is not None:  # the local models: counted from the tokenization they embed
            vectors, tokens = counted(texts)
        else:
            vectors = self.inner.embed_documents(texts)
            count = getattr(self.inner, "count_tokens", None)
            tokens = sum(count(t) for t in texts) if count is not None else 0
        self.tokens += tokens
        self.meter.used(self.tenant, EMBED, self.model_id, events=len(texts), input_tokens=tokens)
        return vectors
