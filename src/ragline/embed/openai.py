"""OpenAI-compatible ``POST {base_url}/embeddings``: OpenAI, Azure OpenAI, Ollama's
``/v1``, vLLM, LM Studio. Floats are requested explicitly (``encoding_format``), and
``dimensions`` is sent only when configured (OpenAI's v3 models shorten vectors;
other servers reject the field).

An Azure-style base URL carries its ``api-version`` in the query string
(``https://R.openai.azure.com/openai/deployments/D?api-version=2024-10-21``): the
path goes before the query, and the key is sent as ``api-key``.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from ..errors import EmbedderError
from .http import HTTPEmbedder, vectors_from


class OpenAIEmbedder(HTTPEmbedder):
    name = "openai"
    max_batch = 2048  # OpenAI's limit on inputs per request
    max_batch_chars = 250_000  # under its 300,000 tokens per request, whatever the tokenizer

    def _url(self) -> str:
        parts = urlsplit(self.base_url)
        return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/embeddings"))

    def _azure(self) -> bool:
        return "api-version=" in urlsplit(self.base_url).query

    def _headers(self) -> dict[str, str]:
        if self.api_key and self._azure():
            return {"api-key": self.api_key}
        return super()._headers()

    def _embed_batch(self, texts: list[str], *, query: bool) -> list[list[float]]:
        body: dict = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        reply = self.http.post_json(self._url(), body, self._headers())
        items = vectors_from(reply, "data", len(texts), self.name)
        try:  # each item says which input it embeds; servers may reorder
            ordered = sorted(items, key=lambda item: item["index"])
            return [item["embedding"] for item in ordered]
        except (KeyError, TypeError) as exc:
            raise EmbedderError(f"{self.name}: malformed embedding item: {str(items[0])[:200]}") from exc
