"""Shared fixtures. Unit tests use the deterministic hashing embedder; tests that
need the real model say so (and share one loaded instance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.settings import EmbedderSettings, Settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PDF_SAMPLES = SHARED / "testdata" / "pdf-samples"
SCIFACT = SHARED / "datasets" / "scifact"


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
