"""Google Gemini: ``models/{model}:generateContent`` and
``models/{model}:streamGenerateContent?alt=sse`` (API key in ``x-goog-api-key``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import GeneratorError
from .base import GenerationRequest, ToolRequest
from .http import HTTPGenerator, parse_json_event, tool_arguments


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

    def call_tool(self, request: ToolRequest) -> dict[str, Any]:
        """``tools.functionDeclarations`` with one function and ``functionCallingConfig``
        mode ``ANY`` allowing only it; the arguments from the reply's ``functionCall.args``."""
        body = {"systemInstruction": {"parts": [{"text": request.system}]},
                "contents": [{"role": "user", "parts": [{"text": request.user}]}],
                "tools": [{"functionDeclarations": [{"name": request.name, "description": request.description,
                                                     "parameters": openapi_schema(request.parameters)}]}],
                "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [request.name]}},
                "generationConfig": {"temperature": request.temperature,
                                     "maxOutputTokens": request.max_output_tokens}}
        data = self.http.post_json(self._url("generateContent"), body, self._headers())
        usage = data.get("usageMetadata")
        if isinstance(usage, dict):
            request.usage.set(usage.get("promptTokenCount"), usage.get("candidatesTokenCount"))
        candidates = data.get("candidates") or []
        parts = ((candidates[0].get("content") or {}).get("parts") or []) if candidates else []
        calls = [p["functionCall"] for p in parts if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)
                 and p["functionCall"].get("name") == request.name]
        if not calls:
            reason = candidates[0].get("finishReason") if candidates else None
            raise GeneratorError(f"{self.name}: the model did not call {request.name} (finishReason {reason!r})")
        return tool_arguments(self.name, calls[0].get("args"))

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


def openapi_schema(schema: Any) -> Any:
    """A JSON schema in the OpenAPI subset Gemini's function declarations take: a
    nullable ``anyOf`` becomes ``nullable``; ``additionalProperties``, ``default`` and
    ``title`` go (Gemini refuses them)."""
    if isinstance(schema, list):
        return [openapi_schema(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            merged = {**{k: v for k, v in schema.items() if k != "anyOf"}, **kept[0]}
            if len(kept) < len(options):
                merged["nullable"] = True
            return openapi_schema(merged)
    out = {k: openapi_schema(v) for k, v in schema.items()
           if k not in ("additionalProperties", "default", "title", "properties")}
    if isinstance(schema.get("properties"), dict):  # property names are kept whatever they are
        out["properties"] = {name: openapi_schema(v) for name, v in schema["properties"].items()}
    return out
