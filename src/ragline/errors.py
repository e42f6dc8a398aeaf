"""The ragline error tree.

Every exception ragline raises on purpose derives from ``RaglineError``; driver,
parser and HTTP exceptions are mapped at the boundary where they occur
(``raise StoreError(...) from exc``) so none escapes to callers.

    RaglineError
    ├── ConfigError          bad settings or arguments (also ValueError)
    ├── LoaderError          a file could not be read or parsed (names the file)
    ├── EmbedderError        the embedding model is missing or failed
    ├── StoreError           the store refused an operation
    │   ├── StoreUnavailableError  the database cannot be reached now (HTTP 503; retry)
    │   ├── NotFoundError    no such tenant/collection/document in this scope
    │   └── ModelMismatchError  a collection was filled by another embedding model
    └── GeneratorError       an answer provider failed (after retries)
"""

from __future__ import annotations


class RaglineError(Exception):
    """Root of every error ragline raises on purpose."""


class ConfigError(RaglineError, ValueError):
    """Invalid settings or arguments; the message shows the bad value."""


class LoaderError(RaglineError):
    """A source could not be loaded. ``path`` names it, ``reason`` says why."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self):  # keep both fields across process boundaries
        return (type(self), (self.path, self.reason))


class EmbedderError(RaglineError):
    """The embedding model is missing, failed, or produced bad output."""


class StoreError(RaglineError):
    """The store is unavailable or refused an operation."""


class StoreUnavailableError(StoreError):
    """The database cannot be reached or is out of space; retrying later may work."""


class NotFoundError(StoreError):
    """The requested object does not exist within the caller's scope."""


class ModelMismatchError(StoreError):
    """A collection was built with a different embedding model or dimension."""


class GeneratorError(RaglineError):
    """An answer generator failed (after its retries)."""
