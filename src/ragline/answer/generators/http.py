"""The base of the HTTP answer generators (OpenAI-compatible, Gemini, Anthropic): a
``ProviderClient`` each (retries with backoff and jitter on timeouts, connection
errors, 429 and 5xx, honouring ``Retry-After``; every failure a ``GeneratorError``),
and the parsing of server-sent events they share.

A streamed call is retried only until its response starts; once text has been
yielded a failure is raised, and the caller decides what to do with the partial
text (the answer service restarts with the extractive fallback).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from ...errors import GeneratorError
from ...providers.client import CallsProvider, ProviderClient, json_object
from ...providers.endpoint import checked_base_url
from ...providers.policy import CallPolicy


class HTTPGenerator(CallsProvider):
    """Base for HTTP providers. Subclasses build URLs, headers and bodies and parse
    replies; ``self.http`` (a ``ProviderClient``) owns retries, timeouts and error
    mapping."""

    name = "http"

    def __init__(self, *, name: str | None = None, base_url: str, model: str | None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5, max_wait: float = 8.0,
                 missing_key: str | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.name = name or self.name
        self.base_url = checked_base_url(self.name, base_url, GeneratorError)
        self.model = model
        self.api_key = api_key
        self.http = ProviderClient(self.name, error=GeneratorError, missing_key=missing_key, transport=transport,
                                   sleep=sleep, policy=CallPolicy(timeout=timeout, max_retries=max_retries,
                                                                  backoff=backoff, max_wait=max_wait))


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
