"""Replies no honest provider sends, shared by the fake servers: a body dripped one
byte at a time (each read of the client succeeds, the reply never ends) and a huge
body poured as fast as the client reads it. Both stop when the client hangs up and
count what they wrote, so a test can tell how much of the reply was ever read."""

from __future__ import annotations

import threading
import time
from typing import BinaryIO


class Spout:
    """Bytes written by every reply of one fake server (thread-safe)."""

    def __init__(self) -> None:
        self.sent = 0
        self._lock = threading.Lock()

    def _add(self, n: int) -> None:
        with self._lock:
            self.sent += n

    def drip(self, out: BinaryIO, delay: float, prefix: bytes = b"", byte: bytes = b" ",
             limit_s: float = 60.0) -> None:
        """``prefix``, then one ``byte`` every ``delay`` seconds until the client hangs
        up (or ``limit_s`` passes: a guard for the test process, not a behaviour)."""
        end = time.monotonic() + limit_s
        try:
            out.write(prefix)
            out.flush()
            self._add(len(prefix))
            while time.monotonic() < end:
                out.write(byte)
                out.flush()
                self._add(len(byte))
                time.sleep(delay)
        except OSError:
            return

    def pour(self, out: BinaryIO, total: int, piece: bytes, prefix: bytes = b"", suffix: bytes = b"") -> None:
        """``prefix``, ``piece`` repeated to about ``total`` bytes, ``suffix``; stops
        when the client hangs up."""
        try:
            out.write(prefix)
            self._add(len(prefix))
            written = 0
            while written < total:
                out.write(piece)
                written += len(piece)
                self._add(len(piece))
            out.write(suffix)
            out.flush()
            self._add(len(suffix))
        except OSError:
            return
