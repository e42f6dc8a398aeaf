"""Parse files in a child process with a time limit and a memory cap, so a hostile
file can neither hang nor exhaust the run.

The worker is ``python -m ragline.ingest.parse_worker`` (see that module for the
protocol): a plain subprocess, so the library works from any script, notebook,
``python -`` or ``python -c``. It is reused between files, replaced after a
timeout or crash, and dies with its parent. Up to ``limits.parse_workers`` files
are parsed at once, each in its own worker, so one slow file does not hold every
other caller (another tenant's job) for its whole time limit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from ..children import child_env, spawn
from ..errors import LoaderError
from ..models import Document
from ..settings import LimitSettings
from ..tracing import traced
from .loaders.options import LoadOptions
from .parsing import ProtocolError, decode_item, parse_file, read_frame, write_frame

__all__ = ["ParserSandbox", "SandboxView", "parse_file"]

START_TIMEOUT_S = 120.0  # start-up (imports) never counts against a file's time limit
CRASHED = "the parser crashed on this file (memory limit or malformed content)"


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        pass
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()


class _Worker:
    """One running worker process and its two pipes."""

    def __init__(self, memory_mb: int) -> None:
        flags = ["-P"] if sys.version_info >= (3, 11) else []  # no cwd on sys.path: a stray json.py is not imported
        argv = [sys.executable, *flags, "-m", "ragline.ingest.parse_worker", str(memory_mb), str(os.getpid())]
        self.process = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env(), bufsize=0)
        assert self.process.stdin is not None and self.process.stdout is not None  # both are pipes
        self._stdin: IO[bytes] = self.process.stdin
        self._stdout: IO[bytes] = self.process.stdout
        # Killed at interpreter exit if nobody closed the sandbox (scripts rarely do).
        self._finalizer = weakref.finalize(self, _kill, self.process)
        try:
            hello = read_frame(self._stdout.fileno(), time.monotonic() + START_TIMEOUT_S, max_bytes=1024)
        except (TimeoutError, ProtocolError):
            hello = None
        if not isinstance(hello, dict) or "ready" not in hello:
            self.kill()
            raise RuntimeError(f"the parser worker did not start (exit code {self.process.returncode})")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def send(self, message: dict) -> None:
        write_frame(self._stdin.fileno(), message)

    def receive(self, deadline: float, max_bytes: int) -> Any:
        return read_frame(self._stdout.fileno(), deadline, max_bytes)

    def kill(self) -> None:
        self._finalizer()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask it to exit (stdin EOF), then kill it if it does not."""
        try:
            self._stdin.close()
            self.process.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


class ParserSandbox:
    """Runs ``parse_file`` in worker processes with the configured limits: the file
    size is checked before reading, parsing is stopped after ``parse_timeout_s``
    (the worker is killed and replaced), each worker's address space is capped at
    ``parse_memory_mb``, HTML is bounded by structure (``max_html_depth``,
    ``max_html_nodes``) before it is parsed, and at most ``parse_workers`` files are
    parsed at once. Every failure is a ``LoaderError`` naming the file."""

    def __init__(self, limits: LimitSettings, options: LoadOptions | None = None) -> None:
        self.limits = limits
        self.options = options or LoadOptions()  # what loaders are told: record fields, OCR
        # Each file has a worker of its own while it is parsed: a timeout kills that
        # worker, never another thread's file.
        self._idle: list[_Worker] = []
        self._busy: list[_Worker] = []
        self._slots = threading.BoundedSemaphore(limits.parse_workers)
        self._lock = threading.Lock()

    @traced("parse")
    def parse(self, path: Path, source: str, password: str | None = None,
              options: LoadOptions | None = None) -> list[Document | LoaderError]:
        """Parse one file; ``options`` overrides the sandbox's own for this file."""
        limited = replace(options or self.options, max_html_depth=self.limits.max_html_depth,
                          max_html_nodes=self.limits.max_html_nodes)
        with self._slots, self._checked_out(source) as held:
            return self._parse(held, path, source, password, limited)

    def with_options(self, options: LoadOptions) -> SandboxView:
        """This sandbox (the same workers) parsing with ``options`` (one ingest run's choices)."""
        return SandboxView(self, options)

    @contextlib.contextmanager
    def _checked_out(self, source: str) -> Iterator[list[_Worker]]:
        """A worker for one file (an idle one, else a new one), as a one-item list
        whose item ``_parse`` may replace; a live one goes back to idle after."""
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        held = [worker if worker is not None and worker.alive else self._started(source, worker)]
        with self._lock:
            self._busy.append(held[0])
        try:
            yield held
        finally:
            worker = held[0]
            with self._lock:
                self._busy = [w for w in self._busy if w is not worker]
                if worker.alive:  # not killed for a timeout, a crash or close()
                    self._idle.append(worker)

    def _started(self, source: str, dead: _Worker | None = None) -> _Worker:
        if dead is not None:
            dead.kill()  # died between files (e.g. killed from outside): start another
        try:
            return _Worker(self.limits.parse_memory_mb)
        except (OSError, RuntimeError) as exc:
            raise LoaderError(source, f"cannot start the parser: {exc}") from exc

    def _parse(self, held: list[_Worker], path: Path, source: str, password: str | None,
               options: LoadOptions) -> list[Document | LoaderError]:
        max_chars = self.limits.max_extracted_chars
        request = {"path": str(path), "source": source, "password": password,
                   "max_bytes": int(self.limits.max_parse_file_mb * 1024 * 1024), "max_chars": max_chars,
                   "options": options.to_wire()}

        def discard() -> None:
            self._forget(held[0])
            held[0].kill()

        worker = held[0]
        try:
            worker.send(request)
        except OSError:  # died just now: one fresh worker, then give up
            discard()
            held[0] = worker = self._started(source)
            with self._lock:
                self._busy.append(worker)
            try:
                worker.send(request)
            except OSError:
                discard()
                raise LoaderError(source, CRASHED) from None
        # Text, escaped, plus metadata: generous, but a bound on what a subverted worker can make us allocate.
        max_reply = 8 * max_chars + (256 << 20)
        try:
            reply = worker.receive(time.monotonic() + self.limits.parse_timeout_s, max_reply)
        except TimeoutError:
            discard()
            raise LoaderError(source, f"parsing took longer than {self.limits.parse_timeout_s:g} s; stopped") from None
        except ProtocolError as exc:
            discard()
            raise LoaderError(source, f"the parser sent an invalid reply ({exc})") from None
        if reply is None:
            discard()
            raise LoaderError(source, CRASHED)
        try:
            if isinstance(reply, dict) and "ok" in reply:
                return [decode_item(item) for item in reply["ok"]]
            error = decode_item(reply)
        except (ProtocolError, TypeError, AttributeError) as exc:
            discard()
            raise LoaderError(source, f"the parser sent an invalid reply ({exc})") from None
        if isinstance(error, LoaderError):
            raise error
        discard()
        raise LoaderError(source, "the parser sent an invalid reply")

    def _forget(self, worker: _Worker) -> None:
        with self._lock:
            self._busy = [w for w in self._busy if w is not worker]
            self._idle = [w for w in self._idle if w is not worker]

    @property
    def worker_pid(self) -> int | None:
        """A running worker's process id, the idle one first (None before the first
        file), for monitoring and tests."""
        with self._lock:
            workers = [*self._idle, *self._busy]
        return next((w.process.pid for w in workers if w.alive), None)

    @property
    def workers(self) -> int:
        """Worker processes running now (idle and busy)."""
        with self._lock:
            return sum(w.alive for w in [*self._idle, *self._busy])

    def close(self) -> None:
        """Stop the workers; the sandbox starts new ones if used again. A file in
        flight on another thread is not waited for (shutdown must not take up to
        ``parse_timeout_s``): its worker is killed and that file fails."""
        with self._lock:
            idle, self._idle = self._idle, []
            busy = list(self._busy)
        for worker in idle:
            worker.stop()
        for worker in busy:
            worker.kill()


class SandboxView:
    """A ``ParserSandbox`` with other load options: what an ``Ingestor`` is given
    for a run whose options differ from the settings'. It owns no worker."""

    def __init__(self, sandbox: ParserSandbox, options: LoadOptions) -> None:
        self.sandbox = sandbox
        self.limits = sandbox.limits
        self.options = options

    def parse(self, path: Path, source: str, password: str | None = None,
              options: LoadOptions | None = None) -> list[Document | LoaderError]:
        return self.sandbox.parse(path, source, password, options or self.options)
