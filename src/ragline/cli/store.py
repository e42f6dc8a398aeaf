"""Store commands: migrate."""

from __future__ import annotations

from typing import Annotated

import typer

from ..store import redact
from .common import AsJson, app, err
from .common import engine_from_env as _engine
from .common import print_json as _print_json


@app.command()
def migrate(
    to: Annotated[str, typer.Option("--to", help="The target store URL (a path, sqlite:///…, postgresql://…, "
                                                 "qdrant://…).")],
    tenant: Annotated[list[str] | None, typer.Option("--tenant", "-t", help="Only this tenant (repeatable).")] = None,
    as_json: AsJson = False,
) -> None:
    """Copy documents, chunks, vectors, keys and jobs from the configured store to another,
    without re-embedding. Running it again copies nothing new."""
    with _engine() as engine:
        report = engine.migrate(to, tenant, progress=lambda line: err.print(line))
    if as_json:
        _print_json(report.to_dict())
        return
    r = report
    err.print(f"copied to {redact(to)}: {r.tenants} tenant(s), {r.collections} collection(s), "
              f"{r.documents} document(s) with {r.chunks} chunks ({r.documents_unchanged} already there), "
              f"{r.keys} key(s), {r.jobs} job(s)")
