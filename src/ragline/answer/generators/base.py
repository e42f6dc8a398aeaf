"""The Generator protocol and the request a generator answers.

A generator turns a grounded prompt (plus the numbered sources it was built from)
into answer text, whole or streamed. Providers raise ``GeneratorError`` when they
fail after their retries; the answer service then falls back to ``extractive``.
The providers by name are in ``registry.py``.

An LLM provider can also call a tool (``ToolCaller``): the model is made to call
one named function, and its arguments come back as a JSON object (the records
route's LLM planner asks for a query plan so). Each provider speaks its own
dialect: OpenAI's ``tools``/``tool_calls``, Anthropic's ``tool_use`` blocks,
Gemini's ``functionDeclarations``/``functionCall``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

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


@dataclass
class ToolRequest:
    """One forced tool call: the model gets ``system`` and ``user`` and must call the
    function ``name`` with arguments fitting ``parameters`` (a JSON schema)."""

    system: str
    user: str
    name: str
    description: str
    parameters: dict[str, Any]
    temperature: float = 0.0
    max_output_tokens: int = 1024
    usage: LLMUsage = field(default_factory=LLMUsage)


@runtime_checkable
class ToolCaller(Protocol):
    """A generator that can make its model call a tool."""

    name: str

    def call_tool(self, request: ToolRequest) -> dict[str, Any]:
        """The arguments the model called ``request.name`` with, as a JSON object.
        ``GeneratorError`` when the call fails, the model called no tool or another
        one, or the arguments are not a JSON object; nothing here checks them against
        the schema (the caller does)."""
        ...
