"""``ProviderClient``: the HTTP client of every remote provider ragline calls (answer
generators, remote embedders, the bank connector).

One ``httpx.Client`` per provider; each call retried by ``tenacity`` as its
``CallPolicy`` says (timeouts, connection errors, retryable statuses, replies a
caller's check refuses as transient; ``Retry-After`` honoured), and every failure
raised as the error class the caller names (``GeneratorError``, ``EmbedderError``,
``ConnectorError``), with the provider's own error text, so no httpx exception
escapes. A streamed call is retried only until its response starts; once events
flow, a failure is raised and the caller decides what to do with what it has.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import httpx
import tenacity
from httpx_sse import EventSource, ServerSentEvent, SSEError

from ..errors import RaglineError
from .policy import CallPolicy, retry_after

T = TypeVar("T")


class Retry(Exception):
    """Raised within a call to have it attempted again: ``reason`` is what the final
    error says if no attempt succeeds, ``wait`` the server's hint in seconds."""

    def __init__(self, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def error_message(response: httpx.Response) -> str:
    """The provider's own error text (OpenAI, Gemini and Anthropic all put it under
    ``error.message``), else the start of the body, else the reason phrase."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:300]
    return str(error or body)[:300]


def json_object(label: str, what: str, raw: str, error: type[RaglineError]) -> dict[str, Any]:
    """``raw`` decoded as a JSON object, or ``error`` naming ``label`` and ``what``."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise error(f"{label}: {what} is not JSON: {raw[:200]!r}") from exc
    if not isinstance(data, dict):
        raise error(f"{label}: unexpected {what}: {raw[:200]!r}")
    return data


def _failure(exc: httpx.RequestError) -> Retry:
    """A request that got no usable reply, as the reason a retry gives."""
    kind = type(exc).__name__
    if isinstance(exc, httpx.TimeoutException):
        return Retry(f"timed out ({kind})")
    if isinstance(exc, httpx.TransportError):
        return Retry(f"connection failed ({kind}: {exc})")
    return Retry(f"request failed ({kind}: {exc})")  # an undecodable body, a redirect loop


class ProviderClient:
    """Calls to one provider. ``name`` starts every error message; ``error`` is the
    class they are raised as. ``describe`` reads a refusal's text from the reply
    (default: ``error.message``); ``hint(status)`` may add advice to a refusal that
    no retry can cure (" (check RAGLINE_…)"). ``missing_key``, when set, is raised
    before any request. ``transport`` and ``sleep`` are for tests."""

    def __init__(self, name: str, *, error: type[RaglineError], policy: CallPolicy,
                 missing_key: str | None = None, describe: Callable[[httpx.Response], str] = error_message,
                 hint: Callable[[int], str] | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.name = name
        self.error = error
        self.policy = policy
        self.missing_key = missing_key
        self.describe = describe
        self.hint = hint
        self.sleep = sleep
        self.attempts = 0  # requests sent (for reports and tests)
        self._http = httpx.Client(timeout=httpx.Timeout(policy.timeout), follow_redirects=False,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    # -- calls -------------------------------------------------------------------------
    def send(self, method: str, url: str, *, what: str | None = None,
             check: Callable[[httpx.Response], None] | None = None, **request: Any) -> httpx.Response:
        """The response to ``method url`` (``request``: httpx's ``params``, ``data``,
        ``json``, ``headers``). Retried statuses and failed requests are attempted
        again; any other response (refusals included) is returned for the caller to
        read. ``check`` may raise ``Retry`` on a reply that is not what was expected;
        ``what`` names the call in errors ("TrueLayer accounts: …")."""

        def attempt() -> httpx.Response:
            response = self._attempt(method, url, stream=False, **request)
            if check is not None and response.status_code < 400:
                check(response)
            return response

        return self._call(attempt, what)

    def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """POST ``body`` as JSON; the reply decoded as a JSON object. A refusal (a
        status that is not retried) raises at once."""

        def attempt() -> dict[str, Any]:
            response = self._attempt("POST", url, stream=False, json=body, headers=headers)
            self._refuse(response)
            return json_object(self.name, "reply", response.text, self.error)

        return self._call(attempt)

    def stream_events(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Iterator[ServerSentEvent]:
        """POST and iterate the reply's server-sent events. Retried until the response
        starts; a later failure raises at once."""
        with self._open_stream(url, body, headers) as response:
            try:
                yield from EventSource(response).iter_sse()
            except SSEError as exc:
                raise self.error(f"{self.name}: bad event stream: {exc}") from exc
            except httpx.TimeoutException as exc:
                raise self.error(f"{self.name}: stream timed out ({type(exc).__name__})") from exc
            except httpx.TransportError as exc:
                raise self.error(f"{self.name}: stream broken ({type(exc).__name__}: {exc})") from exc

    @contextmanager
    def _open_stream(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Iterator[httpx.Response]:
        headers = {**headers, "Accept": "text/event-stream"}

        def attempt() -> httpx.Response:
            response = self._attempt("POST", url, stream=True, json=body, headers=headers)
            try:
                self._refuse(response)
            except BaseException:
                response.close()
                raise
            return response

        response = self._call(attempt)
        try:
            yield response
        finally:
            response.close()

    # -- one attempt, and the retries around it ------------------------------------------
    def _attempt(self, method: str, url: str, *, stream: bool, **request: Any) -> httpx.Response:
        """One request: failures to get a reply, and replies with a retried status,
        raise ``Retry``."""
        self.attempts += 1
        # Each attempt's timeout is read from the policy here, where a deadline across
        # the retries would shorten it.
        timeout = httpx.Timeout(self.policy.timeout)
        try:
            response = self._http.send(self._http.build_request(method, url, timeout=timeout, **request),
                                       stream=stream)
            if self.policy.retries(response.status_code):
                try:
                    response.read()  # a streamed error reply still carries a body worth quoting
                finally:
                    response.close()
                raise Retry(f"HTTP {response.status_code}: {self.describe(response)}",
                            retry_after(response.headers.get("retry-after")))
        except httpx.RequestError as exc:
            raise _failure(exc) from exc
        return response

    def _refuse(self, response: httpx.Response) -> None:
        """A status that no retry cures, as ``error`` with the provider's text."""
        if response.status_code < 400:
            return
        try:
            response.read()
        except httpx.RequestError as exc:  # the refusal's body never came: worth another attempt
            raise _failure(exc) from exc
        advice = self.hint(response.status_code) if self.hint is not None else ""
        raise self.error(f"{self.name}: HTTP {response.status_code}: {self.describe(response)}{advice}")

    def _call(self, attempt: Callable[[], T], what: str | None = None) -> T:
        """``attempt`` run as the policy says; the last failure raised as ``error``."""
        label = f"{self.name} {what}" if what else self.name
        if self.missing_key:
            raise self.error(self.missing_key)
        retrying = self._retrying()
        try:
            return retrying(attempt)
        except Retry as exc:
            tries = retrying.statistics["attempt_number"]
            raise self.error(f"{label}: {exc.reason} (after {tries} attempt{'s' if tries > 1 else ''})") \
                from exc.__cause__

    def _retrying(self) -> tenacity.Retrying:
        """The one place a call's retries are decided, from its ``CallPolicy``: how
        many attempts, which failures retry (``Retry``), how long each wait is, how it
        is slept. A deadline across the retries would be one more ``stop`` here."""
        policy = self.policy

        def wait(state: tenacity.RetryCallState) -> float:
            failure = state.outcome.exception() if state.outcome is not None else None
            return policy.delay(state.attempt_number - 1, failure.wait if isinstance(failure, Retry) else None)

        return tenacity.Retrying(stop=tenacity.stop_after_attempt(policy.attempts), wait=wait,
                                 retry=tenacity.retry_if_exception_type(Retry),
                                 sleep=lambda seconds: self.sleep(seconds), reraise=True)


class CallsProvider:
    """What an object calling a provider through ``self.http`` (a ``ProviderClient``)
    shows of it: requests sent, how waits are spent, and closing its connections."""

    http: ProviderClient

    @property
    def attempts(self) -> int:
        """Requests sent (for reports and tests)."""
        return self.http.attempts

    @property
    def sleep(self) -> Callable[[float], None]:
        """How the waits between attempts are spent (tests record them instead)."""
        return self.http.sleep

    @sleep.setter
    def sleep(self, sleep: Callable[[float], None]) -> None:
        self.http.sleep = sleep

    def close(self) -> None:
        self.http.close()
