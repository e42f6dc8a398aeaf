"""How one provider call is retried and timed: the ``CallPolicy``.

Every call a ``ProviderClient`` makes reads its policy here, and only here: the
per-attempt timeout, how many attempts, which HTTP statuses are worth another
attempt, and how long to wait between them (exponential backoff with "equal
jitter", or the server's ``Retry-After``, capped by ``max_wait``), and the two
limits that span a whole call: one ``deadline`` across every attempt and every
wait between them, and a cap on the bytes of one reply (``max_reply_bytes``), read
as it arrives so that a huge reply is never held whole.
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

    ``deadline`` (seconds, None: none) bounds the whole call: each attempt's timeout
    is the smaller of ``timeout`` and what is left of it, no retry starts whose wait
    would reach it, and a reply still arriving when it passes is cut (a provider
    dripping bytes keeps each read alive, never the call). ``max_reply_bytes``
    (None: no cap) bounds one reply's body as it is read, streamed or not.
    ``settings`` is the prefix of the settings behind this policy
    ("RAGLINE_GENERATOR__"), named in the errors these limits raise.
    """

    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 0.5
    max_wait: float = 8.0
    retry_status: frozenset[int] = RETRY_STATUS
    deadline: float | None = None
    max_reply_bytes: int | None = None
    settings: str = ""

    def __post_init__(self) -> None:
        if self.deadline is not None and self.deadline <= 0:
            raise ValueError(f"deadline must be positive seconds or None, got {self.deadline!r}")
        if self.max_reply_bytes is not None and self.max_reply_bytes <= 0:
            raise ValueError(f"max_reply_bytes must be positive or None, got {self.max_reply_bytes!r}")

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


def reply_bytes(megabytes: float) -> int:
    """A ``max_reply_mb`` setting as the byte cap of a ``CallPolicy``."""
    return int(megabytes * 1024 * 1024)
