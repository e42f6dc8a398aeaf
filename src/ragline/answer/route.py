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

A route may take part of a question and hand the rest on: its ``Decision.rest``
is that rest, a question of its own ("what is the fee for paying abroad?" out of
"How much did I spend at Tesco, and what is the fee for paying abroad?"). The
router streams the taker's answer, then asks the routes after the taker about the
rest and streams that answer under a line naming it, its ``[n]`` renumbered after
the first part's; the ``done`` answer joins both (``joined``): the texts, the
citations, the first part's records, the second's context and grounding, and a
``route`` with both ``parts``. A route that hands nothing on (``rest`` None) is
answered exactly as before.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError
from ..messages import DEFAULT_LANGUAGE, choose_language, message, quoted
from ..models import Scope
from ..pause import pause_point
from ..store.filters import Filters
from .context import RAGContext
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
    rest: str | None = None  # the part of the question this route leaves to the routes after it


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
        if decision.rest and route is not self.routes[-1]:
            answer = yield from self._rest(asked, decision.rest, route, answer, generator)
        stream.answer = answer
        if self.on_answer is not None:
            try:
                self.on_answer(asked.scope, answer)
            except Exception:  # bookkeeping must not break an answer
                log.exception("recording an answer's usage failed")
        yield {"type": "done", "answer": answer.to_dict()}

    def _rest(self, asked: Asked, rest: str, taker: Route, first: Answer, generator: Generator) -> AnswerEvents:
        """The rest of a question a route handed on, answered by the routes after it and
        streamed after the first part (see the module docstring)."""
        later = self.routes[self.routes.index(taker) + 1:]
        rest_asked = replace(asked, question=rest, turn=None)
        route, decision, declined = self._decide(rest_asked, later)
        shift = max((c.n for c in first.citations), default=0)
        head = f"\n\n{message('handed_on', asked.language, question=quoted([rest], asked.language))} "
        yield {"type": "delta", "text": head}
        renumber = Renumber(shift)
        answers = route.answer(rest_asked, decision, generator)
        while True:
            try:
                event = next(answers)
            except StopIteration as done:
                second: Answer = done.value
                break
            if event.get("type") == "delta":
                text = renumber.feed(event["text"])
                if text:
                    yield {**event, "text": text}
            elif event.get("type") == "restart":  # the second part starts again: so does the whole text
                renumber = Renumber(shift)
                yield event
                yield {"type": "delta", "text": first.answer + head}
            else:
                yield event
        tail = renumber.flush()
        if tail:
            yield {"type": "delta", "text": tail}
        second.route = second.route or {"name": route.name, "reason": decision.reason or "; ".join(declined)}
        return joined(first, second, rest, shift, head)

    def _decide(self, asked: Asked, routes: Sequence[Route] | None = None) -> tuple[Route, Decision, list[str]]:
        routes = self.routes if routes is None else routes
        if len(routes) == 1:
            return routes[0], routes[0].decide(asked), []
        declined: list[str] = []
        for route in routes[:-1]:
            pause_point()  # deciding reads the whole question (up to 10,000 characters) per route
            decision = route.decide(asked)
            if decision.taken:
                return route, decision, declined
            declined.append(decision.reason)
        last = routes[-1]
        pause_point()
        return last, last.decide(asked), declined


class Renumber:
    """Shifts the ``[n]`` citation marks of streamed text by ``shift``; a mark cut
    between two deltas ("[1" … "2]") waits for its end."""

    def __init__(self, shift: int) -> None:
        self.shift = shift
        self.pending = ""

    def feed(self, text: str) -> str:
        text = self.pending + text
        cut = re.search(r"\[\d*$", text)
        self.pending = text[cut.start():] if cut else ""
        text = text[:cut.start()] if cut else text
        return shifted(text, self.shift)

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out


def shifted(text: str, shift: int) -> str:
    return re.sub(r"\[(\d+)\]", lambda m: f"[{int(m[1]) + shift}]", text) if shift else text


def joined(first: Answer, second: Answer, rest: str, shift: int, head: str) -> Answer:
    """One answer of two parts: ``first`` (the taker's) then ``second`` (the rest's),
    its citations renumbered after the first's."""
    citations = list(first.citations) + [replace(c, n=c.n + shift) for c in second.citations]
    route = dict(first.route or {})
    route["parts"] = [{"name": (first.route or {}).get("name"), "reason": (first.route or {}).get("reason"),
                       "question": first.question},
                      {"name": (second.route or {}).get("name"), "reason": (second.route or {}).get("reason"),
                       "question": rest, "abstained": second.abstained}]
    usage = first.usage or second.usage
    if first.usage and second.usage:
        usage = {**first.usage, "input_tokens": first.usage.get("input_tokens", 0) + second.usage.get("input_tokens", 0),
                 "output_tokens": first.usage.get("output_tokens", 0) + second.usage.get("output_tokens", 0)}
    timings = {k: first.timings_ms.get(k, 0.0) + second.timings_ms.get(k, 0.0)
               for k in set(first.timings_ms) | set(second.timings_ms)}
    # The second part's sources keep their numbers as cited: shifted like its citations.
    context = RAGContext(context=second.context.context, sources=[replace(s, n=s.n + shift)
                                                                  for s in second.context.sources],
                         dropped=second.context.dropped, enabled=second.context.enabled, tokens=second.context.tokens)
    return Answer(question=f"{first.question} {rest}".strip(), answer=first.answer + head + shifted(second.answer, shift),
                  citations=citations, abstained=first.abstained and second.abstained, generator=first.generator,
                  context=context, grounding=second.grounding,
                  fallback_reason=first.fallback_reason or second.fallback_reason, timings_ms=timings,
                  search_mode=second.search_mode, degraded=second.degraded, route=route, records=first.records,
                  usage=usage)
