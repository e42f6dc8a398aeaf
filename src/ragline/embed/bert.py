"""BERT-family sentence embeddings on ONNX Runtime, without torch: the encoder
behind the bundled MiniLM (``minilm.py``) and behind any local model folder
(``local.py``).

Weights come from ``model.safetensors`` (parsed with numpy, then built into an
ONNX graph of ORT's fused CPU contrib ops, EmbedLayerNormalization, Attention and
BiasGelu, with plain Add + LayerNormalization) or from an exported ``model.onnx`` (its inputs
fed by name and type). On top, sentence-transformers' pipeline: optional query /
passage prefixes, truncation to ``max_seq_length``, pooling (mean, CLS or max over
the attention mask), L2 normalisation.

Failures are ``EmbedderError`` with the reason, at this boundary: ONNX Runtime's
own exceptions (``Fail``, ``InvalidArgument``, … plain ``Exception`` subclasses),
the tokenizer's, and output that is not ``(n, dimension)`` finite numbers. Callers
degrade on it: search to keyword only, ingestion fails the batch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError, EmbedderError
from .graph_cache import mapped_form, mapped_graph, materialising, weights_digest, write_atomic
from .quantize import PRECISIONS, QUANT_VERSION, quantize_graph
from .vectors import check_vectors

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# Bump when the graph layout changes so stale cached models are not reused.
GRAPH_VERSION = "att-ln-v1"
_SORT_WINDOW = 4096  # texts tokenized and length-sorted together
TOKEN_BUDGET = 8 * 256  # padded tokens per ONNX Runtime batch (bounds peak activation memory)
POOLINGS = ("mean", "cls", "max")
# ORT rewrites that undo the graph's layout: Add + LayerNormalization back into its slower
# SkipLayerNormalization (see build_bert_graph). Off for every session: an exported graph's
# Add + LayerNormalization pairs would run on the same two kernels (not measured apart).
UNFUSED_OPTIMIZERS = ["SkipLayerNormFusion"]


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
        standard = op in ("MatMul", "Add", "LayerNormalization")  # everything else is a contrib op
        domain = "" if standard else "com.microsoft"
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], domain=domain, **attrs))
        return outs[0]

    if any(k.startswith("bert.") for k in w):  # a BertModel saved inside a task model
        w = {k.removeprefix("bert."): v for k, v in w.items()}
    # token_type_ids are always 0, so fold token_type_embeddings[0] into the
    # position table and skip the optional segment inputs.
    e = "embeddings."
    x = node("EmbedLayerNormalization", [
        "input_ids", "", const("word_emb", w[e + "word_embeddings.weight"]),
        const("pos_emb", w[e + "position_embeddings.weight"] + w[e + "token_type_embeddings.weight"][0]),
        "", const("emb_ln_g", w[e + "LayerNorm.weight"]), const("emb_ln_b", w[e + "LayerNorm.bias"]),
        "attention_mask",
    ], ["emb_out", "mask_index"], epsilon=eps)  # mask_index[b] = number of real tokens

    def add_layer_norm(a: str, b: str, bias: str, gamma: str, beta: str, out: str) -> str:
        # Add + LayerNormalization rather than ORT's fused SkipLayerNormalization: its CPU kernel
        # is scalar and took 16% of the encoder's time; these take 9% (the bias add folds into
        # the MatMul before it). Sessions keep ORT from re-fusing them (UNFUSED_OPTIMIZERS).
        summed = node("Add", [node("Add", [a, bias], f"{out}_biased"), b], f"{out}_sum")
        return node("LayerNormalization", [summed, gamma, beta], out, axis=-1, epsilon=eps)

    for i in range(cfg["num_hidden_layers"]):
        p, a = f"encoder.layer.{i}.", f"encoder.layer.{i}.attention."
        # torch Linear stores [out, in]; MatMul wants [in, out]. Q|K|V packed side by side.
        qkv_w = np.concatenate([w[f"{a}self.{k}.weight"].T for k in ("query", "key", "value")], axis=1)
        qkv_b = np.concatenate([w[f"{a}self.{k}.bias"] for k in ("query", "key", "value")])
        # ORT's fused Attention (QKV projection, bias, masking by each row's length); under
        # embedder.precision=int8 it becomes QAttention, the projection in int8 like the other
        # MatMuls (docs/embedders.md has the layouts measured).
        att = node("Attention", [x, const(f"l{i}_qkv_w", qkv_w), const(f"l{i}_qkv_b", qkv_b), "mask_index"],
                   f"l{i}_att", num_heads=heads)
        proj = node("MatMul", [att, const(f"l{i}_ao_w", w[a + "output.dense.weight"].T)], f"l{i}_ao")
        x = add_layer_norm(proj, x, const(f"l{i}_ao_b", w[a + "output.dense.bias"]),
                           const(f"l{i}_ln1_g", w[a + "output.LayerNorm.weight"]),
                           const(f"l{i}_ln1_b", w[a + "output.LayerNorm.bias"]), f"l{i}_ln1")
        h = node("MatMul", [x, const(f"l{i}_ff1_w", w[p + "intermediate.dense.weight"].T)], f"l{i}_ff1")
        h = node("BiasGelu", [h, const(f"l{i}_ff1_b", w[p + "intermediate.dense.bias"])], f"l{i}_gelu")  # erf GELU
        h = node("MatMul", [h, const(f"l{i}_ff2_w", w[p + "output.dense.weight"].T)], f"l{i}_ff2")
        x = add_layer_norm(h, x, const(f"l{i}_ff2_b", w[p + "output.dense.bias"]),
                           const(f"l{i}_ln2_g", w[p + "output.LayerNorm.weight"]),
                           const(f"l{i}_ln2_b", w[p + "output.LayerNorm.bias"]),
                           "last_hidden_state" if i == cfg["num_hidden_layers"] - 1 else f"l{i}_ln2")

    graph = helper.make_graph(
        nodes, "minilm",
        [helper.make_tensor_value_info(n, TensorProto.INT32, ["batch", "seq"]) for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    # Pin the IR version: onnx's default can be newer than ORT accepts.
    return helper.make_model(graph, opset_imports=opsets, producer_name="ragline", ir_version=8)


def onnx_file(model_dir: Path) -> Path | None:
    """An exported encoder in the folder (``onnx/model.onnx`` or ``model.onnx``), if any."""
    return next((p for p in (model_dir / "onnx" / "model.onnx", model_dir / "model.onnx") if p.is_file()), None)


def missing_files(model_dir: Path) -> list[str]:
    """What a model folder lacks: config, tokenizer, and weights in one of two forms."""
    missing = [f for f in ("config.json", "tokenizer.json") if not (model_dir / f).is_file()]
    if not (model_dir / "model.safetensors").is_file() and onnx_file(model_dir) is None:
        missing.append("model.safetensors (or onnx/model.onnx)")
    return missing


def _available_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # respects taskset / container CPU pinning
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class BertEmbedder:
    """Sentence embeddings (``dimension``-d, L2-normalised) from a BERT-family model
    folder on ONNX Runtime.

    The model is loaded lazily on first use (thread-safe). Texts are batched in
    order of token length so batches carry little padding; results come back in
    the caller's order. ``cache_dir``, if given, keeps the ONNX graph built from
    safetensors (keyed by a hash of the weights) so later processes skip the build.
    """

    cache_prefix = "bert"
    spin = False  # ORT intra-op threads busy-wait between ops (see _make_session)
    arena = True  # ORT's CPU memory arena (see _make_session)
    missing_hint = "set RAGLINE_EMBEDDER__PATH to a folder holding them"

    def __init__(self, model_dir: Path | None, *, model_id: str, dimension: int, batch_size: int = 32,
                 threads: int | None = None, cache_dir: Path | None = None, pooling: str = "mean",
                 query_prefix: str = "", passage_prefix: str = "", max_seq_length: int = 256,
                 precision: str = "fp32", read_tokens: int | None = None) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        if pooling not in POOLINGS:
            raise EmbedderError(f"{model_id}: pooling {pooling!r} is not supported; one of: {', '.join(POOLINGS)}")
        if precision not in PRECISIONS:
            raise ConfigError(f"embedder.precision {precision!r} is not supported; one of: {', '.join(PRECISIONS)}")
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self.model_id = model_id
        self.dimension = dimension
        self.batch_size = batch_size
        self.threads = threads or _available_cpus()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.pooling = pooling
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        # ``read_tokens`` (embedder.max_tokens): read fewer tokens than the model can, a text's
        # head only (the fast preset); the model's own limit is kept apart for the cache key.
        self.model_max_seq_length = max_seq_length
        if read_tokens is not None and read_tokens < 1:
            raise ConfigError(f"embedder.max_tokens must be >= 1, got {read_tokens}")
        self.max_seq_length = max_seq_length if read_tokens is None else min(max_seq_length, read_tokens + 2)
        self.precision = precision
        self._lock = threading.Lock()
        self._session = None
        self._inputs: dict[str, str] = {}
        self._tokenizer: Tokenizer | None = None
        self._specials = 0  # special tokens the tokenizer adds to each text (set with the tokenizer)

    # -- loading ---------------------------------------------------------
    def model_dir(self) -> Path:
        """The model folder, checked: ``EmbedderError`` naming what is missing."""
        path = self._model_dir
        if path is None:
            raise EmbedderError(f"{self.model_id}: no model folder; {self.missing_hint}")
        missing = missing_files(path)
        if missing:
            raise EmbedderError(f"{self.model_id} model files missing in {path}: {', '.join(missing)}; "
                                f"{self.missing_hint}")
        return path

    def _get_tokenizer(self):
        # Separate from the session so count_tokens never pays for the model.
        if self._tokenizer is not None:
            return self._tokenizer
        with self._lock:
            if self._tokenizer is None:
                from tokenizers import Tokenizer

                path = self.model_dir() / "tokenizer.json"
                try:
                    tokenizer = Tokenizer.from_file(str(path))
                except Exception as exc:  # a corrupt tokenizer.json, a tokenizers version mismatch
                    raise EmbedderError(f"failed to load the {self.model_id} tokenizer: {_reason(exc)}") from exc
                tokenizer.no_padding()  # tokenizer.json files often fix both at 128
                tokenizer.no_truncation()
                self._specials = len(tokenizer.encode("").ids)  # added to each text: [CLS] and [SEP] for BERT
                self._tokenizer = tokenizer
            return self._tokenizer

    def _get_session(self):
        if self._session is not None:
            return self._session
        with self._lock:
            if self._session is not None:
                return self._session
            model_dir = self.model_dir()
            try:
                cfg = json.loads((model_dir / "config.json").read_text())
                session = self._make_session(model_dir, cfg)
                self._inputs = {i.name: i.type for i in session.get_inputs()}
                unknown = set(self._inputs) - {"input_ids", "attention_mask", "token_type_ids"}
                if unknown:
                    raise EmbedderError(f"{self.model_id}: model inputs {sorted(unknown)} are not supported")
                self._session = session
            except EmbedderError:
                raise
            except Exception as exc:  # corrupt files, ORT failures, ...
                raise EmbedderError(f"failed to load {self.model_id} from {model_dir}: {exc}") from exc
            return self._session

    def _model_source(self, model_dir: Path, cfg: dict) -> str | bytes:
        """What ORT loads: a cached graph file's path (mapped, not copied into Python)
        or, without a cache dir, the serialized graph."""
        exported = onnx_file(model_dir)
        weights = model_dir / "model.safetensors"
        source: Path | bytes
        if exported is not None and not weights.is_file():
            source = exported
        elif cfg.get("model_type", "bert") != "bert":
            raise EmbedderError(f"{self.model_id}: model_type {cfg.get('model_type')!r} from safetensors is not "
                                "supported (BERT only); export it to onnx/model.onnx")
        else:
            source = self._fp32_graph(weights, cfg)
        if self.precision == "fp32":
            return str(source) if isinstance(source, Path) else source
        # int8: cached beside the fp32 graph, keyed by its content and the recipe.
        if self.cache_dir is None:
            return quantize_graph(source.read_bytes() if isinstance(source, Path) else source)
        digest = (weights_digest(source, self.cache_dir) if isinstance(source, Path)  # H2: not re-read per process
                  else hashlib.sha256(source).hexdigest())[:16]
        cached = self.cache_dir / f"{self.cache_prefix}-{digest}-{QUANT_VERSION}.onnx"
        mapped = mapped_form(cached)  # the int8 graph is kept mapped only (its weights on disk once)
        if mapped is not None:
            return str(mapped)
        if not cached.is_file():
            fp32 = source.read_bytes() if isinstance(source, Path) else source
            if not write_atomic(cached, quantize_graph(fp32)):  # a read-only or full cache dir
                return quantize_graph(fp32)
        return str(cached)

    def _fp32_graph(self, weights: Path, cfg: dict) -> Path | bytes:
        """The fused fp32 graph built from safetensors: its cached file, or bytes."""
        cached = None
        if self.cache_dir is not None:
            digest = weights_digest(weights, self.cache_dir)  # H2 (issue 13): not re-hashed per process
            cached = self.cache_dir / f"{self.cache_prefix}-{digest[:16]}-{GRAPH_VERSION}.onnx"
            if cached.is_file():
                return cached
        data = build_bert_graph(read_safetensors(weights), cfg).SerializeToString()
        if cached is not None:
            write_atomic(cached, data)
        return data

    def _make_session(self, model_dir: Path, cfg: dict):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        # Idle pool threads sleep instead of spinning: on a shared machine a spinning pool
        # burns the cores other requests (and other tenants' workers) need.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if self.spin else "0")
        # With the arena a batch's activations are reused from one block, kept for the
        # life of the session; without it every op's output is a malloc, and glibc's
        # fragmentation held more than the arena does. Embedding 1,200 SciFact chunks
        # (8 x 256-token batches): 11.1k tokens/s and 286 MB peak RSS with the arena,
        # 10.1k and 394 MB without (16 x 256: 10.9k / 379 MB and 8.7k / 455 MB).
        opts.enable_cpu_mem_arena = self.arena
        # One process at a time builds the cached graphs (the server and its ingestion child
        # start together); the other waits, then finds them built.
        with materialising(self.cache_dir) if self.cache_dir is not None else contextlib.nullcontext():
            source = self._model_source(model_dir, cfg)
            if isinstance(source, str) and Path(source).parent == self.cache_dir:  # H2 (issue 13): weights mapped
                # The int8 graph is ours alone: once mapped, its self-contained copy goes. The fp32
                # graph stays whole: the int8 graph is keyed by and quantized from it.
                source = mapped_graph(source, drop_source=source.endswith(f"-{QUANT_VERSION}.onnx"))
        return ort.InferenceSession(source, opts, providers=["CPUExecutionProvider"],
                                    disabled_optimizers=UNFUSED_OPTIMIZERS)

    # -- public API ------------------------------------------------------
    def warm_up(self) -> None:
        """Load the tokenizer and the ONNX session now (``Engine.warm_up`` runs this in a
        background thread; a concurrent ``embed_*`` call waits for it, under the lock)."""
        self._get_tokenizer()
        self._get_session()

    @property
    def max_tokens(self) -> int:
        """Tokens (as ``count_tokens`` counts them) read before the rest is cut: the
        sequence length less the two special tokens."""
        return self.max_seq_length - 2

    def tokenizer(self):
        """The model's ``tokenizers.Tokenizer`` (loaded on first use, without the model)."""
        return self._get_tokenizer()

    def count_tokens(self, text: str) -> int:
        """Number of tokens in ``text`` (no special tokens, no truncation)."""
        tokenizer = self._get_tokenizer()
        try:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)
        except Exception as exc:
            raise EmbedderError(f"{self.model_id}: tokenizer failed: {_reason(exc)}") from exc

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one question (with the model's query prefix); shape ``(dimension,)``."""
        return self._embed([self.query_prefix + text])[0][0]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages (with the model's passage prefix); shape ``(len(texts),
        dimension)`` float32, caller's order. ``EmbedderError`` when the model cannot."""
        return self.embed_documents_counted(texts)[0]

    def embed_documents_counted(self, texts: Sequence[str]) -> tuple[np.ndarray, int]:
        """``embed_documents`` and the tokens it read (as ``count_tokens`` counts them,
        prefix included, before the cut at ``max_seq_length``), from the one
        tokenization: usage metering without tokenizing every text twice."""
        return self._embed([self.passage_prefix + t for t in texts] if self.passage_prefix else list(texts))

    def _embed(self, texts: list[str]) -> tuple[np.ndarray, int]:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out, 0
        session, tokenizer = self._get_session(), self._get_tokenizer()
        tokens = 0
        # Tokenize and length-sort a window at a time: bounded memory for huge
        # inputs, and most of the padding saving of a global sort.
        for lo in range(0, len(texts), _SORT_WINDOW):
            window = texts[lo : lo + _SORT_WINDOW]
            try:
                encodings = tokenizer.encode_batch(window)
            except Exception as exc:  # tokenizers raises plain Exception (and TypeError for non-str)
                raise EmbedderError(f"{self.model_id}: tokenizer failed: {_reason(exc)}") from exc
            ids = [e.ids for e in encodings]
            tokens += sum(map(len, ids)) - len(ids) * self._specials
            ids = [self._truncate(x) for x in ids]
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
            for batch in self._batches(order, [len(ids[i]) for i in order]):
                out[[lo + i for i in batch]] = self._embed_batch(session, [ids[i] for i in batch])
        return out, tokens

    def _batches(self, order: list[int], lengths: list[int]) -> list[list[int]]:
        """``order`` (ascending by length) cut into batches of at most ``batch_size``
        texts and at most ``TOKEN_BUDGET`` padded tokens (rows × longest): attention
        memory grows with rows × length², so long texts go in smaller batches (32 texts
        of 256 tokens peaked ingest at ~600 MB RSS; 16 at ~450 MB; 8 with the arena at ~290 MB). A text much longer
        than its batch's first starts a new batch: a few dozen sentences of 8–134 tokens
        (an extractive answer's) padded to the longest cost 4× the CPU."""
        out: list[list[int]] = []
        first = 0
        for i, length in zip(order, lengths):
            if (out and len(out[-1]) < self.batch_size and (len(out[-1]) + 1) * length <= TOKEN_BUDGET
                    and length <= 1.5 * first + 8):
                out[-1].append(i)
            else:
                out.append([i])
                first = length
        return out

    def _truncate(self, ids: list[int]) -> list[int]:
        # Same as HF truncation=True: the first (max-1) ids, then the closing special token.
        limit = self.max_seq_length
        return ids if len(ids) <= limit else ids[: limit - 1] + [ids[-1]]

    def _embed_batch(self, session, ids: list[list[int]]) -> np.ndarray:
        seq = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), seq), dtype=np.int64)  # padding is masked out
        mask = np.zeros((len(ids), seq), dtype=np.int64)
        for row, x in enumerate(ids):
            input_ids[row, : len(x)] = x
            mask[row, : len(x)] = 1
        given = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(mask)}
        feeds = {name: given[name].astype(np.int64 if "int64" in kind else np.int32)
                 for name, kind in self._inputs.items()}
        try:
            hidden = session.run(None, feeds)[0]
        except Exception as exc:  # onnxruntime's Fail, InvalidArgument, RuntimeException, …, MemoryError
            raise EmbedderError(f"{self.model_id}: ONNX Runtime failed on a batch of {len(ids)} texts: "
                                f"{_reason(exc)}") from exc
        hidden = np.asarray(hidden, dtype=np.float32)
        if hidden.shape != (len(ids), seq, self.dimension):
            raise EmbedderError(f"{self.model_id}: model output has shape {hidden.shape}, "
                                f"expected {(len(ids), seq, self.dimension)} (wrong dimension)")
        return check_vectors(self._pool(hidden, mask), len(ids), self.dimension, self.model_id)

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """sentence-transformers' pooling, then F.normalize (eps 1e-12)."""
        m = mask[:, :, None].astype(np.float32)
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf are reported by check_vectors
            if self.pooling == "cls":
                pooled = hidden[:, 0]
            elif self.pooling == "max":
                pooled = np.where(m > 0, hidden, -1e9).max(axis=1)
            else:  # masked mean, the count clamped at 1e-9
                pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def _reason(exc: BaseException) -> str:
    """``Fail: [ONNXRuntimeError] …``: the exception's type and message, cut to a readable length."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:500]}" if text else type(exc).__name__
