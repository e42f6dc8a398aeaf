"""How one provider call is retried and timed: the ``CallPolicy``.

Every call a ``ProviderClient`` makes reads its policy here, and only here: the
per-attempt timeout, how many attempts, which HTTP statuses are worth another
attempt, and how long to wait between them (exponential backoff with "equal
jitter", or the server's ``Retry-After``, capped by ``max_wait``). A limit that
spans a whole call (a deadline across its retries, a cap on the reply's size)
belongs in this object too.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

# Statuses a later attempt may cure: timeouts, conflicts, "too early", rate limits,
# and the server-side failures (529: Anthropic's "overloaded").
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date);
    None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class CallPolicy:
    """Timeouts and retries of one provider's calls.

    ``timeout`` bounds each attempt (connect, read, write and pool, in seconds);
    ``max_retries`` attempts follow the first when it fails with a timeout, a
    connection error, a status in ``retry_status`` or a reply its caller refuses
    as transient (``Retry``). The k-th wait (k from 0) lies in
    ``[b·2^k / 2, b·2^k]`` with ``b·2^k`` capped at ``max_wait``; a server's
    ``Retry-After`` replaces it, capped at ``max_wait`` too.
    """

    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 0.5
    max_wait: float = 8.0
    retry_status: frozenset[int] = RETRY_STATUS

    @property
    def attempts(self) -> int:
        """Attempts a call makes at most."""
        return self.max_retries + 1

    def retries(self, status: int) -> bool:
        """Whether a reply with this HTTP status is worth another attempt."""
        return status in self.retry_status

    def delay(self, attempt: int, hint: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (from 0); ``hint``
        is the server's Retry-After, when it sent one."""
        if hint is not None:
            return min(hint, self.max_wait)
        base = min(self.max_wait, self.backoff * 2.0 ** attempt)
        return base / 2 + random.uniform(0, base / 2)  # "equal jitter": never zero, never synchronised
