"""The data model shared by every stage: Scope, Document, Chunk, Hit, the name
patterns, the states of an ingestion job; transactions (``models.records``) and
usage rows (``models.usage``) beside it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

JobState = Literal["queued", "parsing", "embedding", "indexed", "failed"]
"""Where an ingestion job is: waiting, being parsed, being embedded, done, or failed for good."""
JOB_STATES: tuple[JobState, ...] = get_args(JobState)
FINISHED: tuple[JobState, ...] = ("indexed", "failed")

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
"""Tenant and collection names: what the API can address in a URL path."""
NAME_RULE = "1–64 of A–Z a–z 0–9 . _ -, starting with a letter or digit"
"""``NAME_PATTERN`` in words, for messages and the API's descriptions."""
OWNER_PATTERN = r"^[^\x00-\x1f\x7f]{1,128}$"
"""Owner names (a user inside a tenant): any text but control characters."""
OWNER_RULE = "1–128 characters, no control characters"
SOURCE_PATTERN = r"^[^\x00-\x1f\x7f/\\]{1,255}$"
"""A document's name given over the API: no control characters and no path separators."""


def content_hash(text: str) -> str:
    """Stable hash of text content (hex sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_id(*parts: str) -> str:
    """Deterministic id from its parts; the separator cannot occur in any part."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def index_text(title: str | None, text: str, section: str | None = None) -> str:
    """What is embedded and keyword-indexed for a chunk: its document's title, its
    section path (the headings above it, "FAQ > My card was stolen. What do I do?"),
    then its text. Headings count: an FAQ's question is often only in its heading.
    A section path that starts with the title does not repeat it."""
    head = [title] if title else []
    if section and section != title:
        prefix = f"{title} > " if title else ""
        head.append(section[len(prefix):] if prefix and section.startswith(prefix) else section)
    return "\n".join([*head, text]) if head else text


def document_id(scope: Scope, source: str) -> str:
    """The id ingestion gives the document named ``source`` in ``scope``: the owner is
    part of it, so two users' ``notes.txt`` never collide."""
    return stable_id(scope.tenant, scope.collection, scope.owner or "", source)


@dataclass(frozen=True)
class Scope:
    """What a caller may read or write: the single tenant chokepoint.

    ``collections`` lists the collections a read may touch (writes use the first).
    With ``owner`` unset only shared (owner-less) documents are visible; with an
    owner set, shared documents plus that owner's private ones.
    """

    tenant: str
    collections: tuple[str, ...]
    owner: str | None = None

    def __post_init__(self) -> None:
        if not self.tenant or not isinstance(self.tenant, str):
            raise ValueError("Scope.tenant must be a non-empty string")
        if isinstance(self.collections, str):
            object.__setattr__(self, "collections", (self.collections,))
        if not self.collections or not all(isinstance(c, str) and c for c in self.collections):
            raise ValueError("Scope.collections must name at least one collection")
        if self.owner == "":
            object.__setattr__(self, "owner", None)

    @property
    def collection(self) -> str:
        """The collection writes go to."""
        return self.collections[0]


@dataclass
class Block:
    """A run of text from one place in a source: a page, a section, a record."""

    text: str
    page: int | None = None
    section: str | None = None


@dataclass
class Document:
    """One loaded source, before chunking. ``chunked``: its blocks already are
    chunks (records stored as they come), so each is stored whole, not re-split."""

    source: str
    blocks: list[Block]
    title: str | None = None
    media_type: str = "text/plain"
    metadata: dict[str, Any] = field(default_factory=dict)
    chunked: bool = False

    @property
    def text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks)

    @property
    def content_hash(self) -> str:
        parts = [self.title or ""] + [f"{b.page}|{b.section}|{b.text}" for b in self.blocks]
        return content_hash("\x1e".join(parts))


@dataclass
class Chunk:
    """A piece of a document, the unit that is embedded and searched."""

    text: str
    position: int
    start: int
    end: int
    page: int | None = None
    section: str | None = None

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


@dataclass
class Hit:
    """One search result: a chunk, where it sits, and its score.

    ``score`` is what the search that found it produced (cosine for dense, BM25 for
    keyword, the fused score for hybrid). ``metadata`` is the user's metadata of
    the document only; ragline's own fields are attributes, so a user key named
    ``page`` never overwrites the page."""

    chunk_id: str
    doc_id: str
    source: str
    score: float
    text: str
    collection: str = ""
    title: str | None = None
    page: int | None = None
    section: str | None = None
    position: int = 0
    start: int = 0
    end: int = 0
    owner: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    match_count: int = 0  # times returned before (ragline.usage), read with the hit
    last_matched_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "source": self.source,
            "score": round(float(self.score), 6),
            "text": self.text,
            "collection": self.collection,
            "title": self.title,
            "page": self.page,
            "section": self.section,
            "position": self.position,
            "start": self.start,
            "end": self.end,
            "owner": self.owner,
            "metadata": self.metadata,
            "match_count": self.match_count,
            "last_matched_at": self.last_matched_at,
        }
