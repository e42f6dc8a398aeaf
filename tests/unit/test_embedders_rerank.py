"""The rerank seam: cosine re-sort, a cross-encoder from a folder (a tiny ONNX model
made here that scores a pair by its passage length, read through the same
tokenizer and inputs a real one uses), and a failing reranker keeping the order."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ragline.embed.minilm import default_model_dir
from ragline.engine import Engine
from ragline.errors import ConfigError
from ragline.models import Block, Document, Scope
from ragline.retrieve.rerank import CrossEncoderReranker
from ragline.settings import EmbedderSettings, SearchSettings, Settings

S = Scope("acme", ("kb",))
DOCS = {"a.txt": "Card fees are waived for students.",
        "b.txt": "Card fees for business accounts are charged monthly, with a discount for the first year of use.",
        "c.txt": "Student accounts have no fees.",
        "d.txt": "Branches open at nine."}


def engine_with(tmp_path: Path, **search) -> Engine:
    engine = Engine(Settings(home=tmp_path, embedder=EmbedderSettings(name="hashing"), search=SearchSettings(**search)))
    engine.add_documents([Document(s, [Block(t)]) for s, t in DOCS.items()], S)
    return engine


def pair_length_model(folder: Path) -> Path:
    """A 'cross-encoder' whose logit is the number of passage tokens (segment B)."""
    from onnx import TensorProto, helper

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "s"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    nodes = [helper.make_node("Cast", ["token_type_ids"], ["types"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["types", "axes"], ["logits"], keepdims=1)]
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    graph = helper.make_graph(nodes, "pair-length", inputs,
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 1])], [axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx" / "model.onnx").write_bytes(model.SerializeToString())
    shutil.copy(default_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    return folder


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_cosine_rerank_orders_by_the_question_chunk_cosine(tmp_path: Path, mode: str) -> None:
    engine = engine_with(tmp_path, rerank="cosine")
    try:
        hits = engine.search("student card fees", S, mode=mode, k=3).hits
        q = engine.embedder.embed_query("student card fees")
        stored = engine.store.vectors(S, [h.chunk_id for h in hits])
        assert [h.score for h in hits] == pytest.approx([float(np.dot(stored[h.chunk_id], q)) for h in hits])
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    finally:
        engine.close()


def test_cross_encoder_rerank_reads_pairs(tmp_path: Path) -> None:
    folder = pair_length_model(tmp_path / "ce")
    engine = engine_with(tmp_path / "home", rerank="cross-encoder", rerank_model=str(folder))
    try:
        hits = engine.search("card fees for a very long question about many different things", S, k=3).hits
        assert hits[0].source == "b.txt"  # the longest passage: the toy model's favourite
        reranker = CrossEncoderReranker(folder)
        scores = reranker.scores("q", ["one", "one two three"])
        pairs = [reranker._load()[0].encode("q", p) for p in ("one", "one two three")]
        assert scores.tolist() == [float(sum(e.type_ids)) for e in pairs] == [2.0, 4.0]  # segment B: passage + [SEP]
    finally:
        engine.close()


def test_a_broken_cross_encoder_keeps_the_search_order(tmp_path: Path) -> None:
    folder = pair_length_model(tmp_path / "ce")
    (folder / "onnx" / "model.onnx").write_bytes(b"not a model")
    plain = engine_with(tmp_path / "plain")
    broken = engine_with(tmp_path / "broken", rerank="cross-encoder", rerank_model=str(folder))
    try:
        want = [h.chunk_id for h in plain.search("card fees", S, k=3).hits]
        assert [h.chunk_id for h in broken.search("card fees", S, k=3).hits] == want
    finally:
        plain.close()
        broken.close()


def test_rerank_settings_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs RAGLINE_SEARCH__RERANK_MODEL"):
        engine_with(tmp_path / "a", rerank="cross-encoder").search("fees", S)
    with pytest.raises(ConfigError, match=r"RAGLINE_SEARCH__RERANK_MODEL=.*missing tokenizer.json, onnx/model.onnx"):
        CrossEncoderReranker(tmp_path)
