"""Any BERT-family sentence-embedding model from a local folder (``embedder.path``):
safetensors or an exported ONNX encoder, plus ``tokenizer.json``. What
sentence-transformers would do is read from the folder's own files:

- ``config.json``: the width (``hidden_size``);
- ``sentence_bert_config.json``: ``max_seq_length`` (else ``max_position_embeddings``, at most 512);
- ``1_Pooling/config.json``: CLS, max or mean pooling;
- ``config_sentence_transformers.json``: the ``prompts`` for queries and passages
  (E5's ``"query: "`` / ``"passage: "``, BGE's query instruction).

``embedder.path`` may also be a Hugging Face hub id (``org/name``): it is then
downloaded once into ``<home>/models/hub`` when the machine is online (the
optional ``huggingface_hub`` package); offline, the error says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError, EmbedderError
from ..settings import EmbedderSettings
from .bert import BertEmbedder, missing_files

_HUB_FILES = ["*.json", "*.txt", "model.safetensors", "onnx/model.onnx", "1_Pooling/*"]
_SETTING = "RAGLINE_EMBEDDER__PATH"


class LocalEmbedder(BertEmbedder):
    """A model folder's sentence embeddings; build it with ``from_setting``."""

    cache_prefix = "local"
    missing_hint = f"{_SETTING} must name a folder holding them"

    @classmethod
    def from_setting(cls, settings: EmbedderSettings, cache_dir: Path | None = None) -> LocalEmbedder:
        """Check the folder now (a clear error naming the setting, before anything is
        stored), read its configuration, and load the model on first use."""
        if not settings.path:
            raise ConfigError(f"the local embedder needs {_SETTING}: a model folder or a Hugging Face hub id")
        folder, model_id = _resolve(settings.path, cache_dir)
        missing = missing_files(folder)
        if missing:
            raise EmbedderError(f"{_SETTING}={settings.path!r}: model files missing in {folder}: {', '.join(missing)}")
        return cls(folder, model_id=settings.model or model_id, batch_size=settings.batch_size,
                   threads=settings.threads, cache_dir=cache_dir, precision=settings.precision,
                   read_tokens=settings.max_tokens, **read_folder(folder))


def read_folder(folder: Path) -> dict[str, Any]:
    """The pipeline a sentence-transformers folder describes: dimension, pooling,
    prefixes, maximum length."""
    config = _json(folder / "config.json")
    if "hidden_size" not in config:
        raise EmbedderError(f"{_SETTING}: {folder / 'config.json'} has no hidden_size: not a BERT-family model")
    pooling_config = _json(folder / "1_Pooling" / "config.json")
    pooling = ("cls" if pooling_config.get("pooling_mode_cls_token") else
               "max" if pooling_config.get("pooling_mode_max_tokens") else "mean")
    prompts = _json(folder / "config_sentence_transformers.json").get("prompts") or {}
    length = _json(folder / "sentence_bert_config.json").get("max_seq_length") \
        or min(512, int(config.get("max_position_embeddings", 512)))
    return {"dimension": int(config["hidden_size"]), "pooling": pooling, "max_seq_length": int(length),
            "query_prefix": prompts.get("query", ""),
            "passage_prefix": prompts.get("passage", prompts.get("document", ""))}


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedderError(f"{_SETTING}: cannot read {path}: {exc}") from exc
    return data if isinstance(data, dict) else {}


def _resolve(path: str, cache_dir: Path | None) -> tuple[Path, str]:
    """(the model folder, the model id the collection records)."""
    folder = Path(path).expanduser()
    if folder.is_dir():
        return folder, f"local/{folder.resolve().name}"
    if path.count("/") != 1 or path.startswith((".", "/", "~")):
        raise EmbedderError(f"{_SETTING}={path!r} is not a folder (nor a Hugging Face hub id, org/name)")
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise EmbedderError(f"{_SETTING}={path!r} is not a folder; downloading it needs: pip install "
                            "huggingface_hub") from exc
    try:
        local = snapshot_download(path, allow_patterns=_HUB_FILES,
                                  cache_dir=str(cache_dir / "hub") if cache_dir is not None else None)
    except Exception as exc:  # offline, unknown repository, gated model: all say why
        raise EmbedderError(f"{_SETTING}={path!r} is not a folder, and downloading it from the Hugging Face hub "
                            f"failed (offline?): {type(exc).__name__}: {str(exc)[:300]}") from exc
    return Path(local), path
