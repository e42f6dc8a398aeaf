"""Parse files in a child process with a time limit and a memory cap, so a hostile
file can neither hang nor exhaust the run.

The worker is ``python -m ragline.ingest.parse_worker`` (see that module for the
protocol): a plain subprocess, so the library works from any script, notebook,
``python -`` or ``python -c``. It is reused between files, replaced after a
timeout or crash, and dies with its parent.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import weakref
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
    """Runs ``parse_file`` in a worker process with the configured limits: the file
    size is checked before reading, parsing is stopped after ``parse_timeout_s``
    (the worker is killed and replaced), and the worker's address space is capped at
    ``parse_memory_mb``. Every failure is a ``LoaderError`` naming the file."""

    def __init__(self, limits: LimitSettings, options: LoadOptions | None = None) -> None:
        self.limits = limits
        self.options = options or LoadOptions()  # what loaders are told: record fields, OCR
        self._worker: _Worker | None = None
        # One file at a time: a timeout replaces the worker, which must not take
        # another thread's file down with it.
        self._lock = threading.Lock()

    @traced("parse")
    def parse(self, path: Path, source: str, password: str | None = None,
              options: LoadOptions | None = None) -> list[Document | LoaderError]:
        """Parse one file; ``options`` overrides the sandbox's own for this file."""
        with self._lock:
            return self._parse(path, source, password, options or self.options)

    def with_options(self, options: LoadOptions) -> SandboxView:
        """This sandbox (the same worker) parsing with ``options`` (one ingest run's choices)."""
        return SandboxView(self, options)

    def _ready_worker(self, source: str) -> _Worker:
        if self._worker is not None and not self._worker.alive:
            self._discard()  # died between files (e.g. killed from outside): start another
        if self._worker is None:
            try:
                self._worker = _Worker(self.limits.parse_memory_mb)
            except (OSError, RuntimeError) as exc:
                raise LoaderError(source, f"cannot start the parser: {exc}") from exc
        return self._worker

    def _parse(self, path: Path, source: str, password: str | None,
               options: LoadOptions) -> list[Document | LoaderError]:
        max_chars = self.limits.max_extracted_chars
        request = {"path": str(path), "source": source, "password": password,
                   "max_bytes": int(self.limits.max_parse_file_mb * 1024 * 1024), "max_chars": max_chars,
                   "options": options.to_wire()}
        worker = self._ready_worker(source)
        try:
            worker.send(request)
        except OSError:  # died just now: one fresh worker, then give up
            self._discard()
            worker = self._ready_worker(source)
            try:
                worker.send(request)
            except OSError:
                self._discard()
                raise LoaderError(source, CRASHED) from None
        # Text, escaped, plus metadata: generous, but a bound on what a subverted worker can make us allocate.
        max_reply = 8 * max_chars + (256 << 20)
        try:
            reply = worker.receive(time.monotonic() + self.limits.parse_timeout_s, max_reply)
        except TimeoutError:
            self._discard()
            raise LoaderError(source, f"parsing took longer than {self.limits.parse_timeout_s:g} s; stopped") from None
        except ProtocolError as exc:
            self._discard()
            raise LoaderError(source, f"the parser sent an invalid reply ({exc})") from None
        if reply is None:
            self._discard()
            raise LoaderError(source, CRASHED)
        try:
            if isinstance(reply, dict) and "ok" in reply:
                return [decode_item(item) for item in reply["ok"]]
            error = decode_item(reply)
        except (ProtocolError, TypeError, AttributeError) as exc:
            self._discard()
            raise LoaderError(source, f"the parser sent an invalid reply ({exc})") from None
        if isinstance(error, LoaderError):
            raise error
        self._discard()
        raise LoaderError(source, "the parser sent an invalid reply")

    def _discard(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.kill()

    @property
    def worker_pid(self) -> int | None:
        """The running worker's process id (None before the first file), for monitoring and tests."""
        worker = self._worker
        return worker.process.pid if worker is not None and worker.alive else None

    def close(self) -> None:
        """Stop the worker; the sandbox starts a new one if used again. A file in
        flight on another thread is not waited for (shutdown must not take up to
        ``parse_timeout_s``): its worker is killed and that file fails."""
        if self._lock.acquire(blocking=False):
            try:
                worker, self._worker = self._worker, None
            finally:
                self._lock.release()
            if worker is not None:
                worker.stop()
        elif (worker := self._worker) is not None:
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
