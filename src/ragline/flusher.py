"""A background flusher: bookkeeping noted in memory on a hot path (API key use,
match counts, usage) is written by a daemon thread every few seconds and once
more on close, so a request never waits on the store's write lock for it.

The owner keeps its own pending items and its own ``flush``, which returns False
(and keeps them pending) when the store refused; this class only runs it."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Flusher:
    """Calls ``flush`` every ``every_s`` seconds on a daemon thread, started by the
    first ``start()`` (the owner's first noted item), and once more on ``close()``."""

    def __init__(self, flush: Callable[[], object], every_s: float, name: str) -> None:
        self._flush = flush
        self.every_s = every_s
        self._name = name
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread unless it runs already or the flusher was closed."""
        if self._thread is not None:  # every noted item calls this: no lock once it runs
            return
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._flush()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread and flush what is pending one last time (failures are the owner's)."""
        self._stop.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self._flush()
