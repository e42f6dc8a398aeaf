"""tests/integration/test_congruence.py at three times its size: 600 SciFact
abstracts ranked alike on SQLite, PostgreSQL and Qdrant, and the synthetic run at
2,000 chunks with its timings filled in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration import test_congruence as suite
from tests.paths import SCIFACT, needs

pytestmark = needs(SCIFACT)


@pytest.mark.timeout(600)
def test_every_backend_ranks_600_scifact_docs_alike(tmp_path: Path) -> None:
    suite.check_every_backend_ranks_scifact_alike(tmp_path, 600)


@pytest.mark.timeout(600)
def test_synthetic_run_measures_recall_on_every_backend_at_2000_chunks(tmp_path: Path) -> None:
    for name, row in suite.synthetic_rows(tmp_path, 2000).items():
        assert row["recall@10"] >= 0.95 and row["chunks"] == 2000, (name, row)
        assert row["hybrid_p50_ms"] > 0 and row["load_s"] > 0
