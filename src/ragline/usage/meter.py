"""Usage recorded off the query path.

Search and answers only note what they returned and used, in memory; a daemon
thread writes what is pending every ``usage.flush_interval_s`` seconds, in one
batch per tenant (``Store.record_matches``, ``Store.record_usage``). A query never
waits on the store's write lock for bookkeeping, and a thousand hits of one chunk
between two flushes are one row update. A failed flush keeps its batch pending
for the next one; what is pending when the process is killed is lost (counts are
then a little low, never wrong the other way). ``close`` writes the rest.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..flusher import Flusher
from ..models.usage import UsageRecord

if TYPE_CHECKING:
    from ..store import Store

log = logging.getLogger(__name__)

Key = tuple[str, str, str, str]  # tenant, day, kind, model


def utc_day(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


class UsageMeter:
    """Pending match counts and usage rows of every tenant, flushed in the background."""

    def __init__(self, store: Store, every_s: float = 2.0, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        self._matches: dict[str, dict[str, tuple[int, float]]] = {}  # tenant → chunk_id → (count, last)
        self._usage: dict[Key, UsageRecord] = {}
        self._lock = threading.Lock()
        self._flusher = Flusher(self.flush, every_s, "ragline-usage")

    # -- noting (never blocks on the store) -------------------------------------------
    def matched(self, tenant: str, chunk_ids: Iterable[str]) -> None:
        """Each chunk was returned once (a search hit, an answer's source)."""
        now = self._clock()
        with self._lock:
            pending = self._matches.setdefault(tenant, {})
            for chunk_id in chunk_ids:
                count, _ = pending.get(chunk_id, (0, now))
                pending[chunk_id] = (count + 1, now)
        self._flusher.start()

    def used(self, tenant: str, kind: str, model: str, *, events: int = 1, input_tokens: int = 0,
             output_tokens: int = 0) -> None:
        """``events`` of ``kind`` (``model.EMBED``, ``model.ASK``) with ``model``, now."""
        record = UsageRecord(tenant, utc_day(self._clock()), kind, model, events, input_tokens, output_tokens)
        with self._lock:
            old = self._usage.get(record.key)
            self._usage[record.key] = old.plus(record) if old is not None else record
        self._flusher.start()

    # -- writing ----------------------------------------------------------------------
    def flush(self) -> bool:
        """Write everything pending now; False (and it stays pending) if the store refused."""
        with self._lock:
            matches, self._matches = self._matches, {}
            usage, self._usage = self._usage, {}
        ok = True
        for tenant, counts in matches.items():
            try:
                self._store.record_matches(tenant, counts)
            except Exception as exc:  # noqa: BLE001 - bookkeeping: a busy or full store must not matter
                log.debug("recording matches failed (retried later): %s", exc)
                self._requeue_matches(tenant, counts)
                ok = False
        if usage:
            try:
                self._store.record_usage(list(usage.values()))
            except Exception as exc:  # noqa: BLE001
                log.debug("recording usage failed (retried later): %s", exc)
                with self._lock:
                    for record in usage.values():
                        old = self._usage.get(record.key)
                        self._usage[record.key] = old.plus(record) if old is not None else record
                ok = False
        return ok

    def _requeue_matches(self, tenant: str, counts: dict[str, tuple[int, float]]) -> None:
        with self._lock:
            pending = self._matches.setdefault(tenant, {})
            for chunk_id, (count, at) in counts.items():
                newer, last = pending.get(chunk_id, (0, at))
                pending[chunk_id] = (count + newer, max(at, last))

    def close(self, timeout: float = 5.0) -> None:
        """Stop the flusher and write what is pending one last time (failures ignored)."""
        self._flusher.close(timeout)
