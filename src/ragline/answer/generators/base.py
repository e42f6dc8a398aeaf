"""The Generator protocol and the request a generator answers.

A generator turns a grounded prompt (plus the numbered sources it was built from)
into answer text, whole or streamed. Providers raise ``GeneratorError`` when they
fail after their retries; the answer service then falls back to ``extractive``.
The providers by name are in ``registry.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ...models.usage import LLMUsage
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
