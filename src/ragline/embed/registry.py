"""The embedder registry: provider name → how to build it, where its defaults come
from, what to install. The facts of the models ragline knows (dimension, input
limit in tokens, measured abstain floor) are in ``models.py``; this module imports
the implementations, and none of them imports it.

The factory is the edge where the usual provider variables (``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``GEMINI_API_KEY``/``GOOGLE_API_KEY``, ``OLLAMA_HOST``) are read;
explicit ``RAGLINE_EMBEDDER__*`` settings win over them. Messages that list the
choices take them from ``EMBEDDERS``, never from a hand-typed list.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, EmbedderError
from ..providers.endpoint import ollama_host, resolve_endpoint
from ..providers.policy import reply_bytes
from ..settings import EmbedderSettings
from .base import Embedder
from .models import MINILM, MINILM_INSTALL_HINT, model_facts


@dataclass(frozen=True)
class EmbedderSpec:
    """How to build one named embedder. ``factory(settings, spec, cache_dir, env)``."""

    factory: Callable[..., Embedder]
    description: str
    model: str | None = None  # default model
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    install_hint: str | None = None  # how to install what it needs, for messages
    url_form: Callable[[str], str] | None = None  # how a URL setting or variable is written out


def _minilm(settings: EmbedderSettings, spec: EmbedderSpec, cache_dir: Path | None, env: Mapping[str, str]):
    from .minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=settings.batch_size, threads=settings.threads, cache_dir=cache_dir,
                          precision=settings.precision, read_tokens=settings.max_tokens)


def _hashing(settings: EmbedderSettings, spec: EmbedderSpec, cache_dir: Path | None, env: Mapping[str, str]):
    from .hashing import HashingEmbedder

    return HashingEmbedder()


def _remote(module: str, cls: str) -> Callable[..., Embedder]:
    def factory(settings: EmbedderSettings, spec: EmbedderSpec, cache_dir: Path | None, env: Mapping[str, str]):
        import importlib

        provider = getattr(importlib.import_module(f"{__package__}.{module}"), cls)
        return provider(**remote_options(settings, spec, env))

    return factory


def _local(settings: EmbedderSettings, spec: EmbedderSpec, cache_dir: Path | None, env: Mapping[str, str]):
    from .local import LocalEmbedder

    return LocalEmbedder.from_setting(settings, cache_dir=cache_dir)


EMBEDDERS: dict[str, EmbedderSpec] = {
    "minilm": EmbedderSpec(_minilm, "all-MiniLM-L6-v2 on ONNX Runtime, bundled and offline (the default)",
                           model=MINILM, install_hint=MINILM_INSTALL_HINT),
    "hashing": EmbedderSpec(_hashing, "hashed words and trigrams: fast, lexical, no model (tests)",
                            model="ragline/hashing-v1"),
    "openai": EmbedderSpec(_remote("openai", "OpenAIEmbedder"),
                           "OpenAI-compatible /embeddings (OpenAI, Azure, Ollama /v1, vLLM, LM Studio)",
                           model="text-embedding-3-small", base_url="https://api.openai.com/v1",
                           key_env=("OPENAI_API_KEY",), base_url_env=("OPENAI_BASE_URL",)),
    "gemini": EmbedderSpec(_remote("gemini", "GeminiEmbedder"),
                           "Google Gemini batchEmbedContents with task types",
                           model="text-embedding-004", base_url="https://generativelanguage.googleapis.com/v1beta",
                           key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY")),
    "ollama": EmbedderSpec(_remote("ollama", "OllamaEmbedder"), "Ollama's native /api/embed",
                           model="nomic-embed-text", base_url="http://127.0.0.1:11434", base_url_env=("OLLAMA_HOST",),
                           url_form=ollama_host),  # OLLAMA_HOST and the setting may be host:port
    "local": EmbedderSpec(_local, "a BERT-family sentence-embedding model from a folder (embedder.path)"),
}


def make_embedder(settings: EmbedderSettings, cache_dir: Path | None = None,
                  env: Mapping[str, str] | None = None) -> Embedder:
    """Build the embedder named in settings (local models load lazily, on first use)."""
    name = settings.name.strip().lower()
    spec = EMBEDDERS.get(name)
    if spec is None:
        raise ConfigError(f"unknown embedder {settings.name!r} in RAGLINE_EMBEDDER__NAME; "
                          f"choose one of: {', '.join(EMBEDDERS)}")
    try:
        return spec.factory(settings, spec, cache_dir, os.environ if env is None else env)
    except ImportError as exc:  # a dependency of this provider is missing
        hint = f"; install it with: {spec.install_hint}" if spec.install_hint else ""
        raise EmbedderError(f"the {name} embedder cannot be loaded: {exc}{hint}") from exc


def remote_options(settings: EmbedderSettings, spec: EmbedderSpec, env: Mapping[str, str]) -> dict[str, Any]:
    """Constructor arguments of a remote embedder: settings first, then the provider's
    variables, then its defaults. A missing key against the provider's own URL is
    reported at the first call, naming the settings that would supply it."""
    name = settings.name.strip().lower()
    setting_url = settings.base_url or None
    if setting_url is not None and spec.url_form is not None:
        setting_url = spec.url_form(setting_url)
    endpoint = resolve_endpoint(
        label=f"the {name} embedder", default_url=spec.base_url, base_url=setting_url, api_key=settings.api_key,
        url_env=spec.base_url_env, key_env=spec.key_env, key_setting="RAGLINE_EMBEDDER__API_KEY",
        needs_key=bool(spec.key_env), env=env, url_form=spec.url_form)
    return {"name": name, "base_url": endpoint.base_url, "model": settings.model or spec.model,
            "api_key": endpoint.api_key, "dimensions": settings.dimensions, "batch_size": settings.batch_size,
            "timeout": settings.timeout, "max_retries": settings.max_retries, "backoff": settings.retry_backoff,
            "max_wait": settings.retry_max_wait, "deadline": settings.deadline_s,
            "max_reply_bytes": reply_bytes(settings.max_reply_mb), "missing_key": endpoint.missing_key, "key_env": spec.key_env}


def abstain_floor(embedder: Embedder) -> float | None:
    """The measured abstain floor of the embedder's model, if any."""
    facts = model_facts(embedder.model_id)
    return facts.abstain_floor if facts is not None else None


def max_tokens(embedder: Embedder) -> int | None:
    """The embedder's input limit in tokens: its own, else the registry's fact."""
    limit = getattr(embedder, "max_tokens", None)
    if limit is None:
        facts = model_facts(embedder.model_id)
        limit = facts.max_tokens if facts is not None else None
    return limit


def default_tokenizer():
    """The bundled model's wordpiece tokenizer (``tokenizers.Tokenizer``): the token
    counter for embedders without one of their own (remote APIs, whose BPE
    tokenizers cannot be fetched offline). Wordpiece counts run a little above BPE
    counts for English prose, so a budget measured with it is a safe upper bound."""
    from .minilm import load_tokenizer

    return load_tokenizer()


def settings_for(model: str, settings: EmbedderSettings) -> EmbedderSettings:
    """The settings of the embedder ``model`` names: a registry name (``minilm``), a
    provider and its model (``openai/text-embedding-3-large``, ``ollama/bge-m3``), or a
    default model id (``sentence-transformers/all-MiniLM-L6-v2``). The configured
    ``base_url`` and ``api_key`` are kept only for the configured provider."""
    text = model.strip()
    name, chosen = text.lower(), None
    if name not in EMBEDDERS:
        by_model = {spec.model.lower(): n for n, spec in EMBEDDERS.items() if spec.model}
        prefix, _, rest = text.partition("/")
        if name in by_model:
            name = by_model[name]
        elif prefix.lower() in EMBEDDERS and rest:
            name, chosen = prefix.lower(), rest
        else:
            raise ConfigError(f"unknown embedding model {model!r}: name an embedder ({', '.join(EMBEDDERS)}) "
                              "or <embedder>/<model>, e.g. openai/text-embedding-3-small")
    own = name == settings.name.strip().lower()
    update: dict[str, Any] = {"name": name, "model": chosen or (settings.model if own else None)}
    if not own:
        update.update(base_url=None, api_key=None, dimensions=None, path=None)
    return settings.model_copy(update=update)
