"""Shared fixtures, and the tiers. Unit tests use the deterministic hashing embedder;
tests that need the real model say so (and share one loaded instance).

Each test is marked with its tier by the folder it lives in (``unit``, ``contract``,
``integration``, ``e2e``; see tests/README.md), and with ``postgres`` or ``qdrant``
when it needs that backend, so ``-m "not postgres and not qdrant"`` keeps SQLite only."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.settings import EmbedderSettings, Settings

TIERS = ("unit", "contract", "integration", "e2e")
# Modules whose every test needs that backend (the contract suite's runners).
BACKEND_MODULES = {"postgres": ("test_store_postgres", "test_store_postgres_postings", "test_transactions_postgres"),
                   "qdrant": ("test_store_qdrant",)}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        parts = item.path.relative_to(here).parts if item.path.is_relative_to(here) else ()
        if len(parts) > 1 and parts[0] in TIERS:
            item.add_marker(parts[0])
        module = item.path.stem
        for backend, modules in BACKEND_MODULES.items():
            if module in modules:
                item.add_marker(backend)
        if "pg_url" in getattr(item, "fixturenames", ()):
            item.add_marker("postgres")
        callspec = getattr(item, "callspec", None)  # a test parametrized by backend: [sqlite], [postgresql], [qdrant]
        if callspec is not None:
            ids = set(callspec.id.split("-"))
            if ids & {"postgres", "postgresql"}:
                item.add_marker("postgres")
            if "qdrant" in ids:
                item.add_marker("qdrant")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings on a fresh data dir, with the fast hashing embedder."""
    return Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"))


@pytest.fixture
def engine(settings: Settings):
    eng = Engine(settings)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def minilm():
    """The real default embedder, loaded once per test session."""
    from ragline.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()
