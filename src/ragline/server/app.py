"""The FastAPI application: ``create_app(settings)`` wires the engine, the job
workers, error mapping, observability and the routes; the web page (when
installed) is mounted at ``/`` after the API so it never shadows it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from typing import Any

from fastapi import FastAPI

from ..engine import Engine
from ..settings import Settings
from ..store import one_process_only
from ..version import __version__
from .auth import AuthFirst, KeyCache
from .docs import install_docs
from .errors import ApiError, install_error_handlers, install_unknown_routes, log
from .fairness import FairGate, released
from .jobs import JobRunner
from .metrics import Metrics
from .observe import RequestObserver, configure_logging
from .routes import ROUTERS
from .uploads import Uploads
from .worker_process import WorkerProcess

DESCRIPTION = """Offline-first retrieval-augmented generation: tenants, collections, documents,
background ingestion, search, cited answers, and an OpenAI-compatible chat endpoint.
Every `/v1` route except `/v1/tenants…` takes a tenant API key (`Authorization: Bearer …`)."""


def create_app(settings: Settings | None = None, engine: Engine | None = None,
               outside: Callable[[], bool] | None = None) -> FastAPI:
    """Build the API over ``engine`` (or one built from ``settings``). Job workers
    start with the app's lifespan and stop with it; the engine is closed only if
    this function created it. ``outside``: for an app process behind a front, whether
    its requests step aside for another process's (``FairGate``)."""
    settings = settings or (engine.settings if engine is not None else Settings())
    owns_engine = engine is None
    engine = engine or Engine(settings)
    configure_logging()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Build the lazy parts once here, so worker and request threads never race to build them.
        # A store that is down does not stop the server: it answers 503 until the store is back.
        for build in (lambda: (engine.embedder, engine.embedding_cache, engine.sandbox), engine.connect,
                      lambda: engine.answerer):
            try:
                build()
            except Exception as exc:  # noqa: BLE001
                log.warning(json.dumps({"event": "startup_degraded", "error": str(exc)}))
                break  # the answerer needs the store; it is built on first use once the store is back
        app.state.runner.start()
        try:
            async with _mcp_lifespan(app):
                yield
        finally:
            app.state.runner.stop()
            if owns_engine:
                engine.close()

    # docs_url/redoc_url None: FastAPI's pages load their scripts from a CDN; ours are local.
    app = FastAPI(title="ragline", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    metrics = Metrics(lambda: engine)
    uploads = Uploads.from_settings(settings, engine)
    app.state.settings = settings
    app.state.engine = engine
    app.state.metrics = metrics
    app.state.uploads = uploads
    server = settings.server
    app.state.gate = FairGate(server.request_slots, server.request_slots_per_tenant, server.request_queue_per_tenant,
                              outside=outside)
    app.state.key_cache = KeyCache()  # keys checked in the last second (server/auth.py)
    engine.remote_wait = released
    # An app over an engine the caller built keeps its workers in this process, on that engine;
    # so does a store only one process may open.
    if settings.server.job_process and owns_engine and not one_process_only(settings.store.url):
        app.state.runner = WorkerProcess(settings, settings.server.job_workers, settings.server.job_nice, metrics)
    else:
        app.state.runner = JobRunner(engine, uploads, workers=settings.server.job_workers, metrics=metrics)
    install_error_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    app.state.mcp = _mount_mcp(app, engine, settings)
    install_unknown_routes(app)  # after every /v1 route: what none of them matches
    install_docs(app)
    app.add_middleware(AuthFirst)  # before any body is read (RequestObserver stays outermost: it logs refusals)
    app.add_middleware(RequestObserver, metrics=metrics,
                       max_request_bytes=int(settings.server.max_request_mb * 1024 * 1024))
    try:
        from ..web import mount
    except ImportError:
        pass
    else:
        mount(app)
    return app


MCP_MISSING = ("MCP over HTTP needs the 'mcp' extra, which is not installed on this server: "
               "pip install 'ragline[mcp]' (or make install), then restart it")


def _mount_mcp(app: FastAPI, engine: Engine, settings: Settings) -> Any:
    """``/v1/mcp`` (MCP over streamable HTTP) when the ``mcp`` extra is installed, else
    None and a ``/v1/mcp`` that answers 501 saying what to install."""
    try:
        from .mcp import mount_http
    except ImportError:
        def mcp_missing() -> None:
            raise ApiError(501, "mcp_not_installed", MCP_MISSING)

        app.add_api_route("/v1/mcp", mcp_missing, methods=["GET", "POST", "DELETE"], include_in_schema=False)
        return None
    return mount_http(app, engine, settings.server.host)


def _mcp_lifespan(app: FastAPI) -> Any:
    """The MCP session manager's task group while the app runs (nothing without MCP)."""
    if app.state.mcp is None:
        return nullcontext()
    from .mcp import http_lifespan

    return http_lifespan(app.state.mcp)


def serve(settings: Settings, *, host: str | None = None, port: int | None = None,
          engine: Engine | None = None, on_started: Callable[[str], None] | None = None) -> None:
    """Run the API with uvicorn until interrupted; ``on_started(url)`` is called once
    the socket is bound. With ``server.processes`` above 1 (and no engine passed in,
    and a store more than one process may open) the port is held by a front that
    hands each tenant's requests to one of that many app processes (``front.py``);
    otherwise this process serves the app itself."""
    app: Any
    if engine is None and settings.server.processes > 1 and not one_process_only(settings.store.url):
        from .front import Front

        app, relayed = Front(settings), {"server_header": False, "date_header": False}  # the app's own are relayed
    else:
        app, relayed = create_app(settings, engine), {}
    _run(app, settings, on_started, host=host or settings.server.host,
         port=port if port is not None else settings.server.port, **relayed)


def run_app(settings: Settings, uds: str, outside: Callable[[], bool]) -> None:
    """Serve the app on the Unix socket ``uds`` for a front (``app_child``). Only the
    front can reach the socket (a private folder), so its ``X-Forwarded-For`` is trusted."""
    _run(create_app(settings, outside=outside), settings, None, uds=uds, proxy_headers=True, forwarded_allow_ips="*",
         timeout_keep_alive=300)  # the front keeps its connections for reuse


def _run(app: Any, settings: Settings, on_started: Callable[[str], None] | None, **options: Any) -> None:
    """uvicorn, with our JSON line per request instead of its access log."""
    import sys

    import uvicorn

    # A thread waiting for the GIL gets it after this interval (default 5 ms): shorter, a
    # tenant's quick request is not held up for long by another's long one (fairness.py).
    sys.setswitchinterval(0.001)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and on_started is not None:
                bound = self.servers[0].sockets[0].getsockname() if self.servers else (config.host, config.port)
                shown = "127.0.0.1" if bound[0] in ("0.0.0.0", "::", "") else bound[0]
                on_started(f"http://{shown}:{bound[1]}")

    # A bounded graceful shutdown: without it uvicorn waits for every request in flight,
    # so one long request (a slow provider, a huge question) kept SIGTERM from stopping us.
    config = uvicorn.Config(app, access_log=False, log_level="warning",
                            timeout_graceful_shutdown=settings.server.shutdown_timeout_s, **options)
    _Server(config).run()
