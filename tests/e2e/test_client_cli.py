"""``ragline --server URL --key KEY ingest|search|ask``: the CLI as users run it (a
real subprocess) against a real server, through ``ragline.client``, with the same
output as local work: JSON on stdout, messages on stderr, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragline.client import Client
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("cli") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        server.key = create_tenant(server, "acme")  # type: ignore[attr-defined]
        yield server


@pytest.fixture
def run(live: LiveServer, tmp_path: Path):
    # A local home that is not the server's: remote commands must not touch it.
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGLINE_")},
           "RAGLINE_HOME": str(tmp_path / "local"), "RAGLINE_API_KEY": live.key}  # type: ignore[attr-defined]

    def _run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", "--server", live.url, *args], capture_output=True,
                              text=True, env=env, timeout=120, cwd=tmp_path, check=False)

    return _run


def test_ingest_search_and_ask_against_a_server(run, live: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "fees.md").write_text("# Fees\n\nA SEPA wire transfer costs 2 EUR. Instant transfers cost 5 EUR.\n")
    (folder / "cards.html").write_text("<h1>Cards</h1><p>Report a lost card by phone at any hour.</p>")
    (folder / "broken.json").write_text("{nope")

    first = run("ingest", str(folder), "--collection", "kb", "--json")
    assert first.returncode == 1, first.stderr  # broken.json failed on the server, the rest is stored
    summary = json.loads(first.stdout)
    assert (summary["added"], summary["updated"], summary["unchanged"]) == (2, 0, 0) and summary["chunks"] >= 2
    assert [Path(f["path"]).name for f in summary["failed"]] == ["broken.json"], summary["failed"]
    assert "broken.json" not in summary["failed"][0]["error"]  # the failure line names the file once
    (folder / "broken.json").unlink()
    (folder / "fees.md").write_text("# Fees\n\nA SEPA wire transfer costs 3 EUR. Instant transfers cost 5 EUR.\n")
    again = run("ingest", str(folder), "--collection", "kb")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("added 0, updated 1, unchanged 1,")
    assert not (tmp_path / "local" / "ragline.sqlite").exists()  # nothing was stored locally

    typo = run("ingest", str(tmp_path / "nonexistent"), "--collection", "scratch")
    assert typo.returncode == 1 and "nonexistent" in typo.stderr
    with Client(live.url, live.key) as client:  # type: ignore[attr-defined]
        assert "scratch" not in [c.name for c in client.collections()]  # no empty collection on the server

    found = run("search", "wire transfer fee", "--collection", "kb", "-k", "1", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    with Client(live.url, live.key) as client:  # type: ignore[attr-defined]
        direct = client.search("wire transfer fee", collection="kb", k=1).hits
    assert [(h["chunk_id"], h["source"], "3 EUR" in h["text"]) for h in hits] == [(direct[0].chunk_id, "fees.md", True)]

    answer = run("ask", "How much does a SEPA wire transfer cost?", "--collection", "kb", "--json")
    assert answer.returncode == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert "3 EUR" in data["answer"] and data["citations"][0]["source"] == "fees.md"
    streamed = run("ask", "How much does a SEPA wire transfer cost?", "--collection", "kb", "--stream")
    assert streamed.returncode == 0 and "3 EUR" in streamed.stdout and "[1] Fees — fees.md" in streamed.stdout


def test_what_remote_mode_refuses(run, live: LiveServer, tmp_path: Path) -> None:
    status = run("status")
    assert status.returncode == 2 and "runs locally only" in status.stderr
    tenant = run("search", "fee", "--tenant", "other")
    assert tenant.returncode == 2 and "the API key decides the tenant" in tenant.stderr
    missing = run("search", "fee", "--collection", "nope")
    assert missing.returncode == 3 and "not found" in missing.stderr
    wrong = subprocess.run([sys.executable, "-m", "ragline", "--server", live.url, "--key", "rl-wrong", "search", "x"],
                           capture_output=True, text=True, timeout=120, check=False,
                           env={k: v for k, v in os.environ.items() if not k.startswith("RAGLINE_")})
    assert wrong.returncode == 1 and "invalid or revoked API key" in wrong.stderr
