"""Repair of a failed text side: the embedding provider (a fake OpenAI-compatible
server on real HTTP) fails during an import, so the monthly documents cannot be
written. The transactions are stored, the import says which months' text failed and
the CLI exits 1; the next import (even with every row unchanged) rebuilds them, as
``ragline transactions reindex`` does; then search finds the transactions' text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.embedding_servers import FakeEmbeddingServer
from tests.paths import EXPORTS


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ragline", *args], capture_output=True, text=True, env=env,
                          check=False, timeout=180)


def test_failed_text_side_is_reported_and_rebuilt_by_the_next_import_and_reindex(tmp_path: Path) -> None:
    statement = str(EXPORTS / "generic_no_categories.csv")
    with FakeEmbeddingServer("openai") as server:
        env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_EMBEDDER__NAME": "openai",
               "RAGLINE_EMBEDDER__BASE_URL": server.base_url, "RAGLINE_EMBEDDER__API_KEY": server.key or "",
               "RAGLINE_EMBEDDER__MODEL": "embed-model", "RAGLINE_EMBEDDER__MAX_RETRIES": "0"}
        server.fail_next = [(503, None)] * 50  # the provider is down for this whole import
        first = _run(env, "import", "transactions", statement, "--owner", "ann", "--json")
        assert first.returncode == 1, first.stderr
        report = json.loads(first.stdout)
        assert report["added"] == 9 and report["failed"] == []  # the transactions themselves are stored
        assert report["text"]["state"] == "failed" and [f["month"] for f in report["text"]["failed"]] == ["2026-09"]
        assert "text not written: 2026-09" in first.stderr and "reindex" in first.stderr
        server.fail_next = []
        second = _run(env, "import", "transactions", statement, "--owner", "ann", "--json")
        assert second.returncode == 0, second.stderr
        again = json.loads(second.stdout)
        assert (again["unchanged"], again["months"]) == (9, [])  # no row changed…
        assert again["text"] == {"state": "ok", "rebuilt": ["2026-09"], "failed": []}  # …and the text is rebuilt
        assert again["documents"]["added"] == 2
        found = _run(env, "search", "thames water", "--collection", "transactions", "--owner", "ann", "--json")
        assert found.returncode == 0 and "THAMES WATER" in found.stdout
        fixed = _run(env, "transactions", "reindex", "--owner", "ann", "--json")
        assert fixed.returncode == 0 and json.loads(fixed.stdout)["text"]["rebuilt"] == ["2026-09"]
