"""The server's error shape (``{"error": {"code", "message"}}``) mapped back to
ragline's error tree, the inverse of ``server/errors.py``: a 404 is a
``NotFoundError``, a 503 ``store_unavailable`` a ``StoreUnavailableError``, and so
on, so code written against the library catches the same classes from the client.
Statuses with no class in the tree get one here, under ``ApiError``:

    RaglineError
    ├── (the tree's own classes, for 400, 404, 409 model_mismatch, 502, 503, 507)
    ├── ApiError                  any other refusal: status, code, message
    │   ├── AuthenticationError   401: missing, wrong or revoked key
    │   ├── PermissionDeniedError 403: e.g. an owner-bound key naming another owner
    │   ├── ConflictError         409: already exists, job not retryable
    │   └── RateLimitError        429: ``retry_after`` seconds
    ├── ServerUnreachableError    no answer at all (connection refused, timeout)
    └── JobTimeoutError           ``wait`` gave up before the jobs finished (also TimeoutError)

Every raised error carries ``status`` and ``code`` (None when there was no response).
"""

from __future__ import annotations

import httpx

from ..errors import (
    ConfigError,
    DiskFullError,
    EmbedderError,
    GeneratorError,
    ModelMismatchError,
    NotFoundError,
    RaglineError,
    StoreError,
    StoreUnavailableError,
)


class ApiError(RaglineError):
    """The server refused a request with a status the error tree has no class for."""

    status: int | None
    code: str | None
    retry_after: float | None


class AuthenticationError(ApiError):
    """401: the API key is missing, wrong or revoked."""


class PermissionDeniedError(ApiError):
    """403: the key may not do this (an owner-bound key naming another owner, or
    deleting a whole collection)."""


class ConflictError(ApiError):
    """409: the object already exists, or the job cannot be retried."""


class RateLimitError(ApiError):
    """429: over the tenant's request rate or storage quota; see ``retry_after``."""


class ServerUnreachableError(RaglineError):
    """The server could not be reached or did not answer in time."""

    status: int | None
    code: str | None


_BY_CODE: dict[str, type[RaglineError]] = {
    "model_mismatch": ModelMismatchError,
    "store_unavailable": StoreUnavailableError,
    "embedder_unavailable": EmbedderError,
    "generator_error": GeneratorError,
    "insufficient_storage": DiskFullError,
    "store_error": StoreError,
}
_BY_STATUS: dict[int, type[RaglineError]] = {
    400: ConfigError, 422: ConfigError, 404: NotFoundError, 401: AuthenticationError, 403: PermissionDeniedError,
    409: ConflictError, 429: RateLimitError, 502: GeneratorError, 503: StoreUnavailableError, 507: DiskFullError,
}


def api_error(status: int, code: str | None, message: str, retry_after: float | None = None) -> RaglineError:
    """The ragline error for an error response (``ApiError`` when nothing closer fits)."""
    cls = _BY_CODE.get(code or "") or _BY_STATUS.get(status, ApiError)
    error = cls(message)
    # setattr: the tree's own classes (NotFoundError, …) declare none of these; they are
    # the response's facts, carried by whichever class stands for it.
    for name, value in (("status", status), ("code", code), ("retry_after", retry_after)):
        setattr(error, name, value)
    return error


def from_response(response: httpx.Response) -> RaglineError:
    """The error a non-2xx response stands for (its body read already)."""
    code, message = None, response.text[:500] or response.reason_phrase
    try:
        body = response.json()["error"]
        code, message = body["code"], body["message"]
    except (ValueError, KeyError, TypeError):
        pass  # not the API's shape (a proxy's page): keep the status and the text
    retry = response.headers.get("Retry-After")
    return api_error(response.status_code, code, message, float(retry) if retry and retry.isdigit() else None)


def unreachable(exc: httpx.TransportError, url: str) -> ServerUnreachableError:
    error = ServerUnreachableError(f"cannot reach the ragline server at {url}: {exc or type(exc).__name__}")
    error.status = None
    error.code = None
    return error


class JobTimeoutError(RaglineError, TimeoutError):
    """Waiting for ingestion jobs took longer than the caller allowed (they go on running)."""
