"""Free space where this server writes: kept uploads under ``home``, and the SQLite
store when it is the backend. Below ``server.min_free_mb`` readiness says so
(``/readyz`` 507) and uploads are refused before their body is read, instead of
being accepted into a queue that cannot progress; reads keep working, and both
recover by themselves once space is freed."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import DiskFullError
from ..settings import Settings
from ..store import backend_for, sqlite_path


def _paths(settings: Settings) -> list[Path]:
    paths = [settings.home]
    if backend_for(settings.store.url) == "sqlite":
        paths.append(sqlite_path(settings.store.url, settings).parent)
    elif backend_for(settings.store.catalog_url) == "sqlite" and backend_for(settings.store.url) == "qdrant":
        paths.append(sqlite_path(settings.store.catalog_url, settings).parent)
    return paths


def check_free_space(settings: Settings) -> None:
    """``DiskFullError`` naming the path when one has less than ``server.min_free_mb`` free."""
    floor = settings.server.min_free_mb
    if floor <= 0:
        return
    for path in _paths(settings):
        while not path.exists() and path != path.parent:  # not created yet: its nearest existing parent
            path = path.parent
        try:
            free = shutil.disk_usage(path).free / 2**20
        except OSError:
            continue
        if free < floor:
            raise DiskFullError(f"only {free:.1f} MB free at {path} (server.min_free_mb is {floor:g}): free space "
                                "there; uploads are refused until then, and reads keep working")
