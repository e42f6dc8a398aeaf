"""Ingestion in a child process (``server.job_process``, on by default): the same
interface as ``JobRunner`` (start, stop, notify, alive, live), with the workers in
``python -m ragline.server.worker_child`` at ``server.job_nice``.

Why: in one process, an ingesting job and the requests share one GIL, so a
tenant's large upload made another tenant's searches 26× slower
(bench/drill_tenancy.py). A child at a lower priority leaves the server's
interpreter to requests, and the kernel gives the cores to them first.

The child is restarted if it dies (backoff up to 30 s); readiness reports it down
meanwhile. Its jobs' progress is read from the store (persisted every 0.5 s); the
job runs it finishes reach the server's metrics as JSON lines on its stdout.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from typing import IO, Any

from ..children import child_env, spawn, supervise
from ..settings import Settings

log = logging.getLogger("ragline.server")

class WorkerProcess:
    """Supervises the ingestion child process."""

    def __init__(self, settings: Settings, workers: int, nice: int = 10, metrics: Any = None) -> None:
        self.settings = settings
        self.metrics = metrics
        self.workers = workers
        self.nice = nice
        self._process: subprocess.Popen[bytes] | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._monitor: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        if self.workers == 0:
            return
        self._launch()
        self._monitor = threading.Thread(target=self._watch, name="ragline-job-process", daemon=True)
        self._monitor.start()

    def _launch(self) -> None:
        flags = ["-P"] if sys.version_info >= (3, 11) else []
        argv = [sys.executable, *flags, "-m", "ragline.server.worker_child", str(os.getpid()), str(self.workers),
                str(self.nice)]
        process = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env(), bufsize=0)
        assert process.stdin is not None and process.stdout is not None  # both are pipes
        threading.Thread(target=self._read_reports, args=(process.stdout,), name="ragline-job-reports",
                         daemon=True).start()
        try:
            process.stdin.write(self.settings.model_dump_json().encode() + b"\n")
        except OSError:  # died at once; the monitor restarts it
            pass
        with self._lock:
            self._process = process
        log.info(json.dumps({"event": "job_process_started", "pid": process.pid, "workers": self.workers}))

    def _read_reports(self, stream: IO[bytes]) -> None:
        for line in stream:
            try:
                report = json.loads(line)
                if self.metrics is not None:
                    self.metrics.job_finished(str(report["state"]), float(report["seconds"]))
            except (ValueError, KeyError, TypeError):
                log.warning(json.dumps({"event": "job_process_bad_report", "line": line[:200].decode(errors="replace")}))
        stream.close()

    def _watch(self) -> None:
        supervise(lambda: self._process, self._launch, self._stop, "job_process")

    def stop(self, timeout: float = 10.0) -> None:
        """Close the child's stdin (its workers stop), then kill it after ``timeout``."""
        self._stop.set()
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()
            except OSError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if self._monitor is not None:
            self._monitor.join(2)
            self._monitor = None

    def notify(self) -> None:
        """Wake the child's idle workers: a job was queued."""
        with self._lock:
            process = self._process
            if process is None or process.stdin is None or process.poll() is not None:
                return
            try:
                process.stdin.write(b"\n")
            except OSError:
                pass  # it died; the monitor restarts it and its workers poll the queue anyway

    @property
    def alive(self) -> int:
        process = self._process
        return self.workers if process is not None and process.poll() is None else 0

    def live(self, job_id: str) -> None:
        """Fresh progress lives in the child; the store's copy (0.5 s old at most) is used."""
