"""OpenAI-compatible chat completions: OpenAI, Groq, Ollama, vLLM, llama.cpp
server, LM Studio — anything serving ``POST {base_url}/chat/completions``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import GeneratorError
from .base import GenerationRequest, ToolRequest
from .http import HTTPGenerator, parse_json_event, tool_arguments


class OpenAIGenerator(HTTPGenerator):
    name = "openai"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _body(self, request: GenerationRequest, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": request.prompt.messages(),
                                "temperature": request.temperature, "max_tokens": request.max_output_tokens}
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}  # a last chunk carries the usage
        return body

    def _generate(self, request: GenerationRequest) -> str:
        data = self.http.post_json(f"{self.base_url}/chat/completions", self._body(request, False), self._headers())
        _usage(request, data)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise GeneratorError(f"{self.name}: reply has no choices[0].message.content: {str(data)[:200]}") from exc
        if not isinstance(content, str) or not content.strip():
            raise GeneratorError(f"{self.name}: empty answer (finish_reason "
                                 f"{data['choices'][0].get('finish_reason')!r})")
        return content

    def call_tool(self, request: ToolRequest) -> dict[str, Any]:
        """``tools`` with one function and ``tool_choice`` naming it; the arguments
        from ``choices[0].message.tool_calls[0].function.arguments`` (a JSON string)."""
        body = {"model": self.model, "temperature": request.temperature, "max_tokens": request.max_output_tokens,
                "messages": [{"role": "system", "content": request.system},
                             {"role": "user", "content": request.user}],
                "tools": [{"type": "function", "function": {"name": request.name, "description": request.description,
                                                            "parameters": request.parameters}}],
                "tool_choice": {"type": "function", "function": {"name": request.name}}}
        data = self.http.post_json(f"{self.base_url}/chat/completions", body, self._headers())
        usage = data.get("usage")
        if isinstance(usage, dict):
            request.usage.set(usage.get("prompt_tokens"), usage.get("completion_tokens"))
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise GeneratorError(f"{self.name}: reply has no choices[0].message: {str(data)[:200]}") from exc
        calls = [c.get("function") or {} for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        chosen = [c for c in calls if c.get("name") == request.name]
        if not chosen:
            said = (message.get("content") or "")[:120]
            raise GeneratorError(f"{self.name}: the model did not call {request.name}"
                                 + (f" (it said {said!r})" if said else ""))
        return tool_arguments(self.name, chosen[0].get("arguments"))

    def _stream(self, request: GenerationRequest) -> Iterator[str]:
        url = f"{self.base_url}/chat/completions"
        produced = finished = False
        for event in self.http.stream_events(url, self._body(request, True), self._headers()):
            if event.data.strip() == "[DONE]":
                finished = True
                break
            data = parse_json_event(self.name, event)
            if "error" in data:  # some servers report failures inside the stream
                raise GeneratorError(f"{self.name}: {data['error']}")
            _usage(request, data)
            for choice in data.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    produced = True
                    yield text
                finished = finished or bool(choice.get("finish_reason"))
        if not finished:  # the connection closed before the server said it was done
            raise GeneratorError(f"{self.name}: the stream ended early (no finish_reason or [DONE])")
        if not produced:
            raise GeneratorError(f"{self.name}: the stream ended without any text")


def _usage(request: GenerationRequest, data: dict[str, Any]) -> None:
    usage = data.get("usage")
    if isinstance(usage, dict):
        request.usage.set(usage.get("prompt_tokens"), usage.get("completion_tokens"))
