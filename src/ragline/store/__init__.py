"""Storage: a catalog, admin tables and search indexes behind one scoped ``Store``,
opened from one URL setting by a registry of backends (``BACKENDS``), one folder
each (``sqlite/``, ``postgres/``, ``qdrant/``; the SQL the relational two share in
``sql/``)."""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..errors import ConfigError
from .base import Admin, Catalog, Roles, SearchIndex
from .facade import Store
from .filters import Filter, parse_filters
from .types import ChunkRecord, CollectionInfo, DocumentInfo, DocumentRecord

if TYPE_CHECKING:
    from ..settings import Settings

BACKENDS: dict[str, tuple[str, str]] = {
    "sqlite": ("ragline.store.sqlite", ""),
    "postgresql": ("ragline.store.postgres", "psycopg[binary,pool] pgvector"),
    "qdrant": ("ragline.store.qdrant", "qdrant-client"),
}
"""Backend name → (its package, whose ``open_backend(url, settings)`` returns the ``Store``
over the backend's ``Roles``; the packages it needs)."""

EXTRAS: dict[str, str] = {"sqlite": "", "postgresql": "postgres", "qdrant": "qdrant"}
"""The package extra (``pip install 'ragline[EXTRA]'``, pyproject's optional-dependencies)
each backend needs."""

SCHEMES = {"sqlite": "sqlite", "postgresql": "postgresql", "postgres": "postgresql",
           "qdrant": "qdrant", "http": "qdrant", "https": "qdrant"}


def backend_for(url: str | None) -> str:
    """The backend a store URL names (a bare path is SQLite)."""
    if not url:
        return "sqlite"
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    if not scheme:
        return "sqlite"
    if scheme not in SCHEMES:
        raise ConfigError(f"RAGLINE_STORE__URL: unknown scheme {scheme!r} in {redact(url)!r}; use a path or one of: "
                          + ", ".join(f"{s}://" for s in SCHEMES))
    return SCHEMES[scheme]


def shared_by_replicas(settings: Settings) -> bool:
    """Whether the store's admin data (jobs, rate buckets, kept uploads) is on PostgreSQL,
    which replicas on several machines share; SQLite is one machine's file."""
    url = settings.store.url
    if backend_for(url) == "qdrant":
        url = settings.store.catalog_url
    return backend_for(url) == "postgresql"


def one_process_only(url: str | None) -> bool:
    """Whether the store URL names storage that only one process may open at a time
    (Qdrant's local mode): the server then keeps its ingestion workers in-process."""
    if backend_for(url) != "qdrant" or url is None:
        return False
    scheme, rest = url.split("://", 1)
    return scheme.lower() == "qdrant" and (rest == ":memory:" or rest.startswith(("/", "~")))


def redact(url: str | None) -> str:
    """A URL fit for logs and status output: the password replaced by ***."""
    if not url or "://" not in url:
        return url or ""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url


def sqlite_path(url: str | None, settings: Settings) -> Path:
    """The SQLite file a URL (or the default) names."""
    if not url:
        return settings.db_path
    if url.startswith("sqlite://"):
        url = url[len("sqlite://"):]
        if not url:
            raise ConfigError("RAGLINE_STORE__URL: sqlite:// needs a path, e.g. sqlite:///var/lib/ragline/db.sqlite")
    if re.match(r"^\s*\w+\s*=", url):
        raise ConfigError("RAGLINE_STORE__URL looks like a libpq key=value string (not shown: it may hold a "
                          "password); write it as postgresql://user:password@host:5432/dbname")
    if url == ":memory:":
        raise ConfigError("RAGLINE_STORE__URL: SQLite ':memory:' cannot be shared by the server's threads; use a path")
    return Path(url).expanduser()


def open_store(settings: Settings, url: str | None = None) -> Store:
    """Open the backend the URL names (default: ``settings.store.url``)."""
    url = settings.store.url if url is None else url
    name = backend_for(url)
    module_name, packages = BACKENDS[name]
    try:
        module = import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"RAGLINE_STORE__URL names the {name} backend, which needs {packages}: "
                          f"pip install 'ragline[{EXTRAS[name]}]' ({exc})") from exc
    return module.open_backend(url, settings)


__all__ = ["BACKENDS", "EXTRAS", "Admin", "Catalog", "ChunkRecord", "CollectionInfo", "DocumentInfo", "DocumentRecord",
           "Filter", "Roles", "SearchIndex", "Store", "backend_for", "one_process_only", "open_store", "parse_filters", "redact", "shared_by_replicas",
           "sqlite_path"]
