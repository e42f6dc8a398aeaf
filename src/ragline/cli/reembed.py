"""``ragline reembed``: swap a collection's embedding model without a wipe."""

from __future__ import annotations

from typing import Annotated

import typer

from ..embed import make_embedder
from ..embed.registry import settings_for
from .common import AsJson, Tenant, app, err, scope
from .common import engine_from_env as _engine
from .common import print_json as _print_json


@app.command()
def reembed(
    model: Annotated[str, typer.Option("--model", "-m", help="The new model: an embedder name (minilm, openai, "
                                                             "…) or <embedder>/<model>.")],
    tenant: Tenant = "default",
    collection: Annotated[str, typer.Option("--collection", "-c", help="The collection to re-embed.")] = "default",
    as_json: AsJson = False,
) -> None:
    """Re-embed a collection with another model while searches keep using the old
    vectors, then switch atomically. Interrupted, it resumes where it stopped. Then
    serve with the new model's settings (RAGLINE_EMBEDDER__NAME / __MODEL)."""
    target = scope(tenant, [collection], None)  # every owner's documents: the model is the collection's
    with _engine() as engine:
        new = make_embedder(settings_for(model, engine.settings.embedder), cache_dir=engine.settings.embedder.model_cache())
        shown = -1

        def progress(done: int, total: int) -> None:
            nonlocal shown
            percent = 100 * done // max(1, total)
            if percent >= shown + 10 or done == total:
                shown = percent
                err.print(f"reembed {collection}: {done}/{total} chunks")

        report = engine.reembed(target, new, progress=progress)
    if as_json:
        _print_json(report.to_dict())
    elif report.switched:
        err.print(f"{collection}: {report.old_model} → {report.new_model} (dim {report.dimension}), "
                  f"{report.chunks} chunks, {report.embedded} embedded, {report.seconds:.1f} s")
    else:
        err.print(f"{collection} is already embedded with {report.new_model}: nothing to do")
