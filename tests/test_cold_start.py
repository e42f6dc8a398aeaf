"""Cold start of the command line: ``ragline search`` imports only the command
module it runs (not the server, the MCP SDK, the HTTP client or the evaluation
code), while ``ragline --help`` and ``from ragline.cli import app`` still see
every command. Checked by the modules a real process imported, not by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import typer.main

from ragline import cli

_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from ragline.cli import main
sys.argv = ["ragline", *json.loads(sys.argv[1])]
main()
"""
_NOT_FOR_SEARCH = ("ragline.cli.server", "ragline.cli.mcp", "ragline.cli.evaluate", "ragline.cli.chat",
                   "ragline.cli.transactions", "ragline.server", "ragline.client", "ragline.eval.bench",
                   "fastapi", "uvicorn", "httpx", "mcp")


def _modules(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, RAGLINE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(args)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done, set(json.loads(line.removeprefix("MODULES ")))


def test_a_search_imports_only_what_it_needs(tmp_path) -> None:
    done, modules = _modules(tmp_path, "search", "white matter", "--mode", "keyword", "--json")
    assert done.returncode == 3 and "collection 'default' not found" in done.stderr, done.stderr[:500]  # empty home
    assert "ragline.cli.core" in modules and "ragline.cli.remote" in modules
    assert not [m for m in _NOT_FOR_SEARCH if m in modules]


def test_help_lists_every_command(tmp_path) -> None:
    done, modules = _modules(tmp_path, "--help")
    assert done.returncode == 0, done.stderr[:500]
    assert {f"ragline.cli.{m}" for m in cli.MODULES} <= modules
    for command in ("search", "ask", "serve", "mcp", "eval", "tenant", "import"):
        assert command in done.stdout


def test_the_command_table_covers_every_registered_command() -> None:
    group = typer.main.get_group(cli.load())
    assert set(group.commands) == set(cli.COMMANDS)
    assert set(cli.COMMANDS.values()) <= set(cli.MODULES)


def test_the_command_word_is_found_after_global_options() -> None:
    assert cli.command_in(["search", "x"]) == "search"
    assert cli.command_in(["--server", "http://h", "--key", "k", "ask", "q"]) == "ask"
    assert cli.command_in(["--server=http://h", "ingest", "."]) == "ingest"
    assert cli.command_in(["--help"]) is None
    assert cli.command_in([]) is None
