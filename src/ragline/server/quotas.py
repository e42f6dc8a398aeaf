"""Per-tenant quotas (``settings.quotas``, docs/scaling.md): a refusal is a 429 with
``Retry-After``.

- Requests per minute: a token bucket per tenant holding up to a minute's worth
  (bursts are fine, a sustained flood is not). With ``quotas.rate_shared`` (the
  default when the store is PostgreSQL) the bucket is a row in the store that every
  replica draws from in one statement (``Engine.draw_tokens``), so two replicas admit
  what one would; otherwise each process keeps its own (one SQLite machine, where
  a write per request would queue on the file's one write lock).
- Stored documents, chunks and bytes: checked against the catalog
  (``Engine.stored``) before an upload is accepted; a tenant at or over a limit
  gets no new documents (replacing or deleting still works). One accepted
  request can overshoot by what it holds, since its size is known only once
  ingested.
- Upload bytes per minute: a byte budget per tenant in this process (by design: it
  guards this process's work of reading bodies, and is charged as each piece of a
  body arrives, where a store round trip would cost more than the read), refilled at
  ``upload_mb_per_minute`` and holding ten seconds' worth. An upload is admitted
  while the tenant is not in debt and its body is charged as it arrives, so one big
  request may take the budget below zero; the tenant's next upload then waits until
  it has been paid back. Reading, parsing and queueing bodies is work the server
  does for everyone: this keeps one tenant's flood of uploads from taking it all.
- Concurrent jobs: capped where workers claim (``Engine.claim_job``), not here.

A rate refusal is held up to ``REFUSAL_HOLD_S`` before it is sent (``hold_refusal``;
at most ``REFUSALS_HELD_PER_TENANT`` of one tenant's at once): a client that ignores
``Retry-After`` and asks again at once otherwise made the server accept a connection,
authenticate and refuse it a hundred times a second (the tenancy drill), work the
other tenants waited behind. A held refusal is a sleeping coroutine: no thread, no body.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from typing import TYPE_CHECKING

from ..store import shared_by_replicas
from .errors import ApiError

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ..engine import Engine
    from ..settings import QuotaSettings

UPLOAD_BURST_S = 10
"""The upload budget holds this many seconds' worth: a flood is slowed within seconds."""

REFUSAL_HOLD_S = 1.0
"""A rate refusal waits this long (or its Retry-After, if shorter) before it is sent."""

REFUSALS_HELD_PER_TENANT = 32
"""Beyond this many of one tenant's refusals being held, the next is sent at once."""

STORAGE_RETRY_AFTER_S = 60
"""Retry-After of a storage refusal: space comes back only when documents are deleted."""


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity, self.rate = capacity, rate
        self.tokens, self.updated = capacity, now

    def take(self, now: float) -> float:
        """Take one token: 0 if there was one, else the seconds until there is."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


    def charge(self, amount: float, now: float) -> float:
        """Take ``amount`` tokens, going into debt if needed: the seconds until the
        balance is positive again (0 when it still is)."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate) - amount
        self.updated = now
        return 0.0 if self.tokens > 0 else -self.tokens / self.rate + 1e-3


class Quotas:
    """The quota checks of one server process."""

    def __init__(self, settings: QuotaSettings, engine: Engine | None = None) -> None:
        """``engine``: count requests per minute in its store (shared by replicas)."""
        self.settings = settings
        self.engine = engine
        self._buckets: dict[str, tuple[int, TokenBucket]] = {}
        self._upload_budgets: dict[str, tuple[float, TokenBucket]] = {}
        self._held: dict[str, int] = {}  # rate refusals being held, per tenant (event loop only)
        self._lock = threading.Lock()

    async def hold_refusal(self, tenant: str | None, refusal: Exception) -> float:
        """Wait before a ``rate_limited`` refusal of ``tenant`` is sent (see the module
        docstring); returns the seconds held (0 for other errors, or past the cap)."""
        if tenant is None or getattr(refusal, "code", None) != "rate_limited":
            return 0.0
        if self._held.get(tenant, 0) >= REFUSALS_HELD_PER_TENANT:
            return 0.0
        retry = (getattr(refusal, "headers", None) or {}).get("Retry-After", "")
        hold = min(REFUSAL_HOLD_S, float(retry)) if retry.isdigit() else REFUSAL_HOLD_S
        self._held[tenant] = self._held.get(tenant, 0) + 1
        try:
            await asyncio.sleep(hold)
        finally:
            self._held[tenant] -= 1
            if not self._held[tenant]:
                del self._held[tenant]
        return hold

    def _upload_budget(self, tenant: str, now: float) -> tuple[float, TokenBucket] | None:
        mb = self.settings.for_tenant(tenant).upload_mb_per_minute
        if mb is None:
            return None
        held = self._upload_budgets.get(tenant)
        if held is None or held[0] != mb:
            per_second = mb * 1024 * 1024 / 60.0
            held = (mb, TokenBucket(per_second * UPLOAD_BURST_S, per_second, now))
            self._upload_budgets[tenant] = held
        return held

    def admit_upload(self, tenant: str) -> None:
        """429 ``rate_limited`` while the tenant's upload bytes are over its budget."""
        now = time.monotonic()
        with self._lock:
            held = self._upload_budget(tenant, now)
            wait = 0.0 if held is None else held[1].charge(0, now)
        if held is not None and wait > 0:
            raise ApiError(429, "rate_limited",
                           f"tenant {tenant!r} is over its {held[0]:g} MB of uploads per minute "
                           f"(quotas.upload_mb_per_minute); retry in {math.ceil(wait)} s",
                           headers={"Retry-After": str(math.ceil(wait))})

    def charge_upload(self, tenant: str, size: int) -> None:
        """Count ``size`` bytes of an admitted upload's body against the tenant's budget."""
        now = time.monotonic()
        with self._lock:
            held = self._upload_budget(tenant, now)
            if held is not None:
                held[1].charge(size, now)

    def admit_request(self, tenant: str) -> None:
        """Count one request of the tenant; 429 ``rate_limited`` over its rate."""
        rpm = self.settings.for_tenant(tenant).requests_per_minute
        if rpm is None:
            return
        if self.engine is not None:
            wait = self.engine.draw_tokens(tenant, "requests", 1, capacity=rpm, rate=rpm / 60.0)
        else:
            now = time.monotonic()
            with self._lock:
                held = self._buckets.get(tenant)
                if held is None or held[0] != rpm:
                    held = (rpm, TokenBucket(rpm, rpm / 60.0, now))
                    self._buckets[tenant] = held
                wait = held[1].take(now)
        if wait > 0:
            raise ApiError(429, "rate_limited",
                           f"tenant {tenant!r} is over its {rpm} requests per minute (quotas.requests_per_minute); "
                           f"retry in {math.ceil(wait)} s", headers={"Retry-After": str(math.ceil(wait))})

    def check_storage(self, engine: Engine, tenant: str, new_documents: int = 0) -> None:
        """429 ``quota_exceeded`` when the tenant's stored documents, chunks or bytes are
        at their limit (or ``new_documents`` more would pass the document limit)."""
        limits = self.settings.for_tenant(tenant)
        if limits.documents is None and limits.chunks is None and limits.stored_mb is None:
            return
        used = engine.stored(tenant)
        over = None
        if limits.documents is not None and used.documents + max(new_documents, 1) > limits.documents:
            adding = f" + {new_documents} in this request" if new_documents else ""
            over = f"{used.documents} documents stored{adding}, {limits.documents} allowed (quotas.documents)"
        elif limits.chunks is not None and used.chunks >= limits.chunks:
            over = f"{used.chunks} chunks stored, {limits.chunks} allowed (quotas.chunks)"
        elif limits.stored_mb is not None and used.bytes >= limits.stored_mb * 1024 * 1024:
            over = f"{used.bytes / 2**20:.1f} MB stored, {limits.stored_mb:g} MB allowed (quotas.stored_mb)"
        if over is not None:
            raise ApiError(429, "quota_exceeded", f"tenant {tenant!r} is at its storage quota: {over}; delete "
                           "documents or ask the operator to raise it",
                           headers={"Retry-After": str(STORAGE_RETRY_AFTER_S)})


_create_lock = threading.Lock()


def quotas_of(app: Starlette) -> Quotas:
    """The app's ``Quotas`` (``app.state.quotas``), made on first use from its settings."""
    state = app.state
    quotas = getattr(state, "quotas", None)
    if quotas is None:
        with _create_lock:
            quotas = getattr(state, "quotas", None)
            if quotas is None:
                settings = state.settings
                shared = settings.quotas.rate_shared
                if shared is None:
                    shared = shared_by_replicas(settings)
                quotas = state.quotas = Quotas(settings.quotas, state.engine if shared else None)
    return quotas


def rate_in_store(app: Starlette) -> bool:
    """Whether admitting a request costs a store round trip (not on the event loop, then)."""
    return quotas_of(app).engine is not None
