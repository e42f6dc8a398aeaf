"""One model copy per machine (issue 30): the graphs built from the bundled MiniLM's
weights live in one shared cache directory (the user's cache dir, or
``RAGLINE_EMBEDDER__CACHE_DIR``), not in every ``RAGLINE_HOME``, and no weights are
kept twice (the int8 graph is kept only in its mapped form)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import platformdirs
import pytest

from ragline.embed.graph_cache import MAPPED_SUFFIX
from ragline.engine import Engine
from ragline.settings import EmbedderSettings, Settings


def test_the_default_cache_is_the_users_and_a_setting_moves_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RAGLINE_EMBEDDER__CACHE_DIR", raising=False)
    assert Settings(home=tmp_path / "a").embedder.model_cache() == Path(platformdirs.user_cache_dir("ragline")) / "models"
    monkeypatch.setenv("RAGLINE_EMBEDDER__CACHE_DIR", str(tmp_path / "shared"))
    assert Settings(home=tmp_path / "b").embedder.model_cache() == tmp_path / "shared"


def test_two_homes_share_one_copy_with_no_duplicate_weights(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    vectors = []
    for home in ("one", "two"):
        engine = Engine(Settings(home=tmp_path / home, embedder=EmbedderSettings(cache_dir=cache)))
        try:
            vectors.append(engine.embedder.embed_query("overdraft fee"))
        finally:
            engine.close()
        assert not (tmp_path / home / "models").exists()  # nothing model-sized in the data directory
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    files = {p.name: p.stat().st_size for p in cache.iterdir() if p.is_file()}
    graphs = [n for n in files if n.endswith(".onnx")]
    assert len(graphs) == 1 and "-int8" not in graphs[0], files  # the fp32 graph (the int8 one's source)
    assert len([n for n in files if n.endswith(MAPPED_SUFFIX)]) == 1 and len([n for n in files if n.endswith(".weights")]) == 1
    big = [size for size in files.values() if size > 10_000_000]
    assert len(big) == len(set(big)) == 2, files  # the fp32 graph and the int8 weights: each once
