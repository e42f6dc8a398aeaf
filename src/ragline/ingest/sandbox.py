"""Parse files in a child process with a time limit and a memory cap, so a hostile
file can neither hang nor exhaust the run. The worker is reused between files
and replaced after a timeout or crash."""

from __future__ import annotations

import multiprocessing
import resource
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from ..errors import LoaderError
from ..models import Document
from ..settings import LimitSettings


def _cap_memory(megabytes: int) -> None:
    limit = megabytes * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):  # some platforms refuse; the time limit still holds
        pass


def _ready() -> bool:
    return True


def parse_file(path: str, source: str, password: str | None, max_bytes: int) -> list[Document | LoaderError]:
    """Read and parse one file (runs in the worker; also usable in-process)."""
    from .loaders import loader_for

    file = Path(path)
    try:
        size = file.stat().st_size
        if size > max_bytes:
            raise LoaderError(source, f"file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.1f} MB limit")
        with file.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise LoaderError(source, f"cannot read file: {exc.strerror or exc}") from exc
    if not data:
        raise LoaderError(source, "empty file")
    loader = loader_for(file, data[:16], source)
    try:
        return loader.load(data, source, password=password)
    except MemoryError as exc:
        raise LoaderError(source, "parsing exceeded the memory limit") from exc


class ParserSandbox:
    """Runs ``parse_file`` in a worker process with the configured limits."""

    def __init__(self, limits: LimitSettings) -> None:
        self.limits = limits
        self._pool: ProcessPoolExecutor | None = None
        # One file at a time: a timeout replaces the worker, which must not take
        # another thread's file down with it.
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("forkserver"),
                initializer=_cap_memory,
                initargs=(self.limits.parse_memory_mb,),
            )
            # Start the worker now so its start-up time never counts against a file's time limit.
            self._pool.submit(_ready).result(timeout=120)
        return self._pool

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def parse(self, path: Path, source: str, password: str | None = None) -> list[Document | LoaderError]:
        with self._lock:
            return self._parse(path, source, password)

    def _parse(self, path: Path, source: str, password: str | None) -> list[Document | LoaderError]:
        max_bytes = int(self.limits.max_file_mb * 1024 * 1024)
        try:
            future = self._executor().submit(parse_file, str(path), source, password, max_bytes)
            return future.result(timeout=self.limits.parse_timeout_s)
        except FutureTimeout:
            self._discard()
            raise LoaderError(source, f"parsing took longer than {self.limits.parse_timeout_s:g} s; stopped") from None
        except BrokenProcessPool:
            self._discard()
            raise LoaderError(source, "the parser crashed on this file (memory limit or malformed content)") from None
        except LoaderError:
            raise
        except Exception as exc:
            raise LoaderError(source, f"parser error: {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
