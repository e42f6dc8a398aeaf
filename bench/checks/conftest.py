"""The benchmark-sized checks (``make bench-checks``): the suite's own checks at the
sizes `make test` runs only a slice of. Run from the repository root."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def minilm():
    """The real default embedder, loaded once per session (as in tests/conftest.py)."""
    from ragline.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()
