"""The API's one error shape, ``{"error": {"code", "message"}}``, and the mapping
from ragline's error tree (and the framework's) to HTTP statuses. Every error body
the server sends is built by ``error_body`` here: the handlers' responses, the
middlewares' raw ASGI refusals (``auth.py``, ``observe.py``) and the in-band errors
of streamed answers (``routes/ask.py``, ``routes/openai_compat.py``). No stack
trace ever reaches a client."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    ConfigError,
    DiskFullError,
    EmbedderError,
    GeneratorError,
    LoaderError,
    ModelMismatchError,
    NotFoundError,
    RaglineError,
    StoreError,
    StoreUnavailableError,
)

log = logging.getLogger("ragline.server")


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """Every error the API returns."""

    error: ErrorBody


class ApiError(Exception):
    """Raised by routes for an HTTP error with a code and a message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def error_body(code: str, message: str) -> dict[str, dict[str, str]]:
    """The error shape as a JSON-ready dict."""
    return {"error": {"code": code, "message": message}}


def error_json(code: str, message: str) -> bytes:
    """The error shape as the bytes of a response body (for middlewares that send raw ASGI messages)."""
    return json.dumps(error_body(code, message)).encode()


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 406: "not_acceptable", 409: "conflict", 413: "payload_too_large",
               415: "unsupported_media_type", 422: "invalid_request", 429: "too_many_requests",
               501: "not_implemented", 503: "service_unavailable", 507: "insufficient_storage"}


def map_exception(exc: BaseException) -> tuple[int, str, str]:
    """(status, code, message) for a ragline error; unknown errors are a 500."""
    if isinstance(exc, ApiError):
        return exc.status, exc.code, exc.message
    if isinstance(exc, NotFoundError):
        return 404, "not_found", str(exc)
    if isinstance(exc, ModelMismatchError):
        return 409, "model_mismatch", str(exc)
    if isinstance(exc, DiskFullError):
        return 507, "insufficient_storage", str(exc)
    if isinstance(exc, StoreUnavailableError):
        return 503, "store_unavailable", f"the store is unavailable: {exc}"
    if isinstance(exc, StoreError):
        return 500, "store_error", str(exc)
    if isinstance(exc, EmbedderError):
        return 503, "embedder_unavailable", f"the embedding model is unavailable: {exc}"
    if isinstance(exc, GeneratorError):
        return 502, "generator_error", str(exc)
    if isinstance(exc, (ConfigError, LoaderError)):
        return 400, "bad_request", str(exc)
    if isinstance(exc, RaglineError):
        return 500, "internal_error", str(exc)
    if isinstance(exc, ValueError):  # a bad value or setting (ConfigError's plain cousin), not a server fault
        return 400, "bad_request", _clip(str(exc) or "invalid value")
    return 500, "internal_error", "internal error (logged on the server)"


def _clip(text: str, limit: int = 500) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()))
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the one error shape."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        request.state.error = exc.code
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        if exc.status_code == 400 and isinstance(exc.__cause__, ValueError):
            # FastAPI's "error parsing the body" hides why (e.g. a number over 4300 digits): say it.
            message = _clip(f"the request body cannot be parsed: {str(exc.__cause__).split(';')[0]}", 300)
        request.state.error = code
        return error_response(exc.status_code, code, message, getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        request.state.error = "invalid_request"
        return error_response(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(RaglineError)
    @app.exception_handler(ValueError)
    async def _ragline(request: Request, exc: Exception) -> JSONResponse:
        status, code, message = map_exception(exc)
        request.state.error = code
        if status >= 500:
            log.warning("request failed: %s", exc, exc_info=status == 500)
        return error_response(status, code, message)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        request.state.error = "internal_error"
        return error_response(500, "internal_error", "internal error (logged on the server)")


METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def install_unknown_routes(app: FastAPI) -> None:
    """A ``/v1/…`` request no route matches gets a 404 naming the method and path (the
    web page's static files would otherwise answer it with a bare 405); a known path
    with another method gets a 405 listing the methods it takes."""
    from starlette.routing import Match

    async def unknown(request: Request) -> JSONResponse:
        allowed = [method for method in METHODS if method != request.method and any(
            route is not fallback and route.matches({**request.scope, "method": method})[0] == Match.FULL
            for route in app.router.routes if getattr(route, "name", None) != "web")]
        if allowed:
            methods = ", ".join(allowed)
            request.state.error = "method_not_allowed"
            return error_response(405, "method_not_allowed",
                                  f"{request.url.path} does not take {request.method}; it takes {methods}",
                                  {"Allow": methods})
        request.state.error = "not_found"
        return error_response(404, "not_found", f"no route {request.method} {request.url.path} "
                                                "(the API's routes are listed at /docs and /openapi.json)")

    app.add_api_route("/v1/{path:path}", unknown, include_in_schema=False, methods=list(METHODS))
    fallback = app.router.routes[-1]


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting the error shape for these statuses."""
    return {status: {"model": ErrorResponse, "description": _HTTP_CODES.get(status, "error").replace("_", " ")}
            for status in statuses}
