"""Conversations: create, list, get (with messages), rename, delete, per tenant and
owner; the per-collection no-answer policy. A conversation of another owner or
tenant is a 404 worded like a missing one. Turns are asked through ``/v1/ask`` and
``/v1/chat/completions`` with ``conversation_id`` (``run_turn``)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ... import wire
from ...conversations import TurnStream
from ...models import NAME_PATTERN, OWNER_PATTERN, Scope
from ...store.conversations import TITLE_MAX_CHARS, MessageInfo
from ..auth import Tenant
from ..deps import CollectionPath, Owner, engine, note, note_owner, require_collection
from ..errors import responses

router = APIRouter(prefix="/v1", tags=["conversations"], responses=responses(401, 404, 422, 503))

CONVERSATION_ID = r"^[A-Za-z0-9_-]{1,64}$"


def configure_turn_log() -> None:
    """The turn log (logger ``ragline.turns``) as JSON lines on stderr, like the server's."""
    turns = logging.getLogger("ragline.turns")
    if not turns.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        turns.addHandler(handler)
        turns.propagate = False
        turns.setLevel(logging.INFO)


class ConversationIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"title": "Overdraft questions", "collections": ["bank"], "owner": "alice"}]})
    title: str | None = Field(default=None, min_length=1, max_length=TITLE_MAX_CHARS)
    collections: list[Annotated[str, Field(pattern=NAME_PATTERN)]] = Field(default_factory=list, max_length=20,
                                   description="The collections its turns answer from (a hint for clients)")
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)


class ConversationPatch(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"title": "Overdraft fees"}]})
    title: str = Field(min_length=1, max_length=TITLE_MAX_CHARS)


class ConversationOut(wire.Conversation):
    pass


class MessageOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    conversation_id: str
    role: Literal["user", "assistant"]
    content: str
    created: float
    embedded: bool


class ConversationWithMessages(ConversationOut):
    history: list[MessageOut] = Field(description="The messages, oldest first")


class ConversationList(BaseModel):
    conversations: list[ConversationOut]


class PolicyIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"policy": "abstain"}]})
    policy: Literal["abstain", "general"] = Field(description=(
        "When nothing relevant is found: abstain (default) or answer from the LLM alone, marked as such"))


class PolicyOut(BaseModel):
    collection: str
    policy: Literal["abstain", "general"]


@router.post("/conversations", response_model=ConversationOut, status_code=201)
def create_conversation(body: ConversationIn, request: Request, who: Tenant) -> dict:
    owner = note_owner(request, body.owner)
    conv = engine(request).conversations.create(who.tenant, owner, title=body.title, collections=body.collections)
    return conv.to_dict()


@router.get("/conversations", response_model=ConversationList)
def list_conversations(request: Request, who: Tenant, owner: Owner,
                       limit: int = Query(default=100, ge=1, le=1000)) -> dict:
    """The owner's conversations, most recently updated first."""
    return {"conversations": [c.to_dict() for c in engine(request).conversations.list(who.tenant, owner, limit=limit)]}


@router.get("/conversations/{conversation_id}", response_model=ConversationWithMessages)
def get_conversation(conversation_id: str, request: Request, who: Tenant, owner: Owner,
                     last: int | None = Query(default=None, ge=1, le=10000)) -> dict:
    convs = engine(request).conversations
    conv = convs.get(who.tenant, owner, conversation_id)
    history: list[MessageInfo] = convs.messages(who.tenant, owner, conversation_id, last=last)
    return {**conv.to_dict(), "history": [m.to_dict() for m in history]}


@router.patch("/conversations/{conversation_id}", response_model=ConversationOut)
def rename_conversation(conversation_id: str, body: ConversationPatch, request: Request, who: Tenant,
                        owner: Owner) -> dict:
    return engine(request).conversations.rename(who.tenant, owner, conversation_id, body.title).to_dict()


@router.delete("/conversations/{conversation_id}", status_code=204)
def delete_conversation(conversation_id: str, request: Request, who: Tenant, owner: Owner) -> Response:
    engine(request).conversations.delete(who.tenant, owner, conversation_id)
    return Response(status_code=204)


@router.get("/collections/{name}/answer-policy", response_model=PolicyOut)
def get_policy(name: CollectionPath, request: Request, who: Tenant) -> dict:
    require_collection(request, Scope(who.tenant, (name,)))
    return {"collection": name, "policy": engine(request).conversations.policy(who.tenant, name)}


@router.put("/collections/{name}/answer-policy", response_model=PolicyOut, responses=responses(403, 404))
def set_policy(name: CollectionPath, body: PolicyIn, request: Request, who: Tenant) -> dict:
    """The collection's policy when nothing relevant is found: ``abstain`` or ``general``."""
    require_collection(request, Scope(who.tenant, (name,)))
    engine(request).conversations.set_policy(who.tenant, name, body.policy)
    return {"collection": name, "policy": body.policy}


def run_turn(request: Request, question: str, scope: Scope, **kwargs: Any) -> TurnStream:
    """One conversation turn for a route; the request's log line gets the turn's facts."""
    configure_turn_log()
    inner = engine(request).conversations.stream(question, scope, **kwargs)

    def events() -> Iterator[dict[str, Any]]:
        for event in inner:
            if event.get("type") == "done":
                data = event["answer"]
                note(request, conversation_id=data.get("conversation_id"),
                     rag_enabled=data["rag_context"]["enabled"], gate=data["gate"]["reason"],
                     followup=data["query"]["followup"], rewrite=data["query"]["method"])
                outer.result = inner.result
            yield event

    outer = TurnStream(events())
    return outer
