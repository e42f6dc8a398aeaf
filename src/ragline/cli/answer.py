"""``ragline ask``: a grounded answer with numbered citations, or an honest abstention."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.markup import escape

from ..answer.generators import GENERATORS
from .common import AsJson, Collection, Mode, Owner, Tenant, app, err, out
from .common import engine_from_env as _engine
from .common import print_json as _print_json
from .common import scope as _scope
from .console import say

if TYPE_CHECKING:
    GeneratorName = str
else:
    GeneratorName = Literal[tuple(GENERATORS)]  # the registry's names, as the option's choices
Generator = Annotated[GeneratorName | None, typer.Option(
    "--generator", "-g", help="What writes the answer (default: settings, extractive).")]


def _print_sources(data: dict[str, Any]) -> None:
    kept = {s["n"]: s for s in data["context"]["kept"]}
    if data["citations"]:
        out.print("\nSources:", style="bold")
    for citation in data["citations"]:
        source = kept.get(citation["n"], {})
        where = citation["source"] + (f", p. {citation['page']}" if citation["page"] is not None else "")
        title = f"{source['title']} — " if source.get("title") else ""
        ids = citation.get("transaction_ids") or []
        behind = (f" (transactions: {', '.join(ids[:8])}{f', … {len(ids)} in all' if len(ids) > 8 else ''})"
                  if ids else "")
        out.print(f"[{citation['n']}] {title}{where}{behind}", markup=False, highlight=False)


def _notes(data: dict[str, Any]) -> None:
    if data["fallback_reason"]:
        say("yellow", "fallback", f"{data['generator']} answer, because {data['fallback_reason']}", markup=True,
                  highlight=False)
    grounding = data["grounding"]
    if grounding["unsupported"] or grounding["uncited"]:
        say("yellow", "grounding", f"{grounding['supported']} supported, {grounding['unsupported']} "
                  f"unsupported, {grounding['uncited']} uncited sentence(s)"
                  + (f"; {', '.join(grounding['action'])}" if grounding.get("action") else ""), highlight=False)
    for claim in grounding.get("claims", []):  # what the claim check caught, and what became of it
        if claim["status"] != "supported" or claim["note"]:
            fate = "shipped" if claim["shipped"] else "not shipped"
            why = f" — {claim['problem']}" if claim["problem"] else ""
            err.print(f"[dim]  {claim['status']} ({fate}): {escape(claim['text'] + why)}[/dim]", markup=True,
                      highlight=False)
    if data["abstained"]:
        err.print("[dim]abstained: no source answers this question[/dim]")


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question to answer from the collection.")],
    tenant: Tenant = "default",
    collection: Collection = None,
    owner: Owner = None,
    generator: Generator = None,
    mode: Mode = None,
    stream: Annotated[bool, typer.Option("--stream", help="Print the answer as it is generated "
                                                         "(with --json: one JSON event per line).")] = False,
    details: Annotated[bool, typer.Option("--details", help="With --json: add per-sentence grounding "
                                                            "and the sources' text.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also say on stderr which route answered "
                                                                  "(documents or records) and why.")] = False,
    as_json: AsJson = False,
) -> None:
    r"""Answer a question from your documents, citing sources as \[n]."""  # \[: not Rich markup
    where = _scope(tenant, collection, owner)  # checked before anything is opened
    with _engine(generator, warm_up=True) as engine:
        events = engine.ask_stream(question, where, mode=mode)
        if stream:
            for event in events:
                if as_json:
                    sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
                    sys.stdout.flush()
                elif event["type"] == "delta":
                    out.print(event["text"], end="", markup=False, highlight=False)
                    out.file.flush()
                elif event["type"] == "restart":
                    out.print()
                    err.print(f"[yellow]provider failed mid-answer ({event['reason']}); "
                              "restarting with the extractive answer[/yellow]", highlight=False)
        else:
            for _ in events:
                pass
        answer = events.answer
    assert answer is not None
    data = answer.to_dict(details=details)
    if as_json and not stream:
        _print_json(data)
    elif not as_json:
        if stream:
            out.print()
        else:
            out.print(data["answer"], markup=False, highlight=False)
        if data.get("records"):  # an exact answer: the table behind its figures
            from .transactions import print_table  # with the importers: only for these answers

            print_table(data["records"]["table"])
        _print_sources(data)
    if answer.degraded:
        say("yellow", "note", f"{answer.degraded}")
    if verbose and data.get("route"):
        err.print(f"[dim]route: {data['route']['name']} ({data['route']['reason']})[/dim]", highlight=False)
    _notes(data)
