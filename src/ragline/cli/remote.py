"""``ragline --server URL --key KEY COMMAND``: ``ingest``, ``search`` and ``ask`` run
against a remote ragline server through ``ragline.client`` instead of the local
store, with the same options and the same output. The key decides the tenant.

``RemoteEngine`` stands in for the ``Engine`` those commands use (``engine_from_env``
hands it out when ``--server`` is given): the commands' own code prints the
results, so local and remote output cannot drift apart."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import ConfigError
from ..models import Hit, Scope
from ..retrieve.search import SearchResult
from ..settings import Settings
from .console import app, err, say

if TYPE_CHECKING:  # the client (httpx) is imported only when --server is given
    from ..client import Client

REMOTE_COMMANDS = ("ingest", "search", "ask")
_HIT_FIELDS = {f.name for f in fields(Hit)}
_remote: Client | None = None  # this invocation's --server client (set by the callback, every run)


def _print_version(value: bool) -> None:
    if value:
        from ..version import __version__

        print(f"ragline, version {__version__}")
        raise typer.Exit()


@app.callback()
def remote_options(
    ctx: typer.Context,
    server: Annotated[str | None, typer.Option("--server", envvar="RAGLINE_SERVER_URL", help=(
        f"Run the command against this ragline server ({', '.join(REMOTE_COMMANDS)}).") )] = None,
    key: Annotated[str | None, typer.Option("--key", envvar="RAGLINE_API_KEY", help=(
        "The tenant API key for --server (it decides the tenant)."))] = None,
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Show the version and exit.")] = False,
) -> None:
    """ragline: offline-first retrieval-augmented generation."""
    global _remote
    _remote = None
    if server is None:
        return
    if ctx.invoked_subcommand not in REMOTE_COMMANDS:
        say("red", "error", f"`ragline {ctx.invoked_subcommand}` runs locally only; with --server: "
                  f"{', '.join(REMOTE_COMMANDS)}")
        raise typer.Exit(2)
    if not key:
        err.print("[red]error:[/red] --server needs --key (or RAGLINE_API_KEY): a tenant API key")
        raise typer.Exit(2)
    from ..client import Client

    _remote = Client(server, key, timeout=300)
    ctx.call_on_close(_remote.close)


def remote_client() -> Client | None:
    """The ``--server`` client of this invocation, or None for local work."""
    return _remote


@dataclass
class RemoteSummary:
    """What a remote ingest did, in ``IngestSummary``'s shape. ``embedded`` counts the
    chunks the server processed for new and changed documents (an upper bound: it
    reuses unchanged chunks' vectors)."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0
    embedded: int = 0
    seconds: float = 0.0
    failed: list[dict[str, str]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "updated": self.updated, "unchanged": self.unchanged, "deleted": 0,
                "failed": self.failed or [], "warnings": [], "chunks": self.chunks, "embedded": self.embedded,
                "seconds": round(self.seconds, 3)}


class RemoteAnswer:
    """The ``done`` answer, as the CLI's ``ask`` reads an ``Answer``."""

    degraded = None  # the server's answer carries it only in its details

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        return self.data


class RemoteAnswerStream:
    """``Engine.ask_stream``'s events (dicts) from the server's stream; ``.answer`` once done."""

    def __init__(self, events: Iterator[Any]) -> None:
        self._events = events
        self.answer: RemoteAnswer | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        from ..client import Delta, Done, Restart

        for event in self._events:
            if isinstance(event, Delta):
                yield {"type": "delta", "text": event.text}
            elif isinstance(event, Restart):
                yield {"type": "restart", "reason": event.reason}
            elif isinstance(event, Done):
                self.answer = RemoteAnswer(event.answer.model_dump())
                yield {"type": "done", "answer": self.answer.data}


class RemoteEngine:
    """The part of ``Engine`` that ``ingest``, ``search`` and ``ask`` use, over the REST API."""

    def __init__(self, client: Client, settings: Settings, generator: str | None = None) -> None:
        self.client = client
        self.settings = settings
        self.generator = generator

    def close(self) -> None:
        pass  # the client is closed with the command's context

    @staticmethod
    def _check(scope: Scope) -> None:
        if scope.tenant != "default":
            raise ConfigError("with --server the API key decides the tenant: leave out --tenant")

    def search(self, query: str, scope: Scope, *, mode: str | None = None, k: int | None = None,
               threshold: float | None = None, filters: dict[str, Any] | None = None, **usage: Any) -> SearchResult:
        self._check(scope)
        if any(value is not None for value in usage.values()):
            raise ConfigError(f"--server does not take {', '.join(k for k, v in usage.items() if v is not None)}")
        result = self.client.search(query, collections=list(scope.collections), owner=scope.owner, mode=mode, k=k,
                                    threshold=threshold, filters=filters)
        hits = [Hit(**{k: v for k, v in h.model_dump().items() if k in _HIT_FIELDS}) for h in result.hits]
        return SearchResult(hits=hits, mode=result.mode, timings_ms=result.timings_ms, degraded=result.degraded)

    def ask_stream(self, question: str, scope: Scope, *, mode: str | None = None) -> RemoteAnswerStream:
        self._check(scope)
        return RemoteAnswerStream(self.client.ask_stream(question, collections=list(scope.collections),
                                                         owner=scope.owner, mode=mode, generator=self.generator))

    def ingest(self, paths: list[Path], scope: Scope, *, password: str | None = None,
               progress: Callable[[int, int, str], None] | None = None, options: Any = None) -> RemoteSummary:
        """Upload the files the paths name (as a local ingest would find them), wait for
        their jobs, and tell new, changed and unchanged documents apart by their
        ``updated`` time before and after."""
        self._check(scope)
        if options is not None:
            raise ConfigError("--server uploads files as they are: record fields, --as-chunks and --ocr "
                              "follow the server's settings")
        started = time.monotonic()
        from ..ingest.discover import discover  # the loaders: only when ingesting

        found = discover(paths, self.settings.home)
        collection = scope.collections[0]
        names = {c.name for c in self.client.collections()}
        before = ({d.source: d.updated for d in self.client.documents(collection, owner=scope.owner)}
                  if collection in names else {})
        if not found.files:  # nothing to upload: no request, and no empty collection on the server
            return RemoteSummary(failed=list(found.failed), seconds=time.monotonic() - started)
        jobs = self.client.upload([file for file, _ in found.files], collection=collection, owner=scope.owner,
                                  password=password)
        jobs = self.client.wait(jobs, progress=_job_progress(progress) if progress else None)
        after = {d.source: d for d in self.client.documents(collection, owner=scope.owner)}
        # A job's error starts with its file's name ("a.pdf: …"), which the failure line prints already.
        summary = RemoteSummary(failed=[*found.failed, *({"path": j.source,
                                                          "error": (j.error or "failed").removeprefix(f"{j.source}: ")}
                                                         for j in jobs if j.state == "failed")])
        for job in (j for j in jobs if j.state == "indexed"):
            document = after.get(job.source)
            chunks = document.chunks if document is not None else job.progress.total
            summary.chunks += chunks
            if job.source not in before:
                summary.added, summary.embedded = summary.added + 1, summary.embedded + chunks
            elif document is not None and document.updated != before[job.source]:
                summary.updated, summary.embedded = summary.updated + 1, summary.embedded + chunks
            else:
                summary.unchanged += 1
        summary.seconds = time.monotonic() - started
        return summary


def _job_progress(report: Callable[[int, int, str], None]) -> Callable[[list[Any]], None]:
    def update(jobs: list[Any]) -> None:
        running = [j.source for j in jobs if not j.finished]
        report(sum(j.finished for j in jobs), len(jobs), running[0] if running else "")

    return update
