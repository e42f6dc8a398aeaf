"""Child processes that never outlive ragline: the parser sandbox's workers and the
server's ingestion worker are plain ``python -m`` subprocesses (never
multiprocessing, whose spawn mode re-imports the caller's ``__main__``).

- ``spawn`` starts every child from one long-lived thread: ``PR_SET_PDEATHSIG``
  fires when the *thread* that forked the child exits, not the process, so a child
  forked from a short-lived request thread would be killed with that thread.
- ``child_env`` lets the child import ragline from wherever this process did.
- ``die_with_parent`` (called in the child) ends it when its parent dies, even by
  SIGKILL: ``PR_SET_PDEATHSIG`` on Linux, and a watchdog on the parent pid.
- ``supervise`` restarts a long-lived child (the server's ingestion process, the
  front's app processes) when it exits, with backoff.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_requests: queue.Queue = queue.Queue()
_spawner_lock = threading.Lock()
_spawner: threading.Thread | None = None


def _spawn_loop() -> None:
    while True:
        argv, kwargs, box, done = _requests.get()
        try:
            box.append(subprocess.Popen(argv, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box.append(exc)
        done.set()


def spawn(argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **popen)``, run on the long-lived spawner thread."""
    global _spawner
    with _spawner_lock:
        if _spawner is None or not _spawner.is_alive():
            _spawner = threading.Thread(target=_spawn_loop, name="ragline-spawner", daemon=True)
            _spawner.start()
    box: list = []
    done = threading.Event()
    _requests.put((argv, popen, box, done))
    done.wait()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def child_env() -> dict[str, str]:
    """This environment, with ragline importable even from a source tree on sys.path."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def die_with_parent(parent: int) -> None:
    """In a child: never outlive ``parent``, even when it is SIGKILLed and cannot clean up."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1 (Linux only)
    except (OSError, AttributeError):
        pass  # not Linux: the watchdog below still holds

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(0)
    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


RESTART_MAX_S = 30.0
"""The longest wait before a child that keeps dying is started again."""


def supervise(current: Callable[[], subprocess.Popen[bytes] | None], launch: Callable[[], None],
              stop: threading.Event, event: str, **fields: Any) -> None:
    """Until ``stop`` is set, start the child again (``launch``) whenever ``current()``
    has exited: at once after a run of a minute or more, else after a backoff doubling
    from 1 s to ``RESTART_MAX_S``. Logs ``<event>_exited`` and ``<event>_start_failed``
    with ``fields``. Run it on a thread of its own."""
    log = logging.getLogger("ragline.server")
    backoff = 1.0
    while not stop.is_set():
        process = current()
        started = time.monotonic()
        while process is not None and process.poll() is None:
            if stop.wait(0.5):
                return
        if time.monotonic() - started > 60:
            backoff = 1.0  # it ran a good while: restart at once next time
        log.warning(json.dumps({"event": f"{event}_exited", **fields,
                                "code": process.returncode if process else None, "restart_in_s": backoff}))
        if stop.wait(backoff):
            return
        backoff = min(RESTART_MAX_S, backoff * 2)
        try:
            launch()
        except OSError as exc:
            log.warning(json.dumps({"event": f"{event}_start_failed", **fields, "error": str(exc)}))
