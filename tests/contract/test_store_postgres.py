"""PostgreSQL (pgvector) passes the store contract, plus what only PostgreSQL has:
row-level security, migrations, the pool's recovery, and clear errors when opening
fails. Keyword search (postings, packed lists, BM25 ranked as FTS5 ranks) is in
``test_store_postgres_postings.py``, dense search through the HNSW index in
``test_store_postgres_hnsw.py``.

Everything runs on one embedded PostgreSQL per session (``pg_server``), a fresh
database per test; the restart test starts a private server of its own.
"""

from __future__ import annotations

import socket
import threading
import time

import psycopg
import pytest

from ragline.analyzer import query_terms
from ragline.errors import ConfigError, StoreError, StoreUnavailableError
from ragline.models import Scope
from ragline.store import open_store
from ragline.store.postgres import PostgresStore
from ragline.store.postgres.schema import MIGRATIONS
from tests.contract.postgres_store import pg_settings
from tests.contract.store_contract import DIM, A, StoreContract, collection, put, unit
from tests.contract.store_contract_records import RecordsContract
from tests.contract.store_contract_reembed import LanguageContract, ReembedContract
from tests.contract.store_contract_usage import UsageContract
from tests.contract_helpers import claim_in_parallel
from tests.pg_server import (  # noqa: F401  (pg_url is a fixture)
    admin_connect,
    drop_database,
    fresh_database,
    pg_url,
    restart_server,
    server,
    start_server,
    stop_server,
)


class TestPostgresStore(StoreContract, RecordsContract, ReembedContract, LanguageContract, UsageContract):
    @pytest.fixture
    def make_store(self, tmp_path, pg_url):  # noqa: F811
        settings = pg_settings(tmp_path, pg_url)
        return lambda: open_store(settings)


@pytest.fixture
def store(pg_store):
    """The store each test here works on (``conftest.pg_store``)."""
    return pg_store


def _as_user(url: str, user: str) -> str:
    return url.replace("//postgres:@", f"//{user}:@", 1)  # embedded URLs: postgresql://postgres:@/db?host=…


def _rows_by_tenant(pg: PostgresStore, tenant: str | None, table: str) -> set[str]:
    with pg._tx(tenant) as cur:
        cur.execute(f"SELECT * FROM {table}")  # no WHERE: only the wall filters
        names = [c.name for c in cur.description]
        column = names.index("name" if table == "tenants" else "tenant")
        return {row[column] for row in cur.fetchall()}


# -- row-level security ------------------------------------------------------------
def test_rls_raw_select_sees_only_the_scoped_tenant(store) -> None:
    pg = store.catalog
    assert pg.rls_enforced and pg._use_role  # embedded PostgreSQL connects as a superuser: the role is used
    other = Scope("other", ("kb",))
    collection(store, A)
    collection(store, other)
    put(store, A, "a.txt", ["acme words"])
    put(store, other, "b.txt", ["other words"])
    store.admin.create_api_key("other")
    for table in ("chunks", "documents", "collections", "tenants", "api_keys"):
        assert _rows_by_tenant(pg, "acme", table) <= {"acme"}, table
        assert _rows_by_tenant(pg, "nobody", table) == set(), table
    assert _rows_by_tenant(pg, "acme", "chunks") == {"acme"}
    assert _rows_by_tenant(pg, None, "chunks") == {"acme", "other"}  # the operator bypass
    with pytest.raises(StoreError), pg._tx("acme") as cur:  # WITH CHECK: no writing another tenant's row
        cur.execute("UPDATE chunks SET tenant = 'other'")
    with pytest.raises(StoreError, match="invalid tenant"):
        store.get_collection(Scope("*", ("kb",)))


def test_a_tenant_name_that_would_break_its_quoting_is_one_more_walled_tenant(store) -> None:
    """BEGIN and the tenant's scope travel as one message, the name quoted as a literal
    (``PostgresDatabase.tx``): quotes, backslashes and semicolons stay inside the name."""
    pg = store.catalog
    names = ["o'brien", "x', true); DROP TABLE chunks; --", "back\\slash", "e'\\'; SELECT 1"]
    for name in names:
        collection(store, Scope(name, ("kb",)))
        put(store, Scope(name, ("kb",)), "a.txt", [f"words of {name}"])
    for name in names:
        assert _rows_by_tenant(pg, name, "chunks") == {name}
        assert [h.text for h in store.get_hits(Scope(name, ("kb",)), store.keyword_search(
            Scope(name, ("kb",)), query_terms("words"), 10))] == [f"words of {name}"]
    assert _rows_by_tenant(pg, None, "chunks") == set(names)
    assert _rows_by_tenant(pg, "o", "chunks") == set()


def test_rls_binds_a_non_superuser_owner_without_the_role(tmp_path) -> None:
    """A table owner that may not SET ROLE still meets the policies (FORCE RLS)."""
    srv = server()
    with admin_connect(srv.get_uri()) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'ragline_app'").fetchone() is None:
            conn.execute("CREATE ROLE ragline_app LOGIN")
    url = fresh_database()
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    try:
        with admin_connect(srv.get_uri()) as conn:
            conn.execute(f"ALTER DATABASE {name} OWNER TO ragline_app")
        with admin_connect(url) as conn:
            conn.execute("CREATE EXTENSION vector")  # what a DBA does once
        s = open_store(pg_settings(tmp_path, _as_user(url, "ragline_app")))
        try:
            assert not s.catalog._use_role and s.catalog.rls_enforced
            collection(s, A)
            collection(s, Scope("other", ("kb",)))
            put(s, A, "a.txt", ["acme words"])
            put(s, Scope("other", ("kb",)), "b.txt", ["other words"])
            assert _rows_by_tenant(s.catalog, "acme", "chunks") == {"acme"}
            assert s.catalog.tenants() == ["acme", "other"]
        finally:
            s.close()
    finally:
        drop_database(url)


# -- writes, jobs, threads ---------------------------------------------------------------
def test_nul_characters_are_stored(store) -> None:
    collection(store, A)
    did = put(store, A, "nul.txt", ["a\x00b"], metadata={"k": "x\x00y"}, title="t\x00")
    hit = store.get_hits(A, [(store.document_chunk_ids(A, did)[0], 1.0)])[0]
    assert (hit.text, hit.metadata, hit.title, hit.end - hit.start) == ("a\ufffdb", {"k": "x\ufffdy"}, "t\ufffd", 3)


def test_concurrent_claims_never_run_two_jobs_of_one_document(store, tmp_path, pg_url) -> None:  # noqa: F811
    admin, scope = store.admin, Scope("a", ("docs",))
    store.catalog.ensure_tenant("a")
    for i in range(20):
        admin.create_job(scope, doc_id=f"d{i}", source="s", kind="file", path="/1")
    while admin.claim_job("dead", 0.05, 5) is not None:
        pass
    for i in range(20):  # a queued sibling beside each expired claim: two runnable jobs per document
        admin.create_job(scope, doc_id=f"d{i}", source="s", kind="file", path="/2")
    time.sleep(0.1)
    jobs = claim_in_parallel(lambda: open_store(pg_settings(tmp_path, pg_url)), 6, max_tries=5)
    claimed = [job.doc_id for job in jobs]
    assert sorted(claimed) == sorted(f"d{i}" for i in range(20))  # each document once, never two at once


def test_one_store_serves_many_threads_on_a_small_pool(tmp_path, pg_url) -> None:  # noqa: F811
    s = open_store(pg_settings(tmp_path, pg_url, pool_size=2))
    collection(s, A)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                put(s, A, f"{n}-{i}.txt", [f"thread {n} text {i}"])
                assert s.keyword_search(A, ["thread"], 100) and s.dense_search(A, unit(1), 5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stats = s.catalog._pool.get_stats()
    s.close()
    assert not errors, errors[0]
    assert stats["pool_max"] == 2 and stats["pool_size"] <= 2


def test_statement_timeout_is_applied(tmp_path, pg_url) -> None:  # noqa: F811
    s = open_store(pg_settings(tmp_path, pg_url, statement_timeout_s=0.2))
    try:
        with pytest.raises(StoreUnavailableError, match="timed out"), s.catalog._tx("acme") as cur:
            cur.execute("SELECT pg_sleep(2)")
        assert s.catalog.tenants() == []  # the connection is fine afterwards
    finally:
        s.close()


# -- migrations --------------------------------------------------------------------------
def test_concurrent_first_starts_migrate_once(tmp_path, pg_url) -> None:  # noqa: F811
    stores, errors = [], []
    start = threading.Barrier(6)

    def opener() -> None:
        try:
            start.wait()
            stores.append(open_store(pg_settings(tmp_path, pg_url)))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert not errors, errors[0]
    with admin_connect(pg_url) as conn:
        assert [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")] == \
            [v for v, _ in MIGRATIONS]


def test_version_3_database_gains_key_owners_and_document_sizes(tmp_path, pg_url) -> None:  # noqa: F811
    """Migration 4 on a database written before it: keys keep working (no owner),
    and existing documents are measured once, exactly as new writes are."""
    s = open_store(pg_settings(tmp_path, pg_url))
    collection(s, A)
    put(s, A, "a.txt", ["één twee", "drie"])
    _, secret = s.admin.create_api_key("acme")
    expected = s.catalog.usage("acme")
    s.close()
    with admin_connect(pg_url) as conn:  # back to version 3, as a database of the previous release
        conn.execute("ALTER TABLE documents DROP COLUMN bytes; ALTER TABLE api_keys DROP COLUMN owner; "
                     "DROP INDEX jobs_running; DROP INDEX jobs_served; DELETE FROM schema_migrations WHERE version = 4")
    s = open_store(pg_settings(tmp_path, pg_url))
    try:
        assert s.catalog.usage("acme") == expected and expected.bytes == len("één twee".encode()) + 4 + 2 * 4 * DIM
        assert s.admin.verify_api_key(secret).owner is None
    finally:
        s.close()


def test_a_newer_schema_is_refused(tmp_path, pg_url) -> None:  # noqa: F811
    open_store(pg_settings(tmp_path, pg_url)).close()
    with admin_connect(pg_url) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 0)")
    with pytest.raises(ConfigError, match="upgrade ragline"):
        open_store(pg_settings(tmp_path, pg_url))


# -- opening errors and recovery ---------------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_is_a_clear_error(tmp_path) -> None:
    url = f"postgresql://ragline:sekret@127.0.0.1:{_closed_port()}/ragline"
    t0 = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="RAGLINE_STORE__URL") as info:
        open_store(pg_settings(tmp_path, url))
    assert time.monotonic() - t0 < 5 and "sekret" not in str(info.value) and "***" in str(info.value)
    assert info.value.__cause__ is None  # no psycopg internals chained to the message


@pytest.mark.parametrize("url", ["postgresql://u@localhost/db?no_such_option=1", "postgresql://u@localhost:port/db",
                                 "postgresql://u@localhost/db?sslmode=bogus"])
def test_malformed_url_is_a_config_error(tmp_path, url: str) -> None:
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL"):
        open_store(pg_settings(tmp_path, url))


def test_missing_database_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*does not exist"):
        open_store(pg_settings(tmp_path, server().get_uri("no_such_database")))


def test_server_without_pgvector_is_a_config_error(tmp_path, pg_url) -> None:  # noqa: F811
    # PostgreSQL 18 looks for extensions along extension_control_path: pointing a
    # database at an empty place makes pgvector unavailable there, as on a server without it.
    name = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
    with admin_connect(server().get_uri()) as conn:
        conn.execute(f"ALTER DATABASE {name} SET extension_control_path = '/nonexistent'")
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*pgvector"):
        open_store(pg_settings(tmp_path, pg_url))


def test_user_who_cannot_create_pgvector_is_a_config_error(tmp_path, pg_url) -> None:  # noqa: F811
    with admin_connect(server().get_uri()) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'ragline_app'").fetchone() is None:
            conn.execute("CREATE ROLE ragline_app LOGIN")
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL.*CREATE EXTENSION vector"):
        open_store(pg_settings(tmp_path, _as_user(pg_url, "ragline_app")))


def test_a_pooled_connection_whose_backend_ended_is_replaced_before_use(store, pg_url) -> None:  # noqa: F811
    """The pool pings a connection it hands out only when the server wrote to it while
    it sat idle. Backends ended between two requests (``pg_terminate_backend``, as a
    failover or an operator does) are replaced before a request gets one: the request
    succeeds, as it did when every checkout was pinged."""
    collection(store, A)
    put(store, A, "a.txt", ["still here"])
    for _ in range(3):
        assert store.keyword_search(A, ["still"], 5)
    dbname = psycopg.conninfo.conninfo_to_dict(pg_url)["dbname"]
    with admin_connect(pg_url) as conn:
        ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE application_name = 'ragline' AND datname = %s", (dbname,)).fetchone()[0]
    assert ended >= 1
    time.sleep(0.2)  # the sockets are closed by now
    assert store.keyword_search(A, ["still"], 5)
    assert store.get_hits(A, store.keyword_search(A, ["still"], 5))[0].text == "still here"


def test_store_recovers_after_a_server_restart(tmp_path) -> None:
    srv = start_server()
    s = None
    try:
        s = open_store(pg_settings(tmp_path, fresh_database(srv), connect_timeout=1.0))
        collection(s, A)
        put(s, A, "a.txt", ["still here"])
        stop_server(srv)
        t0 = time.monotonic()
        with pytest.raises(StoreUnavailableError, match="unreachable"):
            s.keyword_search(A, ["still"], 5)
        assert time.monotonic() - t0 < 5  # a quick 503, not a hang
        restart_server(srv)
        t1, found = time.monotonic(), None
        while found is None and time.monotonic() - t1 < 20:
            try:
                found = s.keyword_search(A, ["still"], 5)
            except StoreUnavailableError:
                time.sleep(0.2)
        assert found, "the store did not recover within 20 s of the restart"
        assert time.monotonic() - t1 < 10
    finally:
        if s is not None:
            s.close()
        srv.cleanup()


def test_open_backend_redacts_the_password(tmp_path, pg_url) -> None:  # noqa: F811
    url = pg_url.replace("postgres:@", "postgres:hunter2@")
    s = open_store(pg_settings(tmp_path, url))
    try:
        assert "hunter2" not in s.url and "***" in s.url
    finally:
        s.close()


def test_rls_walls_conversations_messages_and_policies(store) -> None:
    """Migration 5's tables sit behind the same tenant wall as the others."""
    from ragline.store.conversations import NewMessage

    pg = store.catalog
    for tenant in ("acme", "other"):
        cid = store.conversations.create_conversation(tenant, "u", title="t", collections=["kb"]).id
        store.conversations.add_messages(tenant, "u", cid, [NewMessage("user", f"{tenant} secret")])
        store.conversations.set_answer_policy(tenant, "kb", "general")
    for table in ("conversations", "messages", "answer_policies"):
        assert _rows_by_tenant(pg, "acme", table) == {"acme"}, table
        assert _rows_by_tenant(pg, "nobody", table) == set(), table
        assert _rows_by_tenant(pg, None, table) == {"acme", "other"}, table
    # WITH CHECK: no writing another tenant's row from a scoped transaction
    with pytest.raises(StoreError), pg._tx("acme") as cur:
        cur.execute("UPDATE messages SET tenant = 'other'")
