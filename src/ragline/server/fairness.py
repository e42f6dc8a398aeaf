"""Fair sharing of one server process between tenants.

Request work (reading and validating bodies, embedding questions, searching,
fusing, building responses) is CPU work under one GIL: when one tenant floods the
server from many connections, every other tenant's requests queue behind its work
(bench/drill_tenancy.py measured another tenant's search p95 26× its solo figure).
``FairGate`` admits authenticated requests:

- at most ``slots`` requests are handled at once in this process;
- one tenant holds at most ``per_tenant`` of them (default ``slots - 1``), so a
  slot is always left for the others;
- a freed slot goes to the waiting tenant with the fewest requests running (then
  the one waiting longest): a tenant that sends one request at a time is served
  next, however many the flooding one has queued;
- a tenant with ``max_waiting`` requests already queued, or one whose request
  waited ``wait_s``, gets 429 ``busy`` with ``Retry-After``.

Two requests that do run at once share one GIL, so at the library's pause points
(``ragline.pause``: between search stages, before generating) an older request steps
aside while a newer one of another tenant runs (at most ``max_pause_s`` per
request; never for a tenant with more requests running and waiting than its own):
a tenant's short search then runs at nearly its solo speed next to another's long
one. Waiting on a remote LLM is not CPU work: the answer path gives the slot back
for the provider call (``released``), so a slow provider does not hold it. Ingestion
runs in its own process (``worker_process``), outside this gate.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import pause
from .errors import ApiError


@dataclass(eq=False)
class _Slot:
    """The slot a request holds (``held`` is False while ``released`` lent it back)."""

    gate: FairGate
    tenant: str
    held: bool = True
    token: contextvars.Token[_Slot | None] | None = None  # both set by FairGate.enter
    pause_token: contextvars.Token[Callable[[], None] | None] | None = None
    started: float = field(default_factory=time.monotonic)
    paused_s: float = 0.0


_slot: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("ragline_gate_slot", default=None)


@dataclass(eq=False)
class _Ticket:
    tenant: str
    arrived: float
    wake: Callable[[], None]
    granted: bool = field(default=False)


class FairGate:
    """Admission of request work, fair across tenants (see the module docstring)."""

    def __init__(self, slots: int, per_tenant: int | None = None, max_waiting: int = 64,
                 wait_s: float = 30.0, max_pause_s: float = 1.0) -> None:
        self.slots = slots
        self.per_tenant = min(slots, per_tenant) if per_tenant is not None else max(1, slots - 1)
        self.max_waiting = max_waiting
        self.wait_s = wait_s
        self.max_pause_s = max_pause_s
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a slot was left: paused requests look again
        self._active: set[_Slot] = set()
        self._running: Counter[str] = Counter()
        self._waiting: dict[str, deque[_Ticket]] = {}

    # -- the request side (the event loop) ------------------------------------------
    async def enter(self, tenant: str) -> _Slot:
        """Wait (fairly) for a slot for the tenant; 429 ``busy`` when it cannot have one.
        The slot is this context's until ``leave``: ``released`` can lend it back."""
        loop = asyncio.get_running_loop()
        granted = loop.create_future()

        def grant() -> None:
            if not granted.done():
                granted.set_result(None)

        def wake() -> None:
            loop.call_soon_threadsafe(grant)

        ticket = self._enqueue(tenant, wake)
        try:
            await asyncio.wait_for(asyncio.shield(granted), self.wait_s)
        except (TimeoutError, asyncio.CancelledError) as exc:
            if self._withdraw(ticket):
                if isinstance(exc, asyncio.CancelledError):
                    raise
                raise self._busy(tenant, f"its request waited {self.wait_s:g} s for a free slot") from exc
            self._leave(tenant)  # granted in the meantime: give the slot back
            raise
        slot = _Slot(self, tenant)
        slot.token = _slot.set(slot)

        def pause_hook() -> None:
            if slot.held:
                self._pause(slot)

        slot.pause_token = pause.install(pause_hook)
        with self._lock:
            self._active.add(slot)
        return slot

    def leave(self, slot: _Slot) -> None:
        """End the request's hold on its slot."""
        assert slot.token is not None and slot.pause_token is not None  # entered
        _slot.reset(slot.token)
        pause.uninstall(slot.pause_token)
        with self._lock:
            self._active.discard(slot)
        if slot.held:
            slot.held = False
            self._leave(slot.tenant)

    # -- the worker-thread side ------------------------------------------------------
    def _wait_in_thread(self, tenant: str) -> None:
        event = threading.Event()
        ticket = self._enqueue(tenant, event.set, force=True)
        if not event.wait(self.wait_s) and self._withdraw(ticket):
            raise self._busy(tenant, f"its request waited {self.wait_s:g} s for a free slot")

    # -- the queue -------------------------------------------------------------------
    def _enqueue(self, tenant: str, wake: Callable[[], None], force: bool = False) -> _Ticket:
        with self._lock:
            queue = self._waiting.setdefault(tenant, deque())
            if len(queue) >= self.max_waiting and not force:
                raise self._busy(tenant, f"{len(queue)} of its requests are already waiting")
            ticket = _Ticket(tenant, time.monotonic(), wake)
            queue.append(ticket)
            self._dispatch()
        return ticket

    def _withdraw(self, ticket: _Ticket) -> bool:
        """Take a ticket out of its queue; False if it was granted a slot already."""
        with self._lock:
            if ticket.granted:
                return False
            queue = self._waiting.get(ticket.tenant)
            if queue is not None and ticket in queue:
                queue.remove(ticket)
                if not queue:
                    del self._waiting[ticket.tenant]
            return True

    def _leave(self, tenant: str) -> None:
        with self._lock:
            self._running[tenant] -= 1
            if self._running[tenant] <= 0:
                del self._running[tenant]
            self._dispatch()
            self._changed.notify_all()

    def _pause(self, slot: _Slot) -> None:
        """Wait while a request this one yields to runs (``_yields_to``; at most
        ``max_pause_s`` per request in all): under one GIL two running requests share
        the CPU, so the request of the busier tenant steps aside and the other finishes
        at nearly its solo speed. Called at the checkpoints of the request path."""
        with self._lock:
            while slot.paused_s < self.max_pause_s and any(
                    other.tenant != slot.tenant and other.held and self._yields_to(slot, other)
                    for other in self._active):
                began = time.monotonic()
                self._changed.wait(self.max_pause_s - slot.paused_s)
                slot.paused_s += time.monotonic() - began

    def _yields_to(self, slot: _Slot, other: _Slot) -> bool:
        """Whether ``slot`` steps aside while ``other`` (another tenant's) runs: for a
        tenant with fewer requests running and waiting, whatever their ages (a flooding
        tenant's next request always starts while the other's is in flight, and must
        not share the CPU with it); between equal loads, the older for the newer (lock held)."""
        mine, theirs = self._load(slot.tenant), self._load(other.tenant)
        return theirs < mine or (theirs == mine and other.started > slot.started)

    def _load(self, tenant: str) -> int:
        """The tenant's requests running and waiting (lock held)."""
        return self._running[tenant] + len(self._waiting.get(tenant, ()))

    def _dispatch(self) -> None:
        """Grant free slots to waiting tickets, fairest first (lock held)."""
        while sum(self._running.values()) < self.slots:
            eligible = [t for t, q in self._waiting.items() if q and self._running[t] < self.per_tenant]
            if not eligible:
                return
            tenant = min(eligible, key=lambda t: (self._running[t], self._waiting[t][0].arrived))
            queue = self._waiting[tenant]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[tenant]
            ticket.granted = True
            self._running[tenant] += 1
            ticket.wake()

    def _busy(self, tenant: str, why: str) -> ApiError:
        retry = max(1, math.ceil(self.wait_s / 10))
        return ApiError(429, "busy", f"tenant {tenant!r} is sending more requests than this server shares with "
                        f"one tenant: {why} (server.request_slots_per_tenant); retry in {retry} s",
                        headers={"Retry-After": str(retry)})

    def snapshot(self) -> dict[str, dict[str, int]]:
        """Running and waiting requests per tenant (for tests and debugging)."""
        with self._lock:
            return {"running": dict(self._running), "waiting": {t: len(q) for t, q in self._waiting.items()}}


@contextmanager
def released() -> Iterator[None]:
    """Give this request's slot back while the block waits on something that is not
    this process's CPU (a remote LLM), and take one again after (waiting fairly)."""
    slot = _slot.get()
    if slot is None or not slot.held:
        yield
        return
    slot.held = False
    slot.gate._leave(slot.tenant)
    yield  # on an exception (the client left, the provider failed) no slot is taken back
    slot.gate._wait_in_thread(slot.tenant)  # busy: the request fails, holding nothing
    slot.held = True
