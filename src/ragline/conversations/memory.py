"""Retrieval over a user's own past messages (seed 004).

Every stored message starts with no embedding; ``MessageEmbedder`` fills them in
on a background thread, and only embedded messages are searchable. For a turn,
``build_context`` embeds the new message, searches the owner's embedded messages
(never another owner's: the store applies tenant and owner inside its query),
and formats the best ones as ``[user] …`` / ``[assistant] …`` lines within a
token budget: a ``RAGContext {context, source_messages, enabled}``.

It never breaks the chat (seed 004's table): no embeddings yet → empty context,
``enabled: true``; the store unavailable, the embedder failing, or the search
slower than its time limit → empty context, ``enabled: false`` and the reason.
(This ``RAGContext`` is the message memory; ``answer.context.RAGContext`` is the
documents' context.)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from ..answer.sanitize import inline
from ..store.conversations import MessageInfo
from .options import RAGOptions

log = logging.getLogger(__name__)

SEARCH_TIMEOUT_S = 2.0
CHARS_PER_TOKEN = 4  # only when the token counter itself is unavailable


@dataclass
class RAGContext:
    """The user's relevant past messages for this turn (seed 004's ``RAGContext``)."""

    context: str = ""
    source_messages: list[tuple[MessageInfo, float]] = field(default_factory=list)
    enabled: bool = True
    reason: str | None = None
    tokens: int = 0
    ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"context": self.context, "enabled": self.enabled, "reason": self.reason, "tokens": self.tokens,
                "source_messages": [{"id": m.id, "conversation_id": m.conversation_id, "role": m.role,
                                     "content": m.content, "created": m.created, "score": round(score, 4)}
                                    for m, score in self.source_messages]}


def format_messages(found: list[tuple[MessageInfo, float]], max_tokens: int,
                    count: Callable[[str], int]) -> tuple[str, list[tuple[MessageInfo, float]], int]:
    """``[role] text`` lines, best first, while they fit ``max_tokens``."""
    lines, kept, used = [], [], 0
    for message, score in found:
        line = f"[{message.role}] {inline(message.content, 4000)}"
        tokens = count(line)
        if used + tokens > max_tokens:
            break
        lines.append(line)
        kept.append((message, score))
        used += tokens
    return "\n".join(lines), kept, used


class MemorySearch:
    """Builds a turn's message context within a time limit, on a small thread pool
    (a search that overruns is abandoned, not waited for)."""

    def __init__(self, store: Any, embedder: Any, counter: Any = None, *, timeout_s: float = SEARCH_TIMEOUT_S) -> None:
        self.store = store
        self.embedder = embedder
        self.counter = counter
        self.timeout_s = timeout_s
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ragline-memory")

    def count(self, text: str) -> int:
        if self.counter is not None:
            try:
                return int(self.counter.count(text))
            except Exception as exc:  # noqa: BLE001 — a budget must still be kept
                log.debug("token counter failed, counting characters: %s", exc)
        return max(1, len(text) // CHARS_PER_TOKEN)

    def build(self, tenant: str, owner: str | None, message: str, options: RAGOptions, *,
              exclude_ids: set[str] | None = None) -> RAGContext:
        started = time.perf_counter()
        if not options.enabled:
            return RAGContext(enabled=False, reason="disabled by request")
        exclude = exclude_ids or set()
        future = self._pool.submit(self._search, tenant, owner, message, options.max_messages + len(exclude))
        try:
            found = future.result(timeout=self.timeout_s)
        except FutureTimeout:
            future.cancel()
            return RAGContext(enabled=False, reason=f"message search timed out after {self.timeout_s * 1000:.0f} ms",
                              ms=(time.perf_counter() - started) * 1000)
        except Exception as exc:  # noqa: BLE001 — never breaks chat
            what = "embedder failed" if "Embedder" in type(exc).__name__ else "message search unavailable"
            return RAGContext(enabled=False, reason=f"{what}: {type(exc).__name__}: {exc}",
                              ms=(time.perf_counter() - started) * 1000)
        found = [(m, s) for m, s in found if m.id not in exclude][:options.max_messages]
        context, kept, tokens = format_messages(found, options.max_tokens, self.count)
        reason = None if kept else ("no past messages are embedded yet" if not found else "none fits the budget")
        return RAGContext(context=context, source_messages=kept, enabled=True, reason=reason, tokens=tokens,
                          ms=(time.perf_counter() - started) * 1000)

    def _search(self, tenant: str, owner: str | None, message: str, k: int) -> list[tuple[MessageInfo, float]]:
        vector = self.embedder.embed_query(message)
        return self.store.conversations.search_messages(tenant, owner, vector, k, model_id=self.embedder.model_id)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class MessageEmbedder:
    """Embeds stored messages in the background: ``notify()`` after a write wakes it;
    it drains every tenant's unembedded messages in batches. A failure (embedder or
    store) leaves the messages unembedded, so they are retried on the next wake-up
    or ``retry_s`` later. ``drain()`` does the same work on the caller's thread."""

    def __init__(self, store: Any, embedder: Any, *, batch: int = 64, retry_s: float = 30.0) -> None:
        self.store = store
        self.embedder = embedder
        self.batch = batch
        self.retry_s = retry_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._drain_lock = threading.Lock()
        self.last_error: str | None = None

    def notify(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="ragline-message-embedder", daemon=True)
                self._thread.start()
        self._wake.set()

    def drain(self, limit: int | None = None) -> int:
        """Embed pending messages now (up to ``limit``); returns how many were embedded."""
        done = 0
        with self._drain_lock:  # one drainer at a time in this process
            while limit is None or done < limit:
                rows = self.store.conversations.unembedded_messages(self.batch)
                if not rows:
                    break
                vectors = self.embedder.embed_documents([content for _, _, content in rows])
                by_tenant: dict[str, list] = {}
                for (tenant, mid, _), vector in zip(rows, vectors):
                    by_tenant.setdefault(tenant, []).append((mid, vector))
                written = sum(self.store.conversations.set_message_embeddings(tenant, self.embedder.model_id, items)
                              for tenant, items in by_tenant.items())
                done += written
                if not written:  # deleted meanwhile, or another process took them: nothing more to do now
                    break
        return done

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.retry_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.drain()
                self.last_error = None
            except Exception as exc:  # noqa: BLE001 — messages stay unembedded; retried later
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("embedding stored messages failed (retried later): %s", self.last_error)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
