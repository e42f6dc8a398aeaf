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


@pytest.mark.parametrize(("env", "url"), [
    ({"RAGLINE_STORE": "sqlite"}, None),  # the setting's old form
    ({"RAGLINE_STORE": "postgresql://u@h/db"}, "postgresql://u@h/db"),
    ({"RAGLINE_STORE__URL": "/data/x.sqlite", "RAGLINE_STORE__POOL_SIZE": "3"}, "/data/x.sqlite"),
])
def test_store_url_settings(monkeypatch, env: dict, url: str | None) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Settings().store.url == url


@pytest.mark.parametrize(("url", "message"), [
    ("mysql://x/y", "unknown scheme 'mysql'"),
    ("host=db password=secret", "libpq key=value"),
    (":memory:", "cannot be shared"),
    ("sqlite://", "needs a path"),
])
def test_bad_store_urls_name_the_setting(tmp_path, url: str, message: str) -> None:
    from ragline.errors import ConfigError

    with pytest.raises(ConfigError, match=message) as caught:
        open_store(Settings(home=tmp_path), url)
    assert "RAGLINE_STORE__URL" in str(caught.value) and "secret" not in str(caught.value)
