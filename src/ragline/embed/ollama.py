"""Ollama's native ``POST {base_url}/api/embed`` (``{"model", "input": [...]}`` →
``{"embeddings": [[...]]}``). ``truncate`` is off: a text over the model's context is
an error to see, not a silent cut (ragline's chunkers keep chunks under
``max_tokens``). For Ollama's OpenAI-compatible ``/v1``, use the ``openai`` embedder."""

from __future__ import annotations

from .http import HTTPEmbedder, vectors_from


class OllamaEmbedder(HTTPEmbedder):
    name = "ollama"
    max_batch = 256

    def _embed_batch(self, texts: list[str], *, query: bool) -> list[list[float]]:
        body: dict = {"model": self.model, "input": texts, "truncate": False}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        reply = self.http.post_json(f"{self.base_url}/api/embed", body, self._headers())
        return vectors_from(reply, "embeddings", len(texts), self.name)
