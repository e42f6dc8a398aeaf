"""Authentication: the admin key (from settings) for tenant and key management,
tenant API keys (``Authorization: Bearer …``) for everything else. The key
decides the tenant; a client can never name one. A key bound to an owner also
decides the owner (``deps.note_owner``): a request naming another gets 403.

``AuthFirst`` checks every ``/v1`` request from its headers before any route reads
the body (FastAPI parses multipart forms before it runs dependencies, so an
unauthenticated 200 MB upload used to be read in full before its 401); it also
applies the request-rate quota and, for uploads, the upload-bytes and storage
quotas, so those refusals cost no body either (an admitted upload's body is
charged to the tenant's upload budget as it arrives). ``tenant_principal`` reuses its result, and does the
same checks itself when the middleware is absent.

A key checked in the last second (``KeyCache``) is admitted on the event loop: the
hop to a worker thread for the store read costs two GIL hand-offs, ~4 ms at p95 for
one tenant's search while another keeps the CPU busy (bench/drills/tenancy.py).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..store.types import ApiKeyInfo
from .disk import check_free_space
from .errors import ApiError, error_json, log, map_exception
from .fairness import cost_of
from .quotas import quotas_of, rate_in_store

if TYPE_CHECKING:
    from ..engine import Engine
    from ..settings import Settings

tenant_bearer = HTTPBearer(auto_error=False, scheme_name="TenantKey",
                           description="A tenant API key (`ragline key create --tenant NAME [--owner USER]`)")
admin_bearer = HTTPBearer(auto_error=False, scheme_name="AdminKey",
                          description="The admin key (`RAGLINE_SERVER__ADMIN_KEY`)")

_CHALLENGE = {"WWW-Authenticate": "Bearer"}

# Policies by method and path, matched on the raw path: the middleware runs before routing.
UPLOADS = ("POST", re.compile(r"/v1/collections/[^/]+/documents(/text)?/?"))
"""Routes that add documents: the storage quota is checked before their body is read."""

TENANT_WIDE = (("DELETE", re.compile(r"/v1/collections/[^/]+/?")),
               ("POST", re.compile(r"/v1/collections/?")),
               ("PUT", re.compile(r"/v1/collections/[^/]+/answer-policy/?")))
"""Routes that change what every owner of the tenant has (deleting or creating a
collection, its answer policy): refused (403) to owner-bound keys, which read and
write their own data only. Re-ingesting a shared document is refused in its route."""


def _is(policy: tuple[str, re.Pattern[str]], method: str, path: str) -> bool:
    return method == policy[0] and policy[1].fullmatch(path) is not None


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant the key belongs to, and the owner it is bound to (if any)."""

    tenant: str
    key_id: str
    owner: str | None = None


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers=_CHALLENGE)


def _is_admin_path(path: str) -> bool:
    return path == "/v1/tenants" or path.startswith("/v1/tenants/")


def check_admin_key(settings: Settings, given: str) -> None:
    """The configured admin key, compared in constant time (401 otherwise)."""
    admin_key = settings.server.admin_key
    if not admin_key:
        raise _unauthorized("admin routes are disabled: set RAGLINE_SERVER__ADMIN_KEY")
    if not hmac.compare_digest(given.encode("utf-8"), admin_key.encode("utf-8")):
        raise _unauthorized("invalid admin key")


def authenticate(engine: Engine, secret: str | None) -> ApiKeyInfo:
    """The live key for ``secret`` (a store read, never a write), or 401."""
    if not secret:
        raise _unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    info = engine.verify_api_key(secret)
    if info is None:
        raise _unauthorized("invalid or revoked API key")
    return info


class KeyCache:
    """Keys verified in the last ``ttl`` seconds, by the digest of their secret. A key
    revoked through this server (``forget``) stops working at once; revoked elsewhere
    (the CLI, another replica), within ``ttl``. Unknown secrets are never cached."""

    def __init__(self, ttl: float = 1.0, size: int = 4096) -> None:
        self.ttl, self.size = ttl, size
        self._lock = threading.Lock()
        self._keys: dict[bytes, tuple[float, ApiKeyInfo]] = {}

    @staticmethod
    def _digest(secret: str) -> bytes:
        return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()

    def get(self, secret: str | None) -> ApiKeyInfo | None:
        if not secret or self.ttl <= 0:
            return None
        with self._lock:
            held = self._keys.get(self._digest(secret))
        return held[1] if held is not None and held[0] > time.monotonic() else None

    def put(self, secret: str, info: ApiKeyInfo) -> None:
        if self.ttl <= 0:
            return
        now = time.monotonic()
        with self._lock:
            if len(self._keys) >= self.size:  # drop the expired, or everything when none are
                self._keys = {k: v for k, v in self._keys.items() if v[0] > now}
                if len(self._keys) >= self.size:
                    self._keys.clear()
            self._keys[self._digest(secret)] = (now + self.ttl, info)

    def forget(self) -> None:
        with self._lock:
            self._keys.clear()


def key_cache(app: Any) -> KeyCache:
    """The app's key cache (``create_app`` makes it; an app built otherwise gets one now)."""
    cache = getattr(app.state, "key_cache", None)
    if cache is None:
        cache = app.state.key_cache = KeyCache()
    return cache


def admit(app: Any, info: ApiKeyInfo, method: str, path: str) -> None:
    """The quotas a request must pass before any work: rate, then storage for uploads."""
    quotas = quotas_of(app)
    quotas.admit_request(info.tenant)
    if _is(UPLOADS, method, path):
        quotas.admit_upload(info.tenant)
        check_free_space(app.state.settings)
        quotas.check_storage(app.state.engine, info.tenant)


async def tenant_principal(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None,
                                                                    Depends(tenant_bearer)]) -> Principal:
    """The calling tenant, from its API key (401 when missing or wrong). Async: with
    ``AuthFirst`` in front it only reads its result, and a sync dependency cost every
    request a hop to a worker thread (slow when another tenant keeps the CPU busy)."""
    path = request.scope.get("path", "")
    info: ApiKeyInfo | None = getattr(request.state, "api_key", None)  # set by AuthFirst
    if info is None:  # no AuthFirst in front of this app: check here (the body is read by now)
        info = await run_in_threadpool(authenticate, request.app.state.engine,
                                       credentials.credentials if credentials else None)
        await run_in_threadpool(admit, request.app, info, request.method, path)
    request.state.tenant = info.tenant
    request.state.key_owner = info.owner
    if info.owner is not None and any(_is(policy, request.method, path) for policy in TENANT_WIDE):
        raise ApiError(403, "forbidden", "this API key is bound to one owner; it cannot change what every owner "
                       "of the tenant shares (collections, their answer policy): use a key without an owner")
    return Principal(tenant=info.tenant, key_id=info.id, owner=info.owner)


Tenant = Annotated[Principal, Depends(tenant_principal)]
"""A route parameter: the calling tenant, authenticated by its API key."""


def require_admin(request: Request,
                  credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(admin_bearer)]) -> None:
    """Admin routes: the configured admin key, compared in constant time."""
    check_admin_key(request.app.state.settings, credentials.credentials if credentials is not None else "")
    request.state.tenant = "(admin)"


def _bearer(scope: Scope) -> str | None:
    """The credentials of ``Authorization: Bearer …``, as ``HTTPBearer`` reads them."""
    for name, value in scope.get("headers") or []:
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").strip().partition(" ")
            return credentials.strip() if scheme.lower() == "bearer" else None
    return None


class AuthFirst:
    """ASGI middleware: authenticate every ``/v1`` request, and apply its rate and
    storage quotas, from the headers alone, before the app reads the body. Install it
    inside ``RequestObserver`` (added before it), so refusals are logged and counted."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == "/v1" or path.startswith("/v1/")):
            await self.app(scope, receive, send)
            return
        app = scope["app"]
        state = scope.setdefault("state", {})
        started = time.perf_counter()
        try:
            if _is_admin_path(path):
                check_admin_key(app.state.settings, _bearer(scope) or "")
                state["tenant"] = "(admin)"
            else:
                secret, method = _bearer(scope), scope.get("method", "")
                info = key_cache(app).get(secret)
                if info is not None and not _is(UPLOADS, method, path):
                    app.state.engine.note_api_key_use(info.id)
                    if rate_in_store(app):  # the shared rate bucket is one store statement: off the loop
                        await run_in_threadpool(_admit_as, app, info, method, path, state)
                    else:  # no store round trip left: stay on the loop
                        _admit_as(app, info, method, path, state)
                else:  # one hop to a thread for both (each hop costs a GIL hand-off under load)
                    await run_in_threadpool(_authenticate_and_admit, app, secret, method, path, state)
        except Exception as exc:  # noqa: BLE001 — every refusal is the API's one error shape
            await quotas_of(app).hold_refusal(state.get("tenant"), exc)  # a client ignoring Retry-After waits
            await _refuse(exc, state, send)
            return
        if _is(UPLOADS, scope.get("method", ""), path):
            receive = _charged(receive, quotas_of(app), state["tenant"])
        gate = getattr(app.state, "gate", None)
        method = scope.get("method", "")
        cost = cost_of(method, path, _is(UPLOADS, method, path))
        if gate is None or cost is None or state["tenant"] == "(admin)":
            await self.app(scope, receive, send)
            return
        admitted = time.perf_counter()
        try:  # every request of a tenant (lookups too) shares the process fairly, by its cost
            slot = await gate.enter(state["tenant"], cost)
        except ApiError as exc:
            await _refuse(exc, state, send)
            return
        # Where a slow request's time went before the route ran (the request log line shows it).
        state.setdefault("log_extra", {}).update({"admit_ms": round((admitted - started) * 1000, 2),
                                                  "gate_ms": round((time.perf_counter() - admitted) * 1000, 2)})
        extra = state["log_extra"]

        async def noted(message: Message) -> None:
            if message["type"] == "http.response.start":  # before the log line: the time it stepped aside
                extra["paused_ms"] = round(slot.paused_s * 1000, 2)
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            gate.leave(slot)


def _authenticate_and_admit(app: Any, secret: str | None, method: str, path: str, state: dict[str, Any]) -> None:
    info = authenticate(app.state.engine, secret)
    key_cache(app).put(secret or "", info)
    _admit_as(app, info, method, path, state)


def _admit_as(app: Any, info: ApiKeyInfo, method: str, path: str, state: dict[str, Any]) -> None:
    """The request is ``info``'s (its tenant in the ASGI state), if its quotas admit it."""
    state["api_key"], state["tenant"] = info, info.tenant
    admit(app, info, method, path)


def _charged(receive: Receive, quotas: Any, tenant: str) -> Receive:
    """``receive`` that counts an upload's body bytes against the tenant's upload budget."""

    async def counted() -> Message:
        message = await receive()
        if message["type"] == "http.request" and message.get("body"):
            quotas.charge_upload(tenant, len(message["body"]))
        return message

    return counted


async def _refuse(exc: Exception, state: dict[str, Any], send: Send) -> None:
    status, code, message = map_exception(exc)
    if status >= 500:
        log.warning("authentication failed: %s", exc, exc_info=status == 500)
    state["error"] = code
    headers = [(b"content-type", b"application/json"),
               # The body was never read: close rather than leave it on the connection.
               (b"connection", b"close")]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1"))
                for k, v in (getattr(exc, "headers", None) or {}).items()]
    body = error_json(code, message)
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
