"""Within one process a graph is quantized once, whatever home's cache asks for it
(int8 is the default precision: tests on fresh homes must not re-quantize each time)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ragline.embed import quantize


def _matmul_model(seed: int) -> bytes:
    weights = np.random.default_rng(seed).standard_normal((8, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializer=[numpy_helper.from_array(weights, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_the_same_graph_is_quantized_once_per_process(monkeypatch) -> None:
    model = _matmul_model(1)
    first = quantize.quantize_graph(model)
    assert any(n.op_type.startswith(("MatMulInteger", "DynamicQuantize")) for n in onnx.load_from_string(first).graph.node)

    def must_not_run(*args, **kwargs):
        raise AssertionError("quantized again")

    monkeypatch.setattr(quantize, "_quantize", must_not_run)
    assert quantize.quantize_graph(model) == first
    with pytest.raises(AssertionError, match="quantized again"):  # another graph is another key
        quantize.quantize_graph(_matmul_model(2))
