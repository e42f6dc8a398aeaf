"""Typed results of the REST API, as the client reads them (shapes in docs/api.md).

The shapes the server declares too are defined once in ``ragline.wire`` and
subclassed here. Every model keeps fields the server adds later
(``extra="allow"``), so an older client still reads a newer server;
``model_dump()`` gives back the JSON object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .. import wire
from ..models import FINISHED

"""Job states after which nothing more happens to a job."""


class _Result(BaseModel):
    model_config = ConfigDict(extra="allow")


class Me(wire.Me, _Result):
    pass


class Collection(wire.Collection, _Result):
    pass


JobProgress = wire.JobProgress


class Job(wire.Job, _Result):
    """An ingestion job: ``state`` runs queued → parsing → embedding → indexed, or failed.
    (Its timestamps, ``created`` … ``finished``, are kept as extra fields: ``finished``
    here says whether the job is over.)"""

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


class Document(wire.Document, _Result):
    job: Job | None


class Hit(wire.Hit, _Result):
    """One search result; ``metadata`` is the document's own metadata only."""


class SearchResult(wire.SearchResult, _Result):
    hits: list[Hit]


class Passage(wire.Passage, _Result):
    """One stored chunk: what a citation points at."""


Citation = wire.Citation


class Answer(wire.Answer, _Result):
    """A grounded answer (the object ``ragline ask --json`` prints): text with [n]
    markers, the citations they refer to, and how it was made."""

    conversation_id: str | None = None


class Conversation(wire.Conversation, _Result):
    history: list[dict[str, Any]] | None = None  # with ``conversation(id)``: the messages, oldest first


class Usage(_Result):
    """The tenant's tokens embedded, questions, LLM tokens and estimated cost
    (``by_model`` and ``by_day`` break them down)."""

    tenant: str
    since: str | None = None
    currency: str = ""
    texts_embedded: int = 0
    tokens_embedded: int = 0
    questions: int = 0
    llm_input_tokens: int = 0
    llm_output_tokens: int = 0
    cost: float = 0.0
    by_model: list[dict[str, Any]] = Field(default_factory=list)
    by_day: list[dict[str, Any]] = Field(default_factory=list)


class Match(wire.Match, _Result):
    """A chunk or document with how often searches and answers returned it."""


# -- streamed answers (``ask_stream``) ----------------------------------------
@dataclass(frozen=True)
class Delta:
    """More answer text."""

    text: str


@dataclass(frozen=True)
class Restart:
    """The answer provider failed mid-answer: discard the text so far; a fallback follows."""

    reason: str


@dataclass(frozen=True)
class Done:
    """The full answer; its text is authoritative (grounding may drop streamed sentences)."""

    answer: Answer


AskEvent = Delta | Restart | Done
