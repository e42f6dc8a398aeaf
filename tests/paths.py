"""Where the tests find their data. Nothing here reads a file: the data shared
between projects (``../shared`` beside the clone: SciFact, the PDF samples) may be
missing, and tests that need it skip, naming the missing path."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE = ROOT / "src" / "ragline" / "sample"
SHARED = ROOT.parent / "shared"
PDF_SAMPLES = SHARED / "testdata" / "pdf-samples"
SCIFACT = SHARED / "datasets" / "scifact"
EXPORTS = FIXTURES / "transactions" / "exports"
"""Bank exports as banks give them (written for the importers' tests)."""


def _reason(path: Path) -> str:
    return f"needs {path} (shared test data, expected beside the clone)"


def needs(*paths: Path) -> pytest.MarkDecorator:
    """A mark: skip the test (or, as ``pytestmark``, the module) when a path is missing."""
    missing = [p for p in paths if not p.exists()]
    return pytest.mark.skipif(bool(missing), reason=_reason(missing[0]) if missing else "")


def need(path: Path) -> Path:
    """``path``, or skip the running test when it is missing."""
    if not path.exists():
        pytest.skip(_reason(path))
    return path
