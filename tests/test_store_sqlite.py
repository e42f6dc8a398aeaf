"""The embedded default passes the store contract."""

from __future__ import annotations

import pytest

from ragline.settings import Settings
from ragline.store import open_store

from .store_contract import DIM, A, StoreContract, collection, put


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


def test_a_store_of_the_previous_release_gains_key_owners_and_document_sizes(tmp_path) -> None:
    """Columns added for tenancy (``api_keys.owner``, ``documents.bytes``) appear on
    open, and documents written before are measured once, as new writes are."""
    import sqlite3

    settings = Settings(home=tmp_path)
    store = open_store(settings)
    collection(store, A)
    put(store, A, "a.txt", ["één twee", "drie"])
    _, secret = store.admin.create_api_key("acme")
    expected = store.catalog.usage("acme")
    store.close()
    with sqlite3.connect(settings.db_path) as conn:
        conn.executescript("DROP INDEX jobs_running; DROP INDEX jobs_served; "
                           "ALTER TABLE documents DROP COLUMN bytes; ALTER TABLE api_keys DROP COLUMN owner;")
    store = open_store(settings)
    try:
        assert store.catalog.usage("acme") == expected and expected.bytes == len("één twee".encode()) + 4 + 8 * DIM
        assert store.admin.verify_api_key(secret).owner is None
    finally:
        store.close()
