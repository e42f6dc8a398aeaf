"""Docs stay true: every CLI command is in the README."""

from __future__ import annotations

import typer.main

from ragline.cli import app

from tests.paths import ROOT


def test_every_cli_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    group = typer.main.get_command(app)
    names = []
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        names += [f"{name} {sub}" for sub in subcommands] if subcommands else [name]
    missing = [n for n in names if f"ragline {n}" not in readme]
    assert not missing, f"undocumented commands: {missing}"
    assert len(names) >= 10
