"""Fair sharing of one server process between tenants.

Request work (reading and validating bodies, embedding questions, searching,
fusing, building responses) is CPU work under one GIL: when one tenant floods the
server from many connections, every other tenant's requests queue behind its work
(bench/drills/tenancy.py measured another tenant's search p95 26× its solo figure).
``FairGate`` admits every authenticated request, weighted by what it costs
(``COSTS``: a lookup such as a document list, a job or the usage report is ``read``,
1 unit; a search, ask or chat is ``query``, 2 units, one slot; an upload is
``upload``, 3 units). Before every route took part, GET lookups ran beside the gate:
a tenant flooding document lists from twelve connections took the victim's search
p95 from 14.7 to 90 ms (issue 29).

- a request starts while fewer than ``slots`` slots' worth of units run in this
  process (a slot is a ``query``'s 2 units), and while its tenant holds fewer than
  ``per_tenant`` slots' worth (default ``slots - 1``), so room is always left for
  the others (one request may overshoot by its own cost: an upload from a tenant
  with nothing running never waits for room it could not use);
- a freed slot goes to the waiting tenant with the fewest units running (then the
  one waiting longest): a tenant that sends one request at a time is served next,
  however many the flooding one has queued, and two cheap lookups weigh one search;
- a tenant with ``max_waiting`` requests already queued, or one whose request
  waited ``wait_s``, gets 429 ``busy`` with ``Retry-After``.

Two requests that do run at once share one GIL, so at the library's pause points
(``ragline.pause``: between search stages, before generating) an older request steps
aside while a newer one of another tenant runs (at most ``max_pause_s`` per
request; never for a tenant with more requests running and waiting than its own):
a tenant's short search then runs at nearly its solo speed next to another's long
one. Behind a front (``front.py``) tenants run in different processes, which share the
cores instead of a GIL; the front tells each process (``outside``) when it holds a
busier tenant than one with a request in flight elsewhere, and its requests then step
aside at the same pause points. Waiting on a remote LLM is not CPU work: the answer path gives the slot back
for the provider call (``released``), so a slow provider does not hold it. Ingestion
runs in its own process (``worker_process``), outside this gate; an upload's cost is
the server's share of it (reading, checking and keeping the body, queueing the job).

The gate is per process by design: it shares this process's CPU, and each replica has
its own. What must hold across replicas is counted in the store instead: a tenant's
request rate (``quotas.py``) and its running jobs (``concurrent_jobs``, at the claim).
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

COSTS = {"read": 1, "query": 2, "upload": 3}
"""What one request weighs in the gate, by kind (``cost_of`` tells a request's kind)."""
SLOT = COSTS["query"]
"""The units of one slot: ``server.request_slots`` counts searches that run at once."""
OUTSIDE_POLL_S = 0.0005
"""How often a request stepping aside for another process's looks again (``FairGate.outside``)."""


@dataclass(eq=False)
class _Slot:
    """The slot a request holds (``held`` is False while ``released`` lent it back)."""

    gate: FairGate
    tenant: str
    cost: int = SLOT
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
    cost: int = SLOT
    granted: bool = field(default=False)


class FairGate:
    """Admission of request work, fair across tenants (see the module docstring)."""

    def __init__(self, slots: int, per_tenant: int | None = None, max_waiting: int = 64,
                 wait_s: float = 30.0, max_pause_s: float = 1.0,
                 outside: Callable[[], bool] | None = None) -> None:
        self.slots = slots
        self.outside = outside  # True while a lighter tenant's request runs in another process (front.py)
        self.per_tenant = min(slots, per_tenant) if per_tenant is not None else max(1, slots - 1)
        self.max_waiting = max_waiting
        self.wait_s = wait_s
        self.max_pause_s = max_pause_s
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a slot was left: paused requests look again
        self._active: set[_Slot] = set()
        self._running: Counter[str] = Counter()  # requests running, per tenant
        self._units: Counter[str] = Counter()  # their cost, per tenant
        self._waiting: dict[str, deque[_Ticket]] = {}

    # -- the request side (the event loop) ------------------------------------------
    async def enter(self, tenant: str, cost: int = SLOT) -> _Slot:
        """Wait (fairly) for room for a request of ``cost`` units of the tenant; 429
        ``busy`` when it cannot have it. The slot is this context's until ``leave``:
        ``released`` can lend it back."""
        loop = asyncio.get_running_loop()
        granted = loop.create_future()

        def grant() -> None:
            if not granted.done():
                granted.set_result(None)

        def wake() -> None:
            loop.call_soon_threadsafe(grant)

        ticket = self._enqueue(tenant, wake, cost)
        try:
            deadline = loop.time() + self.wait_s
            while True:  # a deferred ticket (``_defers``) is looked at again when its deferral ends
                try:
                    await asyncio.wait_for(asyncio.shield(granted), min(self.max_pause_s, deadline - loop.time()))
                    break
                except TimeoutError:
                    if loop.time() >= deadline:
                        raise
                    self._redispatch()
        except (TimeoutError, asyncio.CancelledError) as exc:
            if self._withdraw(ticket):
                if isinstance(exc, asyncio.CancelledError):
                    raise
                raise self._busy(tenant, f"its request waited {self.wait_s:g} s for a free slot") from exc
            self._leave(tenant, cost)  # granted in the meantime: give the slot back
            raise
        slot = _Slot(self, tenant, cost)
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
            self._leave(slot.tenant, slot.cost)

    # -- the worker-thread side ------------------------------------------------------
    def _wait_in_thread(self, tenant: str, cost: int) -> None:
        event = threading.Event()
        ticket = self._enqueue(tenant, event.set, cost, force=True)
        deadline = time.monotonic() + self.wait_s
        while not event.wait(max(0.0, min(self.max_pause_s, deadline - time.monotonic()))) \
                and time.monotonic() < deadline:
            self._redispatch()
        if not event.is_set() and self._withdraw(ticket):
            raise self._busy(tenant, f"its request waited {self.wait_s:g} s for a free slot")

    # -- the queue -------------------------------------------------------------------
    def _enqueue(self, tenant: str, wake: Callable[[], None], cost: int, force: bool = False) -> _Ticket:
        with self._lock:
            queue = self._waiting.setdefault(tenant, deque())
            if len(queue) >= self.max_waiting and not force:
                raise self._busy(tenant, f"{len(queue)} of its requests are already waiting")
            ticket = _Ticket(tenant, time.monotonic(), wake, cost)
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

    def _leave(self, tenant: str, cost: int) -> None:
        with self._lock:
            self._running[tenant] -= 1
            self._units[tenant] -= cost
            if self._running[tenant] <= 0:
                del self._running[tenant], self._units[tenant]
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
        # The same rule across the app processes of a front: it says when this process holds a
        # busier tenant than one whose request runs in another process, which shares the cores.
        while self.outside is not None and slot.paused_s < self.max_pause_s and self.outside():
            began = time.monotonic()
            time.sleep(OUTSIDE_POLL_S)
            slot.paused_s += time.monotonic() - began

    def _yields_to(self, slot: _Slot, other: _Slot) -> bool:
        """Whether ``slot`` steps aside while ``other`` (another tenant's) runs: for a
        tenant with fewer requests running and waiting, whatever their ages (a flooding
        tenant's next request always starts while the other's is in flight, and must
        not share the CPU with it); between equal loads, the older for the newer (lock held)."""
        mine, theirs = self._load(slot.tenant), self._load(other.tenant)
        return theirs < mine or (theirs == mine and other.started > slot.started)

    def _load(self, tenant: str) -> int:
        """The tenant's requests running and waiting (lock held). Counted, not weighed:
        a tenant sending one search at a time must not count as heavier than one
        sending a stream of cheap lookups (by units, the victim's search deferred to
        the flood's one lookup in flight, and stepped aside for it)."""
        return self._running[tenant] + len(self._waiting.get(tenant, ()))

    def _redispatch(self) -> None:
        with self._lock:
            self._dispatch()

    def _defers(self, tenant: str, now: float) -> bool:
        """Whether the tenant's next request waits while a lighter tenant's runs (lock
        held): two requests running at once share one GIL, so a tenant with more
        requests running and waiting does not start another beside the request of a
        tenant with fewer — at most ``max_pause_s`` per request, as at pause points.
        Without it a flooding tenant always had a request starting beside the
        victim's, however cheap each one (issue 29: GET floods)."""
        if now - self._waiting[tenant][0].arrived >= self.max_pause_s:
            return False
        mine = self._load(tenant)
        return any(other != tenant and self._load(other) < mine for other in self._running)

    def _dispatch(self) -> None:
        """Grant room to waiting tickets, fairest first (lock held)."""
        now = time.monotonic()
        while sum(self._units.values()) < self.slots * SLOT:
            eligible = [t for t, q in self._waiting.items()
                        if q and self._units[t] < self.per_tenant * SLOT and not self._defers(t, now)]
            if not eligible:
                return
            tenant = min(eligible, key=lambda t: (self._units[t], self._waiting[t][0].arrived))
            queue = self._waiting[tenant]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[tenant]
            ticket.granted = True
            self._running[tenant] += 1
            self._units[tenant] += ticket.cost
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

    def units(self) -> dict[str, int]:
        """The units of the requests running, per tenant (for tests and debugging)."""
        with self._lock:
            return dict(self._units)


def cost_of(method: str, path: str, upload: bool) -> int | None:
    """What a tenant's request weighs in the gate (``COSTS``), or None for one the gate
    leaves alone: MCP's event stream (``GET /v1/mcp``), which idles for a session's life."""
    if upload:
        return COSTS["upload"]
    if method in ("GET", "HEAD"):
        return None if path.rstrip("/") == "/v1/mcp" else COSTS["read"]
    return COSTS["query"]


@contextmanager
def released() -> Iterator[None]:
    """Give this request's slot back while the block waits on something that is not
    this process's CPU (a remote LLM), and take one again after (waiting fairly)."""
    slot = _slot.get()
    if slot is None or not slot.held:
        yield
        return
    slot.held = False
    slot.gate._leave(slot.tenant, slot.cost)
    yield  # on an exception (the client left, the provider failed) no slot is taken back
    slot.gate._wait_in_thread(slot.tenant, slot.cost)  # busy: the request fails, holding nothing
    slot.held = True
