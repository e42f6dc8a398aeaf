"""``Conversations``: chat memory (``engine.conversations``), over the store's
conversation tables, the engine's router (which answers each turn) and its embedder.

Create, list, get, rename and delete conversations per tenant and owner, and
answer one turn of a conversation:

1. the conversation's earlier turns (stored, or the chat request's messages);
2. the gate (``gate.should_retrieve``): greetings and small talk skip retrieval;
3. the follow-up plan (``followup.plan``): the rewritten query, what was carried;
4. the user's relevant past messages (``memory``, seed 004), never breaking chat;
5. the grounded answer (``Answerer`` with an ``AnswerTurn``), with the collection's
   no-answer policy (``abstain`` or ``general``);
6. both turns stored with the citations, the message embedder woken, and one JSON
   log line (logger ``ragline.turns``, seed 004's ``RAGLogEntry`` fields).

The answer object is ``Answer.to_dict()`` plus ``conversation_id``, ``message_id``,
``query`` (original, rewritten, what was carried), ``gate``, ``rag_context``
(``{context, source_messages, enabled, reason}``) and ``policy``.
"""

from __future__ import annotations

import builtins
import json
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..answer.turn import AnswerTurn
from ..answer.types import Answer, AnswerEvents
from ..errors import ConfigError, NotFoundError, RaglineError
from ..messages import message
from ..models import Scope
from ..store.conversations import TITLE_MAX_CHARS, ConversationInfo, MessageInfo, NewMessage
from .followup import FollowupPlan, Turn, llm_rewriter, plan
from .gate import GateDecision, should_retrieve
from .memory import MemorySearch, MessageEmbedder, RAGContext
from .options import POLICIES, AnswerOptions, RAGOptions, validated

if TYPE_CHECKING:
    from ..answer import Router
    from ..answer.tokens import TokenCounter
    from ..embed.base import Embedder
    from ..store import Store
    from ..store.conversations import ConversationStore

log = logging.getLogger(__name__)
turn_log = logging.getLogger("ragline.turns")

HISTORY_TURNS = 10  # earlier messages a turn reads (rewriting, prompt)
PROMPT_TURNS = 6  # of which the prompt shows the last ones

_THANKS = ("thank", "thx", "cheers", "bedankt", "dank", "danke", "merci", "gracias", "obrigad", "grazie", "ty")
_BYE = ("bye", "see you", "later", "farewell", "take care", "doei", "tot ziens", "tschüss", "tschuss",
        "wiedersehen", "au revoir", "adiós", "adios", "hasta", "tchau", "ciao", "arrivederci", "ttyl", "good night")
_HELLO = ("hi", "hello", "hey", "morning", "evening", "afternoon", "greetings", "hallo", "hoi", "moin", "servus",
          "bonjour", "salut", "hola", "olá", "ola", "buongiorno", "guten", "goede", "bom dia", "buenos", "buenas",
          "coucou")


def small_talk_reply(text: str, language: str | None = None) -> str:
    """The canned reply to small talk (no model), in ``language`` (``ragline.messages``)."""
    low = text.lower()
    for key, words in (("thanks", _THANKS), ("bye", _BYE), ("greeting", _HELLO)):
        if any(w in low for w in words):
            return message(f"small_talk_{key}", language)
    return message("small_talk_other", language)


def title_for(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= 60 else line[:59].rstrip() + "…"


@dataclass
class TurnResult:
    """One answered turn: the typed Answer and the wire dict (see the module docstring)."""

    answer: Answer
    data: dict[str, Any]

    @property
    def conversation_id(self) -> str | None:
        return self.data.get("conversation_id")


class TurnStream:
    """Answer events (as ``Answerer.stream``), the ``done`` event carrying the turn's
    dict; ``result`` holds the ``TurnResult`` once done."""

    def __init__(self, events: Iterator[dict[str, Any]]) -> None:
        self._events = events
        self.result: TurnResult | None = None

    def __iter__(self) -> TurnStream:
        return self

    def __next__(self) -> dict[str, Any]:
        return next(self._events)

    @property
    def answer(self) -> Answer | None:
        return self.result.answer if self.result else None


class Conversations:
    """Conversations and their turns: ``router`` answers a turn (the engine's, so a
    money question in a chat is answered from the records), ``embedder`` embeds the
    stored messages that later turns search."""

    def __init__(self, store: Store, router: Router, embedder: Embedder, *, counter: TokenCounter | None = None,
                 search_timeout_s: float = 2.0) -> None:
        self._store = store
        self.router = router
        self.embedder = embedder
        self.counter = counter  # counts the memory context's tokens (None: the default counter)
        self.search_timeout_s = search_timeout_s
        self._memory: MemorySearch | None = None
        self._embedder: MessageEmbedder | None = None
        self.background = True  # embed stored messages on a background thread

    @property
    def store(self) -> ConversationStore:
        return self._store.conversations

    @property
    def memory(self) -> MemorySearch:
        if self._memory is None:
            self._memory = MemorySearch(self._store, self.embedder, self.counter, timeout_s=self.search_timeout_s)
        return self._memory

    @property
    def message_embedder(self) -> MessageEmbedder:
        if self._embedder is None:
            self._embedder = MessageEmbedder(self._store, self.embedder)
        return self._embedder

    # -- conversations -----------------------------------------------------------------
    def create(self, tenant: str, owner: str | None = None, *, title: str | None = None,
               collections: Sequence[str] = ()) -> ConversationInfo:
        return self.store.create_conversation(tenant, owner, title=_title(title or "New conversation"),
                                              collections=list(collections))

    def list(self, tenant: str, owner: str | None = None, *, limit: int = 100) -> list[ConversationInfo]:
        return self.store.list_conversations(tenant, owner, limit=limit)

    def get(self, tenant: str, owner: str | None, conversation_id: str) -> ConversationInfo:
        found = self.store.get_conversation(tenant, owner, conversation_id)
        if found is None:
            raise NotFoundError(f"conversation {conversation_id!r} not found")
        return found

    def messages(self, tenant: str, owner: str | None, conversation_id: str, *,
                 last: int | None = None) -> builtins.list[MessageInfo]:
        self.get(tenant, owner, conversation_id)
        return self.store.list_messages(tenant, owner, conversation_id, last=last)

    def rename(self, tenant: str, owner: str | None, conversation_id: str, title: str) -> ConversationInfo:
        found = self.store.rename_conversation(tenant, owner, conversation_id, _title(title))
        if found is None:
            raise NotFoundError(f"conversation {conversation_id!r} not found")
        return found

    def delete(self, tenant: str, owner: str | None, conversation_id: str) -> None:
        if not self.store.delete_conversation(tenant, owner, conversation_id):
            raise NotFoundError(f"conversation {conversation_id!r} not found")

    def policy(self, tenant: str, collection: str) -> str:
        """The collection's no-answer policy: ``abstain`` (default) or ``general``."""
        return self.store.get_answer_policy(tenant, collection) or "abstain"

    def set_policy(self, tenant: str, collection: str, policy: str) -> None:
        if policy not in POLICIES:
            raise ConfigError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
        self.store.set_answer_policy(tenant, collection, None if policy == "abstain" else policy)

    def embed_pending(self) -> int:
        """Embed every stored message that has no embedding yet, now (tests, tools)."""
        return self.message_embedder.drain()

    # -- turns -------------------------------------------------------------------------
    def ask(self, question: str, scope: Scope, **kwargs: Any) -> TurnResult:
        """Answer one turn (see ``stream`` for the arguments)."""
        stream = self.stream(question, scope, **kwargs)
        for _ in stream:
            pass
        assert stream.result is not None
        return stream.result

    def stream(self, question: str, scope: Scope, *, conversation_id: str | None = None,
               history: Sequence[tuple[str, str]] | None = None, generator: Any = None, mode: str | None = None,
               filters: dict[str, Any] | None = None, rag_options: RAGOptions | dict | None = None,
               options: AnswerOptions | dict | None = None, create: bool = True, details: bool = False) -> TurnStream:
        """Answer ``question`` as the next turn of ``conversation_id`` (or of a new
        conversation when ``create``; none at all otherwise). ``history``: earlier
        (role, text) pairs given by the caller (a chat request's messages), used when
        the conversation has none stored. Bad input raises here, before any event."""
        if not isinstance(question, str) or not question.strip():
            raise ConfigError("question is empty")
        rag = validated(RAGOptions, rag_options, "rag_options")
        opts = validated(AnswerOptions, options, "options")
        chosen = self.router.generator(opts.generator or generator)
        conversation = self.get(scope.tenant, scope.owner, conversation_id) if conversation_id else None
        holder = TurnStream(iter(()))
        holder._events = self._run(question.strip(), scope, conversation, list(history or []), chosen, mode, filters,
                                   rag, opts, create, details, holder)
        return holder

    def _history(self, scope: Scope, conversation: ConversationInfo | None,
                 given: builtins.list[tuple[str, str]]) -> tuple[builtins.list[Turn], builtins.list[MessageInfo]]:
        stored = (self.store.list_messages(scope.tenant, scope.owner, conversation.id, last=HISTORY_TURNS)
                  if conversation else [])
        if stored:
            turns = [Turn(role=m.role, content=m.content, query=(m.metadata.get("query") or {}).get("rewritten"),
                          cited_docs=[c.get("doc_id") for c in m.metadata.get("citations") or [] if c.get("doc_id")],
                          followup=(m.metadata.get("query") or {}).get("followup"),
                          retrieved=(m.metadata.get("gate") or {}).get("retrieve", True))
                     for m in stored]
            return turns, stored
        return [Turn(role=r, content=t, retrieved=r != "user" or should_retrieve(t).retrieve)
                for r, t in given[-HISTORY_TURNS:] if r in ("user", "assistant")], []

    def _run(self, question: str, scope: Scope, conversation: ConversationInfo | None, given: builtins.list[tuple[str, str]],
             generator: Any, mode: str | None, filters: dict[str, Any] | None, rag: RAGOptions, opts: AnswerOptions,
             create: bool, details: bool, holder: TurnStream) -> Iterator[dict[str, Any]]:
        from ..answer.generators.extractive import ExtractiveGenerator

        started = time.perf_counter()
        turns, stored = self._history(scope, conversation, given)
        gate = should_retrieve(question) if opts.rag else GateDecision(False, "retrieval off for this request")
        is_llm = not isinstance(generator, ExtractiveGenerator)
        policy = opts.policy or self._policy(scope)
        memory = RAGContext(enabled=False, reason="skipped: " + gate.reason)
        followup = FollowupPlan(question=question, query=question, reason="not searched")
        turn: AnswerTurn | None = None
        if not opts.rag:
            answer = yield from self._without_sources(question, scope, turns, generator, is_llm, small_talk=False)
        elif not gate.retrieve:
            answer = yield from self._without_sources(question, scope, turns, generator, is_llm, small_talk=True)
        else:
            followup = plan(question, turns, rewrite=opts.rewrite, carry_sources=opts.carry_sources,
                            llm=llm_rewriter(generator) if is_llm and opts.rewrite else None)
            memory = self.memory.build(scope.tenant, scope.owner, question, rag,
                                       exclude_ids={m.id for m in stored})
            turn = AnswerTurn(query=followup.query if followup.query != question else None,
                              carried_sources=followup.carried_sources, max_sources=opts.max_sources,
                              max_tokens=opts.max_tokens, floor=opts.threshold,
                              floor_set=opts.threshold is not None, policy=policy,
                              history=[(t.role, t.content) for t in turns[-PROMPT_TURNS:]], memory=memory.context)
            inner = self.router.stream(question, scope, generator=generator, mode=mode, filters=filters, turn=turn)
            for event in inner:
                if event.get("type") != "done":
                    yield event
            assert inner.answer is not None  # the router's done event has passed
            answer = inner.answer
        data = answer.to_dict(details=details)
        _enrich_citations(data, answer)
        data.update(query=followup.to_dict(), gate=gate.to_dict(), rag_context=memory.to_dict(), policy=policy,
                    general=bool(turn and turn.general))
        data["conversation_id"], data["message_id"], saved_error = self._save(
            scope, conversation, create, question, data, followup, gate)
        if saved_error:
            data["saved"] = False
            data["save_error"] = saved_error
        data["timings_ms"]["total"] = round((time.perf_counter() - started) * 1000, 1)
        self._log(scope, data, memory, question, started)
        holder.result = TurnResult(answer=answer, data=data)
        yield {"type": "done", "answer": data}

    def _policy(self, scope: Scope) -> str:
        try:
            return self.policy(scope.tenant, scope.collections[0])
        except RaglineError as exc:  # never breaks chat
            log.info("answer policy unavailable (abstain): %s", exc)
            return "abstain"

    def _without_sources(self, question: str, scope: Scope, turns: builtins.list[Turn], generator: Any,
                         is_llm: bool, *, small_talk: bool) -> AnswerEvents:
        """A reply with no retrieval: small talk (the gate), or retrieval off by request."""
        from ..answer.context import RAGContext as DocContext
        from ..answer.turn import GENERAL_SYSTEM

        language = self.router.language(question, scope)
        answer = Answer(question=question, answer="", citations=[], abstained=not small_talk, generator="none",
                        context=DocContext(enabled=False), language=language)
        started = time.perf_counter()
        text = small_talk_reply(question, language) if small_talk else message("retrieval_off", language)
        if is_llm:
            history = AnswerTurn(history=[(t.role, t.content) for t in turns[-PROMPT_TURNS:]])
            system = ("You are a friendly assistant for questions about the user's documents. Reply briefly and "
                      "politely." if small_talk else GENERAL_SYSTEM)
            try:
                text = self._chat(generator, system, question, history)
                answer.generator, answer.abstained = generator.name, False
            except RaglineError as exc:
                answer.fallback_reason = str(exc)
        answer.answer = text
        answer.timings_ms["generate"] = (time.perf_counter() - started) * 1000
        yield {"type": "delta", "text": text}
        return answer

    @staticmethod
    def _chat(generator: Any, system: str, question: str, history: AnswerTurn) -> str:
        from ..answer.context import RAGContext as DocContext
        from ..answer.generators import GenerationRequest
        from ..answer.prompt import Prompt

        lines = [f"[{role}] {text[:800]}" for role, text in history.history]
        user = (("Conversation so far:\n" + "\n".join(lines) + "\n\n") if lines else "") + question
        text = generator.generate(GenerationRequest(question=question, context=DocContext(enabled=False),
                                                    prompt=Prompt(system=system, user=user))).strip()
        if not text:
            raise ConfigError("the model returned an empty reply")
        return text

    def _save(self, scope: Scope, conversation: ConversationInfo | None, create: bool, question: str,
              data: dict[str, Any], followup: FollowupPlan, gate: GateDecision) -> tuple[str | None, str | None, str | None]:
        """Store both turns (never breaks chat: a failure is reported, the answer stands)."""
        cid = conversation.id if conversation else None
        try:
            if cid is None:
                if not create:
                    return None, None, None
                cid = self.store.create_conversation(scope.tenant, scope.owner, title=title_for(question),
                                                     collections=list(scope.collections)).id
            user = NewMessage("user", question, {"query": followup.to_dict(), "gate": gate.to_dict()})
            assistant = NewMessage("assistant", data["answer"], {
                "citations": data["citations"], "abstained": data["abstained"], "generator": data["generator"],
                "general": data.get("general", False),
                "rag": {k: v for k, v in data["rag_context"].items() if k != "context"}})
            written = self.store.add_messages(scope.tenant, scope.owner, cid, [user, assistant])
        except RaglineError as exc:
            log.warning("conversation turn not stored: %s", exc)
            return cid, None, f"{type(exc).__name__}: {exc}"
        if self.background:
            self.message_embedder.notify()
        return cid, written[1].id, None

    def _log(self, scope: Scope, data: dict[str, Any], memory: RAGContext, question: str, started: float) -> None:
        """One JSON line per turn (seed 004's ``RAGLogEntry``, plus what this turn decided)."""
        if memory.enabled:
            event = "rag_context_built"
        elif memory.reason and (memory.reason.startswith(("disabled", "skipped"))):
            event = "rag_disabled"
        else:
            event = "rag_search_failed"
        entry = {
            "event": event, "tenant": scope.tenant, "owner": scope.owner, "conversation_id": data.get("conversation_id"),
            "message_length": len(question), "similar_messages_found": len(memory.source_messages),
            "context_length": len(memory.context), "context_tokens": memory.tokens, "rag_enabled": memory.enabled,
            "execution_ms": round((time.perf_counter() - started) * 1000, 1),
            "error": None if memory.enabled or event == "rag_disabled" else memory.reason,
            "gate": data["gate"]["reason"], "retrieve": data["gate"]["retrieve"],
            "followup": data["query"]["followup"], "rewrite": data["query"]["method"],
            "carried_sources": len(data["query"]["carried_sources"]), "sources": len(data["context"]["kept"]),
            "citations": len(data["citations"]), "abstained": data["abstained"], "generator": data["generator"],
            "policy": data["policy"], "general": data["general"], "saved": data.get("saved", True),
        }
        turn_log.info(json.dumps(entry, ensure_ascii=False, default=str))

    def close(self) -> None:
        if self._embedder is not None:
            self._embedder.close()
        if self._memory is not None:
            self._memory.close()


def _title(title: str) -> str:
    title = " ".join(str(title).split())
    if not title:
        raise ConfigError("a conversation title cannot be empty")
    if len(title) > TITLE_MAX_CHARS:
        raise ConfigError(f"a conversation title holds {len(title)} characters; the limit is {TITLE_MAX_CHARS}")
    return title


def _enrich_citations(data: dict[str, Any], answer: Answer) -> None:
    """Citations with their title and section (a source chip can then say where)."""
    from ..answer.sanitize import plain

    for citation in data["citations"]:
        source = answer.context.source(citation["n"])
        if source is not None:
            citation["title"] = plain(source.title) or None
            citation["section"] = plain(source.section) or None
