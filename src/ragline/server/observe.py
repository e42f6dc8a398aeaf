"""One ASGI middleware for what every request shares: the request-size limit
(413), one JSON log line, and the Prometheus request metrics.

Routes add to the log line through ``request.state``: ``tenant``, ``owner``,
``stages`` (stage timings in ms, as search and answer report them) and
``log_extra`` (small counts such as hits or citations)."""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..tracing import span
from .errors import error_json
from .metrics import UNMATCHED_ROUTE, Metrics

log = logging.getLogger("ragline.server")


def configure_logging(level: int = logging.INFO) -> None:
    """JSON lines on stderr for the server's logger (once per process)."""
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(level)


class _TooLarge(Exception):
    pass


class RequestObserver:
    def __init__(self, app: ASGIApp, metrics: Metrics, max_request_bytes: int) -> None:
        self.app = app
        self.metrics = metrics
        self.max_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        request_id = uuid.uuid4().hex[:16]
        status = 500
        too_large = False
        replaced = False
        logged = False

        def finish() -> None:
            nonlocal logged
            if logged:
                return
            logged = True
            self._record(scope, state, request_id, status, time.perf_counter() - started)

        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            status = 413
            await _send_error(send, 413, "payload_too_large", self._limit_message(), request_id)
            finish()
            return

        received = 0

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise _TooLarge()
            return message

        async def observed_send(message: Message) -> None:
            nonlocal status, replaced
            if message["type"] == "http.response.start":
                if too_large:  # the framework turned our exception into some error: say what it was
                    replaced = True
                    status = 413
                    await _send_error(send, 413, "payload_too_large", self._limit_message(), request_id)
                    return
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            elif replaced:
                return
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                finish()  # before the last byte goes out, so a client that got the answer finds the log line
            await send(message)

        try:
            with span("request", method=scope.get("method"), path=scope.get("path"), request_id=request_id):
                await self.app(scope, limited_receive, observed_send)
        except _TooLarge:
            if not replaced:
                status = 413
                await _send_error(send, 413, "payload_too_large", self._limit_message(), request_id)
        finally:
            finish()

    def _limit_message(self) -> str:
        return f"request body is over the {self.max_bytes / 1e6:.1f} MB limit (server.max_request_mb)"

    def _record(self, scope: Scope, state: dict[str, Any], request_id: str, status: int, seconds: float) -> None:
        route = getattr(scope.get("route"), "path", None) or UNMATCHED_ROUTE
        method = scope.get("method", "")[:32]  # any token is a valid method: keep log lines small
        stages = state.get("stages") or {}
        try:
            self.metrics.observe_request(method, route, status, seconds, stages)
        except Exception:  # metrics never break a request
            log.exception("metrics failed")
        line: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "event": "request", "request_id": request_id, "method": method, "route": route,
            "path": scope.get("path"), "status": status, "tenant": state.get("tenant"),
            "owner": state.get("owner"), "ms": round(seconds * 1000, 2),
            "stages_ms": {k: round(v, 2) for k, v in stages.items() if isinstance(v, (int, float))},
        }
        if state.get("error"):
            line["error"] = state["error"]
        line.update(state.get("log_extra") or {})
        log.info(json.dumps(line, ensure_ascii=False, default=str))


async def _send_error(send: Send, status: int, code: str, message: str, request_id: str) -> None:
    body = error_json(code, message)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"x-request-id", request_id.encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
