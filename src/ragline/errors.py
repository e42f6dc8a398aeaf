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
    │   │   └── DiskFullError    no space left for data or uploads (HTTP 507; retry when freed)
    │   ├── NotFoundError    no such tenant/collection/document in this scope
    │   └── ModelMismatchError  a collection was filled by another embedding model
    ├── GeneratorError       an answer provider failed (after retries)
    └── ConnectorError       a bank API (a remote source of records) failed or refused (after retries)
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

    # Keeps both fields across process boundaries.
    def __reduce__(self) -> tuple[type[LoaderError], tuple[str, str]]:
        return (type(self), (self.path, self.reason))


class EmbedderError(RaglineError):
    """The embedding model is missing, failed, or produced bad output."""


class StoreError(RaglineError):
    """The store is unavailable or refused an operation."""


class StoreUnavailableError(StoreError):
    """The database cannot be reached or is out of space; retrying later may work."""


class DiskFullError(StoreUnavailableError):
    """No space left where data or uploads are written; nothing already stored is lost,
    and work resumes once space is freed."""


class NotFoundError(StoreError):
    """The requested object does not exist within the caller's scope."""


class ModelMismatchError(StoreError):
    """A collection was built with a different embedding model or dimension."""

    @classmethod
    def between(cls, collection: str, stored: str, stored_dim: int, model: str, dim: int) -> ModelMismatchError:
        """The error for opening ``collection`` (filled by ``stored``) with ``model``:
        names both and the way out."""
        return cls(f"collection {collection!r} was built with {stored} (dim {stored_dim}); it cannot be opened "
                   f"with {model} (dim {dim}). Re-embed it with `ragline reembed --collection {collection} "
                   f"--model <name>` (or set RAGLINE_EMBEDDER__NAME/__MODEL back to its model), "
                   "or use another collection.")


class GeneratorError(RaglineError):
    """An answer generator failed (after its retries)."""


class ConnectorError(RaglineError):
    """A bank API failed (after its retries) or refused the credentials; the message
    says which call and what to do."""
