"""Issue 16, fairness: one tenant's flood cannot take the server from another.

``FairGate`` is tested directly (slots, the per-tenant cap, who goes next, the
queue bound, lending a slot back during a remote wait) and through a real server,
where a tenant whose upload trickles in holds its one slot while another tenant's
searches are answered at once, and its further requests queue or get 429 ``busy``.
"""

from __future__ import annotations

import asyncio
import contextvars
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ragline.server.errors import ApiError
from ragline.server.fairness import FairGate, released
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant


def _run(coro):
    return asyncio.run(coro)


def test_a_tenant_never_holds_the_last_slot_and_the_idle_tenant_goes_first() -> None:
    async def scenario() -> list[str]:
        gate = FairGate(slots=2)  # per tenant: 1
        order: list[str] = []
        first = await gate.enter("hostile")  # holds its one slot

        async def request(tenant: str, hold: float) -> None:
            slot = await gate.enter(tenant)
            order.append(tenant)
            await asyncio.sleep(hold)
            gate.leave(slot)

        queued = [asyncio.create_task(request("hostile", 0.01)) for _ in range(5)]
        await asyncio.sleep(0.01)
        assert gate.snapshot() == {"running": {"hostile": 1}, "waiting": {"hostile": 5}}
        victim = asyncio.create_task(request("victim", 0.05))
        await asyncio.sleep(0.01)
        assert order == ["victim"]  # the free slot went to the victim, not to the hostile queue
        gate.leave(first)
        await asyncio.gather(victim, *queued)
        assert gate.snapshot() == {"running": {}, "waiting": {}}
        return order

    order = _run(scenario())
    assert order[0] == "victim" and order.count("hostile") == 5


def test_fewest_running_goes_next_and_ties_go_to_the_longest_waiting() -> None:
    async def scenario() -> list[str]:
        gate = FairGate(slots=1, per_tenant=1)
        order: list[str] = []
        held = await gate.enter("a")

        async def request(tenant: str) -> None:
            slot = await gate.enter(tenant)
            order.append(tenant)
            gate.leave(slot)

        tasks = []
        for tenant in ("a", "a", "b", "c"):
            tasks.append(asyncio.create_task(request(tenant)))
            await asyncio.sleep(0.005)
        gate.leave(held)
        await asyncio.gather(*tasks)
        return order

    # all waiting tenants have none running: the longest waiting goes first, in arrival order
    assert _run(scenario()) == ["a", "a", "b", "c"]


def test_a_full_queue_and_a_long_wait_are_429_busy_with_retry_after() -> None:
    async def scenario() -> None:
        gate = FairGate(slots=2, max_waiting=2, wait_s=0.2)
        held = await gate.enter("t")
        waiting = [asyncio.create_task(gate.enter("t")) for _ in range(2)]
        await asyncio.sleep(0.01)
        with pytest.raises(ApiError) as full:
            await gate.enter("t")
        assert full.value.status == 429 and full.value.code == "busy"
        assert "already waiting" in full.value.message and full.value.headers["Retry-After"] == "1"
        for task in waiting:  # nobody leaves: both time out, and hold nothing afterwards
            with pytest.raises(ApiError, match="waited 0.2 s"):
                await task
        gate.leave(held)
        assert gate.snapshot() == {"running": {}, "waiting": {}}

    _run(scenario())


def test_a_remote_wait_lends_the_slot_back_and_takes_one_again() -> None:
    async def scenario() -> None:
        gate = FairGate(slots=2)
        slot = await gate.enter("t")
        during: list[dict] = []

        def remote_call() -> None:  # in a worker thread, as the answer path runs
            with released():
                during.append(gate.snapshot())
                time.sleep(0.01)

        await asyncio.to_thread(remote_call)
        assert during == [{"running": {}, "waiting": {}}]
        assert gate.snapshot() == {"running": {"t": 1}, "waiting": {}}
        gate.leave(slot)
        assert gate.snapshot() == {"running": {}, "waiting": {}}

    _run(scenario())


def _trickle(url: str, key: str, stop: threading.Event) -> None:
    """An upload whose body arrives a byte at a time: the request holds its slot."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as sock:
        head = (f"POST /v1/collections/docs/documents/text HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        sock.sendall(head.encode())
        while not stop.wait(0.05):
            sock.sendall(b" ")


@contextmanager
def _hostile_holds_a_slot(server: LiveServer, key: str) -> Iterator[threading.Event]:
    """Tenant ``hostile`` (whose key is ``key``) holding one slot with a trickling
    upload (``_trickle``) until the event yielded is set, or the block ends."""
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(server.url, key, stop), daemon=True)
    trickler.start()
    try:
        gate = server.app.state.gate
        deadline = time.monotonic() + 10
        while gate.snapshot()["running"].get("hostile") != 1:
            assert time.monotonic() < deadline, gate.snapshot()
            time.sleep(0.02)
        yield stop
    finally:
        stop.set()
        trickler.join(5)


def test_a_tenant_holding_its_slot_cannot_delay_another_tenants_requests(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0, request_queue_per_tenant=1))
    with LiveServer(settings) as server:
        hostile, victim = create_tenant(server, "hostile"), create_tenant(server, "victim")
        with _hostile_holds_a_slot(server, hostile) as stop:
            gate = server.app.state.gate
            with server.client(hostile) as h, server.client(victim) as v:
                later: list[httpx.Response] = []
                queued = threading.Thread(target=lambda: later.append(
                    h.post("/v1/search", json={"query": "x", "collection": "d"})), daemon=True)
                queued.start()  # waits behind the trickling upload: the tenant's one queue place
                while gate.snapshot()["waiting"].get("hostile") != 1:
                    time.sleep(0.02)
                refused = h.post("/v1/search", json={"query": "x", "collection": "d"})
                assert refused.status_code == 429 and refused.json()["error"]["code"] == "busy"
                assert refused.headers["Retry-After"].isdigit()
                for _ in range(5):  # the other tenant is not held up at all
                    response = v.post("/v1/search", json={"query": "anything", "collection": "docs"})
                    assert response.status_code == 404  # no such collection yet: answered, not queued
                    assert v.get("/v1/collections").status_code == 200
                stop.set()  # the upload ends (its body is not JSON): the queued search goes next
                queued.join(10)
                assert [r.status_code for r in later] == [404]
        assert httpx.get(server.url + "/readyz").status_code == 200


def test_an_older_request_steps_aside_at_pause_points_while_a_newer_one_of_another_tenant_runs() -> None:
    from ragline.pause import pause_point

    async def scenario() -> tuple[list[str], float]:
        gate = FairGate(slots=2, max_pause_s=5.0)
        log: list[str] = []
        old = await gate.enter("hostile")
        old_context = contextvars.copy_context()  # each request runs in its own context, as in the server

        def old_work() -> None:  # the older request reaches a pause point while the newer one runs
            log.append("old: pause point")
            pause_point()
            log.append("old: resumed")

        new = await gate.enter("victim")
        worker = asyncio.create_task(asyncio.to_thread(old_context.run, old_work))
        await asyncio.sleep(0.05)
        log.append("new: done")
        gate.leave(new)  # the older request may go on
        await worker
        gate.leave(old)
        return log, old.paused_s

    log, paused = _run(scenario())
    assert log == ["old: pause point", "new: done", "old: resumed"]
    assert 0 < paused < 5.0


def test_pausing_is_bounded_and_never_waits_for_the_same_tenant() -> None:
    from ragline.pause import pause_point

    async def scenario() -> tuple[float, float]:
        gate = FairGate(slots=3, per_tenant=2, max_pause_s=0.1)
        old = await gate.enter("a")
        old_context = contextvars.copy_context()
        await gate.enter("a")  # the same tenant's newer request: no reason to step aside
        started = time.monotonic()
        await asyncio.to_thread(old_context.run, pause_point)
        same = time.monotonic() - started
        await gate.enter("b")  # another tenant's newer request that never ends
        await asyncio.to_thread(old_context.run, pause_point)
        return same, old.paused_s

    same, paused = _run(scenario())
    assert paused >= 0.1  # waited for b, but only up to max_pause_s in all
    assert same < 0.1


async def _hold(gate: FairGate, tenant: str, done: asyncio.Event) -> None:
    """One more request of ``tenant``, running or waiting until ``done``."""
    slot = await gate.enter(tenant)
    await done.wait()
    gate.leave(slot)


def test_a_request_does_not_step_aside_for_a_tenant_with_more_requests_running_and_waiting() -> None:
    """A flooding tenant always has a newer request running: the request of a tenant
    sending one at a time must not wait for it at pause points (the tenancy drill)."""
    from ragline.pause import pause_point

    async def scenario() -> tuple[float, float]:
        gate = FairGate(slots=2, max_pause_s=0.5)  # one slot per tenant
        victim = await gate.enter("victim")
        victim_context = contextvars.copy_context()
        flood = await gate.enter("hostile")  # newer than the victim's request
        flood_context = contextvars.copy_context()
        done = asyncio.Event()

        queued = asyncio.create_task(_hold(gate, "hostile", done))  # and more of the hostile's wait
        await asyncio.sleep(0.01)
        assert gate.snapshot() == {"running": {"victim": 1, "hostile": 1}, "waiting": {"hostile": 1}}
        await asyncio.to_thread(victim_context.run, pause_point)
        victim_paused = victim.paused_s
        gate.leave(victim)
        # The hostile's older request does step aside for a newer request of the victim.
        newer = await gate.enter("victim")
        waiter = asyncio.create_task(asyncio.to_thread(flood_context.run, pause_point))
        await asyncio.sleep(0.05)
        gate.leave(newer)
        await waiter
        gate.leave(flood)
        done.set()
        await queued
        return victim_paused, flood.paused_s

    victim_paused, flood_paused = _run(scenario())
    assert victim_paused == 0
    assert flood_paused > 0


def test_a_flooding_tenants_newer_request_steps_aside_for_a_lighter_tenants_older_one() -> None:
    """The flood's next request starts while the victim's is in flight: newer, it used
    to run beside it unpaused. The busier tenant now yields whatever the ages."""
    from ragline.pause import pause_point

    async def scenario() -> float:
        gate = FairGate(slots=2, max_pause_s=0.5)
        victim = await gate.enter("victim")  # older
        flood = await gate.enter("hostile")  # newer
        flood_context = contextvars.copy_context()
        done = asyncio.Event()

        queued = asyncio.create_task(_hold(gate, "hostile", done))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(asyncio.to_thread(flood_context.run, pause_point))
        await asyncio.sleep(0.05)
        gate.leave(victim)  # the victim's request ends: the flood goes on
        await waiter
        gate.leave(flood)
        done.set()
        await queued
        return flood.paused_s

    assert _run(scenario()) >= 0.04


def test_a_request_steps_aside_while_the_front_says_another_process_serves_a_lighter_tenant() -> None:
    """Behind a front, tenants run in different app processes that share the cores: the
    front's ``outside`` flag makes this process's requests step aside at pause points
    (at most ``max_pause_s``), and they go on as soon as it clears."""
    from ragline.pause import pause_point

    flag = {"on": True}

    async def scenario() -> tuple[float, float, float]:
        gate = FairGate(slots=2, max_pause_s=0.3, outside=lambda: flag["on"])
        slot = await gate.enter("hostile")
        context = contextvars.copy_context()
        began = time.monotonic()
        waiter = asyncio.create_task(asyncio.to_thread(context.run, pause_point))
        await asyncio.sleep(0.05)
        flag["on"] = False  # the lighter tenant's request ended
        await waiter
        cleared = time.monotonic() - began
        first = slot.paused_s
        flag["on"] = True  # and another that never ends: bounded by max_pause_s in all
        await asyncio.to_thread(context.run, pause_point)
        gate.leave(slot)
        return first, cleared, slot.paused_s

    first, cleared, total = _run(scenario())
    assert 0.04 <= first < 0.3 and cleared < 0.3  # it waited while the flag was set, not for the bound
    assert total == pytest.approx(0.3, abs=0.05)  # never more than max_pause_s per request


# -- issue 29: every route takes part, weighted by its cost ------------------------------
def test_lookups_weigh_less_than_searches_and_uploads_more() -> None:
    from ragline.server.fairness import COSTS, cost_of

    assert cost_of("GET", "/v1/collections/kb/documents", upload=False) == COSTS["read"] == 1
    assert cost_of("GET", "/v1/jobs", upload=False) == cost_of("GET", "/v1/usage", upload=False) == 1
    assert cost_of("POST", "/v1/search", upload=False) == cost_of("POST", "/v1/ask", upload=False) == 2
    assert cost_of("POST", "/v1/collections/kb/documents/text", upload=True) == COSTS["upload"] == 3
    assert cost_of("GET", "/v1/mcp", upload=False) is None  # MCP's idle event stream holds nothing

    async def scenario() -> None:
        gate = FairGate(slots=2, wait_s=2)  # 4 units; one tenant holds at most 2 (one search, or two lookups)
        reads = [await gate.enter("hostile", COSTS["read"]) for _ in range(2)]
        async def third_read() -> None:
            gate.leave(await gate.enter("hostile", COSTS["read"]))

        third = asyncio.create_task(third_read())
        await asyncio.sleep(0.01)
        assert gate.snapshot() == {"running": {"hostile": 2}, "waiting": {"hostile": 1}}
        assert gate.units() == {"hostile": 2}
        victim = await gate.enter("victim", COSTS["query"])  # busy after 2 s if no room: left for the other tenant
        assert gate.units() == {"hostile": 2, "victim": 2} and not third.done()
        gate.leave(reads[0])  # room for one more unit of the hostile tenant
        await asyncio.wait_for(third, 1)
        for slot in (reads[1], victim):
            gate.leave(slot)
        upload = await gate.enter("hostile", COSTS["upload"])  # more than its share, alone: not starved
        assert gate.units() == {"hostile": 3}
        search = await gate.enter("victim", COSTS["query"])
        gate.leave(upload)
        gate.leave(search)
        assert gate.snapshot() == {"running": {}, "waiting": {}} and gate.units() == {}

    _run(scenario())


def test_a_tenants_lookups_wait_for_its_share_while_another_tenants_are_answered(tmp_path: Path) -> None:
    """GET routes (document lists, jobs, usage) used to run beside the gate: a tenant
    flooding them took the CPU from another tenant's searches (issue 29)."""
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0))
    with LiveServer(settings) as server:
        hostile, victim = create_tenant(server, "hostile"), create_tenant(server, "victim")
        with _hostile_holds_a_slot(server, hostile) as stop:
            gate = server.app.state.gate
            deadline = time.monotonic() + 10
            with server.client(hostile) as h, server.client(victim) as v:
                later: list[httpx.Response] = []
                lookups = [threading.Thread(target=lambda path=path: later.append(h.get(path)), daemon=True)
                           for path in ("/v1/collections", "/v1/jobs", "/v1/usage")]
                for thread in lookups:
                    thread.start()
                while gate.snapshot()["waiting"].get("hostile") != 3:  # queued behind its own upload
                    assert time.monotonic() < deadline, gate.snapshot()
                    time.sleep(0.02)
                assert later == []
                for path in ("/v1/collections", "/v1/jobs", "/v1/usage"):  # the other tenant's go through
                    assert v.get(path).status_code == 200
                stop.set()
                for thread in lookups:
                    thread.join(10)
                assert sorted(r.status_code for r in later) == [200, 200, 200]


def test_a_heavier_tenant_starts_nothing_new_beside_a_lighter_tenants_request_for_a_bounded_while() -> None:
    """Two requests running at once share one GIL: while the victim's search runs, the
    flooding tenant's next lookup waits (up to ``max_pause_s``), however cheap it is."""
    from ragline.server.fairness import COSTS

    async def scenario() -> None:
        gate = FairGate(slots=3, per_tenant=2, max_pause_s=0.3)  # room is not what holds them back
        victim = await gate.enter("victim", COSTS["query"])
        order: list[str] = []

        async def lookup(name: str) -> None:
            slot = await gate.enter("hostile", COSTS["read"])
            order.append(name)
            await asyncio.sleep(0.05)
            gate.leave(slot)

        first, second, third = (asyncio.create_task(lookup(n)) for n in ("first", "second", "third"))
        await asyncio.sleep(0.02)
        assert order == ["first"]  # then the hostile tenant has more requests than the victim: the others defer
        assert gate.snapshot()["waiting"] == {"hostile": 2}
        gate.leave(victim)
        await asyncio.wait_for(asyncio.gather(first, second, third), 5)
        assert order == ["first", "second", "third"]

        # A victim request that runs long defers the other tenant by at most max_pause_s.
        victim = await gate.enter("victim", COSTS["query"])
        held = [asyncio.create_task(lookup(f"held{i}")) for i in range(3)]
        await asyncio.wait_for(asyncio.gather(*held), 5)  # granted when their deferral ends, the victim still running
        assert gate.snapshot()["running"] == {"victim": 1}
        gate.leave(victim)

        # A victim's one search does not defer to a tenant with one cheap lookup in flight.
        lookup_slot = await gate.enter("hostile", COSTS["read"])
        seen: list[dict] = []

        async def search() -> None:
            slot = await gate.enter("victim", COSTS["query"])
            seen.append(gate.snapshot())
            gate.leave(slot)

        task = asyncio.create_task(search())
        await asyncio.sleep(0.02)  # well inside max_pause_s: it was not deferred
        assert seen == [{"running": {"hostile": 1, "victim": 1}, "waiting": {}}]
        await task
        gate.leave(lookup_slot)

    _run(scenario())
