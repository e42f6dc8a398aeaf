"""Shared CLI plumbing: the Typer app, consoles, common options, and the one place
errors become messages and exit codes (2 bad input, 3 not found, 1 other)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console

from ..engine import Engine
from ..errors import ConfigError, NotFoundError, RaglineError
from ..models import Scope
from ..settings import Settings

app = typer.Typer(help="ragline: offline-first retrieval-augmented generation.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
err = Console(stderr=True)
out = Console(soft_wrap=True)

Tenant = Annotated[str, typer.Option("--tenant", "-t", help="Tenant (isolation boundary).")]
Collection = Annotated[list[str] | None, typer.Option("--collection", "-c", help="Collection (repeat to search several).")]
Owner = Annotated[str | None, typer.Option("--owner", "-u", help="Owner (a user inside the tenant) for private data.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]


def load_settings() -> Settings:
    try:
        return Settings()
    except Exception as exc:  # pydantic's ValidationError names the bad value
        err.print(f"[red]error:[/red] invalid settings: {exc}")
        raise typer.Exit(2) from exc


@contextmanager
def errors_to_exit() -> Iterator[None]:
    """Map ragline errors to a message on stderr and an exit code."""
    try:
        yield
    except NotFoundError as exc:
        err.print(f"[red]not found:[/red] {exc}")
        raise typer.Exit(3) from exc
    except (ConfigError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    except RaglineError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc


@contextmanager
def engine_from_env() -> Iterator[Engine]:
    """An Engine built from the environment's settings, closed afterwards."""
    engine = Engine(load_settings())
    try:
        with errors_to_exit():
            yield engine
    finally:
        engine.close()


def scope(tenant: str, collection: list[str] | None, owner: str | None) -> Scope:
    return Scope(tenant, tuple(collection or ["default"]), owner)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
