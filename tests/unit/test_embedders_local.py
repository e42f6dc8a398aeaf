"""Local BERT-family models from a folder: configuration read from the folder's own
files, safetensors and ONNX giving the same vectors, clear errors naming the setting.
The models are the bundled MiniLM and a tiny random-weight BERT made here."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from ragline.embed import make_embedder
from ragline.embed.bert import BertEmbedder, build_bert_graph
from ragline.embed.local import LocalEmbedder
from ragline.embed.minilm import default_model_dir
from ragline.errors import ConfigError, EmbedderError
from ragline.settings import EmbedderSettings

TEXTS = ["Card fees are waived for students.", "Transfers abroad take two days.", "x " * 40]
CONFIG = {"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 64, "layer_norm_eps": 1e-12, "hidden_act": "gelu", "max_position_embeddings": 64,
          "vocab_size": 30522}


def tiny_weights(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    h, f = CONFIG["hidden_size"], CONFIG["intermediate_size"]

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.2, shape).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(CONFIG["vocab_size"], h),
         "embeddings.position_embeddings.weight": r(CONFIG["max_position_embeddings"], h),
         "embeddings.token_type_embeddings.weight": r(2, h),
         "embeddings.LayerNorm.weight": np.ones(h, np.float32), "embeddings.LayerNorm.bias": r(h)}
    for i in range(CONFIG["num_hidden_layers"]):
        a, p = f"encoder.layer.{i}.attention.", f"encoder.layer.{i}."
        for k in ("query", "key", "value"):
            w[f"{a}self.{k}.weight"], w[f"{a}self.{k}.bias"] = r(h, h), r(h)
        w[a + "output.dense.weight"], w[a + "output.dense.bias"] = r(h, h), r(h)
        w[a + "output.LayerNorm.weight"], w[a + "output.LayerNorm.bias"] = np.ones(h, np.float32), r(h)
        w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"] = r(f, h), r(f)
        w[p + "output.dense.weight"], w[p + "output.dense.bias"] = r(h, f), r(h)
        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"] = np.ones(h, np.float32), r(h)
    return w


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """A sentence-transformers folder: random BERT, CLS pooling, E5-style prompts, 16 tokens."""
    folder = tmp_path_factory.mktemp("tiny-bert")
    (folder / "config.json").write_text(json.dumps(CONFIG))
    shutil.copy(default_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    write_safetensors(folder / "model.safetensors", {f"bert.{k}": v for k, v in tiny_weights().items()})
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16}))
    (folder / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "passage": "passage: "}}))
    return folder


def local(path: Path | str, **settings) -> LocalEmbedder:
    embedder = make_embedder(EmbedderSettings(name="local", path=str(path), **settings))
    assert isinstance(embedder, LocalEmbedder)
    return embedder


def test_the_bundled_minilm_folder_read_as_any_folder_gives_minilm(minilm) -> None:
    embedder = local(default_model_dir(), precision="fp32")  # compared with the exact graph
    assert (embedder.dimension, embedder.pooling, embedder.max_seq_length) == (384, "mean", 256)
    assert (embedder.query_prefix, embedder.passage_prefix) == ("", "")
    np.testing.assert_allclose(embedder.embed_documents(TEXTS), minilm.embed_documents(TEXTS), atol=1e-6)


def test_pooling_prefixes_and_length_come_from_the_folder(tiny: Path) -> None:
    embedder = local(tiny, precision="fp32")  # compared with fp32 BertEmbedders
    assert (embedder.model_id, embedder.dimension, embedder.pooling) == (f"local/{tiny.name}", 32, "cls")
    assert embedder.max_tokens == 14
    plain = BertEmbedder(tiny, model_id="plain", dimension=32, pooling="cls", max_seq_length=16)
    np.testing.assert_allclose(embedder.embed_query("fees"), plain.embed_query("query: fees"), atol=1e-6)
    np.testing.assert_allclose(embedder.embed_documents(TEXTS), plain.embed_documents([f"passage: {t}" for t in TEXTS]),
                               atol=1e-6)
    mean = BertEmbedder(tiny, model_id="mean", dimension=32, pooling="mean", max_seq_length=16)
    assert not np.allclose(mean.embed_query("query: fees"), plain.embed_query("query: fees"), atol=1e-3)
    long = embedder.embed_documents(["word " * 100, "word " * 200])  # both cut at 16 tokens: the same
    np.testing.assert_allclose(long[0], long[1], atol=1e-6)


def test_an_exported_onnx_encoder_gives_the_same_vectors(tiny: Path, tmp_path: Path) -> None:
    exported = tmp_path / "exported"
    shutil.copytree(tiny, exported, ignore=shutil.ignore_patterns("model.safetensors"))
    (exported / "onnx").mkdir()
    (exported / "onnx" / "model.onnx").write_bytes(build_bert_graph(tiny_weights(), CONFIG).SerializeToString())
    np.testing.assert_allclose(local(exported).embed_documents(TEXTS), local(tiny).embed_documents(TEXTS), atol=1e-5)


def test_a_folder_without_weights_names_the_setting(tiny: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-weights"
    shutil.copytree(tiny, empty, ignore=shutil.ignore_patterns("model.safetensors"))
    with pytest.raises(EmbedderError, match=r"RAGLINE_EMBEDDER__PATH=.*missing.*model.safetensors \(or onnx/model.onnx\)"):
        local(empty)
    with pytest.raises(ConfigError, match="needs RAGLINE_EMBEDDER__PATH"):
        make_embedder(EmbedderSettings(name="local"))
    with pytest.raises(EmbedderError, match="is not a folder"):
        local(tmp_path / "nowhere" / "deeper")


def test_a_hub_id_offline_says_so(monkeypatch, tmp_path: Path) -> None:
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderError, match=r"RAGLINE_EMBEDDER__PATH='intfloat/e5-small-v2'.*hub failed \(offline\?\)"):
        make_embedder(EmbedderSettings(name="local", path="intfloat/e5-small-v2"), cache_dir=tmp_path)
