"""``Client`` (sync) and ``AsyncClient``: the REST API over httpx. Routes are
described once in ``routes.Routes``; this module sends them, turns error responses
into ragline's error tree (``client/errors.py``), waits for ingestion jobs, and
reads the streamed answer of ``/v1/ask`` (server-sent events)."""

from __future__ import annotations

import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Self, cast

import anyio
import httpx
from httpx_sse import ServerSentEvent, aconnect_sse, connect_sse

from ..errors import RaglineError
from ..version import __version__
from .errors import JobTimeoutError, api_error, from_response, unreachable
from .routes import Call, Routes
from .types import Answer, AskEvent, Delta, Done, Job, Restart

FileLike = str | Path | tuple[str, bytes | BinaryIO]
JobProgress = Callable[[list[Job]], None]
"""Called with the jobs' latest states while ``wait`` polls."""


def _headers(key: str | None) -> dict[str, str]:
    headers = {"User-Agent": f"ragline-client/{__version__}"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _request_args(call: Call) -> dict[str, Any]:
    return {"params": call.params, "json": call.json, "data": call.data, "files": call.files}


def _result(call: Call, response: httpx.Response) -> Any:
    if response.is_error:
        raise from_response(response)
    return call.parse(response.json() if response.content else None)


def _event(sse: ServerSentEvent) -> AskEvent | None:
    """One event of ``/v1/ask``'s stream; an ``error`` event raises its mapped error."""
    data = sse.json()
    if sse.event == "delta":
        return Delta(data.get("text", ""))
    if sse.event == "restart":
        return Restart(data.get("reason", ""))
    if sse.event == "done":
        return Done(Answer.model_validate(data))
    if sse.event == "error":
        error = data.get("error") or {}
        raise api_error(200, error.get("code"), error.get("message", "the answer failed"))
    return None  # an event this client does not know yet: skipped


def _collection_first(method: str, first: Any, second: Any, collection: str | None) -> tuple[str, Any]:
    """(collection, items) of a call in the new form ``method(items, collection=C)`` or
    the old ``method(C, items)``, which still works with a ``DeprecationWarning``."""
    if second is None:
        if isinstance(first, str):
            raise TypeError(f"{method}() takes a list: {method}([{first!r}], collection='name')")
        return collection or "default", first
    if collection is not None or not isinstance(first, str):
        raise TypeError(f"{method}() takes the items first and the collection as a keyword: "
                        f"{method}(items, collection='name')")
    warnings.warn(f"{method}(collection, items) is deprecated; call {method}(items, collection={first!r})",
                  DeprecationWarning, stacklevel=3)
    return first, second


def _check_wait(jobs: list[Job], deadline: float | None) -> bool:
    """True when every job finished; raises once past the deadline."""
    if all(job.finished for job in jobs):
        return True
    if deadline is not None and time.monotonic() > deadline:
        pending = ", ".join(f"{j.source} ({j.state})" for j in jobs if not j.finished)
        raise JobTimeoutError(f"jobs not finished in time: {pending}")
    return False


class _Base(Routes):
    def __init__(self, base_url: str, key: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = key

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"

    def _ask_stream_body(self, question: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        collection = kwargs.pop("collection", "default")
        collections, owner = kwargs.pop("collections", None), kwargs.pop("owner", None)
        return self._ask_body(question, collection, collections, owner, kwargs, stream=True)


class Client(_Base):
    """A ragline server's REST API. ``Client(base_url, key)``; use it as a context
    manager, or call ``close()``. Every method raises a ``RaglineError``."""

    def __init__(self, base_url: str, key: str | None = None, *, timeout: float = 60.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        super().__init__(base_url, key)
        self._http = httpx.Client(base_url=self.base_url, headers=_headers(key), timeout=timeout, transport=transport)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: Call) -> Any:
        try:
            response = self._http.request(call.method, call.path, **_request_args(call))
        except httpx.TransportError as exc:
            raise unreachable(exc, self.base_url) from exc
        return _result(call, response)

    def upload(self, files: Sequence[FileLike] | str, _files: Sequence[FileLike] | None = None, /, *,
               collection: str | None = None, owner: str | None = None, password: str | None = None,
               wait: bool = False, progress: JobProgress | None = None, timeout: float | None = None) -> list[Job]:
        """Upload files (paths, or (name, bytes) pairs) to ``collection`` (default
        ``default``): one job each. With ``wait``, returns once they are indexed or
        failed, calling ``progress(jobs)`` meanwhile. (``upload(collection, files)``,
        the old form, still works and warns.)"""
        collection, files = _collection_first("upload", files, _files, collection)
        jobs = self._run(self._upload_call(collection, files, owner, password))
        return self.wait(jobs, progress=progress, timeout=timeout) if wait else jobs

    def add_texts(self, documents: Sequence[str | dict[str, Any]] | str,
                  _documents: Sequence[str | dict[str, Any]] | None = None, /, *, collection: str | None = None,
                  owner: str | None = None, wait: bool = False, progress: JobProgress | None = None,
                  timeout: float | None = None) -> list[Job]:
        """Add documents given as text (or ``{"text", "source", "title", "metadata"}``)
        to ``collection`` (default ``default``). (``add_texts(collection, documents)``,
        the old form, still works and warns.)"""
        collection, documents = _collection_first("add_texts", documents, _documents, collection)
        jobs = self._run(self._texts_call(collection, documents, owner))
        return self.wait(jobs, progress=progress, timeout=timeout) if wait else jobs

    def wait(self, jobs: Sequence[Job | str], *, progress: JobProgress | None = None, timeout: float | None = None,
             poll: float = 0.2) -> list[Job]:
        """Poll the jobs until each is indexed or failed (``JobTimeoutError`` after ``timeout`` s)."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        ids = [j if isinstance(j, str) else j.id for j in jobs]
        while True:
            current = [self.job(job_id) for job_id in ids]
            if progress is not None:
                progress(current)
            if _check_wait(current, deadline):
                return current
            time.sleep(poll)

    def ask_stream(self, question: str, **kwargs: Any) -> Iterator[AskEvent]:
        """The answer as it is written: ``Delta`` events, maybe a ``Restart``, then
        ``Done`` with the full answer. Takes ``ask``'s keyword arguments."""
        body = self._ask_stream_body(question, kwargs)
        try:
            with connect_sse(self._http, "POST", "/v1/ask", json=body) as source:
                if source.response.is_error:
                    source.response.read()
                    raise from_response(source.response)
                for sse in source.iter_sse():
                    event = _event(sse)
                    if event is not None:
                        yield event
        except httpx.TransportError as exc:
            raise unreachable(exc, self.base_url) from exc


class AsyncClient(_Base):
    """``Client`` for asyncio/trio code: the same methods, awaited (``ask_stream`` is
    an async iterator). ``async with AsyncClient(base_url, key) as client: …``."""

    def __init__(self, base_url: str, key: str | None = None, *, timeout: float = 60.0,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(base_url, key)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=_headers(key), timeout=timeout,
                                       transport=transport)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: Call) -> Any:
        try:
            response = await self._http.request(call.method, call.path, **_request_args(call))
        except httpx.TransportError as exc:
            raise unreachable(exc, self.base_url) from exc
        return _result(call, response)

    def _run(self, call: Call) -> Any:
        return self._send(call)  # a coroutine: every route method is awaited

    async def upload(self, files: Sequence[FileLike] | str, _files: Sequence[FileLike] | None = None, /, *,
                     collection: str | None = None, owner: str | None = None, password: str | None = None,
                     wait: bool = False, progress: JobProgress | None = None,
                     timeout: float | None = None) -> list[Job]:
        """``Client.upload``, awaited."""
        collection, files = _collection_first("upload", files, _files, collection)
        jobs = await self._send(self._upload_call(collection, files, owner, password))
        return await self.wait(jobs, progress=progress, timeout=timeout) if wait else jobs

    async def add_texts(self, documents: Sequence[str | dict[str, Any]] | str,
                        _documents: Sequence[str | dict[str, Any]] | None = None, /, *,
                        collection: str | None = None, owner: str | None = None, wait: bool = False,
                        progress: JobProgress | None = None, timeout: float | None = None) -> list[Job]:
        """``Client.add_texts``, awaited."""
        collection, documents = _collection_first("add_texts", documents, _documents, collection)
        jobs = await self._send(self._texts_call(collection, documents, owner))
        return await self.wait(jobs, progress=progress, timeout=timeout) if wait else jobs

    async def wait(self, jobs: Sequence[Job | str], *, progress: JobProgress | None = None,
                   timeout: float | None = None, poll: float = 0.2) -> list[Job]:
        """``Client.wait``, awaited."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        ids = [j if isinstance(j, str) else j.id for j in jobs]
        while True:
            # Routes.job is typed for the sync client; here _run makes it a coroutine.
            current = [await cast(Awaitable[Job], self.job(job_id)) for job_id in ids]
            if progress is not None:
                progress(current)
            if _check_wait(current, deadline):
                return current
            await anyio.sleep(poll)

    async def ask_stream(self, question: str, **kwargs: Any) -> AsyncIterator[AskEvent]:
        """``Client.ask_stream`` as an async iterator."""
        body = self._ask_stream_body(question, kwargs)
        try:
            async with aconnect_sse(self._http, "POST", "/v1/ask", json=body) as source:
                if source.response.is_error:
                    await source.response.aread()
                    raise from_response(source.response)
                async for sse in source.aiter_sse():
                    event = _event(sse)
                    if event is not None:
                        yield event
        except httpx.TransportError as exc:
            raise unreachable(exc, self.base_url) from exc


__all__ = ["AsyncClient", "Client", "RaglineError"]
