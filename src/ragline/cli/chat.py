"""``ragline chat``: an interactive conversation in the terminal (history with the
arrow keys, streamed answers, follow-ups rewritten from the conversation), and
``ragline conversation …``: list, show, create, rename, delete, and the
collections' no-answer policy.

Each turn writes one JSON line to ``RAGLINE_HOME/logs/turns.jsonl`` (``--log``: to
stderr too), as the server writes it to its log."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from .answer import Generator
from .common import AsJson, Collection, Owner, Tenant, app, err, out
from .common import engine_from_env as _engine
from .common import print_json as _print_json
from .common import scope as _scope
from .console import say

if TYPE_CHECKING:
    from ..store.conversations import MessageInfo

conversation_app = typer.Typer(help="Conversations: list, show, create, rename, delete; the no-answer policy.",
                               no_args_is_help=True)
app.add_typer(conversation_app, name="conversation")

HELP = """Commands: /new  /list  /switch ID  /rename TITLE  /delete  /history  /details  /help  /quit
(Ctrl-D quits; arrow keys recall earlier questions.)"""


def turn_log(home: Path, echo: bool) -> Path:
    """Send the turn log (logger ``ragline.turns``) to a JSON-lines file (and stderr)."""
    path = home / "logs" / "turns.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    log = logging.getLogger("ragline.turns")
    log.setLevel(logging.INFO)
    log.propagate = False
    if not any(isinstance(h, logging.FileHandler) and Path(h.baseFilename) == path for h in log.handlers):
        handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    if echo and not any(getattr(h, "stream", None) is sys.stderr for h in log.handlers):
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(stream)
    return path


def print_turn_notes(data: dict[str, Any], *, details: bool = False) -> None:
    """What a person wants under an answer: sources (with their section), and how a
    follow-up was understood."""
    kept = {s["n"]: s for s in data["context"]["kept"]}
    if data["citations"]:
        out.print("Sources:", style="bold")
    for c in data["citations"]:
        source = kept.get(c["n"], {})
        where = c["source"] + (f", p. {c['page']}" if c.get("page") is not None else "")
        section = _plain(c.get("section") or source.get("section"))
        out.print(f"  [{c['n']}] {where}" + (f" — {section}" if section else ""), markup=False, highlight=False)
    query = data["query"]
    if query["followup"] and query["rewritten"] != query["original"]:
        err.print(f"[dim]searched as: {query['rewritten']}  ({query['method']}; {query['reason']})[/dim]",
                  highlight=False)
    if data.get("general"):
        err.print("[yellow]not from your documents:[/yellow] a general answer (the collection's policy)")
    if data.get("fallback_reason"):
        say("yellow", "fallback", f"{data['fallback_reason']}", highlight=False)
    if details:
        rag = data["rag_context"]
        err.print(f"[dim]gate: {data['gate']['reason']}; past messages: {len(rag['source_messages'])} "
                  f"(enabled={rag['enabled']}{', ' + rag['reason'] if rag['reason'] else ''}); "
                  f"{data['timings_ms'].get('total', 0):.0f} ms[/dim]", highlight=False)


def _plain(text: str | None) -> str | None:
    """A sanitised label as a terminal shows it (markdown escapes removed)."""
    return re.sub(r"\\(.)", r"\1", text) if text else text


@app.command()
def chat(
    tenant: Tenant = "default",
    collection: Collection = None,
    owner: Owner = None,
    conversation: Annotated[str | None, typer.Option("--conversation", help="Continue this conversation.")] = None,
    generator: Generator = None,
    no_memory: Annotated[bool, typer.Option("--no-memory", help="Do not search your past messages.")] = False,
    log: Annotated[bool, typer.Option("--log", help="Also print each turn's JSON log line on stderr.")] = False,
    details: Annotated[bool, typer.Option("--details", help="Show the gate and past-message notes.")] = False,
) -> None:
    """Chat with your documents: follow-up questions, streamed answers with sources."""
    where = _scope(tenant, collection, owner)
    try:
        import readline  # noqa: F401  (arrow-key history for input())
    except ImportError:  # not on every platform
        pass
    with _engine(generator) as engine:
        convs = engine.conversations
        log_path = turn_log(engine.settings.home, log)
        current = convs.get(where.tenant, where.owner, conversation) if conversation else None
        interactive = sys.stdin.isatty()
        if interactive:
            err.print(f"[bold]ragline chat[/bold] — {where.tenant}/{','.join(where.collections)}"
                      + (f" as {where.owner}" if where.owner else "") + f". Turn log: {log_path}", highlight=False)
            err.print(HELP, highlight=False)
            if current:
                err.print(f"continuing “{current.title}” ({current.id}, {current.messages} messages)", highlight=False)
        while True:
            try:
                line = input("you> " if interactive else "")
            except (EOFError, KeyboardInterrupt):
                if interactive:
                    err.print()
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                command, _, arg = line[1:].partition(" ")
                if command in ("quit", "exit", "q"):
                    break
                current, details = _command(convs, where, current, command, arg.strip(), details)
                continue
            stream = convs.stream(line, where, conversation_id=current.id if current else None,
                                  rag_options={"enabled": not no_memory})
            if interactive:
                out.print("ragline> ", end="", style="bold", highlight=False)
            for event in stream:
                if event["type"] == "delta":
                    out.print(event["text"], end="", markup=False, highlight=False)
                    out.file.flush()
                elif event["type"] == "restart":
                    out.print()
                    err.print(f"[yellow]provider failed mid-answer ({event['reason']}); restarting with the "
                              "extractive answer[/yellow]", highlight=False)
            out.print()
            assert stream.result is not None  # set by the stream's last (done) event
            data = stream.result.data
            print_turn_notes(data, details=details)
            if current is None and data.get("conversation_id"):
                current = convs.get(where.tenant, where.owner, data["conversation_id"])
                if interactive:
                    err.print(f"[dim]conversation {current.id}: “{current.title}”[/dim]", highlight=False)
            out.print()


def _command(convs: Any, where: Any, current: Any, command: str, arg: str, details: bool) -> tuple[Any, bool]:
    from ..errors import RaglineError

    try:
        if command == "new":
            current = None
            err.print("new conversation: the next question starts it")
        elif command == "list":
            for c in convs.list(where.tenant, where.owner, limit=20):
                mark = "*" if current and c.id == current.id else " "
                out.print(f"{mark} {c.id}  {c.title}  ({c.messages} messages)", markup=False, highlight=False)
        elif command == "switch":
            current = convs.get(where.tenant, where.owner, arg)
            err.print(f"switched to “{current.title}”", highlight=False)
        elif command == "rename":
            if current is None:
                err.print("no conversation yet: ask a question first")
            else:
                current = convs.rename(where.tenant, where.owner, current.id, arg)
                err.print(f"renamed to “{current.title}”", highlight=False)
        elif command == "delete":
            if current is not None:
                convs.delete(where.tenant, where.owner, current.id)
                err.print(f"deleted {current.id}")
            current = None
        elif command == "history":
            if current is not None:
                for m in convs.messages(where.tenant, where.owner, current.id):
                    out.print(f"[{m.role}] {m.content}", markup=False, highlight=False)
        elif command == "details":
            details = not details
            err.print(f"details {'on' if details else 'off'}")
        else:
            err.print(HELP, highlight=False)
    except RaglineError as exc:
        say("red", "error", f"{exc}", highlight=False)
    return current, details


# -- ragline conversation … ------------------------------------------------------------------
@conversation_app.command("list")
def list_conversations(tenant: Tenant = "default", owner: Owner = None, as_json: AsJson = False,
                       limit: Annotated[int, typer.Option(min=1, max=1000)] = 100) -> None:
    """The owner's conversations, most recent first."""
    with _engine() as engine:
        found = [c.to_dict() for c in engine.conversations.list(tenant, owner, limit=limit)]
    if as_json:
        _print_json(found)
        return
    for c in found:
        out.print(f"{c['id']}  {c['title']}  ({c['messages']} messages)", markup=False, highlight=False)


@conversation_app.command("show")
def show_conversation(conversation_id: str, tenant: Tenant = "default", owner: Owner = None,
                      as_json: AsJson = False) -> None:
    """A conversation with its messages."""
    with _engine() as engine:
        conv = engine.conversations.get(tenant, owner, conversation_id)
        history: list[MessageInfo] = engine.conversations.messages(tenant, owner, conversation_id)
        messages = [m.to_dict() for m in history]
    if as_json:
        _print_json({**conv.to_dict(), "history": messages})
        return
    out.print(f"{conv.title} ({conv.id})", style="bold", markup=False, highlight=False)
    for m in messages:
        out.print(f"[{m['role']}] {m['content']}", markup=False, highlight=False)


@conversation_app.command("create")
def create_conversation(title: Annotated[str | None, typer.Option(help="Title.")] = None,
                        tenant: Tenant = "default", collection: Collection = None, owner: Owner = None) -> None:
    """Create an empty conversation; prints its id."""
    where = _scope(tenant, collection, owner)
    with _engine() as engine:
        conv = engine.conversations.create(tenant, owner, title=title, collections=where.collections)
    out.print(conv.id, markup=False, highlight=False)


@conversation_app.command("rename")
def rename_conversation(conversation_id: str, title: str, tenant: Tenant = "default", owner: Owner = None) -> None:
    """Rename a conversation."""
    with _engine() as engine:
        engine.conversations.rename(tenant, owner, conversation_id, title)


@conversation_app.command("delete")
def delete_conversation(conversation_id: str, tenant: Tenant = "default", owner: Owner = None) -> None:
    """Delete a conversation and its messages."""
    with _engine() as engine:
        engine.conversations.delete(tenant, owner, conversation_id)


@conversation_app.command("policy")
def policy(tenant: Tenant = "default", collection: Collection = None,
           set_to: Annotated[Literal["abstain", "general"] | None, typer.Option(
               "--set", help="Abstain, or answer from the LLM alone, marked as such.")] = None) -> None:
    """Show (or --set) what a collection does when nothing relevant is found."""
    where = _scope(tenant, collection, None)
    with _engine() as engine:
        if set_to is not None:
            engine.conversations.set_policy(tenant, where.collection, set_to)
        out.print(engine.conversations.policy(tenant, where.collection), markup=False, highlight=False)
