"""int8 dynamic quantization of the fused BERT graph (``embedder.precision: int8``).

Why: on 2 cores the encoder's MatMuls dominate ingest time, and ONNX Runtime's
int8 kernels (AVX512-VNNI here) run them about twice as fast as fp32.
Per-tensor scales lose too much (cosine 0.935 against fp32), so weights get one
scale per output channel. The ``MatMul`` nodes (attention output projection, the
two feed-forward layers) and the fused ``Attention`` nodes (whose QKV projection
becomes int8 in ``QAttention``) are quantized by default; the attention scores,
the layer norms and the embedding table stay fp32.

The quantized graph is a pure function of the fp32 graph and ``QUANT_VERSION``,
so it is cached on disk beside the fp32 one (``bert.BertEmbedder._model_source``).
Within one process it is also kept (as a file in a private temporary folder,
removed at exit, not in memory): engines on several homes, as in the tests, then
quantize once, not once per home.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import logging
import shutil
import tempfile
from pathlib import Path

from ragline.errors import EmbedderError

# Bump when the quantization recipe changes so stale cached graphs are not reused.
QUANT_VERSION = "int8pc-v3"
PRECISIONS = ("fp32", "int8")
DEFAULT_OP_TYPES = ("MatMul", "Attention")  # Attention becomes QAttention
_made: dict[str, Path] = {}  # this process's quantized graphs, by input digest and recipe


@functools.cache
def _folder() -> Path:
    """This process's private folder for quantized graphs, removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="ragline-quant-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _remember(key: str, data: bytes) -> None:
    """Keep ``data`` for this process (best effort)."""
    try:
        path = _folder() / f"{key}.onnx"
        path.write_bytes(data)
        _made[key] = path
    except OSError:
        pass


def quantize_graph(fp32_model: bytes, *, op_types: tuple[str, ...] = DEFAULT_OP_TYPES,
                   per_channel: bool = True, reduce_range: bool = False) -> bytes:
    """The int8 (weights) / uint8 (activations, dynamic) version of an fp32 ONNX
    model, serialized. ``EmbedderError`` when ONNX Runtime's quantizer fails."""
    key = "-".join([hashlib.sha256(fp32_model).hexdigest()[:24], *op_types, str(per_channel), str(reduce_range),
                    QUANT_VERSION])
    if key in _made:
        try:
            return _made[key].read_bytes()
        except OSError:
            del _made[key]
    data = _quantize(fp32_model, op_types, per_channel, reduce_range)
    _remember(key, data)
    return data


def _quantize(fp32_model: bytes, op_types: tuple[str, ...], per_channel: bool, reduce_range: bool) -> bytes:
    try:
        from onnx import TensorProto
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # onnxruntime without its quantization tools
        raise EmbedderError(f"embedder.precision=int8 needs onnxruntime.quantization: {exc}") from exc
    root = logging.getLogger()  # the quantizer warns on the root logger ("consider pre-processing")
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with tempfile.TemporaryDirectory(prefix="ragline-quant-") as tmp:
            src, dst = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
            src.write_bytes(fp32_model)
            quantize_dynamic(str(src), str(dst), per_channel=per_channel, reduce_range=reduce_range,
                             weight_type=QuantType.QInt8, op_types_to_quantize=list(op_types),
                             # Shape inference cannot type the outputs of ORT's contrib ops.
                             extra_options={"DefaultTensorType": TensorProto.FLOAT})
            return dst.read_bytes()
    except Exception as exc:  # onnx / ORT errors on a graph it cannot handle
        raise EmbedderError(f"int8 quantization failed: {type(exc).__name__}: {str(exc)[:300]}") from exc
    finally:
        root.setLevel(level)
