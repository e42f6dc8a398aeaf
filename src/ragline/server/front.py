"""A server of several processes (``server.processes``, 2 by default): a front that
owns the port and hands each tenant's requests to one of N app processes.

Why: every request's Python work holds one interpreter's GIL. In one process the
fair gate (``fairness.py``) decides who starts, but a victim's search still shared
the GIL with the flooding tenant's request running beside it until that request's
next pause point, about 10 ms a time: on an idle machine a flood cost the victim
2.1–3.6× its solo p95 (bench/drills/tenancy.py, issue 29). Here the tenants are
kept apart by process:

- ``Affinity`` gives each tenant one app process while it is active: a tenant
  seen for the first time (or again after ``HOLD_S`` idle) goes to the process
  whose tenants have the fewest requests in flight, then the fewest tenants. A
  flooding tenant fills its own process; another tenant's requests run in
  another interpreter, on the other core. With more active tenants than
  processes, the tenants sharing one are shared fairly by its gate, as before.
- A tenant stays on its process while it has been active in the last ``HOLD_S``
  (60 s): the per-minute request and upload budgets (``quotas.py``) are
  per process, and a bucket left for ``HOLD_S`` has refilled, so moving a tenant
  only after that long admits exactly what one process would.
- The front only reads the ``Authorization`` header (a cached store read tells the
  key's tenant: ``KeyCache``), then relays the request and its response as
  bytes, streamed both ways (uploads, server-sent events). Authentication,
  quotas, the gate and every route stay in the app processes, unchanged.
- The processes still share the cores, so the gate's step-aside rule holds across
  them: a byte per process in a shared file (``AppProcesses.step_aside``), set while
  the process holds a tenant with more requests in flight than a tenant with one in
  flight elsewhere, makes its requests step aside at their pause points
  (``FairGate.outside``).
- ``/readyz`` asks every app process and answers with the first that is not ready
  (or ``backend_unavailable`` for one that does not answer); ``/metrics`` merges
  theirs with a ``process`` label. An app process that dies is restarted (backoff up
  to 30 s); its tenants move to a live one meanwhile.

The app processes are ``python -m ragline.server.app_child`` on Unix sockets in a
private folder; they die with the front (``children.die_with_parent``). App
process 0 runs the ingestion process; the others only serve. Costs: each app
process holds its own embedding model and caches (110–170 MB each under ``make run``,
plus the SQLite side indexes of the collections it searches), and each request a
relay through the front (docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httptools
import httpx
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

from ..settings import Settings
from .app_processes import AppProcesses
from .auth import KeyCache
from .errors import error_json
from .metrics import CONTENT_TYPE
from .observe import configure_logging

log = logging.getLogger("ragline.server")

HOLD_S = 60.0
"""How long a tenant keeps its app process after its last request: the time a
per-minute budget takes to refill (``quotas.py``), so per-process budgets stay exact."""
START_TIMEOUT_S = 120.0
"""How long the front waits for its app processes to answer before it serves."""
HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer",
                        b"transfer-encoding", b"upgrade", b"host", b"x-forwarded-for", b"x-forwarded-proto"})
"""Headers that describe one connection, not the request: never relayed."""


@dataclass
class _Hold:
    process: int
    in_flight: int = 0
    last: float = field(default_factory=time.monotonic)


class Affinity:
    """Which app process serves each tenant (see the module docstring), and which
    processes' requests step aside (``step_aside``). Called on the front's event loop
    only; ``down`` processes get no new tenants."""

    def __init__(self, processes: int, hold_s: float = HOLD_S, step_aside: Any = None) -> None:
        self.processes, self.hold_s = processes, hold_s
        self.step_aside = step_aside if step_aside is not None else bytearray(processes)
        self.down: set[int] = set()
        self._holds: dict[str, _Hold] = {}

    def enter(self, tenant: str) -> int:
        """The process for one request of ``tenant`` (``leave`` it when done)."""
        now = time.monotonic()
        hold = self._holds.get(tenant)
        if hold is None or hold.process in self.down or (not hold.in_flight and now - hold.last > self.hold_s):
            hold = self._holds[tenant] = _Hold(self._lightest(now, exclude=tenant), hold.in_flight if hold else 0)
        hold.in_flight += 1
        hold.last = now
        self._publish()
        return hold.process

    def leave(self, tenant: str) -> None:
        hold = self._holds.get(tenant)
        if hold is not None:
            hold.in_flight -= 1
            hold.last = time.monotonic()
            self._publish()

    def _publish(self) -> None:
        """The gate's step-aside rule across processes (``fairness.py``): a process steps
        aside while it holds a tenant with more requests in flight than a tenant with one
        in flight in another process. In flight counts what runs and what waits in the app."""
        busiest = [0] * self.processes
        lightest = [math.inf] * self.processes  # the fewest in flight of a tenant with any, per process
        for hold in self._holds.values():
            if hold.in_flight > 0:
                busiest[hold.process] = max(busiest[hold.process], hold.in_flight)
                lightest[hold.process] = min(lightest[hold.process], hold.in_flight)
        for process in range(self.processes):
            elsewhere = min((lightest[other] for other in range(self.processes) if other != process),
                            default=math.inf)
            step_aside = elsewhere < busiest[process]
            if self.step_aside[process] != step_aside:
                self.step_aside[process] = step_aside

    def _lightest(self, now: float, exclude: str) -> int:
        load = {p: [0, 0] for p in range(self.processes) if p not in self.down} or {0: [0, 0]}
        for tenant, hold in list(self._holds.items()):
            if not hold.in_flight and now - hold.last > self.hold_s:
                del self._holds[tenant]  # let go: its budgets have refilled
            elif tenant != exclude and hold.process in load:
                load[hold.process][0] += hold.in_flight
                load[hold.process][1] += 1
        return min(load, key=lambda p: (load[p], p))

    def assigned(self) -> dict[str, int]:
        """Tenant → process, for tests and debugging."""
        return {tenant: hold.process for tenant, hold in self._holds.items()}


@dataclass(eq=False)
class _Conn:
    """A connection to an app process: a plain non-blocking socket, not a stream. A
    stream's failed write (the app stopped reading an upload it refused) closes its
    reading side too and drops the refusal already received; a socket keeps it."""

    sock: socket.socket
    answered: bool = False  # the app process wrote something back on it for this request
    reused: bool = False  # taken from the idle ones (else opened for this request)

    async def send(self, data: bytes) -> None:
        await asyncio.get_running_loop().sock_sendall(self.sock, data)

    async def recv(self) -> bytes:
        return await asyncio.get_running_loop().sock_recv(self.sock, 65536)

    def closed(self) -> bool:
        """Whether the app closed it while it was idle."""
        try:
            return self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def close(self) -> None:
        self.sock.close()


class _Pool:
    """Idle keep-alive connections to each app process."""

    def __init__(self, sockets: list[Path], keep: int = 64) -> None:
        self.sockets, self.keep = sockets, keep
        self._idle: list[list[_Conn]] = [[] for _ in sockets]

    async def take(self, index: int) -> _Conn:
        idle = self._idle[index]
        while idle:
            conn = idle.pop()
            if not conn.closed():
                conn.answered, conn.reused = False, True
                return conn
            conn.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, str(self.sockets[index]))
        except OSError:
            sock.close()
            raise
        return _Conn(sock)

    def give(self, index: int, conn: _Conn, reusable: bool) -> None:
        if reusable and len(self._idle[index]) < self.keep:
            self._idle[index].append(conn)
        else:
            conn.close()

    def close(self) -> None:
        for idle in self._idle:
            for conn in idle:
                conn.close()
            idle.clear()


class _Response:
    """httptools' callbacks for one response: its headers, body pieces and end."""

    def __init__(self) -> None:
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.headers_done = self.complete = self.sent = False

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() not in HOP_BY_HOP:
            self.headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.complete = True


class _ClientGone(Exception):
    """The client left while its request body was relayed: nothing to answer."""


class _Broken(Exception):
    """The relay broke after the request was sent (or its body read): not retried."""


class Front:
    """The front's ASGI app: finds each request's tenant and relays it to that tenant's
    app process (``Affinity``)."""

    def __init__(self, settings: Settings) -> None:
        configure_logging()
        self.settings = settings
        self.count = settings.server.processes
        self.apps = AppProcesses(settings, self.count)
        self.affinity = Affinity(self.count, step_aside=self.apps.step_aside)
        self.keys = KeyCache(ttl=HOLD_S)  # a key's tenant never changes; a revoked key gets its 401 from the app
        self._store: Any = None
        self._store_lock = threading.Lock()
        self._clients: list[httpx.AsyncClient] = []  # for readiness and metrics
        self._pool = _Pool(self.apps.sockets)  # for requests

    # -- lifespan ---------------------------------------------------------------------
    async def startup(self) -> None:
        self.apps.start()
        self._clients = [httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds=str(path)),
                                           base_url="http://app", timeout=httpx.Timeout(None, connect=5.0),
                                           limits=httpx.Limits(max_connections=None, max_keepalive_connections=64))
                         for path in self.apps.sockets]
        deadline = time.monotonic() + START_TIMEOUT_S
        for index, client in enumerate(self._clients):
            while True:
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"app process {index} did not answer within {START_TIMEOUT_S:g} s "
                                       "(see the log above for why)")
                await asyncio.sleep(0.1)

    async def shutdown(self) -> None:
        self._pool.close()
        for client in self._clients:
            await client.aclose()
        await asyncio.to_thread(self.apps.stop, self.settings.server.shutdown_timeout_s + 5)
        if self._store is not None:
            self._store.close()

    # -- requests ---------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":  # no route takes a websocket
            await send({"type": "websocket.close", "code": 1003})
            return
        path = scope["path"]
        if path == "/readyz":
            await self._ready(send)
            return
        if path == "/metrics":
            await self._metrics(send)
            return
        tenant = await self._tenant(scope)
        index = self.affinity.enter(tenant)
        started: list[bool] = []  # appended to when the response's start is sent

        async def tracked(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.append(True)
            await send(message)

        try:
            for attempt in range(2):
                try:
                    await self._relay(index, scope, receive, tracked)
                    return
                except _Broken as exc:  # the request was sent: never sent twice
                    log.warning(json.dumps({"event": "relay_broken", "process": index, "error": str(exc)}))
                    if not started:
                        await _send_error(send, 502, "backend_unavailable",
                                          f"the app process serving this request failed while answering it ({exc})")
                    return
                except OSError as exc:  # could not reach it: nothing was read from the client
                    self.affinity.down.add(index)
                    asyncio.get_running_loop().call_later(1.0, self.affinity.down.discard, index)
                    if attempt or len(self.affinity.down) >= self.count:
                        await _send_error(send, 503, "backend_unavailable",
                                          f"the app process for this request is not answering ({exc}); retry shortly")
                        return
                    self.affinity.leave(tenant)
                    index = self.affinity.enter(tenant)
        finally:
            self.affinity.leave(tenant)

    async def _tenant(self, scope: dict[str, Any]) -> str:
        """Who the request is for, as the affinity counts it: the key's tenant, or one
        shared name for the admin routes, for requests without a key (the page, health)
        and for keys that are not valid (the app answers those 401)."""
        path = scope["path"]
        if path == "/v1/tenants" or path.startswith("/v1/tenants/"):
            return "(admin)"
        secret = _bearer(scope)
        if not secret:
            return "(public)"
        info = self.keys.get(secret)
        if info is None:
            info = await asyncio.to_thread(self._verify, secret)
            if info is None:
                return "(unknown key)"
            self.keys.put(secret, info)
        return "t:" + info.tenant

    def _verify(self, secret: str) -> Any:
        try:
            with self._store_lock:
                if self._store is None:
                    from ..store import open_store

                    self._store = open_store(self.settings)
            return self._store.verify_api_key(secret)
        except Exception as exc:  # noqa: BLE001 — the app reports the store's trouble itself
            log.warning(json.dumps({"event": "front_key_lookup_failed", "error": str(exc)}))
            return None

    async def _relay(self, index: int, scope: dict[str, Any], receive: Callable[..., Any],
                     send: Callable[..., Any]) -> None:
        """The request to app process ``index`` and its response back, streamed both ways.
        ``ConnectionError`` before anything was read from the client: another process may take it."""
        sent = dict(scope["headers"])
        chunked = b"transfer-encoding" in sent
        has_body = chunked or sent.get(b"content-length", b"0") != b"0"
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        head = [scope["method"].encode(), b" ", target, b" HTTP/1.1\r\nhost: app\r\n"]
        for name, value in scope["headers"]:
            if name not in HOP_BY_HOP:
                head += [name, b": ", value, b"\r\n"]
        if scope.get("client"):
            head += [b"x-forwarded-for: ", str(scope["client"][0]).encode(), b"\r\n"]
        if chunked:
            head.append(b"transfer-encoding: chunked\r\n")
        head.append(b"\r\n")
        conn = await self._pool.take(index)
        reusable = False
        pumped = asyncio.Event()  # the request's body is all sent (or it has none)
        try:
            await conn.send(b"".join(head))
            # The response is read while the body is sent: an app refusing an upload (401, 413,
            # 429) answers before reading it, and its answer must reach the client.
            answer = asyncio.ensure_future(self._respond(conn, scope["method"] == "HEAD", pumped, receive, send))
            whole = True  # the body went out in full, so the connection is in step for the next request
            try:
                if has_body:
                    whole = await self._pump(conn, chunked, receive, answer)
            except _ClientGone:
                answer.cancel()
                return
            except OSError:
                whole = False  # the app stopped reading: it answered early (401, 413, 429) or died
            pumped.set()
            reusable = await answer and whole
        except OSError as exc:
            if conn.answered or has_body or conn.reused:
                raise _Broken(str(exc) or type(exc).__name__) from exc
            raise
        finally:
            self._pool.give(index, conn, reusable)

    @staticmethod
    async def _pump(conn: _Conn, chunked: bool, receive: Callable[..., Any], answer: asyncio.Future[bool]) -> bool:
        """The client's request body to the app, as it arrives, until the app has answered;
        True when all of it was sent."""
        while not answer.done():
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _ClientGone
            body = message.get("body", b"")
            if chunked and body:
                await conn.send(b"%x\r\n%s\r\n" % (len(body), body))
            elif body:
                await conn.send(body)
            if not message.get("more_body"):
                if chunked:
                    await conn.send(b"0\r\n\r\n")
                return True
        return False

    async def _respond(self, conn: _Conn, head_only: bool, pumped: asyncio.Event, receive: Callable[..., Any],
                       send: Callable[..., Any]) -> bool:
        """Read the app's response off ``conn`` and send it to the client as it comes.
        True when the connection can take another request."""
        parser = _Response()
        http = httptools.HttpResponseParser(parser)
        gone = asyncio.Event()
        watcher: asyncio.Future[None] | None = None
        try:
            while not parser.complete:
                data = await conn.recv()
                if not data:
                    raise ConnectionResetError("the app process closed the connection")
                conn.answered = True
                http.feed_data(data)
                if not parser.sent and parser.headers_done:
                    parser.sent = True
                    await send({"type": "http.response.start", "status": http.get_status_code(),
                                "headers": parser.headers})
                    if head_only:
                        await send({"type": "http.response.body", "body": b""})
                        return False  # the parser would wait for the body a HEAD response never has
                if watcher is None and parser.sent and pumped.is_set():  # a stream the client stops reading
                    watcher = asyncio.ensure_future(_disconnected(receive, gone))
                if parser.body:
                    if gone.is_set():
                        return False  # the client left: closing the connection tells the app process
                    await send({"type": "http.response.body", "body": b"".join(parser.body), "more_body": True})
                    parser.body.clear()
            await send({"type": "http.response.body", "body": b""})
            return http.should_keep_alive()
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _ready(self, send: Callable[..., Any]) -> None:
        """Ready when every app process is: the first answer that is not 200 (in order),
        ``backend_unavailable`` for a process that does not answer, else app 0's answer."""
        async def ask(index: int) -> tuple[int, bytes]:
            try:
                response = await self._clients[index].get("/readyz", timeout=10.0)
                return response.status_code, response.content
            except httpx.TransportError as exc:
                return 503, error_json("backend_unavailable", f"not ready: app process {index} of {self.count} "
                                       f"(pid {self.apps.pid(index)}) is not answering: {exc or type(exc).__name__}")
        answers = await asyncio.gather(*(ask(i) for i in range(self.count)))
        status, content = next((a for a in answers if a[0] != 200), answers[0])
        await _send_bytes(send, status, content, b"application/json")

    async def _metrics(self, send: Callable[..., Any]) -> None:
        """Every app process's metrics, labelled ``process`` (one that does not answer is left out)."""
        async def fetch(index: int) -> str:
            try:
                return (await self._clients[index].get("/metrics", timeout=10.0)).text
            except httpx.TransportError:
                return ""
        texts = await asyncio.gather(*(fetch(i) for i in range(self.count)))
        registry = CollectorRegistry()
        registry.register(_Merged(texts))
        await _send_bytes(send, 200, generate_latest(registry), CONTENT_TYPE.encode())

    async def _lifespan(self, receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.startup()
                except Exception as exc:  # noqa: BLE001 — reported to uvicorn, which stops
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


class _Merged(Collector):
    """The app processes' metrics as one exposition, each sample labelled with its process."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def collect(self) -> Any:
        families: dict[str, Metric] = {}
        for index, text in enumerate(self.texts):
            for family in text_string_to_metric_families(text):
                merged = families.setdefault(family.name, Metric(family.name, family.documentation, family.type,
                                                                 family.unit))
                for sample in family.samples:
                    merged.add_sample(sample.name, {**sample.labels, "process": str(index)}, sample.value,
                                      sample.timestamp, sample.exemplar)
        yield from families.values()


async def _disconnected(receive: Callable[..., Any], gone: asyncio.Event) -> None:
    """Set ``gone`` when the client leaves while a response streams to it."""
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


async def _send_bytes(send: Callable[..., Any], status: int, content: bytes, media: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", media), (b"content-length", str(len(content)).encode())]})
    await send({"type": "http.response.body", "body": content})


async def _send_error(send: Callable[..., Any], status: int, code: str, message: str) -> None:
    await _send_bytes(send, status, error_json(code, message), b"application/json")


def _bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, secret = value.decode("latin-1").partition(" ")
            return secret.strip() or None if scheme.lower() == "bearer" else None
    return None
