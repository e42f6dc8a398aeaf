"""``last_used`` of API keys, recorded off the request path.

Authentication only reads (``Admin.verify_api_key``) and notes the use here, in
memory; a daemon thread writes what is pending in one short write
(``Admin.touch_api_keys``) at most once per interval (a minute by default), so a
key is written at most once a minute however busy it is. Why not on the request
path: the write needs the store's write lock, which one large document can hold
for seconds on SQLite, and which a full or read-only disk never grants, so every
authenticated request, reads included, used to wait or fail. A failed flush is
ignored (logged at debug) and its uses stay pending for the next one; what is
pending when the process dies is lost, which only makes ``last_used`` older.
"""

from __future__ import annotations

import logging
import threading
import time

from ..flusher import Flusher
from .base import Admin

log = logging.getLogger(__name__)

FLUSH_EVERY_S = 60.0


class KeyUsage:
    """Pending ``last_used`` times of keys, flushed in the background."""

    def __init__(self, admin: Admin, every_s: float = FLUSH_EVERY_S) -> None:
        self._admin = admin
        self._pending: dict[str, float] = {}
        self._lock = threading.Lock()
        self._flusher = Flusher(self.flush, every_s, "ragline-key-usage")

    def note(self, key_id: str, when: float | None = None) -> None:
        """Record a use (never blocks on the store); starts the flusher on first use."""
        when = time.time() if when is None else when
        with self._lock:
            self._pending[key_id] = max(when, self._pending.get(key_id, 0.0))
        self._flusher.start()

    def pending(self, key_id: str) -> float | None:
        """A use noted but not written yet, for listings that should not look stale."""
        with self._lock:
            return self._pending.get(key_id)

    def flush(self) -> bool:
        """Write pending uses now; False (and they stay pending) if the store refused."""
        with self._lock:
            batch = dict(self._pending)
        if not batch:
            return True
        try:
            self._admin.touch_api_keys(batch)
        except Exception as exc:  # noqa: BLE001 — bookkeeping: a busy or full store must not matter
            log.debug("recording API key use failed (retried later): %s", exc)
            return False
        with self._lock:
            for key_id, when in batch.items():
                if self._pending.get(key_id) == when:  # a newer use stays pending
                    del self._pending[key_id]
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Stop the flusher and write what is pending one last time (failures ignored)."""
        self._flusher.close(timeout)
