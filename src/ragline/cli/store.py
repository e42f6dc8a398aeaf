"""Store commands: migrate, reindex."""

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


@app.command()
def reindex(
    tenant: Annotated[str | None, typer.Option("--tenant", "-t", help="Only this tenant's collections.")] = None,
    as_json: AsJson = False,
) -> None:
    """Rebuild the search side indexes of large SQLite collections (HNSW and tantivy, in
    <db>.ann/) from the catalog. Searching rebuilds a missing or damaged one by itself;
    this does it now, e.g. after restoring a backup. Other backends: nothing to do."""
    with _engine() as engine:
        report = engine.rebuild_indexes(tenant)
    if as_json:
        _print_json(report)
        return
    for row in report:
        err.print(f"{row['tenant']}/{row['collection']}: {row['chunks']} chunks, {row['dense']} in the vector index, "
                  f"{row['keyword']} in the keyword index")
    if not report:
        err.print("no side index to rebuild (no SQLite collection at or above store.keyword_index_above "
                  "or store.ann_above chunks)")
