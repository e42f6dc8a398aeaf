"""Shared plumbing for HTTP providers: one httpx client, retries with exponential
backoff and jitter on timeouts, connection errors, 429 and 5xx (honouring
``Retry-After``), server-sent events, and mapping every failure to GeneratorError
(or the subclass's ``error``: the remote embedders share this plumbing).

A streamed call is retried only until its response starts; once text has been
yielded a failure is raised, and the caller decides what to do with the partial
text (the answer service restarts with the extractive fallback).
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ...errors import GeneratorError, RaglineError

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


class _Retryable(Exception):
    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_message(response: httpx.Response) -> str:
    """The provider's own error text (all three put it under ``error.message``)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:300]
    return str(error or body)[:300]


class HTTPGenerator:
    """Base for HTTP providers. Subclasses build URLs, headers and bodies and parse
    replies; this class owns retries, timeouts and error mapping."""

    name = "http"
    error: type[RaglineError] = GeneratorError  # what every failure is raised as

    def __init__(self, *, name: str | None = None, base_url: str, model: str | None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5, max_wait: float = 8.0,
                 missing_key: str | None = None, client: httpx.Client | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise self.error(f"{name or self.name}: base_url must start with http:// or https://, got {base_url!r}")
        self.name = name or self.name
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_wait = max_wait
        self.missing_key = missing_key
        self.sleep = sleep
        self._client = client or httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=False)
        self.attempts = 0  # requests sent (for reports and tests)

    def close(self) -> None:
        self._client.close()

    # -- retries ---------------------------------------------------------------
    def _delay(self, attempt: int, hint: float | None) -> float:
        if hint is not None:
            return min(hint, self.max_wait)
        base = min(self.max_wait, self.backoff * (2 ** attempt))
        return base / 2 + random.uniform(0, base / 2)  # "equal jitter": never zero, never synchronised

    def _check(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        response.read()  # a streamed error reply still carries a JSON body
        message = f"HTTP {response.status_code}: {error_message(response)}"
        if response.status_code in RETRY_STATUS:
            raise _Retryable(message, retry_after(response.headers.get("retry-after")))
        raise self.error(f"{self.name}: {message}")

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        if self.missing_key:
            raise self.error(self.missing_key)
        last = "no attempt made"
        for attempt in range(self.max_retries + 1):
            self.attempts += 1
            try:
                return call()
            except _Retryable as exc:
                last, hint = exc.reason, exc.wait
            except httpx.TimeoutException as exc:
                last, hint = f"timed out ({type(exc).__name__})", None
            except httpx.TransportError as exc:
                last, hint = f"connection failed ({type(exc).__name__}: {exc})", None
            if attempt < self.max_retries:
                self.sleep(self._delay(attempt, hint))
        tries = self.max_retries + 1
        raise self.error(f"{self.name}: {last} (after {tries} attempt{'s' if tries > 1 else ''})")

    # -- calls -----------------------------------------------------------------
    def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """POST with retries; the decoded JSON reply."""

        def call() -> dict[str, Any]:
            response = self._client.post(url, json=body, headers=headers)
            self._check(response)
            return _json_object(self.name, "reply", response.text, self.error)

        return self._with_retries(call)

    def stream_events(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Iterator[ServerSentEvent]:
        """POST and iterate the reply's server-sent events. Retries until the
        response starts; later failures raise GeneratorError."""
        with self._open_stream(url, body, headers) as response:
            try:
                yield from EventSource(response).iter_sse()
            except SSEError as exc:
                raise GeneratorError(f"{self.name}: bad event stream: {exc}") from exc
            except httpx.TimeoutException as exc:
                raise GeneratorError(f"{self.name}: stream timed out ({type(exc).__name__})") from exc
            except httpx.TransportError as exc:
                raise GeneratorError(f"{self.name}: stream broken ({type(exc).__name__}: {exc})") from exc

    @contextmanager
    def _open_stream(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Iterator[httpx.Response]:
        headers = {**headers, "Accept": "text/event-stream"}

        def call() -> httpx.Response:
            request = self._client.build_request("POST", url, json=body, headers=headers)
            response = self._client.send(request, stream=True)
            try:
                self._check(response)
            except BaseException:
                response.close()
                raise
            return response

        response = self._with_retries(call)
        try:
            yield response
        finally:
            response.close()


def _json_object(generator: str, what: str, raw: str,
                 error: type[RaglineError] = GeneratorError) -> dict[str, Any]:
    """``raw`` decoded as a JSON object, or ``error`` naming the provider."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise error(f"{generator}: {what} is not JSON: {raw[:200]!r}") from exc
    if not isinstance(data, dict):
        raise error(f"{generator}: unexpected {what}: {raw[:200]!r}")
    return data


def parse_json_event(generator: str, event: ServerSentEvent) -> dict[str, Any]:
    return _json_object(generator, "event data", event.data)
