"""Shared CLI plumbing: common options, the engine (local or ``--server``), and the
one place errors become messages and exit codes (2 bad input, 3 not found, 1 other).
The Typer app and the consoles live in ``console`` and are re-exported here."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from ..engine import Engine
from ..errors import ConfigError, NotFoundError, RaglineError
from ..models import NAME_PATTERN, NAME_RULE, OWNER_PATTERN, OWNER_RULE, Scope
from ..settings import SearchMode, Settings
from .console import app, err, out, real_console, say
from .remote import RemoteEngine, remote_client  # `ragline --server URL …`: the REST API instead

__all__ = ["AsJson", "Collection", "Mode", "Owner", "Tenant", "app", "engine_from_env", "err", "errors_to_exit",
           "load_settings", "out", "print_json", "real_console", "scope"]

Tenant = Annotated[str, typer.Option("--tenant", "-t", help="Tenant (isolation boundary).")]
Collection = Annotated[list[str] | None, typer.Option("--collection", "-c", help="Collection (repeat to search several).")]
Owner = Annotated[str | None, typer.Option("--owner", "-u", help="Owner (a user inside the tenant) for private data.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
Mode = Annotated[SearchMode | None, typer.Option(help="Search mode (default: settings, hybrid).")]


def load_settings() -> Settings:
    try:
        return Settings()
    except Exception as exc:  # pydantic's ValidationError names the bad value
        say("red", "error", f"invalid settings: {exc}")
        raise typer.Exit(2) from exc


@contextmanager
def errors_to_exit() -> Iterator[None]:
    """Map ragline errors to a message on stderr and an exit code."""
    try:
        yield
    except NotFoundError as exc:
        say("red", "not found", f"{exc}")
        raise typer.Exit(3) from exc
    except (ConfigError, ValueError) as exc:
        say("red", "error", f"{exc}")
        raise typer.Exit(2) from exc
    except RaglineError as exc:
        say("red", "error", f"{exc}")
        raise typer.Exit(1) from exc


@contextmanager
def engine_from_env(generator: str | None = None, *, warm_up: bool = False) -> Iterator[Engine]:
    """An Engine built from the environment's settings, closed afterwards. ``generator``
    overrides ``settings.generator.name``: the CLI user is the operator, so a provider
    named here is configured, not requested (the allow-list binds API tenants).
    ``warm_up``: start loading the embedding model now, in the background (a command
    that will embed: its session is built while the store opens)."""
    settings = load_settings()
    client = remote_client()
    if generator is not None and client is None:
        settings = settings.model_copy(update={"generator": settings.generator.model_copy(update={"name": generator})})
    with errors_to_exit():  # e.g. tracing configured without its extra
        engine: Any = RemoteEngine(client, settings, generator) if client is not None else Engine(settings)
        if warm_up and client is None:
            engine.warm_up()
    try:
        with errors_to_exit():
            yield engine
    finally:
        engine.close()


def scope(tenant: str, collection: list[str] | None, owner: str | None) -> Scope:
    """The scope the options name; exits 2 on a tenant or collection name the API could
    not address (it would make data only the CLI can reach, and odd paths on disk)."""
    collections = tuple(collection or ["default"])
    for kind, name in [("tenant", tenant), *(("collection", c) for c in collections)]:
        if not re.fullmatch(NAME_PATTERN, name):
            say("red", "error", f"invalid {kind} name {name[:100]!r}: use {NAME_RULE}", highlight=False)
            raise typer.Exit(2)
    if owner is not None and not re.fullmatch(OWNER_PATTERN, owner):
        say("red", "error", f"invalid owner {owner[:100]!r}: use {OWNER_RULE}",
                  highlight=False)
        raise typer.Exit(2)
    return Scope(tenant, collections, owner)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
