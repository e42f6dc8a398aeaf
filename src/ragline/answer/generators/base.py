"""The Generator protocol, the registry of providers by name, and the factory.

A generator turns a grounded prompt (plus the numbered sources it was built from)
into answer text, whole or streamed. Providers raise ``GeneratorError`` when they
fail after their retries; the answer service then falls back to ``extractive``.

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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ...embed.base import Embedder
from ...errors import ConfigError
from ...settings import GeneratorSettings
from ...usage.model import LLMUsage
from ..context import RAGContext
from ..prompt import Prompt


@dataclass
class GenerationRequest:
    """Everything a generator may use. LLM providers send ``prompt``; the
    extractive generator works from ``context`` and ``question`` directly."""

    question: str
    context: RAGContext
    prompt: Prompt
    temperature: float = 0.1
    max_output_tokens: int = 512
    query_vector: np.ndarray | None = field(default=None, repr=False)
    usage: LLMUsage = field(default_factory=LLMUsage)  # what the provider reported; generators add to it


@runtime_checkable
class Generator(Protocol):
    """Answer text from a grounded prompt."""

    name: str

    def generate(self, request: GenerationRequest) -> str:
        """The whole answer. Raises ``GeneratorError`` on failure (after retries)."""
        ...

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        """The answer as text deltas. Failures before the first delta are retried;
        a failure after it raises ``GeneratorError`` from the iterator."""
        ...


@dataclass(frozen=True)
class ProviderSpec:
    """How to build one named generator and where its defaults come from."""

    factory: Callable[..., Generator]
    model: str | None = None
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    needs_key: bool = True  # only against the provider's own base URL
    description: str = ""


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
                           needs_key=False, description="Ollama's OpenAI-compatible endpoint"),
    "gemini": ProviderSpec(_gemini, "gemini-2.0-flash", "https://generativelanguage.googleapis.com/v1beta",
                           ("GEMINI_API_KEY", "GOOGLE_API_KEY"), description="Google Gemini generateContent"),
    "anthropic": ProviderSpec(_anthropic, "claude-3-5-haiku-latest", "https://api.anthropic.com/v1",
                              ("ANTHROPIC_API_KEY",), description="Anthropic Messages API"),
}


def _ollama_base(value: str) -> str:
    """OLLAMA_HOST is ``host:port`` or a URL, without the ``/v1`` suffix."""
    value = value.strip().rstrip("/")
    if "://" not in value:
        value = f"http://{value}"
    return value if value.endswith("/v1") else f"{value}/v1"


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
    env = os.environ if env is None else env
    # The operator's URL, key and model were set for the configured provider; handing
    # them to another one would send, say, the OpenAI key to whatever OLLAMA_HOST is.
    own = name == settings.name.strip().lower()
    base_url = settings.base_url if own else None
    if base_url is None:
        from_env = next((env[v] for v in spec.base_url_env if env.get(v)), None)
        if from_env is not None:
            base_url = _ollama_base(from_env) if name == "ollama" else from_env
    base_url = (base_url or spec.base_url or "").rstrip("/")
    api_key = (settings.api_key if own else None) or next((env[v] for v in spec.key_env if env.get(v)), None)
    missing_key = None
    if api_key is None and spec.needs_key and base_url == (spec.base_url or "").rstrip("/"):
        names = " or ".join(["RAGLINE_GENERATOR__API_KEY", *spec.key_env])
        missing_key = f"no API key for {name}: set {names}"
    return spec.factory(
        name=name, base_url=base_url, model=(settings.model if own else None) or spec.model, api_key=api_key,
        timeout=settings.timeout, max_retries=settings.max_retries, backoff=settings.retry_backoff,
        max_wait=settings.retry_max_wait, missing_key=missing_key,
    )
