"""PostgreSQL (pgvector) passes the store contract."""

from __future__ import annotations

import pytest

from ragline.settings import Settings, StoreSettings
from ragline.store import open_store

from .pg_server import pg_url  # noqa: F401  (fixture)
from .store_contract import StoreContract


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def make_store(self, tmp_path, pg_url):  # noqa: F811
        settings = Settings(home=tmp_path / "home", store=StoreSettings(url=pg_url, pool_size=4))
        return lambda: open_store(settings)
