"""Answer generators: one Protocol (``base.py``), providers chosen by name
(``GENERATORS`` and ``make_generator``, in ``registry.py``)."""

from __future__ import annotations

from .base import GenerationRequest, Generator, ToolCaller, ToolRequest
from .registry import GENERATORS, ProviderSpec, allowed_generators, make_generator

__all__ = ["GENERATORS", "GenerationRequest", "Generator", "ProviderSpec", "ToolCaller", "ToolRequest", "allowed_generators",
           "make_generator"]
