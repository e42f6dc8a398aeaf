"""Usage commands: ``usage`` (tokens, questions and estimated cost per tenant) and
``stats`` (the most and never matched chunks and documents)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

import typer
from rich.table import Table

from .common import AsJson, Collection, Owner, Tenant, app, out, print_json
from .common import engine_from_env as _engine
from .common import scope as _scope
from .console import say

Since = Annotated[str | None, typer.Option("--since", help="From this day on (YYYY-MM-DD, UTC).")]


def check_day(value: str | None) -> str | None:
    """A YYYY-MM-DD day, or None; exits 2 naming a bad one."""
    if value is None:
        return None
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        date.fromisoformat(value)
    except ValueError:
        say("red", "error", f"--since must be a day as YYYY-MM-DD, got {value[:40]!r}", highlight=False)
        raise typer.Exit(2) from None
    return value


@app.command()
def usage(tenant: Annotated[str | None, typer.Option("--tenant", "-t", help="One tenant (default: every tenant).")] = None,
          since: Since = None, as_json: AsJson = False) -> None:
    """Tokens embedded, questions asked, LLM tokens in and out, and an estimated cost."""
    since = check_day(since)
    if tenant is not None:
        _scope(tenant, None, None)  # the name check
    with _engine() as engine:
        tenants = [tenant] if tenant is not None else engine.tenants()
        reports = [engine.usage_report(name, since) for name in tenants]
    if as_json:
        print_json(reports[0] if tenant is not None else reports)
        return
    table = Table()
    for column in ("tenant", "texts embedded", "tokens embedded", "questions", "LLM tokens in", "LLM tokens out",
                   "cost"):
        table.add_column(column, justify="left" if column == "tenant" else "right")
    for report in reports:
        table.add_row(report["tenant"], *(f"{report[k]:,}" for k in (
            "texts_embedded", "tokens_embedded", "questions", "llm_input_tokens", "llm_output_tokens")),
            f"{report['cost']:.4f} {report['currency']}")
    out.print(table)
    for report in reports:
        if report["unpriced"]:
            say("yellow", "note", f"{report['tenant']}: no price for {', '.join(report['unpriced'])} "
                      "(counted as 0: right for a local model; otherwise set RAGLINE_USAGE__PRICES)", highlight=False)


@app.command()
def stats(tenant: Tenant = "default", collection: Collection = None, owner: Owner = None,
          limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Rows per list.")] = 10,
          as_json: AsJson = False) -> None:
    """The most and never matched chunks and documents: where a knowledge base has gaps."""
    where = _scope(tenant, collection, owner)
    with _engine() as engine:
        lists = {f"{order}_matched_{level}s": [s.to_dict() for s in engine.match_stats(
                     where, level=level, order=order, limit=limit)]
                 for level in ("document", "chunk") for order in ("most", "never")}
    if as_json:
        print_json(lists)
        return
    for name, rows in lists.items():
        out.print(_table(name.replace("_", " "), rows))


def _table(title: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("matches", "last matched", "source", "text"):
        table.add_column(column)
    for row in rows:
        last = row["last_matched_at"]
        when = date.fromtimestamp(last).isoformat() if last else "—"
        where = row["source"] + (f" p.{row['page']}" if row["page"] else "")
        table.add_row(str(row["match_count"]), when, where, row["preview"][:80] or (row["title"] or ""))
    return table
