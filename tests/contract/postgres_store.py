"""The settings of the PostgreSQL store the contract tests open: on the session's
embedded server (``tests.pg_server``), a fresh database per test, a pool of 4. The
fixture that opens it is ``pg_store`` (``conftest.py``)."""

from __future__ import annotations

from ragline.settings import Settings, StoreSettings


def pg_settings(tmp_path, url: str, **store) -> Settings:
    return Settings(home=tmp_path / "home", store=StoreSettings(url=url, **{"pool_size": 4, **store}))
