"""The ragline CLI as users run it: a real subprocess, JSON on stdout, messages on
stderr, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def run(tmp_path: Path):
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_EMBEDDER__NAME": "hashing"}

    def _run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", *args], capture_output=True, text=True, env=env,
                              timeout=120, cwd=tmp_path, check=False)

    return _run


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "fees.md").write_text("# Fees\n\nA SEPA wire transfer costs 2 EUR. Instant transfers cost 5 EUR.\n")
    (folder / "cards.html").write_text("<h1>Cards</h1><p>Report a lost card by phone at any hour.</p>")
    (folder / "broken.json").write_text("{nope")
    return folder


def test_ingest_search_status(run, corpus: Path) -> None:
    result = run("ingest", str(corpus), "--tenant", "acme", "--collection", "kb", "--json")
    assert result.returncode == 1, result.stderr  # broken.json failed, the rest ingested
    summary = json.loads(result.stdout)
    assert set(summary) >= {"added", "updated", "unchanged", "deleted", "failed", "chunks", "seconds"}
    assert summary["added"] == 2 and summary["failed"][0]["path"].endswith("broken.json")
    assert "broken.json" in result.stderr and "invalid JSON" in result.stderr

    result = run("search", "lost card", "--tenant", "acme", "--collection", "kb", "--json", "-k", "1")
    assert result.returncode == 0, result.stderr
    (hit,) = json.loads(result.stdout)
    assert set(hit) == {"chunk_id", "doc_id", "source", "score", "text", "collection", "title", "page", "section",
                        "position", "start", "end", "owner", "metadata", "match_count", "last_matched_at"}
    assert hit["source"] == "kb/cards.html" and "lost card" in hit["text"]

    for mode in ("dense", "keyword", "hybrid"):
        result = run("search", "wire transfer", "-t", "acme", "-c", "kb", "--mode", mode, "--json")
        assert json.loads(result.stdout)[0]["source"] == "kb/fees.md", mode

    status = json.loads(run("status", "--json").stdout)
    assert (status["tenants"], status["documents"], status["model"]) == (1, 2, "ragline/hashing-v1")
    assert status["details"][0]["collections"][0]["name"] == "kb"


def test_reingest_unchanged_and_sync(run, corpus: Path) -> None:
    (corpus / "broken.json").unlink()
    first = json.loads(run("ingest", str(corpus), "--json").stdout)
    again = run("ingest", str(corpus), "--json")
    assert again.returncode == 0
    assert json.loads(again.stdout)["unchanged"] == first["added"] == 2
    (corpus / "fees.md").unlink()
    synced = json.loads(run("sync", str(corpus), "--json").stdout)
    assert (synced["deleted"], synced["unchanged"]) == (1, 1)


def test_errors_are_messages_not_tracebacks(run, corpus: Path) -> None:
    result = run("search", "x", "--collection", "missing")
    assert result.returncode == 3 and "not found" in result.stderr and "Traceback" not in result.stderr
    run("ingest", str(corpus))
    result = run("search", "x", "--mode", "fuzzy")
    # A choice: click names the option and the modes it takes.
    assert result.returncode == 2 and "'fuzzy' is not one of 'hybrid', 'dense', 'keyword'" in " ".join(
        result.stderr.replace("│", " ").split()), result.stderr
    result = run("search", "x", "--filter", "{bad")
    assert result.returncode == 2 and "--filter is not valid JSON" in result.stderr


def test_password_option(run) -> None:
    from tests.paths import PDF_SAMPLES, need

    pdf = need(PDF_SAMPLES / "005-libreoffice-writer-password" / "libreoffice-writer-password.pdf")
    result = run("ingest", str(pdf), "--json")
    assert result.returncode == 1 and "password" in json.loads(result.stdout)["failed"][0]["error"]
    result = run("ingest", str(pdf), "--password", "openpassword", "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["added"] == 1


def test_help_text_keeps_square_brackets(run) -> None:
    """Rich markup would swallow "[n]" ("citing sources as .")."""
    result = run("ask", "--help")
    assert result.returncode == 0 and "citing sources as [n]." in " ".join(result.stdout.split())
