"""int8 per-channel quantization of the local encoder (``embedder.precision``):
vectors close to sentence-transformers' fp32 ones, the quantized graph cached on
disk under its own key and reused, the setting reaching the embedder, a bad value
refused, and the embedding cache keeping the two precisions apart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from ragline.embed import make_embedder
from ragline.embed.base import CountingEmbedder
from ragline.embed.bert import GRAPH_VERSION, UNFUSED_OPTIMIZERS
from ragline.embed.graph_cache import MAPPED_SUFFIX
from ragline.embed.minilm import MiniLMEmbedder
from ragline.embed.quantize import QUANT_VERSION, quantize_graph
from ragline.errors import ConfigError
from ragline.ingest.pipeline import cache_model_key
from ragline.settings import EmbedderSettings, Settings

REFERENCE = Path(__file__).parents[1] / "fixtures" / "minilm_reference.json"


@pytest.fixture(scope="module")
def int8(tmp_path_factory) -> MiniLMEmbedder:
    return MiniLMEmbedder(cache_dir=tmp_path_factory.mktemp("models"), precision="int8")


def test_int8_vectors_agree_with_sentence_transformers(int8) -> None:
    ref = json.loads(REFERENCE.read_text("utf-8"))
    want = np.asarray(ref["embeddings"], dtype=np.float32)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    got = int8.embed_documents(ref["texts"])
    cos = (got * want).sum(axis=1)
    print(f"int8 cosine vs sentence-transformers fp32: min {cos.min():.4f} mean {cos.mean():.4f}")
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # Dynamic int8 scales activations per batch, so a text's vector moves a little with
    # its batch-mates; texts of under two tokens ("", whitespace, "🚀🚀🚀" = one [UNK]) move
    # most (0.978-0.985 measured across batchings) and carry no content: they count in the
    # mean, not the minimum.
    worded = np.array(ref["num_tokens"]) >= 2
    assert cos[worded].min() >= 0.98 and cos.mean() >= 0.99
    assert cos.min() < 0.99999  # really quantized, not the fp32 graph under another name


def test_int8_graph_is_cached_beside_the_fp32_one_and_reused(int8) -> None:
    int8.embed_query("warm up")  # builds both graphs into the cache dir
    names = sorted(p.name for p in int8.cache_dir.glob("*.onnx"))
    assert len(names) == 1 and names[0].endswith(f"-{GRAPH_VERSION}.onnx")  # the fp32 graph, whole
    # The int8 graph is kept mapped only: its weights in one file, not also inside a graph.
    quantized = next(p for p in int8.cache_dir.glob(f"*-{QUANT_VERSION}{MAPPED_SUFFIX}"))
    model = onnx.load(str(quantized), load_external_data=False)
    ops = {n.op_type for n in model.graph.node}
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= ops  # the MatMuls run in int8
    quantized_inputs = {i for n in model.graph.node if n.op_type == "QAttention" for i in n.input}
    assert any(i.startswith("l0_qkv_w") for i in quantized_inputs)  # the QKV projection is int8 too
    assert "SkipLayerNormalization" not in ops  # Add + LayerNormalization, kept apart (faster)
    before = quantized.stat().st_mtime_ns
    again = MiniLMEmbedder(cache_dir=int8.cache_dir, precision="int8")
    np.testing.assert_allclose(again.embed_query("cached"), int8.embed_query("cached"), atol=1e-6)
    assert quantized.stat().st_mtime_ns == before  # loaded, not rebuilt


@pytest.mark.parametrize("disabled", [UNFUSED_OPTIMIZERS, []])
def test_sessions_keep_the_layer_norms_apart(int8, tmp_path, disabled) -> None:
    """ORT would fuse the graph's Add + LayerNormalization pairs back into its slower
    SkipLayerNormalization; the embedder's sessions switch that rewrite off."""
    import onnxruntime as ort

    int8.embed_query("warm up")
    graph = next(p for p in int8.cache_dir.glob(f"*-{QUANT_VERSION}{MAPPED_SUFFIX}"))
    opts = ort.SessionOptions()
    opts.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    ort.InferenceSession(str(graph), opts, providers=["CPUExecutionProvider"], disabled_optimizers=disabled)
    ops = {n.op_type for n in onnx.load(str(tmp_path / "optimized.onnx"), load_external_data=False).graph.node}
    assert ("SkipLayerNormalization" in ops) is (not disabled)
    assert "QAttention" in ops


def test_precision_setting_reaches_the_embedder(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("RAGLINE_EMBEDDER__PRECISION", "fp32")
    settings = Settings(home=tmp_path)
    assert settings.embedder.precision == "fp32"
    assert make_embedder(settings.embedder).precision == "fp32"
    assert make_embedder(EmbedderSettings()).precision == "int8"  # the default


def test_a_bad_precision_is_refused_with_its_name(monkeypatch, tmp_path) -> None:
    with pytest.raises(ValueError, match="precision"):
        EmbedderSettings(precision="int4")
    with pytest.raises(ConfigError, match="precision 'fp16'"):
        MiniLMEmbedder(precision="fp16")


def test_embedding_cache_keeps_precisions_apart() -> None:
    fp32, int8 = MiniLMEmbedder(), MiniLMEmbedder(precision="int8")
    assert cache_model_key(fp32) == fp32.model_id
    assert cache_model_key(int8) == f"{int8.model_id}#int8-{QUANT_VERSION}"  # a new recipe, a new key
    assert cache_model_key(CountingEmbedder(int8)) == f"{int8.model_id}#int8-{QUANT_VERSION}"


def test_quantizing_something_that_is_not_a_model_fails_clearly() -> None:
    from ragline.errors import EmbedderError

    with pytest.raises(EmbedderError, match="int8 quantization failed"):
        quantize_graph(b"not an onnx model")


def test_a_model_told_to_read_fewer_tokens_embeds_the_head_and_keys_its_cache_apart(minilm) -> None:
    """``embedder.max_tokens`` (the fast preset's 190): a long text's vector is its head's,
    a short text's is unchanged, and the cache never mixes it with whole readings."""
    head = MiniLMEmbedder(read_tokens=30)
    assert (head.max_tokens, head.model_max_seq_length) == (30, 256)
    text = " ".join(f"clause {i} limits the daily transfer amount" for i in range(20))  # ~140 tokens
    first_30 = head.tokenizer().decode(head.tokenizer().encode(text, add_special_tokens=False).ids[:30])
    np.testing.assert_allclose(head.embed_documents([text])[0], minilm.embed_documents([first_30])[0], atol=1e-5)
    assert float(head.embed_documents([text])[0] @ minilm.embed_documents([text])[0]) < 0.99  # not the whole
    np.testing.assert_allclose(head.embed_documents(["short text"])[0], minilm.embed_documents(["short text"])[0],
                               atol=1e-6)
    assert cache_model_key(head) == f"{head.model_id}#read30"
    assert cache_model_key(MiniLMEmbedder(read_tokens=600)) == head.model_id  # more than the model reads: all
    assert make_embedder(EmbedderSettings(max_tokens=190, precision="int8")).max_tokens == 190
    with pytest.raises(ValueError, match="max_tokens"):
        EmbedderSettings(max_tokens=4)
