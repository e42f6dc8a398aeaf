"""Google Gemini ``models/{model}:batchEmbedContents`` (key in ``x-goog-api-key``).

Task types make the model asymmetric: chunks are sent as ``RETRIEVAL_DOCUMENT``,
questions as ``RETRIEVAL_QUERY``. ``outputDimensionality`` shortens the vectors when
``RAGLINE_EMBEDDER__DIMENSIONS`` is set (they are re-normalised by the base class).
"""

from __future__ import annotations

from ..errors import EmbedderError
from .http import HTTPEmbedder, vectors_from


class GeminiEmbedder(HTTPEmbedder):
    name = "gemini"
    max_batch = 100  # requests per batchEmbedContents call

    def _headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.api_key} if self.api_key else {}

    def _model_path(self) -> str:
        return self.model if str(self.model).startswith("models/") else f"models/{self.model}"

    def _embed_batch(self, texts: list[str], *, query: bool) -> list[list[float]]:
        model = self._model_path()
        task = "RETRIEVAL_QUERY" if query else "RETRIEVAL_DOCUMENT"
        requests = []
        for text in texts:
            request: dict = {"model": model, "content": {"parts": [{"text": text}]}, "taskType": task}
            if self.dimensions is not None:
                request["outputDimensionality"] = self.dimensions
            requests.append(request)
        reply = self.http.post_json(f"{self.base_url}/{model}:batchEmbedContents", {"requests": requests},
                               self._headers())
        items = vectors_from(reply, "embeddings", len(texts), self.name)
        try:
            return [item["values"] for item in items]
        except (KeyError, TypeError) as exc:
            raise EmbedderError(f"{self.name}: malformed embedding: {str(items[0])[:200]}") from exc
