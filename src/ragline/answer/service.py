"""The Answerer: search → context → abstain check → generate → grounding → Answer.

It is the documents route (``answer.route``): the engine's router hands it every
question no other route takes. ``Answerer.stream`` yields JSON-ready events;
``Answerer.ask`` runs the same steps and returns the typed ``Answer``:

- ``{"type": "delta", "text": "..."}`` — a piece of answer text;
- ``{"type": "restart", "reason": "..."}`` — the provider failed after it had
  started; discard the text so far (the extractive fallback follows);
- ``{"type": "done", "answer": {...}}`` — the final ``Answer.to_dict()``, always last.
  Its ``answer`` is authoritative (grounding may have dropped sentences).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..embed import check_vectors
from ..embed.base import DelegatingEmbedder, Embedder
from ..embed.cache import QueryCache
from ..embed.registry import abstain_floor
from ..errors import ConfigError, EmbedderError, GeneratorError
from ..models import Hit, Scope, index_text
from ..retrieve.rerank import Reranker
from ..retrieve.search import Searcher, SearchResult
from ..settings import Settings
from ..store import Store
from ..store.filters import Filters
from ..tracing import span
from .constraints import MIN_COVERAGE, WEAK, missing_constraints, term_coverage
from .context import ContextBuilder, RAGContext
from .generators import GENERATORS, GenerationRequest, Generator, allowed_generators, make_generator
from .generators.extractive import ExtractiveGenerator
from .grounding import GroundingChecker
from .prompt import build_prompt, is_no_answer
from .route import Asked, Decision, Router
from .tokens import TokenCounter
from .types import Answer, AnswerEvents, AnswerStream, Citation, Event

if TYPE_CHECKING:
    from .turn import AnswerTurn

log = logging.getLogger(__name__)

NOTHING_FOUND = "I could not find anything about this in the knowledge base."
NOT_RELEVANT = "The knowledge base does not seem to contain the answer to this question."
# The sources are about the question's topic but none states its constraint (constraints.py).
NOT_MENTIONED = "The knowledge base does not seem to contain the answer to this question: it says nothing about {}."

class MemoEmbedder(DelegatingEmbedder):
    """Wraps an embedder for one question: remembers every vector it computed, so
    search, relevance, the extractive generator and grounding embed each text once."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.query_vector: np.ndarray | None = None
        self._vectors: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        # Checked like every vector here: a NaN would silently corrupt relevance and grounding.
        vector = check_vectors([self.inner.embed_query(text)], 1, self.dimension, self.model_id)[0]
        self.query_vector = vector
        return vector

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if todo:
            vectors = check_vectors(self.inner.embed_documents(todo), len(todo), self.dimension, self.model_id)
            self._vectors.update(zip(todo, vectors))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


class Answerer:
    """Answers questions over one store with one embedder and the settings' defaults:
    the documents route (``name``, ``decide``, ``answer``: ``answer.route.Route``)."""

    name = "retrieval"

    def __init__(self, store: Store, embedder: Embedder, settings: Settings, *,
                 counter: TokenCounter | None = None, query_cache: QueryCache | None = None,
                 remote_wait: Callable[[], AbstractContextManager[object]] = nullcontext,
                 reranker: Reranker | None = None) -> None:
        self.store = store
        self.reranker = reranker  # the search's rerank stage (search.rerank)
        self.remote_wait = remote_wait  # entered while waiting on a remote provider (the server's fair share)
        self.embedder = embedder
        self.settings = settings
        self.counter = counter
        self.query_cache = query_cache  # repeated questions embed once (per tenant)
        self._generators: dict[str, Generator] = {}

    # -- public API ----------------------------------------------------------------
    def ask(self, question: str, scope: Scope, *, generator: str | Generator | None = None, mode: str | None = None,
            filters: Filters | None = None, turn: AnswerTurn | None = None) -> Answer:
        """Answer ``question`` from the documents ``scope`` can read. ``turn`` (a
        conversation's, ``ragline.conversations``) changes what is searched and the bounds."""
        return self._alone.ask(question, scope, generator=generator, mode=mode, filters=filters, turn=turn)

    def stream(self, question: str, scope: Scope, *, generator: str | Generator | None = None,
               mode: str | None = None, filters: Filters | None = None, turn: AnswerTurn | None = None) -> AnswerStream:
        """Like ``ask`` but as events (see the module docstring). Bad input raises
        here, before the first event; provider failures never raise."""
        return self._alone.stream(question, scope, generator=generator, mode=mode, filters=filters, turn=turn)

    @cached_property
    def _alone(self) -> Router:
        """This route on its own (no other route is asked: the engine's router asks them)."""
        return Router([self], self.generator)

    # -- the route (answer.route) ------------------------------------------------------
    def decide(self, asked: Asked) -> Decision:
        return Decision(True, "")  # every question: the answer's route reason is why the others declined it

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        return self._run(asked.question, asked.scope, generator, asked.mode, asked.filters, asked.streaming,
                         asked.turn)

    def generator(self, generator: str | Generator | None = None) -> Generator:
        """The named generator (cached; built from settings and provider env vars).

        A name may come from a tenant's request, so it must be one the operator
        allowed (``allowed_generators``); anything else is a ``ConfigError`` naming
        the allowed ones. A ``Generator`` object is the library caller's own choice."""
        if generator is not None and not isinstance(generator, str):
            return generator
        allowed = allowed_generators(self.settings.generator)
        name = (generator or self.settings.generator.name).strip().lower()
        if name not in allowed:
            problem = f"generator {name!r} is not allowed" if name in GENERATORS else f"unknown generator {name!r}"
            raise ConfigError(f"{problem}; choose one of: {', '.join(allowed)}")
        if name not in self._generators:
            self._generators[name] = make_generator(self.settings.generator, name=name, embedder=self.embedder)
        return self._generators[name]

    def floor(self) -> float | None:
        """The abstain floor: the setting, else the one measured for this model (the
        embedder registry; None for models never measured: abstain only on no hits)."""
        configured = self.settings.answer.relevance_floor
        return configured if configured is not None else abstain_floor(self.embedder)

    def relevance(self, scope: Scope, hits: list[Hit], query_vector: np.ndarray | None,
                  memo: Embedder | None = None) -> dict[str, float]:
        """cosine(question, chunk) per hit, from the stored vectors (embedded only if
        missing). Empty when there is no query vector (keyword-only search); hits the
        embedder fails on have none (they are then kept, not judged)."""
        if query_vector is None or not hits:
            return {}
        stored = self.store.vectors(scope, [h.chunk_id for h in hits])
        missing = [h for h in hits if h.chunk_id not in stored]
        if missing:
            try:
                vectors = (memo or self.embedder).embed_documents([index_text(h.title, h.text, h.section)
                                                                   for h in missing])
            except EmbedderError as exc:  # the embedder broke after the query: answer without these
                log.warning("relevance of %d hits unknown: %s", len(missing), exc)
            else:
                stored.update((h.chunk_id, v) for h, v in zip(missing, vectors))
        q = np.asarray(query_vector, dtype=np.float32)
        return {h.chunk_id: float(np.dot(stored[h.chunk_id], q)) for h in hits if h.chunk_id in stored}

    # -- the pipeline ---------------------------------------------------------------
    def _run(self, question: str, scope: Scope, generator: Generator, mode: str | None,
             filters: Filters | None, streaming: bool, turn: AnswerTurn | None = None) -> AnswerEvents:
        started = time.perf_counter()
        cached = self.query_cache.for_tenant(self.embedder, scope.tenant) if self.query_cache else self.embedder
        memo = MemoEmbedder(cached)
        answer_settings = self.settings.answer
        searcher = Searcher(self.store, memo, self.settings.search, reranker=self.reranker)
        if turn is not None:  # a conversation's turn: the rewritten follow-up, fused with the cited documents
            result: SearchResult = turn.search(searcher, question, scope, mode=mode, k=answer_settings.candidates,
                                               filters=filters)
        else:
            result = searcher.search(question, scope, mode=mode, k=answer_settings.candidates, filters=filters)
        embed_ms = result.timings_ms.get("embed", 0.0)
        if memo.query_vector is None and result.degraded is None and result.hits:
            # Keyword search by choice: the abstain decision still needs the question's vector.
            embed_started = time.perf_counter()
            try:
                memo.embed_query(turn.query or question if turn is not None else question)
            except EmbedderError:
                pass
            embed_ms += (time.perf_counter() - embed_started) * 1000
        relevance = self.relevance(scope, result.hits, memo.query_vector, memo)
        floor = self.floor()
        max_tokens, max_sources = answer_settings.max_tokens, answer_settings.max_sources
        if turn is not None:  # per-request bounds
            max_tokens, max_sources, floor = turn.context_bounds(max_tokens, max_sources, floor)
        builder = ContextBuilder(max_tokens=max_tokens, max_sources=max_sources,
                                 floor=floor, neighbours=answer_settings.neighbours, counter=self.counter)
        with span("context"):
            context = builder.build(result.hits, relevance, lambda hit: self._doc_chunks(scope, hit))
        timings = {"embed": embed_ms, "search": (time.perf_counter() - started) * 1000 - embed_ms}
        answer = Answer(question=question, answer="", citations=[], abstained=False, generator=generator.name,
                        context=context, search_mode=result.mode, degraded=result.degraded, timings_ms=timings)
        missing = self._unmet(turn.query if turn is not None and turn.query else question, context, floor)
        if not context.sources and turn is not None and turn.answers_generally(generator):
            yield from turn.general_answer(question, generator, answer, self.settings.generator)
        if not context.sources and not (turn is not None and turn.general):
            best = max(relevance.values(), default=None)
            answer.abstained, answer.generator = True, "none"
            answer.answer = NOTHING_FOUND if not result.hits else NOT_RELEVANT
            if best is not None and floor is not None and result.hits:
                log.info("abstained: best relevance %.3f < floor %.3f", best, floor)
            yield {"type": "delta", "text": answer.answer}
        elif missing:  # on topic, but the asked-for duration or name is nowhere in the sources
            log.info("abstained: %s", ", ".join(missing))
            answer.abstained, answer.generator = True, "none"
            named = [m for m in missing if m != WEAK]
            answer.answer = NOT_MENTIONED.format(", ".join(f"“{m}”" for m in named)) if named else NOT_RELEVANT
            yield {"type": "delta", "text": answer.answer}
        elif context.sources:
            yield from self._generate(question, context, generator, memo, answer, streaming, turn)
        answer.timings_ms["total"] = (time.perf_counter() - started) * 1000
        return answer

    def _generate(self, question: str, context: RAGContext, generator: Generator, memo: MemoEmbedder,
                  answer: Answer, streaming: bool, turn: AnswerTurn | None = None) -> Iterator[Event]:
        started = time.perf_counter()
        gen_settings = self.settings.generator
        prompt = build_prompt(question, context)
        request = GenerationRequest(question=question, context=context,
                                    prompt=turn.prompt(prompt) if turn is not None else prompt,
                                    temperature=gen_settings.temperature,
                                    max_output_tokens=gen_settings.max_output_tokens,
                                    query_vector=turn.answer_vector(question, memo) if turn is not None else memo.query_vector)
        parts: list[str] = []
        try:
            # A whole answer uses the provider's plain endpoint; a stream its event stream.
            with span("generate", yields=True, generator=generator.name), \
                    nullcontext() if isinstance(generator, ExtractiveGenerator) else self.remote_wait():
                for delta in generator.stream(request) if streaming else [generator.generate(request)]:
                    parts.append(delta)
                    yield {"type": "delta", "text": delta}
        except Exception as exc:
            reason = str(exc) if isinstance(exc, GeneratorError) else f"{generator.name}: {type(exc).__name__}: {exc}"
            if isinstance(generator, ExtractiveGenerator):
                raise  # the fallback itself failed: a bug, not an outage
            log.info("generator failed, falling back to extractive: %s", reason)
            if parts:
                yield {"type": "restart", "reason": reason}
            answer.fallback_reason, answer.generator = reason, "extractive"
            parts = []
            for delta in ExtractiveGenerator(memo).stream(request):
                parts.append(delta)
                yield {"type": "delta", "text": delta}
        text = "".join(parts).strip()
        answer.timings_ms["generate"] = (time.perf_counter() - started) * 1000
        if not isinstance(generator, ExtractiveGenerator):  # tokens as the provider reported them
            answer.usage = {"model": getattr(generator, "model", None) or generator.name,
                            "input_tokens": request.usage.input_tokens, "output_tokens": request.usage.output_tokens,
                            "reported": request.usage.reported}
        if is_no_answer(text):
            answer.answer, answer.abstained = text, True
            return
        checker = GroundingChecker(memo)
        answer.answer, answer.grounding = checker.check(text, context,
                                                        drop_unsupported=self.settings.answer.drop_unsupported)
        answer.citations = _citations(answer, context)

    def _unmet(self, question: str, context: RAGContext, floor: float | None) -> list[str]:
        """Why the kept sources do not answer ``question`` although they cleared the
        floor: the constraints (durations, names) no source meets, or ``WEAK`` when
        the best relevance is within ``answer.lexical_margin`` of the floor and the
        sources hold under half of the question's terms (constraints.py); [] when
        they answer it, the checks are off or there are no sources."""
        settings = self.settings.answer
        if not settings.check_constraints or not context.sources:
            return []
        evidence = [index_text(s.title, s.text, s.section) for s in context.sources]
        missing = missing_constraints(question, evidence)
        if missing:
            return missing
        best = max((s.relevance for s in context.sources if s.relevance is not None), default=None)
        if (floor is not None and best is not None and best < floor + settings.lexical_margin
                and term_coverage(question, evidence) < MIN_COVERAGE):
            return [WEAK]
        return []

    def _doc_chunks(self, scope: Scope, hit: Hit) -> list[Hit]:
        ids = [(cid, 0.0) for cid in self.store.document_chunk_ids(scope, hit.doc_id)]
        return self.store.get_hits(scope, ids)

    def close(self) -> None:
        for generator in self._generators.values():
            close = getattr(generator, "close", None)
            if close is not None:
                close()
        self._generators.clear()


def _statement_line(hit: Hit) -> list[str] | None:
    """A line of a transactions statement cites its transaction (the chunk's section is
    its id, ``records.documents``); any other passage cites none."""
    if (hit.metadata or {}).get("kind") == "transactions" and hit.section:
        return [hit.section]
    return None


def _citations(answer: Answer, context: RAGContext) -> list[Citation]:
    cited = sorted({n for s in answer.grounding.sentences for n in s.cited if context.source(n) is not None})
    if not answer.grounding.sentences:  # no sentence structure found: fall back to a raw scan
        from .text import cited_numbers

        cited = sorted(n for n in cited_numbers(answer.answer) if context.source(n) is not None)
    out = []
    for n in cited:
        source = context.source(n)
        assert source is not None
        out.append(Citation(n=n, chunk_id=source.chunk_id, doc_id=source.doc_id, source=source.hit.source,
                            # The question–passage cosine when known: comparable across answers,
                            # unlike a fused rank score (the top hit of weighted fusion is always 1).
                            page=source.page,
                            score=source.relevance if source.relevance is not None else source.hit.score,
                            transaction_ids=_statement_line(source.hit)))
    return out
