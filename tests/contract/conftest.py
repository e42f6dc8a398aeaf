"""Fixtures shared by the contract tests' files."""

from __future__ import annotations

import pytest

from ragline.store import open_store
from tests.contract.postgres_store import pg_settings
from tests.pg_server import pg_url  # noqa: F401  (pg_url is a fixture)


@pytest.fixture
def pg_store(tmp_path, pg_url):  # noqa: F811
    """A PostgreSQL store on a fresh database of the session's embedded server."""
    s = open_store(pg_settings(tmp_path, pg_url))
    yield s
    s.close()
