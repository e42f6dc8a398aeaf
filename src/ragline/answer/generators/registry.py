"""The registry of answer generators by name, and the factory.

The factory is the edge where the usual provider variables (``OPENAI_API_KEY``,
``GEMINI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GROQ_API_KEY``, ``OLLAMA_HOST``,
``OPENAI_BASE_URL``) are read; explicit settings win over them.

Keys stay with their providers. The operator's ``base_url``, ``api_key`` and
``model`` settings belong to the configured generator (``settings.name``) alone; any
other provider is built from its own defaults and its own variables, so a key read
from ``OPENAI_API_KEY`` reaches only OpenAI's URL or the one the operator set for
OpenAI. A request picks a provider by name only, from ``allowed_generators``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from ...embed.base import Embedder
from ...errors import ConfigError
from ...providers.endpoint import ollama_host, resolve_endpoint
from ...providers.policy import reply_bytes
from ...settings import GeneratorSettings
from .base import Generator


@dataclass(frozen=True)
class ProviderSpec:
    """How to build one named generator and where its defaults come from.
    ``url_form`` rewrites a URL read from ``base_url_env`` (Ollama's ``host:port``)."""

    factory: Callable[..., Generator]
    model: str | None = None
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    needs_key: bool = True  # only against the provider's own base URL
    description: str = ""
    url_form: Callable[[str], str] | None = None


# The implementations are imported when first built: a process that answers
# extractively never loads the HTTP stack.
def _openai(**kw: Any) -> Generator:
    from .openai import OpenAIGenerator

    return OpenAIGenerator(**kw)


def _gemini(**kw: Any) -> Generator:
    from .gemini import GeminiGenerator

    return GeminiGenerator(**kw)


def _anthropic(**kw: Any) -> Generator:
    from .anthropic import AnthropicGenerator

    return AnthropicGenerator(**kw)


def _extractive(**kw: Any) -> Generator:
    from .extractive import ExtractiveGenerator

    return ExtractiveGenerator(embedder=kw.get("embedder"))


GENERATORS: dict[str, ProviderSpec] = {
    "extractive": ProviderSpec(_extractive, needs_key=False,
                               description="no model: the source sentences that best answer the question"),
    "openai": ProviderSpec(_openai, "gpt-4o-mini", "https://api.openai.com/v1", ("OPENAI_API_KEY",),
                           ("OPENAI_BASE_URL",), description="any OpenAI-compatible chat completions server"),
    "groq": ProviderSpec(_openai, "llama-3.1-8b-instant", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",),
                         description="Groq (OpenAI-compatible)"),
    "ollama": ProviderSpec(_openai, "llama3.2", "http://127.0.0.1:11434/v1", (), ("OLLAMA_HOST",),
                           needs_key=False, description="Ollama's OpenAI-compatible endpoint",
                           url_form=partial(ollama_host, path="/v1")),  # OLLAMA_HOST has no /v1
    "gemini": ProviderSpec(_gemini, "gemini-2.0-flash", "https://generativelanguage.googleapis.com/v1beta",
                           ("GEMINI_API_KEY", "GOOGLE_API_KEY"), description="Google Gemini generateContent"),
    "anthropic": ProviderSpec(_anthropic, "claude-3-5-haiku-latest", "https://api.anthropic.com/v1",
                              ("ANTHROPIC_API_KEY",), description="Anthropic Messages API"),
}


def allowed_generators(settings: GeneratorSettings) -> tuple[str, ...]:
    """The generator names a request may choose: the configured one first, then
    ``settings.allowed`` (default: ``extractive``). An unknown name there is a
    ``ConfigError``: the operator's list must mean what it says."""
    configured = settings.name.strip().lower()
    listed = settings.allowed if settings.allowed is not None else ("extractive",)
    names = tuple(dict.fromkeys([configured, *(n.strip().lower() for n in listed)]))
    for name in names:
        if name not in GENERATORS:
            where = "generator.name" if name == configured else "generator.allowed"
            raise ConfigError(f"unknown generator {name!r} in {where}; choose from: {', '.join(GENERATORS)}")
    return names


def make_generator(settings: GeneratorSettings, *, name: str | None = None, embedder: Embedder | None = None,
                   env: Mapping[str, str] | None = None) -> Generator:
    """Build the generator named ``name`` (default: ``settings.name``).

    Unknown names raise ``ConfigError`` listing the known ones. A missing API key
    is not an error here: the provider then fails at call time and the answer
    falls back to extractive, saying why. ``settings.base_url``, ``api_key`` and
    ``model`` apply only when ``name`` is ``settings.name``. No allow-list here:
    callers that take a name from a request check ``allowed_generators`` first.
    """
    name = (name or settings.name).strip().lower()
    spec = GENERATORS.get(name)
    if spec is None:
        raise ConfigError(f"unknown generator {name!r}; choose one of: {', '.join(GENERATORS)}")
    if name == "extractive":
        return spec.factory(embedder=embedder)
    # The operator's URL, key and model were set for the configured provider; handing
    # them to another one would send, say, the OpenAI key to whatever OLLAMA_HOST is.
    own = name == settings.name.strip().lower()
    endpoint = resolve_endpoint(
        label=name, default_url=spec.base_url, base_url=settings.base_url if own else None,
        api_key=settings.api_key if own else None, url_env=spec.base_url_env, key_env=spec.key_env,
        key_setting="RAGLINE_GENERATOR__API_KEY", needs_key=spec.needs_key,
        env=os.environ if env is None else env, url_form=spec.url_form)
    return spec.factory(
        name=name, base_url=endpoint.base_url, model=(settings.model if own else None) or spec.model,
        api_key=endpoint.api_key, timeout=settings.timeout, max_retries=settings.max_retries,
        backoff=settings.retry_backoff, max_wait=settings.retry_max_wait, deadline=settings.deadline_s,
        max_reply_bytes=reply_bytes(settings.max_reply_mb), missing_key=endpoint.missing_key,
    )
