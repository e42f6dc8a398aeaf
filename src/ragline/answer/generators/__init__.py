"""Answer generators: one Protocol, providers chosen by name (``GENERATORS``)."""

from __future__ import annotations

from .base import GENERATORS, GenerationRequest, Generator, ProviderSpec, allowed_generators, make_generator

__all__ = ["GENERATORS", "GenerationRequest", "Generator", "ProviderSpec", "allowed_generators", "make_generator"]
