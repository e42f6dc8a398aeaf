"""The base of the HTTP answer generators (OpenAI-compatible, Gemini, Anthropic): a
``ProviderClient`` each (retries with backoff and jitter on timeouts, connection
errors, 429 and 5xx, honouring ``Retry-After``; every failure a ``GeneratorError``),
and the parsing of server-sent events they share.

A streamed call is retried only until its response starts; once text has been
yielded a failure is raised, and the caller decides what to do with the partial
text (the answer service restarts with the extractive fallback).

An answer is capped twice: on the wire by the policy's byte cap and deadline
(``ProviderClient``), and in text at ``TOKEN_CAP_FACTOR`` times the tokens the
request asked for (a provider that ignores ``max_tokens``, streamed or not).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from ...errors import GeneratorError
from ...providers.client import CallsProvider, ProviderClient, json_object
from ...providers.endpoint import checked_base_url
from ...providers.policy import CallPolicy
from .base import GenerationRequest

CHARS_PER_TOKEN = 4  # the usual estimate for English text; a cap, not a count
TOKEN_CAP_FACTOR = 2  # an answer past twice what was asked for is a provider ignoring max_tokens


def estimated_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class HTTPGenerator(CallsProvider):
    """Base for HTTP providers. Subclasses build URLs, headers and bodies and parse
    replies; ``self.http`` (a ``ProviderClient``) owns retries, timeouts and error
    mapping. Subclasses implement ``_generate`` and ``_stream``; ``generate`` and
    ``stream`` cap what they return."""

    name = "http"

    def __init__(self, *, name: str | None = None, base_url: str, model: str | None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5, max_wait: float = 8.0,
                 deadline: float | None = None, max_reply_bytes: int | None = None, missing_key: str | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.name = name or self.name
        self.base_url = checked_base_url(self.name, base_url, GeneratorError)
        self.model = model
        self.api_key = api_key
        self.http = ProviderClient(self.name, error=GeneratorError, missing_key=missing_key, transport=transport,
                                   sleep=sleep, policy=CallPolicy(timeout=timeout, max_retries=max_retries,
                                                                  backoff=backoff, max_wait=max_wait,
                                                                  deadline=deadline, max_reply_bytes=max_reply_bytes,
                                                                  settings="RAGLINE_GENERATOR__"))

    def generate(self, request: GenerationRequest) -> str:
        text = self._generate(request)
        self._check_tokens(request, estimated_tokens(text))
        return text

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        tokens = 0
        for piece in self._stream(request):
            tokens += estimated_tokens(piece)
            self._check_tokens(request, tokens)
            yield piece

    def _check_tokens(self, request: GenerationRequest, tokens: int) -> None:
        cap = TOKEN_CAP_FACTOR * request.max_output_tokens
        if tokens > cap:
            raise GeneratorError(f"{self.name}: the answer passed {cap} tokens (about {CHARS_PER_TOKEN} characters "
                                 f"each; {TOKEN_CAP_FACTOR} x RAGLINE_GENERATOR__MAX_OUTPUT_TOKENS): the provider "
                                 "ignored max_tokens; the rest was not read")

    def _generate(self, request: GenerationRequest) -> str:
        raise NotImplementedError

    def _stream(self, request: GenerationRequest) -> Iterator[str]:
        raise NotImplementedError


def tool_arguments(generator: str, raw: Any) -> dict[str, Any]:
    """A tool call's arguments as a JSON object (OpenAI sends them as a JSON string,
    Anthropic and Gemini as an object), or ``GeneratorError`` naming the generator."""
    if isinstance(raw, str):
        return json_object(generator, "tool arguments", raw, GeneratorError)
    if not isinstance(raw, dict):
        raise GeneratorError(f"{generator}: tool arguments are not an object: {str(raw)[:200]!r}")
    return raw


def parse_json_event(generator: str, event: ServerSentEvent) -> dict[str, Any]:
    """An event's data as a JSON object, or ``GeneratorError`` naming the generator."""
    return json_object(generator, "event data", event.data, GeneratorError)
