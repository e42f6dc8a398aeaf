"""Issue 29: which app process serves each tenant behind the front (``Affinity``), and
when a process's requests step aside for another's."""

from __future__ import annotations

import os
import time

from ragline.server.front import Affinity


def test_two_active_tenants_get_different_processes_and_keep_them() -> None:
    affinity = Affinity(2)
    hostile = [affinity.enter("hostile") for _ in range(6)]
    victim = affinity.enter("victim")
    assert set(hostile) == {hostile[0]} and victim != hostile[0]
    affinity.leave("victim")
    assert affinity.enter("victim") == victim  # active a moment ago: the same process (its budgets live there)


def test_a_third_tenant_joins_the_process_with_fewer_requests_in_flight() -> None:
    affinity = Affinity(2)
    busy = [affinity.enter("busy") for _ in range(5)]
    quiet = affinity.enter("quiet")
    third = affinity.enter("third")
    assert third == quiet != busy[0]


def test_a_tenant_moves_only_after_it_was_idle_for_the_hold() -> None:
    affinity = Affinity(2, hold_s=0.05)
    first = affinity.enter("a")
    affinity.leave("a")
    other = affinity.enter("b")  # the process without a
    for _ in range(3):
        assert affinity.enter("c") == first  # a's process had nothing in flight: c joins it and floods
    assert affinity.enter("a") == first  # active within the hold: a stays beside c (its budgets live there)
    affinity.leave("a")
    time.sleep(0.06)
    assert affinity.enter("a") == other  # idle past the hold: a goes where fewer requests are in flight


def test_a_busier_tenants_process_steps_aside_while_a_lighter_ones_request_is_in_flight() -> None:
    affinity = Affinity(2)
    for _ in range(4):
        hostile = affinity.enter("hostile")
    assert list(affinity.step_aside) == [0, 0]  # alone: nothing to step aside for
    victim = affinity.enter("victim")
    assert affinity.step_aside[hostile] == 1 and affinity.step_aside[victim] == 0
    affinity.leave("victim")
    assert list(affinity.step_aside) == [0, 0]


def test_equal_loads_do_not_step_aside() -> None:
    affinity = Affinity(2)
    affinity.enter("a")
    affinity.enter("b")
    assert list(affinity.step_aside) == [0, 0]


def test_a_process_marked_down_gets_no_tenants_and_its_tenants_move() -> None:
    affinity = Affinity(2)
    a = affinity.enter("a")
    affinity.leave("a")
    affinity.down.add(a)
    assert affinity.enter("a") != a
    assert affinity.enter("b") != a


def test_socket_folders_of_fronts_that_died_are_removed(tmp_path, monkeypatch) -> None:
    import subprocess
    import sys
    import tempfile

    from ragline.server.app_processes import remove_stale_folders

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"ragline-front-{dead.pid}-abc"
    live = tmp_path / f"ragline-front-{os.getppid()}-def"  # a process that is alive
    for folder in (stale, live):
        folder.mkdir()
        (folder / "app0.sock").write_bytes(b"")
    remove_stale_folders()
    assert not stale.exists() and live.exists()
