"""Several ``ragline worker`` processes share one job queue; one is SIGKILLed while
it holds a job. Each job runs to completion exactly once more, and the result is a
clean ingest's chunks, no more, no fewer, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.worker_drill import run_drill


def check(result) -> None:
    assert result.finished_by and result.finished_by != result.killed_worker  # another process took it over
    assert result.tries == 2  # it was running when killed, and ran once more
    assert result.duplicates == 0 and result.chunks == result.reference_chunks
    assert any(result.killed_job in line for line in result.log)


@pytest.mark.timeout(300)
def test_sqlite_workers_share_the_queue_and_survive_sigkill(tmp_path: Path) -> None:
    check(run_drill(tmp_path / "home", None))


@pytest.mark.timeout(300)
def test_postgres_workers_share_the_queue_and_survive_sigkill(tmp_path: Path) -> None:
    from tests.pg_server import fresh_database

    check(run_drill(tmp_path / "home", fresh_database()))
