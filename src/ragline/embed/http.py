"""Shared plumbing of the remote embedders: a ``ProviderClient`` each (retries
with backoff and jitter on timeouts, connection errors, 429 and 5xx, honouring
``Retry-After``), errors raised as ``EmbedderError`` naming the setting to fix,
batching within the provider's limits, and every reply checked (count, dimension,
finite values) and L2-normalised before it can reach a store.

A subclass says how one batch is sent (``_embed_batch``) and its limits
(``max_batch``, ``max_batch_chars``); the base does the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np

from ..errors import EmbedderError
from ..providers.client import CallsProvider, ProviderClient
from ..providers.endpoint import checked_base_url
from ..providers.policy import CallPolicy
from .models import model_facts
from .vectors import check_vectors

if TYPE_CHECKING:
    from tokenizers import Tokenizer


class HTTPEmbedder(CallsProvider):
    """Base of the remote embedders (an ``Embedder``); ``self.http`` (a
    ``ProviderClient``) owns retries, timeouts and error mapping."""

    name = "http"
    max_batch = 256  # texts per request the provider accepts
    max_batch_chars = 1_000_000  # characters per request: a bound on its tokens-per-request limit

    def __init__(self, *, name: str, base_url: str, model: str | None, api_key: str | None = None,
                 dimensions: int | None = None, batch_size: int = 32, key_env: tuple[str, ...] = (),
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5, max_wait: float = 8.0,
                 deadline: float | None = None, max_reply_bytes: int | None = None,
                 missing_key: str | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not model:
            raise EmbedderError(f"{name}: no model; set RAGLINE_EMBEDDER__MODEL")
        self.name = name
        self.base_url = checked_base_url(name, base_url, EmbedderError)
        self.model = model
        self.api_key = api_key
        self.http = ProviderClient(name, error=EmbedderError, missing_key=missing_key, hint=self._advice,
                                   transport=transport, sleep=sleep,
                                   policy=CallPolicy(timeout=timeout, max_retries=max_retries, backoff=backoff,
                                                     max_wait=max_wait, deadline=deadline,
                                                     max_reply_bytes=max_reply_bytes,
                                                     settings="RAGLINE_EMBEDDER__"))
        self.model_id = f"{name}/{model}"
        self.dimensions = dimensions  # requested output dimensionality (None: the model's own)
        self.batch_size = batch_size
        self.key_env = key_env
        facts = model_facts(self.model_id)
        self.max_tokens = facts.max_tokens if facts is not None else None
        self._dimension = dimensions or (facts.dimension if facts is not None else None)
        self._tokenizer: Tokenizer | None = None


    # -- the Embedder protocol ---------------------------------------------------
    @property
    def dimension(self) -> int:
        """The configured or known dimension; for a model the registry does not know,
        measured by embedding one probe text (so a wrong key fails before any write)."""
        if self._dimension is None:
            self._dimension = len(self._embed_batch(["dimension probe"], query=False)[0])
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        start = 0
        for batch in self._batches(texts):
            out[start:start + len(batch)] = self._checked(self._embed_batch(batch, query=False), len(batch))
            start += len(batch)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._checked(self._embed_batch([text], query=True), 1)[0]

    def tokenizer(self) -> Tokenizer:
        """The provider's tokenizer cannot be fetched offline: the bundled wordpiece one
        (an upper bound for BPE counts) measures lengths for chunking and budgets."""
        if self._tokenizer is None:
            from .minilm import load_tokenizer  # the ONNX stack loads only when lengths are measured

            self._tokenizer = load_tokenizer()
        return self._tokenizer

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer().encode(text, add_special_tokens=False).ids)

    # -- for subclasses ------------------------------------------------------------
    def _embed_batch(self, texts: list[str], *, query: bool) -> list[list[float]]:
        """One request's vectors, in the order of ``texts``."""
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _advice(self, status: int) -> str:
        """Refusals a retry cannot fix name the setting that can."""
        if status in (401, 403):
            return f" (check {' or '.join(['RAGLINE_EMBEDDER__API_KEY', *self.key_env])})"
        if status in (400, 404, 422):
            return f" (check RAGLINE_EMBEDDER__MODEL={self.model!r} and RAGLINE_EMBEDDER__DIMENSIONS)"
        return ""

    # -- internals -----------------------------------------------------------------
    def _batches(self, texts: list[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        current: list[str] = []
        chars = 0
        for text in texts:
            if current and (len(current) >= self.max_batch or chars + len(text) > self.max_batch_chars):
                batches.append(current)
                current, chars = [], 0
            current.append(text)
            chars += len(text)
        if current:
            batches.append(current)
        return batches

    def _checked(self, vectors: object, count: int) -> np.ndarray:
        """Count, dimension and finite values checked, then L2-normalised (Gemini's
        reduced-dimension vectors and some servers' are not unit length)."""
        try:
            array = check_vectors(vectors, count, self.dimension, self.model_id)
        except EmbedderError as exc:
            raise EmbedderError(f"{exc} (check RAGLINE_EMBEDDER__MODEL={self.model!r} and "
                                f"RAGLINE_EMBEDDER__DIMENSIONS={self.dimensions})") from exc
        norms = np.linalg.norm(array, axis=1, keepdims=True)
        if (norms == 0).any():
            raise EmbedderError(f"{self.model_id}: the provider returned an all-zero vector")
        return array / norms


def vectors_from(reply: dict[str, Any], key: str, count: int, provider: str) -> list[Any]:
    """``reply[key]`` as a list of ``count`` items, or ``EmbedderError`` quoting the reply."""
    items = reply.get(key)
    if not isinstance(items, list) or len(items) != count:
        got = len(items) if isinstance(items, list) else type(items).__name__
        raise EmbedderError(f"{provider}: expected {count} embeddings under {key!r}, got {got}: {str(reply)[:200]}")
    return items
