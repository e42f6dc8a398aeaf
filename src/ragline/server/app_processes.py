"""The app processes behind a front (``front.py``): each ``python -m
ragline.server.app_child`` on a Unix socket in a private folder, restarted when it dies
(``children.supervise``), with the byte per process that says when its requests step
aside (``Affinity._publish`` writes it, ``FairGate.outside`` reads it)."""

from __future__ import annotations

import json
import logging
import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..children import child_env, spawn, supervise
from ..settings import Settings

log = logging.getLogger("ragline.server")


class AppProcesses:
    """Starts the app processes on Unix sockets and restarts one that dies."""

    def __init__(self, settings: Settings, count: int) -> None:
        self.settings, self.count = settings, count
        remove_stale_folders()
        self.folder = Path(tempfile.mkdtemp(prefix=f"ragline-front-{os.getpid()}-"))  # 0700: only this user reaches the sockets
        self.sockets = [self.folder / f"app{i}.sock" for i in range(count)]
        self.step_aside_file = self.folder / "step-aside"  # a byte per process (``Affinity._publish``)
        self.step_aside_file.write_bytes(bytes(count))
        with open(self.step_aside_file, "r+b") as handle:
            self.step_aside = mmap.mmap(handle.fileno(), count)
        self._processes: list[subprocess.Popen[bytes] | None] = [None] * count
        self._stop = threading.Event()
        self._watchers: list[threading.Thread] = []

    def start(self) -> None:
        for index in range(self.count):
            self._launch(index)
            watcher = threading.Thread(target=self._watch, args=(index,), name=f"ragline-app-{index}", daemon=True)
            watcher.start()
            self._watchers.append(watcher)

    def _launch(self, index: int) -> None:
        self.sockets[index].unlink(missing_ok=True)
        settings = self.settings if index == 0 else self.settings.model_copy(
            update={"server": self.settings.server.model_copy(update={"job_workers": 0})})  # only app 0 ingests
        argv = [sys.executable, "-P", "-m", "ragline.server.app_child", str(os.getpid()), str(self.sockets[index]),
                str(self.step_aside_file), str(index)]
        process = spawn(argv, stdin=subprocess.PIPE, env=child_env())
        assert process.stdin is not None
        try:
            process.stdin.write(settings.model_dump_json().encode() + b"\n")
            process.stdin.close()
        except OSError:  # died at once; the watcher restarts it
            pass
        self._processes[index] = process
        log.info(json.dumps({"event": "app_process_started", "index": index, "pid": process.pid}))

    def _watch(self, index: int) -> None:
        supervise(lambda: self._processes[index], lambda: self._launch(index), self._stop, "app_process", index=index)

    def pid(self, index: int) -> int | None:
        process = self._processes[index]
        return process.pid if process is not None and process.poll() is None else None

    def stop(self, timeout: float) -> None:
        """SIGTERM every app process (each finishes its requests within the shutdown
        timeout, and app 0 stops its ingestion), then SIGKILL what is left."""
        self._stop.set()
        for process in self._processes:
            if process is not None and process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + timeout
        for process in self._processes:
            if process is None:
                continue
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.step_aside.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def remove_stale_folders() -> None:
    """Remove the socket folders of fronts that died without cleaning up (SIGKILL): a
    ``ragline-front-<pid>-…`` folder of this user whose process is gone."""
    for folder in Path(tempfile.gettempdir()).glob("ragline-front-*-*"):
        try:
            pid = int(folder.name.split("-")[2])
            if folder.stat().st_uid != os.getuid() or pid == os.getpid():
                continue
            os.kill(pid, 0)  # alive: leave it
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (ValueError, IndexError, OSError):
            continue
