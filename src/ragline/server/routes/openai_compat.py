"""OpenAI-compatible endpoints, so existing clients work unchanged: one model per
collection, and chat completions answered by retrieval over that collection.
Citations are in the text (``[1]`` markers and a sources list) and in an extra
top-level ``citations`` field (on the last chunk when streaming)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...answer.sanitize import inline
from ...conversations.options import AnswerOptions, RAGOptions
from ...errors import NotFoundError
from ...models import NAME_PATTERN, OWNER_PATTERN
from ..auth import Tenant
from ..deps import engine, note, require_collection, scope_for
from ..errors import ApiError, error_body, map_exception, responses
from ..schemas import (
    CHAT_MAX_MESSAGES,
    CHAT_MESSAGE_MAX_CHARS,
    CHAT_TOTAL_MAX_CHARS,
    QUESTION_MAX_CHARS,
    CitationOut,
)
from .ask import SSE_DOC, ask_events, record_answer
from .conversations import run_turn

router = APIRouter(prefix="/v1", tags=["openai"], responses=responses(401, 422, 503))


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return content or ""


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = Field(
        default=None, description=f"At most {CHAT_MESSAGE_MAX_CHARS:,} characters of text")

    @field_validator("content")
    @classmethod
    def _bounded(cls, content: str | list[dict[str, Any]] | None) -> str | list[dict[str, Any]] | None:
        if isinstance(content, list) and len(content) > 100:
            raise ValueError(f"a message holds {len(content):,} content parts; the limit is 100")
        chars = len(_text(content))
        if chars > CHAT_MESSAGE_MAX_CHARS:
            raise ValueError(f"a message holds {chars:,} characters; the limit is {CHAT_MESSAGE_MAX_CHARS:,} per message")
        return content


class ChatCompletionIn(BaseModel):
    """OpenAI's request; sampling parameters are accepted and ignored."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"model": "bank", "messages": [{"role": "user", "content": "How much is the fee for an unarranged overdraft?"}]}]})
    model: str = Field(max_length=64, description="The collection to answer from (see GET /v1/models)")
    messages: list[ChatMessage] = Field(min_length=1, max_length=CHAT_MAX_MESSAGES,
                                        description=f"At most {CHAT_TOTAL_MAX_CHARS:,} characters of text in all")
    stream: bool = False
    user: str | None = Field(default=None, pattern=OWNER_PATTERN, description="Owner: a user inside the tenant")
    conversation_id: str | None = Field(default=None, max_length=64, description=(
        "ragline extension: store the turn in this conversation (none: a new one; returned in the reply)"))
    rag_options: RAGOptions | None = Field(default=None, description="ragline extension: the user's past messages")
    options: AnswerOptions | None = Field(default=None, description="ragline extension: this request's answer bounds")

    @model_validator(mode="after")
    def _bounded(self) -> ChatCompletionIn:
        chars = sum(len(_text(m.content)) for m in self.messages)
        if chars > CHAT_TOTAL_MAX_CHARS:
            raise ValueError(f"messages hold {chars:,} characters; the limit is {CHAT_TOTAL_MAX_CHARS:,} in all")
        return self


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int
    message: AssistantMessage
    finish_reason: Literal["stop"]


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletionOut(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    citations: list[CitationOut] = Field(description="ragline extension: the sources behind [n] markers")
    conversation_id: str | None = Field(default=None, description="ragline extension: the conversation of this turn")


@router.get("/models", response_model=ModelList)
def list_models(request: Request, who: Tenant) -> dict:
    """One model per collection of the tenant."""
    return {"object": "list", "data": [{"id": c.name, "object": "model", "created": int(c.created),
                                        "owned_by": who.tenant} for c in engine(request).list_collections(who.tenant)]}


@router.get("/models/{model}", response_model=ModelOut, responses=responses(404))
def retrieve_model(model: str, request: Request, who: Tenant) -> dict:
    """One model: a collection of the tenant (for chat completions), or the embedding
    model ``POST /v1/embeddings`` serves."""
    eng = engine(request)
    for c in eng.list_collections(who.tenant):
        if c.name == model:
            return {"id": c.name, "object": "model", "created": int(c.created), "owned_by": who.tenant}
    if model in _embedding_names(request):
        return {"id": eng.embedder.model_id, "object": "model", "created": 0, "owned_by": "ragline"}
    raise NotFoundError(f"model {model!r} not found (models are collection names: GET /v1/models; "
                        f"the embedding model is {eng.embedder.model_id!r})")


EMBED_MAX_INPUTS = 2048
EMBED_MAX_INPUT_CHARS = CHAT_MESSAGE_MAX_CHARS


class EmbeddingsIn(BaseModel):
    """OpenAI's request; ``user`` is accepted and ignored."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [
        {"model": "sentence-transformers/all-MiniLM-L6-v2", "input": ["How do I report a lost card?"]}]})
    input: str | list[str] | list[int] | list[list[int]] = Field(description=(
        f"A text or a list of at most {EMBED_MAX_INPUTS:,} texts of at most {EMBED_MAX_INPUT_CHARS:,} characters each "
        "(token arrays are refused: send text)"))
    model: str = Field(max_length=200, description="The server's embedding model (see GET /v1/models/{model}): "
                                                   "its id, its short name, or the embedder's name")
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1, description="Must be the model's dimension if given")

    @field_validator("input")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        texts = [value] if isinstance(value, str) else value
        if not texts:
            raise ValueError("input is empty: send a text or a list of texts")
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("input holds token ids; this server embeds text: send strings (with LangChain's "
                             "OpenAIEmbeddings, set check_embedding_ctx_length=False)")
        if len(texts) > EMBED_MAX_INPUTS:
            raise ValueError(f"input holds {len(texts):,} texts; the limit is {EMBED_MAX_INPUTS:,}")
        longest = max(len(t) for t in texts)
        if longest > EMBED_MAX_INPUT_CHARS:
            raise ValueError(f"an input holds {longest:,} characters; the limit is {EMBED_MAX_INPUT_CHARS:,}")
        return value


class EmbeddingOut(BaseModel):
    object: Literal["embedding"] = "embedding"
    index: int
    embedding: list[float] | str


class EmbeddingUsage(BaseModel):
    prompt_tokens: int
    total_tokens: int


class EmbeddingsOut(BaseModel):
    object: Literal["list"] = "list"
    data: list[EmbeddingOut]
    model: str
    usage: EmbeddingUsage


def _embedding_names(request: Request) -> set[str]:
    eng = engine(request)
    model_id = eng.embedder.model_id
    return {model_id, model_id.rsplit("/", 1)[-1], eng.settings.embedder.name.strip().lower()}


@router.post("/embeddings", response_model=EmbeddingsOut, responses=responses(404))
def embeddings(body: EmbeddingsIn, request: Request, who: Tenant) -> dict:
    """Vectors from the server's own embedding model (the one its collections are
    filled with), so OpenAI-compatible embedders (LangChain's ``OpenAIEmbeddings``,
    LlamaIndex's ``OpenAIEmbedding``, the ``openai`` client) can use it. The tokens
    count as the tenant's embedding usage."""
    import base64

    import numpy as np

    from ...usage.embedding import MeteredEmbedder

    eng = engine(request)
    embedder = eng.embedder
    if body.model not in _embedding_names(request):
        raise NotFoundError(f"embedding model {body.model!r} not found; this server embeds with "
                            f"{embedder.model_id!r}")
    if body.dimensions is not None and body.dimensions != embedder.dimension:
        raise ApiError(422, "invalid_request", f"dimensions is {body.dimensions}; {embedder.model_id} gives "
                                               f"{embedder.dimension}")
    texts = [body.input] if isinstance(body.input, str) else list(body.input)
    metered = MeteredEmbedder(embedder, eng.meter, who.tenant)
    vectors = np.asarray(metered.embed_documents(texts), dtype=np.float32)  # type: ignore[arg-type]
    data = [{"object": "embedding", "index": i,
             "embedding": base64.b64encode(v.tobytes()).decode() if body.encoding_format == "base64" else v.tolist()}
            for i, v in enumerate(vectors)]
    return {"object": "list", "data": data, "model": embedder.model_id,
            "usage": {"prompt_tokens": metered.tokens, "total_tokens": metered.tokens}}


def _sources(citations: list[dict[str, Any]]) -> str:
    """The footer chat clients render as markdown: each cited file once, in the order
    first cited, with its citation numbers and the sections and pages cited in it
    (``[1][3] overdraft-policy.md — Overdraft policy > Unarranged overdrafts; p. 2``).
    The values are uploaded data, so markdown in them is escaped here."""
    if not citations:
        return ""
    files: dict[str, tuple[list[int], list[str]]] = {}
    for c in citations:
        numbers, places = files.setdefault(c["source"], ([], []))
        numbers.append(c["n"])
        place = ", ".join(p for p in (c.get("section") or "", f"p. {c['page']}" if c.get("page") else "") if p)
        if place and place not in places:
            places.append(place)
    lines = ["".join(f"[{n}]" for n in numbers) + f" {inline(source)}" + (f" — {inline('; '.join(places))}" if places else "")
             for source, (numbers, places) in files.items()]
    return "\n\nSources:\n" + "\n".join(lines)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)  # rough, as OpenAI clients only display it


@router.post("/chat/completions", response_model=ChatCompletionOut,
             responses={**responses(400, 404, 409, 502), **SSE_DOC})
def chat_completions(body: ChatCompletionIn, request: Request, who: Tenant) -> Any:
    """Answer the last user message from the collection named by ``model``, as the next
    turn of the conversation the earlier messages hold (follow-ups are rewritten from
    them); with ``conversation_id``, of that stored conversation."""
    if not re.match(NAME_PATTERN, body.model):
        raise NotFoundError(f"model {body.model!r} not found (models are collection names: GET /v1/models)")
    questions = [_text(m.content) for m in body.messages if m.role == "user" and _text(m.content).strip()]
    if not questions:
        raise ApiError(400, "bad_request", "messages hold no user message with text")
    scope = scope_for(request, who, body.model, body.user)
    try:
        require_collection(request, scope)
    except NotFoundError as exc:
        raise NotFoundError(f"model {body.model!r} not found (models are collection names: GET /v1/models)") from exc
    question, prompt_tokens = questions[-1], sum(_tokens(_text(m.content)) for m in body.messages)
    if len(question) > QUESTION_MAX_CHARS:  # what is searched and answered: the same limit as /v1/ask
        raise ApiError(422, "invalid_request", f"the question (the last user message) holds {len(question):,} "
                                               f"characters; the limit is {QUESTION_MAX_CHARS:,}")
    completion_id, created = "chatcmpl-" + uuid.uuid4().hex, int(time.time())
    last_user = max(i for i, m in enumerate(body.messages) if m.role == "user" and _text(m.content).strip())
    history = [(m.role, _text(m.content)) for m in body.messages[:last_user] if m.role in ("user", "assistant")]
    turn = run_turn(request, question, scope, conversation_id=body.conversation_id, history=history,
                    rag_options=body.rag_options, options=body.options)
    if not body.stream:
        for _ in turn:
            pass
        assert turn.result is not None  # set by the turn's last (done) event
        answer = turn.result.data
        record_answer(request, question, answer)
        content = answer["answer"] + _sources(answer["citations"])
        completion = _tokens(content)
        return {"id": completion_id, "object": "chat.completion", "created": created, "model": body.model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                          "total_tokens": prompt_tokens + completion},
                "citations": answer["citations"], "conversation_id": answer.get("conversation_id")}
    events = ask_events(request, turn)

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        data = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": body.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"

    def stream() -> Iterator[str]:
        yield chunk({"role": "assistant", "content": ""})
        try:
            for event in events:
                if event.get("type") == "delta" and event.get("text"):
                    yield chunk({"content": event["text"]})
                elif event.get("type") == "restart":  # sent text cannot be taken back: say so in the text
                    yield chunk({"content": f"\n\n(answer restarted: {event.get('reason', '')})\n\n"})
                elif event.get("type") == "done":
                    answer = event["answer"]
                    record_answer(request, question, answer)
                    sources = _sources(answer["citations"])
                    if sources:
                        yield chunk({"content": sources})
                    yield chunk({}, "stop", citations=answer["citations"], conversation_id=answer.get("conversation_id"))
        except Exception as exc:  # noqa: BLE001 — headers are sent; OpenAI clients read an in-band error
            _, code, message = map_exception(exc)
            note(request, stream_error=code)
            yield f"data: {json.dumps(error_body(code, message))}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
