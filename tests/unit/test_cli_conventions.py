"""The CLI's habits (issue 30), as ``llm`` and sqlite-utils have them: help pages
with click's types and choices and no hard line breaks, a ``--version``, no route
line unless asked; ingest warnings counted in one line; plain search output as
whole words on one line; messages that name an extra print it intact; a mistyped
path leaves no empty collection; record ids that are URLs or paths are accepted."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragline.cli import app
from ragline.version import __version__


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from ragline.cli import console

    home = tmp_path / "home"
    env = {"RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing", "COLUMNS": "2000"}
    for lazy in (console.out, console.err):  # made afresh in the first invoke, 2,000 columns wide
        monkeypatch.setattr(lazy, "_console", None)

    def invoke(*args: str, **extra: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(app, list(args), env={**env, **extra})

    return invoke


def test_help_pages_use_click_types_choices_and_flags(run) -> None:  # type: ignore[no-untyped-def]
    pages = {name: run(*name.split(), "--help").output for name in ("ask", "search", "ingest", "chat", "eval", "mcp")}
    pages["ragline"] = run("--help").output
    for name, page in pages.items():
        assert not re.search(r"<(str|bool|int|float|list\[)", page), (name, page)
        assert "{" + "question" + "}" not in page
    assert "QUESTION" in pages["ask"] and "TEXT" in pages["ask"]
    assert re.search(r"--stream\s+Print the answer", pages["ask"])  # a flag takes no value
    assert "[hybrid|dense|keyword]" in pages["ask"] and "[hybrid|dense|keyword]" in pages["search"]
    assert "[score|match_count|last_matched_at]" in pages["search"]
    assert "[extractive|openai|groq|ollama|gemini|anthropic]" in pages["ask"]
    assert "[auto|on|off]" in pages["ingest"] and "[hybrid|dense|keyword|all]" in pages["eval"]
    assert "--version" in pages["ragline"]


def test_descriptions_have_no_hard_line_breaks() -> None:
    command = typer.main.get_command(app)
    for name, sub in command.commands.items():  # type: ignore[attr-defined]
        for paragraph in (sub.help or "").split("\n\n"):
            assert "\n" not in paragraph, (name, sub.help)


def test_version(run) -> None:  # type: ignore[no-untyped-def]
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"ragline, version {__version__}"


def test_ask_says_its_route_only_when_asked(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    note = tmp_path / "fees.md"
    note.write_text("# Fees\n\nThe overdraft fee is 5 EUR per day.\n")
    assert run("ingest", str(note)).exit_code == 0
    quiet = run("ask", "What is the overdraft fee?")
    assert quiet.exit_code == 0 and "5 EUR" in quiet.stdout and "route:" not in quiet.stderr, quiet.output
    verbose = run("ask", "What is the overdraft fee?", "--verbose")
    assert "route:" in verbose.stderr, verbose.output


def test_ingest_warnings_are_one_line_unless_listed(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(6):  # one paragraph of ~600 words each: over the model's 256 tokens in one chunk
        (folder / f"note-{n}.md").write_text(" ".join(f"word{n}x{i}" for i in range(600)) + "\n")
    env = {"RAGLINE_CHUNKING__SIZE": "8000", "RAGLINE_CHUNKING__OVERLAP": "0", "RAGLINE_EMBEDDER__NAME": "minilm"}
    plain = run("ingest", str(folder), **env)
    assert plain.exit_code == 0, plain.output
    lines = [line for line in plain.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("warning: 6 warnings in 6 files") and "--warnings" in lines[0]
    as_json = json.loads(run("ingest", str(folder), "--json", **env).stdout)
    assert as_json["warnings"] in (0, 6) and "warning_details" not in as_json  # unchanged files: nothing to warn
    (folder / "note-0.md").write_text(" ".join(f"changed{i}" for i in range(600)) + "\n")
    listed = json.loads(run("ingest", str(folder), "--json", "--warnings", **env).stdout)
    assert listed["warnings"] == 1 and listed["warning_details"][0]["path"].endswith("note-0.md")


def test_plain_search_shows_whole_words_on_one_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    note = tmp_path / "cards.txt"
    words = [f"replacement{i}" for i in range(60)]
    note.write_text("Lost cards\nare frozen\nin the app.\n" + " ".join(words) + "\n")
    assert run("ingest", str(note)).exit_code == 0
    result = run("search", "lost cards frozen")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "cards.txt" in line)
    assert "Lost cards are frozen in the app." in row  # the chunk's line breaks are spaces
    shown = row.split("Lost cards", 1)[1].split("│")[0].strip()
    assert shown.endswith("…") and shown[:-1].split()[-1] in words  # cut after a whole word


def test_a_message_naming_an_extra_prints_it_intact(run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    for name in [m for m in sys.modules if m == "psycopg" or m.startswith(("psycopg.", "ragline.store.postgres"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the extra were not installed
    result = run("status", RAGLINE_STORE__URL="postgresql://u:p@localhost:1/db")
    assert result.exit_code == 2, result.output
    assert "pip install 'ragline[postgres]'" in result.stderr, result.stderr


def test_every_extra_a_message_names_exists() -> None:
    from ragline.store import BACKENDS, EXTRAS

    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    extras = set(re.findall(r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]")[1], re.MULTILINE))
    assert {EXTRAS[name] for name in BACKENDS if EXTRAS[name]} <= extras
    source = "\n".join(p.read_text() for p in (Path(__file__).resolve().parents[2] / "src").rglob("*.py"))
    named = set(re.findall(r"pip install 'ragline\\?\[(\w+)\]'", source)) - {"EXTRA"}  # the docstring's placeholder
    assert named <= extras, named - extras


def test_a_mistyped_path_leaves_no_empty_collection(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("ingest", str(tmp_path / "nonexistent"), "-c", "scratch")
    assert result.exit_code == 1 and "nonexistent" in result.stderr
    status = json.loads(run("status", "--json").stdout)
    assert not [c for t in status["details"] for c in t["collections"] if c["name"] == "scratch"]


def test_record_ids_that_are_urls_or_paths_are_kept(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from ragline.server.routes.openai_compat import _sources

    faq = tmp_path / "faq.jsonl"
    ids = ["https://example.com/faq/a/b", "<wiki:AC/DC>"]
    faq.write_text("\n".join(json.dumps({"_id": i, "text": f"Answer {n}: the card fee is {n} EUR."})
                             for n, i in enumerate(ids)) + "\n")
    ingested = json.loads(run("ingest", str(faq), "--json").stdout)
    assert ingested["added"] == 2 and ingested["failed"] == [], ingested
    hits = json.loads(run("search", "card fee", "--json").stdout)
    assert sorted(h["source"] for h in hits) == sorted(f"faq.jsonl#{i}" for i in ids)
    footer = _sources([{"n": 1, "source": "faq.jsonl#<wiki:AC/DC>", "page": None}])
    assert "faq.jsonl#\\<wiki:AC/DC\\>" in footer  # no HTML tag or autolink where markdown is rendered
