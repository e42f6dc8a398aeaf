"""The embedded default passes the store contract."""

from __future__ import annotations

import pytest

from ragline.settings import Settings
from ragline.store import open_store

from .store_contract import StoreContract


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def make_store(self, tmp_path):
        settings = Settings(home=tmp_path / "home")
        return lambda: open_store(settings)
