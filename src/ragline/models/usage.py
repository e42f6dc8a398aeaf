"""Usage records: what a tenant used (tokens embedded, questions asked, LLM tokens
in and out, per model and day) and how often each chunk was returned."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

EMBED = "embed"
"""Kind of a usage row: texts embedded at ingestion (``events`` texts, ``input_tokens``)."""
ASK = "ask"
"""Kind of a usage row: questions answered (``events``), the LLM's tokens in and out."""
KINDS = (EMBED, ASK)

Level = Literal["chunk", "document"]
Order = Literal["most", "never"]


@dataclass
class LLMUsage:
    """Tokens one generation used, as the provider reported them in its ``usage``
    fields (never estimated). A generator sets the request's; ``reported`` stays
    false for providers that said nothing (extractive, a server without usage)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reported: bool = False

    def set(self, input_tokens: Any = None, output_tokens: Any = None) -> None:
        """Take the reported counts (a stream's later totals replace earlier ones);
        values that are not counts are ignored."""
        for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(self, name, value)
                self.reported = True


@dataclass(frozen=True)
class UsageRecord:
    """One tenant's use of one model on one day (UTC, ``YYYY-MM-DD``) for one kind."""

    tenant: str
    day: str
    kind: str
    model: str
    events: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.tenant, self.day, self.kind, self.model)

    def plus(self, other: UsageRecord) -> UsageRecord:
        return UsageRecord(*self.key, self.events + other.events, self.input_tokens + other.input_tokens,
                           self.output_tokens + other.output_tokens)


@dataclass(frozen=True)
class MatchStat:
    """How often a chunk (or a document, its chunks summed) was returned by search
    or used as an answer's source."""

    level: str
    id: str
    doc_id: str
    source: str
    title: str | None
    page: int | None
    preview: str
    match_count: int
    last_matched_at: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
