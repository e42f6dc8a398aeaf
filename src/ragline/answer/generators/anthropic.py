"""Anthropic Messages API: ``POST {base_url}/messages``, streamed as named events
(message_start, content_block_delta, message_stop, error, ping)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import GeneratorError
from .base import GenerationRequest, ToolRequest
from .http import HTTPGenerator, parse_json_event, tool_arguments

API_VERSION = "2023-06-01"


class AnthropicGenerator(HTTPGenerator):
    name = "anthropic"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def _body(self, request: GenerationRequest, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "max_tokens": request.max_output_tokens,
                                "system": request.prompt.system, "temperature": request.temperature,
                                "messages": [{"role": "user", "content": request.prompt.user}]}
        if stream:
            body["stream"] = True
        return body

    def _generate(self, request: GenerationRequest) -> str:
        data = self.http.post_json(f"{self.base_url}/messages", self._body(request, False), self._headers())
        if data.get("type") == "error":
            raise GeneratorError(f"{self.name}: {(data.get('error') or {}).get('message', data)}")
        usage = data.get("usage") or {}
        request.usage.set(usage.get("input_tokens"), usage.get("output_tokens"))
        text = "".join(block.get("text", "") for block in data.get("content") or []
                       if isinstance(block, dict) and block.get("type") == "text")
        if not text.strip():
            raise GeneratorError(f"{self.name}: empty answer (stop_reason {data.get('stop_reason')!r})")
        return text

    def call_tool(self, request: ToolRequest) -> dict[str, Any]:
        """``tools`` with one tool and ``tool_choice: {"type": "tool"}``; the arguments
        from the reply's ``tool_use`` block (``input``, an object)."""
        body = {"model": self.model, "max_tokens": request.max_output_tokens, "system": request.system,
                "temperature": request.temperature, "messages": [{"role": "user", "content": request.user}],
                "tools": [{"name": request.name, "description": request.description,
                           "input_schema": request.parameters}],
                "tool_choice": {"type": "tool", "name": request.name}}
        data = self.http.post_json(f"{self.base_url}/messages", body, self._headers())
        if data.get("type") == "error":
            raise GeneratorError(f"{self.name}: {(data.get('error') or {}).get('message', data)}")
        usage = data.get("usage") or {}
        request.usage.set(usage.get("input_tokens"), usage.get("output_tokens"))
        uses = [b for b in data.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"
                and b.get("name") == request.name]
        if not uses:
            raise GeneratorError(f"{self.name}: the model did not call {request.name} "
                                 f"(stop_reason {data.get('stop_reason')!r})")
        return tool_arguments(self.name, uses[0].get("input"))

    def _stream(self, request: GenerationRequest) -> Iterator[str]:
        produced = finished = False
        for event in self.http.stream_events(f"{self.base_url}/messages", self._body(request, True), self._headers()):
            kind = event.event
            if kind == "ping":
                continue
            data = parse_json_event(self.name, event)
            kind = data.get("type", kind)
            if kind == "error":
                error = data.get("error") or {}
                raise GeneratorError(f"{self.name}: {error.get('type', 'error')}: {error.get('message', '')}")
            if kind == "message_start":  # input tokens here; output tokens so far in message_delta
                request.usage.set(input_tokens=((data.get("message") or {}).get("usage") or {}).get("input_tokens"))
            elif kind == "message_delta":
                request.usage.set(output_tokens=(data.get("usage") or {}).get("output_tokens"))
            if kind == "content_block_delta":
                delta = data.get("delta") or {}
                if delta.get("type") == "text_delta" and delta.get("text"):
                    produced = True
                    yield delta["text"]
            elif kind == "message_stop":
                finished = True
                break
        if not finished:  # the connection closed before message_stop
            raise GeneratorError(f"{self.name}: the stream ended early (no message_stop)")
        if not produced:
            raise GeneratorError(f"{self.name}: the stream ended without any text")
