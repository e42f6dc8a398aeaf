"""Issue 16, the CLI's bad input: ``-k 0`` is an error rather than a silent 10, and
tenant, collection and owner names the API could never address (``../../x``,
control characters) are refused with exit code 2 before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragline.cli import app


@pytest.fixture
def run(tmp_path: Path):
    home = tmp_path / "home"
    env = {"RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing", "COLUMNS": "200"}
    note = tmp_path / "note.txt"
    note.write_text("The overdraft fee is 5 EUR per day.")

    def invoke(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(app, [a.replace("NOTE", str(note)) for a in args], env=env)

    invoke.home = home  # type: ignore[attr-defined]
    return invoke


@pytest.mark.parametrize("k", ["0", "-3", "1001"])
def test_k_out_of_range_is_an_error(run, k: str) -> None:
    result = run("search", "fee", "-k", k)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '-k'" in result.output


@pytest.mark.parametrize(("option", "value", "named"), [
    ("--tenant", "../../x", "tenant"),
    ("--tenant", "acme\n", "tenant"),
    ("--tenant", "", "tenant"),
    ("--collection", "a\x01b", "collection"),
    ("--collection", "x" * 65, "collection"),
    ("--owner", "bob\x00", "owner"),
])
def test_names_the_api_cannot_address_are_refused(run, option: str, value: str, named: str) -> None:
    for command in (["ingest", "NOTE"], ["sync", "."], ["search", "fee"], ["ask", "fee?"]):
        result = run(*command, option, value)
        assert result.exit_code == 2, (command, result.output)
        assert f"invalid {named}" in result.output, result.output
    assert not run.home.exists() or not any(run.home.rglob("*.sqlite"))  # nothing was opened or written


def test_valid_names_and_k_still_work(run) -> None:
    assert run("ingest", "NOTE", "--tenant", "acme", "--collection", "kb.v2-1", "--owner", "bob smith").exit_code == 0
    result = run("search", "overdraft", "-t", "acme", "-c", "kb.v2-1", "-u", "bob smith", "-k", "1", "--json")
    assert result.exit_code == 0, result.output
    assert '"source": "note.txt"' in result.output
