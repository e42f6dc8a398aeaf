"""``ProviderClient``: the HTTP client of every remote provider ragline calls (answer
generators, remote embedders, the bank connector).

One ``httpx.Client`` per provider; each call retried by ``tenacity`` as its
``CallPolicy`` says (timeouts, connection errors, retryable statuses, replies a
caller's check refuses as transient; ``Retry-After`` honoured), and every failure
raised as the error class the caller names (``GeneratorError``, ``EmbedderError``,
``ConnectorError``), with the provider's own error text, so no httpx exception
escapes. A streamed call is retried only until its response starts; once events
flow, a failure is raised and the caller decides what to do with what it has.

Every body, streamed or not, is read chunk by chunk under the policy's two
call-wide limits: its byte cap (a 60 MB reply is refused at the cap, never held
whole) and its deadline (checked after every chunk, and a watchdog shuts the
socket when it passes, so neither a dripping nor a silent provider outlives it).
"""

from __future__ import annotations

import json
import math
import socket
import threading
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


class _Budget:
    """What is left of one call's deadline, on the client's clock."""

    def __init__(self, deadline: float | None, clock: Callable[[], float]) -> None:
        self.deadline = deadline
        self.clock = clock
        self.end = clock() + deadline if deadline is not None else math.inf
        self.cut = False  # the watchdog shut a reply's socket at the deadline

    def left(self) -> float:
        return self.end - self.clock()

    def expired(self) -> bool:
        return self.left() <= 0


class _OutOfTime(tenacity.stop.stop_base):
    """Stop when the wait before the next attempt would use up the deadline."""

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        return self.budget.left() <= (retry_state.upcoming_sleep or 0.0)


class _Body(httpx.SyncByteStream):
    """Chunks already read under the call's limits, as an httpx stream."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks


def _shut(response: httpx.Response, budget: _Budget) -> None:
    """Shut the socket a reply is read from: a read blocked on it returns at once."""
    budget.cut = True
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


class ProviderClient:
    """Calls to one provider. ``name`` starts every error message; ``error`` is the
    class they are raised as. ``describe`` reads a refusal's text from the reply
    (default: ``error.message``); ``hint(status)`` may add advice to a refusal that
    no retry can cure (" (check RAGLINE_…)"). ``missing_key``, when set, is raised
    before any request. ``transport``, ``sleep`` and ``clock`` are for tests."""

    def __init__(self, name: str, *, error: type[RaglineError], policy: CallPolicy,
                 missing_key: str | None = None, describe: Callable[[httpx.Response], str] = error_message,
                 hint: Callable[[int], str] | None = None, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.error = error
        self.policy = policy
        self.missing_key = missing_key
        self.describe = describe
        self.hint = hint
        self.sleep = sleep
        self.clock = clock
        self.attempts = 0  # requests sent (for reports and tests)
        self.bytes_read = 0  # reply bytes read, every call (for reports and tests)
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

        def attempt(budget: _Budget) -> httpx.Response:
            response = self._read(self._attempt(method, url, budget, **request), budget)
            if check is not None and response.status_code < 400:
                check(response)
            return response

        return self._call(attempt, what)

    def post_json(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """POST ``body`` as JSON; the reply decoded as a JSON object. A refusal (a
        status that is not retried) raises at once."""

        def attempt(budget: _Budget) -> dict[str, Any]:
            response = self._read(self._attempt("POST", url, budget, json=body, headers=headers), budget)
            self._refuse(response)
            return json_object(self.name, "reply", response.text, self.error)

        return self._call(attempt)

    def stream_events(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> Iterator[ServerSentEvent]:
        """POST and iterate the reply's server-sent events. Retried until the response
        starts; a later failure raises at once, as does a reply past the policy's
        byte cap or its deadline."""
        with self._open_stream(url, body, headers) as (response, budget):
            capped = httpx.Response(response.status_code, headers=_plain(response.headers),
                                    stream=_Body(self._chunks(response, budget)), request=response.request)
            try:
                yield from EventSource(capped).iter_sse()
            except SSEError as exc:
                raise self.error(f"{self.name}: bad event stream: {exc}") from exc
            except httpx.TimeoutException as exc:
                raise self.error(f"{self.name}: stream timed out ({type(exc).__name__})") from exc
            except httpx.TransportError as exc:
                raise self.error(f"{self.name}: stream broken ({type(exc).__name__}: {exc})") from exc

    @contextmanager
    def _open_stream(self, url: str, body: dict[str, Any],
                     headers: dict[str, str]) -> Iterator[tuple[httpx.Response, _Budget]]:
        headers = {**headers, "Accept": "text/event-stream"}
        opened: list[_Budget] = []

        def attempt(budget: _Budget) -> httpx.Response:
            response = self._attempt("POST", url, budget, json=body, headers=headers)
            try:
                self._refuse(response, budget)
            except BaseException:
                response.close()
                raise
            opened[:] = [budget]
            return response

        response = self._call(attempt)
        watchdog = self._watchdog(response, opened[0])
        try:
            yield response, opened[0]
        finally:
            if watchdog is not None:
                watchdog.cancel()
            response.close()

    # -- one attempt, and the retries around it ------------------------------------------
    def _attempt(self, method: str, url: str, budget: _Budget, **request: Any) -> httpx.Response:
        """One request, its response opened (headers read, body not): failures to get
        a reply, and replies with a retried status, raise ``Retry``. Its timeout is the
        policy's, shortened to what is left of the call's deadline."""
        left = budget.left()
        if left <= 0:
            raise Retry("no time left")
        self.attempts += 1
        timeout = httpx.Timeout(min(self.policy.timeout, left))
        try:
            response = self._http.send(self._http.build_request(method, url, timeout=timeout, **request),
                                       stream=True)
            if self.policy.retries(response.status_code):
                reply = self._read(response, budget)  # an error reply still carries a body worth quoting
                raise Retry(f"HTTP {response.status_code}: {self.describe(reply)}",
                            retry_after(response.headers.get("retry-after")))
        except httpx.RequestError as exc:
            raise _failure(exc) from exc
        return response

    def _read(self, response: httpx.Response, budget: _Budget) -> httpx.Response:
        """``response`` with its body read within the call's limits (then closed)."""
        watchdog = self._watchdog(response, budget)
        try:
            content = b"".join(self._chunks(response, budget))
        except httpx.RequestError as exc:
            raise _failure(exc) from exc
        finally:
            if watchdog is not None:
                watchdog.cancel()
            response.close()
        return httpx.Response(response.status_code, headers=_plain(response.headers), content=content,
                              request=response.request)

    def _chunks(self, response: httpx.Response, budget: _Budget) -> Iterator[bytes]:
        """The decoded body as it arrives, refused past the byte cap or the deadline."""
        cap = self.policy.max_reply_bytes
        read = 0
        try:
            for chunk in response.iter_bytes():
                read += len(chunk)
                self.bytes_read += len(chunk)
                if cap is not None and read > cap:
                    raise self.error(f"{self.name}: the reply passed {cap:,} bytes; the rest was not read "
                                     f"(the cap: {self.policy.settings}MAX_REPLY_MB)")
                if budget.expired():
                    raise self._deadline_error(f"the reply was still arriving after {read:,} bytes")
                yield chunk
        except httpx.RequestError:
            if budget.cut:
                raise self._deadline_error(f"the reply was cut after {read:,} bytes") from None
            raise
        if budget.cut:  # the shut socket read as the end of the body
            raise self._deadline_error(f"the reply was cut after {read:,} bytes")

    def _deadline_error(self, what: str) -> RaglineError:
        return self.error(f"{self.name}: {what}: the call's deadline of {self.policy.deadline:g} s passed "
                          f"(the deadline: {self.policy.settings}DEADLINE_S)")

    def _watchdog(self, response: httpx.Response, budget: _Budget) -> threading.Timer | None:
        """A timer shutting the reply's socket when the deadline passes: a provider
        that goes silent mid-reply holds a read no longer than the call."""
        if budget.deadline is None:
            return None
        timer = threading.Timer(max(0.0, budget.left()), _shut, (response, budget))
        timer.daemon = True
        timer.start()
        return timer

    def _refuse(self, response: httpx.Response, budget: _Budget | None = None) -> None:
        """A status that no retry cures, as ``error`` with the provider's text."""
        if response.status_code < 400:
            return
        if budget is not None:  # a streamed refusal: its body is read here, within the limits
            response = self._read(response, budget)
        advice = self.hint(response.status_code) if self.hint is not None else ""
        raise self.error(f"{self.name}: HTTP {response.status_code}: {self.describe(response)}{advice}")

    def _call(self, attempt: Callable[[_Budget], T], what: str | None = None) -> T:
        """``attempt`` run as the policy says, within one deadline; the last failure
        raised as ``error``."""
        label = f"{self.name} {what}" if what else self.name
        if self.missing_key:
            raise self.error(self.missing_key)
        budget = _Budget(self.policy.deadline, self.clock)
        retrying = self._retrying(budget)
        try:
            return retrying(lambda: attempt(budget))
        except Retry as exc:
            tries = retrying.statistics["attempt_number"]
            late = ""
            if budget.deadline is not None and tries < self.policy.attempts:  # stopped by the deadline
                late = (f"; no time left for another within the call's deadline of {budget.deadline:g} s, "
                        f"{self.policy.settings}DEADLINE_S")
            raise self.error(f"{label}: {exc.reason} (after {tries} attempt{'s' if tries > 1 else ''}{late})") \
                from exc.__cause__

    def _retrying(self, budget: _Budget) -> tenacity.Retrying:
        """The one place a call's retries are decided, from its ``CallPolicy``: how
        many attempts, which failures retry (``Retry``), how long each wait is, how it
        is slept, and the deadline they all count against: no retry starts whose wait
        would end past it."""
        policy = self.policy

        def wait(state: tenacity.RetryCallState) -> float:
            failure = state.outcome.exception() if state.outcome is not None else None
            return policy.delay(state.attempt_number - 1, failure.wait if isinstance(failure, Retry) else None)

        return tenacity.Retrying(stop=tenacity.stop_any(tenacity.stop_after_attempt(policy.attempts),
                                                        _OutOfTime(budget)),
                                 wait=wait, retry=tenacity.retry_if_exception_type(Retry),
                                 sleep=lambda seconds: self.sleep(seconds), reraise=True)


def _plain(headers: httpx.Headers) -> list[tuple[str, str]]:
    """Headers of a body already decoded and read: its encoding and length dropped."""
    return [(k, v) for k, v in headers.multi_items() if k.lower() not in ("content-encoding", "content-length")]


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
