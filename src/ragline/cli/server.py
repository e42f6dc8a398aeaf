"""Server commands: serve, worker, tenant create, key create, jobs."""

from __future__ import annotations

import re
import time
from typing import Annotated

import typer
from rich.table import Table

from ..errors import StoreUnavailableError
from ..models import NAME_PATTERN, OWNER_PATTERN, OWNER_RULE
from ..store.types import JOB_STATES
from .common import AsJson, app, err, load_settings, out
from .common import engine_from_env as _engine
from .common import print_json as _print_json
from .console import say

NAME = re.compile(NAME_PATTERN)

tenant_app = typer.Typer(help="Manage tenants.", no_args_is_help=True)
key_app = typer.Typer(help="Manage tenant API keys.", no_args_is_help=True)
app.add_typer(tenant_app, name="tenant")
app.add_typer(key_app, name="key")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind (default: server.host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: server.port, 8000).")] = None,
    processes: Annotated[int | None, typer.Option(
        help="App processes behind the port, each tenant's requests in one (default: server.processes, 2; "
             "1 serves from this process).", min=1, max=64)] = None,
) -> None:
    """Run the REST API (and the web page) with background ingestion workers."""
    from ..server import serve as run

    settings = load_settings()
    if processes is not None:
        settings = settings.model_copy(update={"server": settings.server.model_copy(update={"processes": processes})})
    with _engine() as engine:  # a wrong store URL or a server without pgvector stops here, named
        try:
            engine.connect()
        except StoreUnavailableError as exc:  # down, not misconfigured: serve 503s until it is back
            say("yellow", "warning", f"{exc}; serving 503 until the store is reachable")
    run(settings, host=host, port=port,
        on_started=lambda url: err.print(f"ragline serving on {url} (home {settings.home}); Ctrl+C stops"))


@app.command()
def worker(
    threads: Annotated[int, typer.Option(help="Worker threads in this process.", min=1, max=32)] = 1,
) -> None:
    """Ingest queued jobs without serving HTTP: start several next to `ragline serve` replicas
    to share the queue (on any machine that reaches the same store; with uploads kept on
    local disk, server.upload_storage=local, one that also sees the same RAGLINE_HOME/uploads)."""
    import signal
    import threading

    from ..server.jobs import JobRunner
    from ..server.observe import configure_logging
    from ..server.uploads import Uploads

    settings = load_settings()
    configure_logging()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with _engine() as engine:
        engine.connect()  # fail fast on a wrong URL, before announcing anything
        runner = JobRunner(engine, Uploads.from_settings(settings, engine), workers=threads)
        runner.start()
        err.print(f"ragline worker {runner.name}: {threads} thread(s) on {engine.status()['store_url']}; "
                  "Ctrl+C stops")
        while not stop.wait(0.5):
            pass
        runner.stop(timeout=30)


@tenant_app.command("create")
def tenant_create(name: Annotated[str, typer.Argument(help="Tenant name (A–Z a–z 0–9 . _ -).")]) -> None:
    """Create a tenant (no-op if it exists)."""
    if not NAME.match(name):
        say("red", "error", f"invalid tenant name {name!r}: use 1–64 of A–Z a–z 0–9 . _ -")
        raise typer.Exit(2)
    with _engine() as engine:
        created = engine.ensure_tenant(name)
    err.print(f"tenant {name} {'created' if created else 'already exists'}")


@key_app.command("create")
def key_create(
    tenant: Annotated[str, typer.Option("--tenant", "-t", help="The tenant the key belongs to.")],
    label: Annotated[str | None, typer.Option(help="A note to tell keys apart.")] = None,
    owner: Annotated[str | None, typer.Option("--owner", "-u", help=(
        "Bind the key to this user of the tenant: every request made with it acts as this owner "
        "(shared documents plus the user's own); naming another owner is refused."))] = None,
) -> None:
    """Create an API key for a tenant and print it (shown only once) alone on stdout."""
    if owner is not None and not re.match(OWNER_PATTERN, owner):
        say("red", "error", f"invalid owner {owner!r}: {OWNER_RULE}")
        raise typer.Exit(2)
    with _engine() as engine:
        if engine.tenant_created(tenant) is None:
            say("red", "not found", f"tenant {tenant!r} (create it with: ragline tenant create {tenant})")
            raise typer.Exit(3)
        info, secret = engine.create_api_key(tenant, label, owner)
    bound = f", bound to owner {owner}" if owner else ""
    err.print(f"key {info.id} created for tenant {tenant}{bound}; it is not shown again")
    print(secret)


@app.command()
def jobs(
    tenant: Annotated[str | None, typer.Option("--tenant", "-t", help="Only this tenant (default: all).")] = None,
    state: Annotated[str | None, typer.Option(help=f"Only jobs in this state ({', '.join(JOB_STATES)}).")] = None,
    limit: Annotated[int, typer.Option(help="At most this many per tenant.")] = 50,
    as_json: AsJson = False,
) -> None:
    """Ingestion jobs with state and progress, newest first."""
    from ..server.jobs import job_to_dict

    if state is not None and state not in JOB_STATES:
        say("red", "error", f"unknown state {state!r}; choose one of: {', '.join(JOB_STATES)}")
        raise typer.Exit(2)
    with _engine() as engine:
        tenants = [tenant] if tenant else engine.tenants()
        rows = [{"tenant": t, **job_to_dict(j)} for t in tenants
                for j in engine.list_jobs(t, state=state, limit=limit)]
    if as_json:
        _print_json(rows)
        return
    table = Table()
    for column in ("tenant", "collection", "source", "state", "progress", "eta", "tries", "age", "error"):
        table.add_column(column)
    now = time.time()
    for r in rows:
        eta = "" if r["eta_s"] is None else f"{r['eta_s']:.0f}s"
        table.add_row(r["tenant"], r["collection"], r["source"], r["state"],
                      f"{r['progress']['done']}/{r['progress']['total']}", eta, str(r["tries"]),
                      f"{now - r['created']:.0f}s", (r["error"] or "")[:60])
    out.print(table)
