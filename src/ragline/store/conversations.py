"""Conversations and their messages: the store seam (a Protocol) and its values.

A conversation belongs to one tenant and one owner (a user inside the tenant, or
none). Unlike documents, conversations are private: a scope with an owner sees
that owner's conversations only, an owner-less scope only owner-less ones, never
"shared plus own". Every method takes the tenant and the owner and the backend
applies both inside its own query.

Each message is stored with no embedding; a background embedder fills it in
(``unembedded_messages`` → ``set_message_embeddings``) and only then is the
message searchable (``search_messages``). The catalog role holds these tables
(SQLite or PostgreSQL, also when Qdrant is the search index).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

ROLES = ("user", "assistant")
TITLE_MAX_CHARS = 200


def new_conversation_id() -> str:
    return "conv_" + secrets.token_hex(8)


def new_message_id() -> str:
    return "msg_" + secrets.token_hex(8)


def owner_key(owner: str | None) -> str:
    """The stored owner: '' for none (owner names are 1–128 characters, so '' is free),
    so equality works alike on every backend and uses the index."""
    return owner or ""


def owner_of(stored: str) -> str | None:
    return stored or None


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    tenant: str
    owner: str | None
    title: str
    collections: list[str]
    created: float
    updated: float
    messages: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "owner": self.owner, "collections": list(self.collections),
                "created": self.created, "updated": self.updated, "messages": self.messages}


@dataclass(frozen=True)
class NewMessage:
    role: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MessageInfo:
    id: str
    conversation_id: str
    tenant: str
    owner: str | None
    role: str
    content: str
    metadata: dict[str, Any]
    created: float
    seq: int
    embedded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "conversation_id": self.conversation_id, "role": self.role, "content": self.content,
                "created": self.created, "embedded": self.embedded, **{
                    k: v for k, v in self.metadata.items() if k in MESSAGE_FIELDS}}


MESSAGE_FIELDS = ("citations", "query", "carried", "gate", "abstained", "generator", "rag", "general")
"""Metadata keys a message shows on the wire (what the answer said about itself)."""


@dataclass
class StoredConversation:
    """A conversation as ``ragline migrate`` moves it: messages in order, each with
    ``(model_id, vector)`` when embedded."""

    conversation: ConversationInfo
    messages: list[MessageInfo]
    embeddings: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)


class ConversationStore(Protocol):
    """Conversations and messages, scoped by (tenant, owner) inside every query."""

    def create_conversation(self, tenant: str, owner: str | None, *, title: str,
                            collections: list[str], conversation_id: str | None = None) -> ConversationInfo:
        """A new conversation (its tenant is created if needed)."""
        ...

    def list_conversations(self, tenant: str, owner: str | None, *, limit: int = 100) -> list[ConversationInfo]:
        """The owner's conversations, most recently updated first."""
        ...

    def get_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> ConversationInfo | None:
        """The conversation, or None (also when it belongs to another tenant or owner)."""
        ...

    def rename_conversation(self, tenant: str, owner: str | None, conversation_id: str,
                            title: str) -> ConversationInfo | None:
        ...

    def delete_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> bool:
        """Delete it with its messages; False if the owner has no such conversation."""
        ...

    def add_messages(self, tenant: str, owner: str | None, conversation_id: str,
                     messages: list[NewMessage]) -> list[MessageInfo]:
        """Append messages in one transaction (both turns of an exchange or neither);
        ``NotFoundError`` if the owner has no such conversation."""
        ...

    def list_messages(self, tenant: str, owner: str | None, conversation_id: str, *,
                      last: int | None = None) -> list[MessageInfo]:
        """The conversation's messages in order (the last ``last`` ones); empty if not visible."""
        ...

    def unembedded_messages(self, limit: int = 256, tenant: str | None = None) -> list[tuple[str, str, str]]:
        """(tenant, message id, content) of messages not embedded yet, oldest first;
        every tenant's unless ``tenant`` is given (the background embedder's path)."""
        ...

    def set_message_embeddings(self, tenant: str, model_id: str, items: list[tuple[str, np.ndarray]]) -> int:
        """Store embeddings (message id → vector) made by ``model_id``; returns how many were set."""
        ...

    def search_messages(self, tenant: str, owner: str | None, vector: np.ndarray, k: int, *, model_id: str,
                        exclude_conversation: str | None = None) -> list[tuple[MessageInfo, float]]:
        """The owner's embedded messages nearest ``vector`` (cosine, best first), made by
        ``model_id``; never another owner's, never a message with no embedding yet."""
        ...

    def get_answer_policy(self, tenant: str, collection: str) -> str | None:
        """The collection's policy when nothing relevant is found (``abstain`` or
        ``general``), or None when never set (callers default to ``abstain``)."""
        ...

    def set_answer_policy(self, tenant: str, collection: str, policy: str | None) -> None:
        """Set (or with None, clear) a collection's no-answer policy."""
        ...

    # -- moving (operator paths) ------------------------------------------------------
    def export_conversations(self, tenant: str) -> list[StoredConversation]:
        """Every conversation of a tenant (all owners) with its messages and their
        embeddings, for ``ragline migrate``."""
        ...

    def import_conversation(self, stored: StoredConversation) -> bool:
        """Insert a conversation with its messages (ids, times and embeddings kept) unless
        its id exists; True if inserted."""
        ...
