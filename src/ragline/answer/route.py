"""The route seam: which way a question is answered, decided in one place.

A ``Route`` looks at a question (``Asked``: the text, the scope, a conversation's
turn) and says whether it answers it and why (``Decision``); the ``Router`` asks
its routes in order and streams the first taker's answer. The documents route
(``Answerer``: search, context, generate, grounding) takes whatever the others
decline, so it comes last. The engine registers the routes (``Engine.router``);
adding a way to answer is one class with ``name``, ``decide`` and ``answer``, and
one registration (``engine.router.register(GreetingRoute())``, or an entry in
``Engine.router``'s list)::

    class GreetingRoute:
        name = "greeting"

        def decide(self, asked: Asked) -> Decision:
            return Decision(asked.query.lower() in {"hi", "hello"}, "a greeting")

        def answer(self, asked, decision, generator):
            answer = Answer(question=asked.question, answer="Hello!", citations=[], abstained=False,
                            generator="none", context=RAGContext(enabled=False))
            yield {"type": "delta", "text": answer.answer}
            return answer

A route's ``answer`` is a generator: it yields ``delta`` (and ``restart``) events and
returns the typed ``Answer``; the router adds the ``done`` event, the answer's
``route`` and ``language`` when the route did not set them, and the bookkeeping
(``on_answer``). ``Asked.language`` is the language the answer's fixed messages
are in (``ragline.messages``), decided once per question by the router.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError
from ..messages import DEFAULT_LANGUAGE, choose_language
from ..models import Scope
from ..pause import pause_point
from ..store.filters import Filters
from .generators import Generator
from .types import Answer, AnswerEvents, AnswerStream, Event

if TYPE_CHECKING:
    from .turn import AnswerTurn

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Asked:
    """One question as the routes see it."""

    question: str  # as asked (stripped)
    scope: Scope
    mode: str | None = None  # the search mode asked for (documents route)
    filters: Filters | None = None
    turn: AnswerTurn | None = None  # a conversation's turn (chat); None for a single question
    streaming: bool = True  # a stream asks a provider for its event stream, a whole answer for its plain endpoint
    language: str = DEFAULT_LANGUAGE  # of the fixed messages (ragline.messages): set by the router

    @property
    def query(self) -> str:
        """What a route reads to decide: a follow-up's rewritten query, else the question."""
        return self.turn.query if self.turn is not None and self.turn.query else self.question


@dataclass(frozen=True)
class Decision:
    """A route's verdict on one question: whether it answers it, why, and what it
    found deciding (handed back to its ``answer``)."""

    taken: bool
    reason: str  # "" for a route that takes every question (the documents)
    plan: Any = None


class Route(Protocol):
    """One way to answer a question (exact records, the documents, …)."""

    name: str  # the answer's ``route.name`` on the wire

    def decide(self, asked: Asked) -> Decision:
        """Whether this route answers ``asked``; cheap, and never answers itself."""
        ...

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        """Yield ``delta``/``restart`` events; return the finished Answer."""
        ...


class Router:
    """Asks the routes in order; the first that takes a question answers it. The
    last route should take everything (the documents route does)."""

    def __init__(self, routes: Sequence[Route], choose: Callable[[str | Generator | None], Generator], *,
                 on_answer: Callable[[Scope, Answer], None] | None = None,
                 language: Callable[[str, Scope], str] | None = None) -> None:
        if not routes:
            raise ValueError("a router needs at least one route")
        self.routes = list(routes)
        self.choose = choose  # a generator by name (the operator's allowed ones), or the caller's own object
        self.on_answer = on_answer  # told of every finished answer, whichever route made it (usage metering)
        self._language = language  # (question, scope) → a catalog language (answer.language.answer_language)

    def language(self, question: str, scope: Scope) -> str:
        """The language an answer to ``question`` speaks in (its fixed messages): the
        hook given, else the question's own language or English."""
        return self._language(question, scope) if self._language is not None else choose_language(question)

    def register(self, route: Route) -> None:
        """Ask ``route`` after the routes already registered and before the last
        one (the documents route, which takes every question)."""
        self.routes.insert(len(self.routes) - 1, route)

    def generator(self, generator: str | Generator | None = None) -> Generator:
        return self.choose(generator)

    def ask(self, question: str, scope: Scope, *, generator: str | Generator | None = None, mode: str | None = None,
            filters: Filters | None = None, turn: AnswerTurn | None = None) -> Answer:
        stream = self._start(question, scope, generator, mode, filters, turn, streaming=False)
        for _ in stream:
            pass
        assert stream.answer is not None
        return stream.answer

    def stream(self, question: str, scope: Scope, *, generator: str | Generator | None = None,
               mode: str | None = None, filters: Filters | None = None, turn: AnswerTurn | None = None) -> AnswerStream:
        """The answer's events (``answer.service``'s module docstring). Bad input raises
        here, before the first event; the routes decide when the first event is asked for."""
        return self._start(question, scope, generator, mode, filters, turn, streaming=True)

    def _start(self, question: str, scope: Scope, generator: str | Generator | None, mode: str | None,
               filters: Filters | None, turn: AnswerTurn | None, *, streaming: bool) -> AnswerStream:
        if not isinstance(question, str) or not question.strip():
            raise ConfigError("question is empty")
        chosen = self.choose(generator)
        asked = Asked(question.strip(), scope, mode, filters, turn, streaming)
        stream = AnswerStream()
        stream.events = self._events(asked, chosen, stream)
        return stream

    def _events(self, asked: Asked, generator: Generator, stream: AnswerStream) -> Iterator[Event]:
        # Decided on the first event, not at creation: it may read the store, as the search does.
        asked = replace(asked, language=self.language(asked.question, asked.scope))
        route, decision, declined = self._decide(asked)
        answer = yield from route.answer(asked, decision, generator)
        if answer.language is None:
            answer.language = asked.language
        if answer.route is None and len(self.routes) > 1:  # a router of one route made no choice to report
            # The route taken, and why: its own reason, or (the last route's, which takes every
            # question and has none) the reasons the routes before it declined the question.
            answer.route = {"name": route.name, "reason": decision.reason or "; ".join(declined)}
        stream.answer = answer
        if self.on_answer is not None:
            try:
                self.on_answer(asked.scope, answer)
            except Exception:  # bookkeeping must not break an answer
                log.exception("recording an answer's usage failed")
        yield {"type": "done", "answer": answer.to_dict()}

    def _decide(self, asked: Asked) -> tuple[Route, Decision, list[str]]:
        declined: list[str] = []
        for route in self.routes[:-1]:
            pause_point()  # deciding reads the whole question (up to 10,000 characters) per route
            decision = route.decide(asked)
            if decision.taken:
                return route, decision, declined
            declined.append(decision.reason)
        last = self.routes[-1]
        return last, last.decide(asked), declined
