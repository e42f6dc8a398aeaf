"""Ask: a grounded, cited answer (the object ``ragline ask --json`` prints), or the
same streamed as server-sent events: ``delta`` events, then ``done`` with the
full answer (or ``error``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from ..auth import Principal, Tenant
from ..deps import engine, json_body, note, require_collection, scope_for
from ..errors import error_body, map_exception, responses
from ..schemas import AskIn, AskOut

router = APIRouter(prefix="/v1", tags=["ask"], responses=responses(401, 422, 503))

SSE_EVENT = {"type": "object", "required": ["data"],
             "properties": {"event": {"type": "string"}, "data": {"type": "string"}, "id": {"type": "string"},
                            "retry": {"type": "integer"}}}
SSE_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "The answer; with `stream: true`, server-sent events: `delta` (`{\"text\"}`) …, "
                         "maybe `restart` (`{\"reason\"}`: discard the text so far), then `done` "
                         "(the answer object) or `error` (the error shape)",
          "content": {"text/event-stream": {"schema": SSE_EVENT}}}}


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def record_answer(request: Request, question: str, answer: dict[str, Any]) -> None:
    """Stage timings and answer facts for the log line and metrics (seed 004's RAG
    log fields where they apply: question length, sources found, context size)."""
    timings = {k: float(v) for k, v in (answer.get("timings_ms") or {}).items() if isinstance(v, (int, float))}
    context = answer.get("context") or {}
    kept = context.get("kept")
    note(request, stages=timings, question_chars=len(question),
         sources=len(kept) if isinstance(kept, list) else kept, context_tokens=context.get("tokens"),
         citations=len(answer.get("citations") or []), abstained=answer.get("abstained"),
         generator=answer.get("generator"), fallback_reason=answer.get("fallback_reason"))


def ask_events(request: Request, events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Primes the engine's event stream so errors before the first event become a
    normal error response (the generator has not started sending yet)."""
    iterator = iter(events)
    first = next(iterator, None)

    def chain() -> Iterator[dict[str, Any]]:
        if first is not None:
            yield first
        yield from iterator

    return chain()


def run_ask(request: Request, body: AskIn, who: Principal, *, stream: bool) -> Any:
    """The answer as a turn of a conversation (``engine.conversations``): events whose
    ``done`` carries the answer dict with ``conversation_id`` (see conversations.py)."""
    from .conversations import run_turn

    scope = scope_for(request, who, body.collection_names(), body.owner)
    require_collection(request, engine(request).answer_scope(scope))  # an owner with only transactions: theirs
    return run_turn(request, body.question, scope, conversation_id=body.conversation_id, generator=body.generator,
                    mode=body.mode, filters=body.filters, rag_options=body.rag_options, options=body.options)


@router.post("/ask", response_model=AskOut, responses={**responses(400, 404, 409, 502), **SSE_DOC})
def ask(body: AskIn, request: Request, who: Tenant) -> Any:
    """Answer a question from the tenant's documents, with numbered citations."""
    if not body.stream:
        turn = run_ask(request, body, who, stream=False)
        for _ in turn:
            pass
        answer = turn.result.data
        record_answer(request, body.question, answer)
        return json_body(AskOut, answer)
    events = ask_events(request, run_ask(request, body, who, stream=True))

    def stream() -> Iterator[str]:
        try:
            for event in events:
                if event.get("type") == "delta":
                    yield sse("delta", {"text": event.get("text", "")})
                elif event.get("type") == "restart":  # the provider failed mid-answer; a fallback follows
                    yield sse("restart", {"reason": event.get("reason", "")})
                elif event.get("type") == "done":
                    answer = event["answer"]
                    record_answer(request, body.question, answer)
                    yield sse("done", answer)
        except Exception as exc:  # noqa: BLE001 — the status line is sent; report in-band
            _, code, message = map_exception(exc)
            note(request, stream_error=code)
            yield sse("error", error_body(code, message))

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
