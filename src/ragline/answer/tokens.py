"""Token counting for context budgets with a real tokenizer: the embedder registry's
default one (the bundled model's wordpiece tokenizer; tiktoken cannot fetch its
files offline). Independent of the configured embedder, so a remote or broken
embedder never stops an answer's budget from being measured.

Wordpiece counts run a little above BPE counts for English prose, so a budget
measured here is a safe upper bound for an LLM's own tokenizer too.
"""

from __future__ import annotations

import threading
from typing import Protocol

from ..embed.registry import default_tokenizer
from ..errors import ConfigError, EmbedderError


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...
    def truncate(self, text: str, limit: int) -> str:
        """The longest prefix of ``text`` holding at most ``limit`` tokens."""
        ...


class WordpieceCounter:
    """Counts tokens with a ``tokenizers.Tokenizer`` (default: the registry's, loaded on first use)."""

    def __init__(self, tokenizer=None) -> None:
        self._tokenizer = tokenizer
        self._lock = threading.Lock()

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    try:
                        self._tokenizer = default_tokenizer()
                    except EmbedderError as exc:
                        raise ConfigError(f"cannot count context tokens: {exc}") from exc
        return self._tokenizer

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def truncate(self, text: str, limit: int) -> str:
        if limit <= 0:
            return ""
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        if len(encoding.ids) <= limit:
            return text
        return text[: encoding.offsets[limit - 1][1]].rstrip()


_default: WordpieceCounter | None = None


def default_counter() -> WordpieceCounter:
    """One shared counter per process (the tokenizer takes ~50 ms to load)."""
    global _default
    if _default is None:
        _default = WordpieceCounter()
    return _default
