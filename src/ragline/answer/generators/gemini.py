"""Google Gemini: ``models/{model}:generateContent`` and
``models/{model}:streamGenerateContent?alt=sse`` (API key in ``x-goog-api-key``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import GeneratorError
from .base import GenerationRequest
from .http import HTTPGenerator, parse_json_event


def _text(data: dict[str, Any], generator: str) -> str:
    candidates = data.get("candidates") or []
    if not candidates:
        blocked = (data.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            raise GeneratorError(f"{generator}: prompt blocked ({blocked})")
        return ""
    parts = ((candidates[0].get("content") or {}).get("parts")) or []
    return "".join(p.get("text", "") for p in parts if isinstance(p, dict) and not p.get("thought"))


class GeminiGenerator(HTTPGenerator):
    name = "gemini"

    def _headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.api_key} if self.api_key else {}

    def _body(self, request: GenerationRequest) -> dict[str, Any]:
        return {
            "systemInstruction": {"parts": [{"text": request.prompt.system}]},
            "contents": [{"role": "user", "parts": [{"text": request.prompt.user}]}],
            "generationConfig": {"temperature": request.temperature, "maxOutputTokens": request.max_output_tokens},
        }

    def _url(self, method: str) -> str:
        model = self.model if (self.model or "").startswith("models/") else f"models/{self.model}"
        return f"{self.base_url}/{model}:{method}"

    def _generate(self, request: GenerationRequest) -> str:
        data = self.http.post_json(self._url("generateContent"), self._body(request), self._headers())
        _usage(request, data)
        text = _text(data, self.name)
        if not text.strip():
            reason = ((data.get("candidates") or [{}])[0]).get("finishReason")
            raise GeneratorError(f"{self.name}: empty answer (finishReason {reason!r})")
        return text

    def _stream(self, request: GenerationRequest) -> Iterator[str]:
        produced = finished = False
        url = self._url("streamGenerateContent") + "?alt=sse"
        for event in self.http.stream_events(url, self._body(request), self._headers()):
            data = parse_json_event(self.name, event)
            if "error" in data:
                raise GeneratorError(f"{self.name}: {data['error']}")
            _usage(request, data)  # cumulative on each chunk: the last one counts
            text = _text(data, self.name)
            if text:
                produced = True
                yield text
            finished = finished or bool((data.get("candidates") or [{}])[0].get("finishReason"))
        if not finished:  # the connection closed before the last chunk (it carries finishReason)
            raise GeneratorError(f"{self.name}: the stream ended early (no finishReason)")
        if not produced:
            raise GeneratorError(f"{self.name}: the stream ended without any text")


def _usage(request: GenerationRequest, data: dict[str, Any]) -> None:
    usage = data.get("usageMetadata")
    if isinstance(usage, dict):
        request.usage.set(usage.get("promptTokenCount"), usage.get("candidatesTokenCount"))
