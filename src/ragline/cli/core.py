"""Core commands: ingest, sync, search, status. What only ingesting needs (the
progress bar, load options) is imported inside those commands."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from ..errors import ConfigError
from .common import AsJson, Collection, Mode, Owner, Tenant, app, err, out, real_console
from .common import engine_from_env as _engine
from .common import print_json as _print_json
from .common import scope as _scope
from .console import say

if TYPE_CHECKING:  # ingest-only: `ragline search` does not import them
    from ..ingest.loaders.options import LoadOptions


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int, int, str], None] | None]:
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[current]}"), console=real_console(err), transient=True) as bar:
        task = bar.add_task("ingesting", total=None, current="")

        def update(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, current=current[-50:])

        yield update


def _run_ingest(run: Callable[[Any, Callable[[int, int, str], None] | None], Any], as_json: bool,
                list_warnings: bool = False) -> None:
    """Run an ingest-like operation with a progress bar, then report its summary."""
    with _engine() as engine, _progress(True) as progress:
        summary = run(engine, progress)
    _report_ingest(summary.to_dict(), as_json, list_warnings)


def _report_ingest(summary: dict[str, Any], as_json: bool, list_warnings: bool = False) -> None:
    """The summary: one line (or JSON), the warnings counted in one line unless
    ``list_warnings`` asks for each (a few hundred files can carry one each)."""
    warnings = summary.get("warnings", [])
    if as_json:
        _print_json({**summary, "warnings": len(warnings), **({"warning_details": warnings} if list_warnings else {})})
    else:
        out.print(f"added {summary['added']}, updated {summary['updated']}, unchanged {summary['unchanged']}, "
                  f"deleted {summary['deleted']}, failed {len(summary['failed'])}, chunks {summary['chunks']}, "
                  f"embedded {summary['embedded']} in {summary['seconds']:.1f} s")
        if summary.get("headed"):
            out.print(f"{summary['headed']} chunks longer than the model's input were embedded from their head "
                      "(the keyword index reads them whole: embedder.overflow)")
    if list_warnings:
        for warning in warnings:
            say("yellow", "warning", f"{warning['path']}: {warning['warning']}", markup=True,
                      highlight=False, soft_wrap=True)
    elif warnings and not as_json:
        files = len({w["path"] for w in warnings})
        first = warnings[0]
        say("yellow", "warning", f"{len(warnings)} warning{'s' * (len(warnings) > 1)} in {files} "
                  f"file{'s' * (files > 1)} (first: {first['path']}: {first['warning']}); "
                  "--warnings lists them", highlight=False, soft_wrap=True)
    for failure in summary["failed"]:
        say("yellow", "failed", f"{failure['path']}: {failure['error']}")
    if summary["failed"]:
        raise typer.Exit(1)


IdField = Annotated[str | None, typer.Option("--id-field", help="Records (JSON array, JSON Lines): the field holding each record's id; dotted paths reach nested fields.")]
TitleField = Annotated[str | None, typer.Option("--title-field", help="Records: the field holding the title.")]
TextField = Annotated[str | None, typer.Option("--text-field", help="Records: the field holding the text.")]
AsChunks = Annotated[bool | None, typer.Option("--as-chunks/--split-records", help="Records: store each record as one chunk, unsplit (records that already are chunks).")]
Ocr = Annotated[Literal["auto", "on", "off"] | None, typer.Option("--ocr", help="OCR of images and text-less PDF pages.")]
ListWarnings = Annotated[bool, typer.Option("--warnings", help="List each file's warnings (with --json: as "
                                                               "warning_details); by default one line counts them.")]


def _load_options(engine: Any, **overrides: Any) -> LoadOptions | None:
    """The settings' load options with this command's overrides, or None when there are none."""
    from ..ingest.loaders.options import LoadOptions

    changes = {key: value for key, value in overrides.items() if value is not None}
    if "ocr" in changes and changes["ocr"] not in ("auto", "on", "off"):
        raise ConfigError(f"--ocr must be auto, on or off, not {changes['ocr']!r}")
    return replace(LoadOptions.from_settings(engine.settings.ingest), **changes) if changes else None


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to ingest.")],
    tenant: Tenant = "default",
    collection: Collection = None,
    owner: Owner = None,
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    id_field: IdField = None,
    title_field: TitleField = None,
    text_field: TextField = None,
    as_chunks: AsChunks = None,
    ocr: Ocr = None,
    list_warnings: ListWarnings = False,
    as_json: AsJson = False,
) -> None:
    """Load, chunk, embed and store files (unchanged files do no work)."""
    where = _scope(tenant, collection, owner)  # checked before anything is opened
    _run_ingest(lambda engine, progress: engine.ingest(
        paths, where, password=password, progress=progress,
        options=_load_options(engine, id_field=id_field, title_field=title_field, text_field=text_field,
                              records_as_chunks=as_chunks, ocr=ocr)), as_json, list_warnings)


@app.command()
def sync(
    directory: Annotated[Path, typer.Argument(help="Directory to mirror into the collection.")],
    tenant: Tenant = "default",
    collection: Collection = None,
    owner: Owner = None,
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    id_field: IdField = None,
    title_field: TitleField = None,
    text_field: TextField = None,
    as_chunks: AsChunks = None,
    ocr: Ocr = None,
    list_warnings: ListWarnings = False,
    as_json: AsJson = False,
) -> None:
    """Ingest a directory and delete documents whose files are gone."""
    where = _scope(tenant, collection, owner)
    _run_ingest(lambda engine, progress: engine.sync(
        directory, where, password=password, progress=progress,
        options=_load_options(engine, id_field=id_field, title_field=title_field, text_field=text_field,
                              records_as_chunks=as_chunks, ocr=ocr)), as_json, list_warnings)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    tenant: Tenant = "default",
    collection: Collection = None,
    owner: Owner = None,
    mode: Mode = None,
    k: Annotated[int | None, typer.Option("-k", min=1, max=1000, help="Number of results (1–1000).")] = None,
    threshold: Annotated[float | None, typer.Option(help="Drop results whose cosine similarity to the query is below this (every mode).")] = None,
    where: Annotated[str | None, typer.Option("--filter", help='Metadata filters as JSON, e.g. \'{"page": {"gte": 2}}\'.')] = None,
    sort: Annotated[Literal["score", "match_count", "last_matched_at"] | None, typer.Option(
        help="Order by score (default), or by how often / how recently hits were returned.")] = None,
    min_matches: Annotated[int | None, typer.Option(min=0, help="Keep hits returned at least this often before.")] = None,
    max_matches: Annotated[int | None, typer.Option(min=0, help="Keep hits returned at most this often before.")] = None,
    as_json: AsJson = False,
) -> None:
    """Search a collection."""
    try:
        filters = json.loads(where) if where else None
    except json.JSONDecodeError as exc:
        say("red", "error", f"--filter is not valid JSON: {exc}")
        raise typer.Exit(2) from exc
    where_scope = _scope(tenant, collection, owner)
    with _engine(warm_up=mode != "keyword") as engine:
        result = engine.search(query, where_scope, mode=mode, k=k, threshold=threshold, filters=filters, sort=sort,
                               min_matches=min_matches, max_matches=max_matches)
    if result.degraded:
        say("yellow", "note", f"{result.degraded}")
    if as_json:
        _print_json([hit.to_dict() for hit in result.hits])
        return
    from rich.table import Table  # not for --json
    from rich.text import Text

    table = Table(show_lines=True)
    for column in ("#", "score", "source", "text"):
        table.add_column(column)
    for n, hit in enumerate(result.hits, start=1):
        page = hit.page
        where_text = f"{hit.source}" + (f" p.{page}" if page else "")
        # Text, not str: a chunk's or file's square brackets are not rich markup.
        table.add_row(str(n), f"{hit.score:.3f}", Text(where_text), Text(snippet(hit.text)))
    out.print(table)


def snippet(text: str, limit: int = 300) -> str:
    """``text`` as one paragraph (its line breaks and runs of spaces become single
    spaces: the table wraps it to the terminal), cut after a whole word with "…"
    when it is longer than ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit + 1].rsplit(" ", 1)[0] if " " in flat[:limit + 1] else flat[:limit]
    return cut.rstrip(" ,;:") + "…"


@app.command()
def status(as_json: AsJson = False) -> None:
    """Tenants, collections, documents, chunks and the embedding model."""
    with _engine() as engine:
        data = engine.status()
    if as_json:
        _print_json(data)
        return
    out.print(f"home {data['home']} · store {data['store']} · model {data['model']}")
    out.print(f"{data['tenants']} tenants, {data['collections']} collections, {data['documents']} documents, "
              f"{data['chunks']} chunks")
    from rich.table import Table

    table = Table()
    for column in ("tenant", "collection", "documents", "chunks", "model"):
        table.add_column(column)
    for tenant in data["details"]:
        for c in tenant["collections"]:
            table.add_row(tenant["tenant"], c["name"], str(c["documents"]), str(c["chunks"]), c["model"])
    out.print(table)

