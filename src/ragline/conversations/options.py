"""Per-request options of a conversation turn, bounded and validated alike in the
library, the CLI and the API (a bad value is a 422 naming the field).

- ``RAGOptions`` (seed 004): retrieval over the user's own past messages.
- ``AnswerOptions``: the answer's bounds and switches for this request.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

POLICIES = ("abstain", "general")


class RAGOptions(BaseModel):
    """Retrieval over the user's past messages (seed 004's ``RAGOptions``)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    enabled: bool = Field(default=True, description="Search the user's past messages for context")
    max_messages: int = Field(default=5, ge=1, le=10, description="Past messages to retrieve (1–10)")
    max_tokens: int = Field(default=2000, ge=100, le=4000, description="Token budget of their context (100–4000)")


class AnswerOptions(BaseModel):
    """This request's answer bounds; unset fields keep the server's settings."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    max_sources: int | None = Field(default=None, ge=1, le=10, description="Numbered sources at most (1–10)")
    max_tokens: int | None = Field(default=None, ge=100, le=4000, description="Token budget of the sources (100–4000)")
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0,
                                    description="Relevance floor (cosine, -1–1) below which a passage is left out")
    generator: str | None = Field(default=None, max_length=100, description="Override the configured generator")
    rag: bool = Field(default=True, description="Retrieve from the documents (false: answer without sources)")
    rewrite: bool = Field(default=True, description="Rewrite follow-up questions into standalone queries")
    carry_sources: bool = Field(default=True, description="Weigh the sources cited in the previous turn")
    policy: Literal["abstain", "general"] | None = Field(
        default=None, description="When nothing relevant is found (default: the collection's policy)")


def validated(model: type[BaseModel], value: Any, name: str) -> Any:
    """``value`` (a model, a dict or None) as ``model``; a ``ConfigError`` naming the
    field (``rag_options.max_messages: …``) when out of bounds."""
    if value is None:
        return model()
    if isinstance(value, model):
        return value
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{name}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(problems) from None
