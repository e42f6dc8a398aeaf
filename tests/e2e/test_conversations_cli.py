"""``ragline chat`` and ``ragline conversation …`` as users run them: a real
subprocess, questions on stdin (the interactive loop reads lines; a terminal
session is exercised by hand in tmux, see docs/conversations.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def run(tmp_path: Path):
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_EMBEDDER__NAME": "hashing",
           "RAGLINE_ANSWER__RELEVANCE_FLOOR": "0.15"}

    def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", *args], check=False, capture_output=True, text=True, env=env,
                              timeout=120, cwd=tmp_path, input=stdin)

    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "transfers.md").write_text("# Transfers\n\nA SWIFT transfer costs 15 EUR. A SWIFT transfer "
                                         "takes 1 to 4 business days to arrive.\n")
    (folder / "cards.txt").write_text("Lost cards\n\nA replacement card arrives within 3 to 5 business days.\n")
    assert _run("ingest", str(folder), "-t", "acme", "-c", "kb").returncode == 0
    return _run


def test_chat_holds_a_conversation_and_logs_each_turn(run, tmp_path: Path) -> None:
    result = run("chat", "-t", "acme", "-c", "kb", "-u", "alice", stdin=(
        "What does a SWIFT transfer cost?\nAnd how long does it take?\nhello\n/list\n/rename Transfers\n/quit\n"))
    assert result.returncode == 0, result.stderr
    assert "15 EUR" in result.stdout and "1 to 4 business days" in result.stdout
    assert "Sources:" in result.stdout and "transfers.md — Transfers" in result.stdout
    assert "searched as: And how long does it take? swift transfer" in result.stderr
    assert "Hello!" in result.stdout
    lines = [json.loads(line) for line in (tmp_path / "home" / "logs" / "turns.jsonl").read_text().splitlines()]
    assert [line["event"] for line in lines] == ["rag_context_built", "rag_context_built", "rag_disabled"]
    assert {line["owner"] for line in lines} == {"alice"} and len({line["conversation_id"] for line in lines}) == 1
    listed = json.loads(run("conversation", "list", "-t", "acme", "-u", "alice", "--json").stdout)
    assert [(c["title"], c["messages"]) for c in listed] == [("Transfers", 6)]
    cid = listed[0]["id"]
    shown = json.loads(run("conversation", "show", cid, "-t", "acme", "-u", "alice", "--json").stdout)
    assert shown["history"][1]["citations"][0]["source"].endswith("transfers.md")
    assert run("conversation", "show", cid, "-t", "acme", "-u", "bob").returncode == 3  # another owner: not found
    again = run("chat", "-t", "acme", "-c", "kb", "-u", "alice", "--conversation", cid,
                stdin="And is there a faster option for it?\n")
    assert again.returncode == 0 and "searched as:" in again.stderr
    assert run("conversation", "delete", cid, "-t", "acme", "-u", "alice").returncode == 0
    assert json.loads(run("conversation", "list", "-t", "acme", "-u", "alice", "--json").stdout) == []


def test_policy_command(run) -> None:
    assert run("conversation", "policy", "-t", "acme", "-c", "kb").stdout.strip() == "abstain"
    assert run("conversation", "policy", "-t", "acme", "-c", "kb", "--set", "general").stdout.strip() == "general"
    bad = run("conversation", "policy", "-t", "acme", "-c", "kb", "--set", "maybe")
    assert bad.returncode == 2 and "policy" in bad.stderr
