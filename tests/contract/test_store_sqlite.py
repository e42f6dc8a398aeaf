"""The embedded default passes the store contract."""

from __future__ import annotations

import pytest

from ragline.settings import Settings
from ragline.store import open_store

from tests.contract.store_contract import DIM, A, StoreContract, collection, put
from tests.contract.store_contract_records import RecordsContract
from tests.contract.store_contract_reembed import LanguageContract, ReembedContract
from tests.contract.store_contract_usage import UsageContract


class TestSQLiteStore(StoreContract, RecordsContract, ReembedContract, LanguageContract, UsageContract):
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


def test_a_cached_message_matrix_sees_another_process_write(tmp_path, monkeypatch) -> None:
    """Large owners' embedded messages are kept in memory; a write through another store
    on the same file (another process) bumps the owner's version, so the next search
    reads the new rows."""
    import numpy as np

    from ragline.store.sqlite import conversations as sqlite_conversations
    from ragline.store.conversations import NewMessage

    monkeypatch.setattr(sqlite_conversations, "CACHE_ROWS", 1)
    settings = Settings(home=tmp_path / "home")
    reader, writer = open_store(settings), open_store(settings)
    try:
        cid = writer.conversations.create_conversation("acme", "alice", title="t", collections=[]).id
        first = writer.conversations.add_messages("acme", "alice", cid, [NewMessage("user", "one")])[0]
        v = np.eye(4, dtype=np.float32)
        writer.conversations.set_message_embeddings("acme", "m", [(first.id, v[0])])
        assert [m.id for m, _ in reader.conversations.search_messages("acme", "alice", v[1], 5, model_id="m")] == \
            [first.id]
        second = writer.conversations.add_messages("acme", "alice", cid, [NewMessage("user", "two")])[0]
        writer.conversations.set_message_embeddings("acme", "m", [(second.id, v[1])])
        found = reader.conversations.search_messages("acme", "alice", v[1], 5, model_id="m")
        assert [m.id for m, _ in found] == [second.id, first.id]
        writer.conversations.delete_conversation("acme", "alice", cid)
        assert reader.conversations.search_messages("acme", "alice", v[1], 5, model_id="m") == []
    finally:
        reader.close()
        writer.close()
