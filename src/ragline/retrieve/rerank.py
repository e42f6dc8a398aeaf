"""The rerank stage: re-sort the top hits of a search before they are cut to ``k``.

One Protocol, chosen by ``search.rerank``:

- ``cosine``: by cosine(question, chunk) from the stored vectors, the question
  embedded if the search did not (keyword mode). Fused hybrid scores mix two
  scales; this orders by the one that says how close the meaning is.
- ``cross-encoder``: a model that reads question and passage together and scores
  the pair, from a local folder (``search.rerank_model``: ``tokenizer.json`` and an
  exported ``onnx/model.onnx`` whose first output is the relevance logit). None
  ships with ragline: no such model is on PyPI.

A reranker that fails (embedder down, model error) keeps the search's own order:
reranking refines, it never breaks a search.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..embed.base import Embedder
from ..errors import ConfigError, EmbedderError
from ..models import Hit, Scope, index_text
from ..settings import SearchSettings
from ..store import Store

if TYPE_CHECKING:
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)


class Reranker(Protocol):
    def rerank(self, query: str, query_vector: np.ndarray | None, hits: list[Hit], scope: Scope) -> list[Hit]:
        """``hits`` re-sorted, best first, each with the reranker's score."""
        ...


class CosineReranker:
    """Re-sorts by cosine(question, chunk); hits without a stored vector keep their
    place after the ones that have one."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def rerank(self, query: str, query_vector: np.ndarray | None, hits: list[Hit], scope: Scope) -> list[Hit]:
        if query_vector is None:
            try:
                query_vector = self.embedder.embed_query(query)
            except EmbedderError as exc:
                log.info("cosine rerank skipped: %s", exc)
                return hits
        vectors = self.store.vectors(scope, [h.chunk_id for h in hits])
        q = np.asarray(query_vector, dtype=np.float32)
        scored = [replace(h, score=float(np.dot(vectors[h.chunk_id], q))) for h in hits if h.chunk_id in vectors]
        scored.sort(key=lambda h: -h.score)
        return scored + [h for h in hits if h.chunk_id not in vectors]


class CrossEncoderReranker:
    """Scores (question, passage) pairs with a cross-encoder on ONNX Runtime."""

    def __init__(self, folder: Path | str, *, batch_size: int = 16, max_length: int = 512) -> None:
        self.folder = Path(folder)
        missing = [f for f in ("tokenizer.json", "onnx/model.onnx") if not (self.folder / f).is_file()]
        if missing:
            raise ConfigError(f"RAGLINE_SEARCH__RERANK_MODEL={str(folder)!r}: missing {', '.join(missing)}")
        self.batch_size = batch_size
        self.max_length = max_length
        self._lock = threading.Lock()
        self._loaded: tuple[Tokenizer, Any] | None = None  # and the onnxruntime InferenceSession (untyped)

    def _load(self) -> tuple[Tokenizer, Any]:
        with self._lock:
            if self._loaded is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
                tokenizer.no_padding()
                tokenizer.enable_truncation(self.max_length)
                session = ort.InferenceSession(str(self.folder / "onnx" / "model.onnx"),
                                               providers=["CPUExecutionProvider"])
                self._loaded = (tokenizer, session)
            return self._loaded

    def scores(self, query: str, passages: list[str]) -> np.ndarray:
        """One relevance score per passage (the model's first logit)."""
        tokenizer, session = self._load()
        inputs = {i.name: i.type for i in session.get_inputs()}
        out = []
        for start in range(0, len(passages), self.batch_size):
            pairs = tokenizer.encode_batch([(query, p) for p in passages[start:start + self.batch_size]])
            seq = max(len(e.ids) for e in pairs)
            given = {name: np.zeros((len(pairs), seq), dtype=np.int64) for name in
                     ("input_ids", "attention_mask", "token_type_ids")}
            for row, e in enumerate(pairs):
                given["input_ids"][row, :len(e.ids)] = e.ids
                given["attention_mask"][row, :len(e.ids)] = 1
                given["token_type_ids"][row, :len(e.ids)] = e.type_ids
            feeds = {n: given[n].astype(np.int64 if "int64" in t else np.int32) for n, t in inputs.items()}
            logits = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
            out.append(logits.reshape(len(pairs), -1)[:, 0])
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def rerank(self, query: str, query_vector: np.ndarray | None, hits: list[Hit], scope: Scope) -> list[Hit]:
        try:
            scores = self.scores(query, [index_text(h.title, h.text, h.section) for h in hits])
        except Exception as exc:  # noqa: BLE001  (onnxruntime and tokenizers raise plain Exceptions)
            log.warning("cross-encoder rerank failed, search order kept: %s: %s", type(exc).__name__, exc)
            return hits
        return sorted((replace(h, score=float(s)) for h, s in zip(hits, scores)), key=lambda h: -h.score)


def make_reranker(settings: SearchSettings, store: Store, embedder: Embedder) -> Reranker | None:
    """The reranker ``settings.rerank`` names (None for ``none``)."""
    if settings.rerank == "cosine":
        return CosineReranker(store, embedder)
    if settings.rerank == "cross-encoder":
        if not settings.rerank_model:
            raise ConfigError("search.rerank='cross-encoder' needs RAGLINE_SEARCH__RERANK_MODEL (a local folder)")
        return CrossEncoderReranker(settings.rerank_model)
    return None
