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
import re
import time
from collections.abc import Callable, Sequence
from collections.abc import Generator as Generator_
from contextlib import AbstractContextManager, nullcontext
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..embed import check_vectors
from ..embed.base import DelegatingEmbedder, Embedder
from ..embed.cache import QueryCache
from ..embed.registry import abstain_floor
from ..errors import ConfigError, EmbedderError, GeneratorError, NotFoundError
from ..messages import DEFAULT_LANGUAGE, message, quoted
from ..models import Hit, Scope, index_text
from ..pause import pause_point
from ..retrieve.rerank import Reranker
from ..retrieve.search import Searcher, SearchResult
from ..settings import Settings
from ..store import Store
from ..store.filters import Filters
from ..tracing import span
from .constraints import MIN_COVERAGE, WEAK, Sibling, alike, missing_constraints, missing_sibling, plural, term_coverage
from .context import ContextBuilder, RAGContext
from .floor import FloorCalibrator
from .generators import GENERATORS, GenerationRequest, Generator, allowed_generators, make_generator
from .generators.extractive import ExtractiveGenerator
from .glossary import ABBREVIATION, LONG_FORM, expanded, spelled_out
from .grounding import GroundingChecker
from .language import answer_language
from .passages import definitions, fold
from .prompt import Prompt, build_prompt, is_no_answer
from .route import Asked, Decision, Router
from .tokens import TokenCounter
from .types import Answer, AnswerEvents, AnswerStream, Citation, Event, Grounding

if TYPE_CHECKING:
    from .turn import AnswerTurn

log = logging.getLogger(__name__)

# The abstentions are the catalogs' "nothing_found", "not_relevant" and "not_mentioned" (the
# sources are about the question's topic but none states its constraint: constraints.py).
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
        return Router([self], self.generator, language=self.language)

    def language(self, question: str, scope: Scope) -> str:
        """The language of an answer's fixed messages (``answer.language``)."""
        return answer_language(self.store, question, scope)

    # -- the route (answer.route) ------------------------------------------------------
    def decide(self, asked: Asked) -> Decision:
        return Decision(True, "")  # every question: the answer's route reason is why the others declined it

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        return self._run(asked.question, asked.scope, generator, asked.mode, asked.filters, asked.streaming,
                         asked.turn, asked.language)

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

    def scope_floor(self, scope: Scope) -> float | None:
        """The floor for a question in ``scope``: a configured floor as it is; the
        model's lowered to what questions about nothing score in these collections
        (``answer.floor``), unless ``answer.calibrate_floor`` is off."""
        base = self.floor()
        if base is None or self.settings.answer.relevance_floor is not None or not self.settings.answer.calibrate_floor:
            return base
        wanted = set(scope.collections)
        size = tuple(sorted(f"{c.name}:{c.chunks}" for c in self.store.list_collections(scope.tenant)
                            if not wanted or c.name in wanted))

        def best(vector: np.ndarray) -> float | None:
            try:
                hits = self.store.get_hits(scope, self.store.dense_search(scope, vector, 1))
            except (ConfigError, NotFoundError):
                return None
            return max(self.relevance(scope, hits, vector).values(), default=None)

        return self.calibrator.floor(scope, base, size, best)

    @cached_property
    def calibrator(self) -> FloorCalibrator:
        return FloorCalibrator(self.embedder)

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
             filters: Filters | None, streaming: bool, turn: AnswerTurn | None = None,
             language: str = DEFAULT_LANGUAGE) -> AnswerEvents:
        started = time.perf_counter()
        cached = self.query_cache.for_tenant(self.embedder, scope.tenant) if self.query_cache else self.embedder
        memo = MemoEmbedder(cached)
        answer_settings = self.settings.answer
        searcher = Searcher(self.store, memo, self.settings.search, reranker=self.reranker)
        asked = turn.query if turn is not None and turn.query else question
        glossary = self._glossary(asked, scope, searcher)  # "EMI" → the long form the collection defines
        pause_point()
        if turn is not None:  # a conversation's turn: the rewritten follow-up, fused with the cited documents
            result: SearchResult = turn.search(searcher, question, scope, mode=mode, k=answer_settings.candidates,
                                               filters=filters)
        else:
            result = searcher.search(expanded(question, glossary), scope, mode=mode, k=answer_settings.candidates,
                                     filters=filters)
            # A long form the question spells out in lower case ("inertial measurement unit")
            # may be defined in what was found: search again with its abbreviation beside it.
            found = spelled_out(question, result.hits, glossary)
            if found:
                glossary.update(found)
                result = searcher.search(expanded(question, glossary), scope, mode=mode,
                                         k=answer_settings.candidates, filters=filters)
        embed_ms = result.timings_ms.get("embed", 0.0)
        if memo.query_vector is None and result.degraded is None and result.hits:
            # Keyword search by choice: the abstain decision still needs the question's vector.
            embed_started = time.perf_counter()
            try:
                memo.embed_query(turn.query or question if turn is not None else question)
            except EmbedderError:
                pass
            embed_ms += (time.perf_counter() - embed_started) * 1000
        pause_point()  # the stages after search are CPU work too: a lighter tenant's request may go first
        relevance = self.relevance(scope, result.hits, memo.query_vector, memo)
        pause_point()
        floor = self.floor()
        if floor is not None and max(relevance.values(), default=floor) < floor:
            # Only a question whose best passage misses the model's floor is judged by this
            # collection's own (lower) one: it rescues paraphrases without letting weak
            # passages in beside a strong one.
            floor = self.scope_floor(scope)
        max_tokens, max_sources = answer_settings.max_tokens, answer_settings.max_sources
        if turn is not None:  # per-request bounds
            max_tokens, max_sources, floor = turn.context_bounds(max_tokens, max_sources, floor)
        builder = ContextBuilder(max_tokens=max_tokens, max_sources=max_sources,
                                 floor=floor, neighbours=answer_settings.neighbours, counter=self.counter)
        pause_point()
        with span("context"):
            context = builder.build(result.hits, relevance, lambda hit: self._doc_chunks(scope, hit))
        timings = {"embed": embed_ms, "search": (time.perf_counter() - started) * 1000 - embed_ms}
        answer = Answer(question=question, answer="", citations=[], abstained=False, generator=generator.name,
                        context=context, search_mode=result.mode, degraded=result.degraded, timings_ms=timings,
                        language=language)
        pause_point()
        missing = self._unmet(asked, context, floor, glossary, searcher, scope, question, memo)
        pause_point()
        if not context.sources and turn is not None and turn.answers_generally(generator):
            yield from turn.general_answer(question, generator, answer, self.settings.generator)
        if not context.sources and not (turn is not None and turn.general):
            best = max(relevance.values(), default=None)
            answer.abstained, answer.generator = True, "none"
            answer.answer = message("nothing_found" if not result.hits else "not_relevant", language)
            if best is not None and floor is not None and result.hits:
                log.info("abstained: best relevance %.3f < floor %.3f", best, floor)
            yield {"type": "delta", "text": answer.answer}
        elif missing:  # on topic, but the asked-for duration, name or kind is nowhere in the sources
            answer.abstained, answer.generator = True, "none"
            if isinstance(missing, Sibling):
                log.info("abstained: asked %s, the sources cover %s", missing.asked, missing.covered)
                form = "spanish" if language == "es" else "english"
                answer.answer = message("covers_instead", language, covered=plural(missing.covered, form),
                                        asked=plural(missing.asked, form))
            else:
                log.info("abstained: %s", ", ".join(missing))
                named = [m for m in missing if m != WEAK]
                answer.answer = (message("not_mentioned", language, terms=quoted(named, language)) if named
                                 else message("not_relevant", language))
            yield {"type": "delta", "text": answer.answer}
        elif context.sources:
            yield from self._generate(question, context, generator, memo, answer, streaming, turn)
        answer.timings_ms["total"] = (time.perf_counter() - started) * 1000
        return answer

    def _generate(self, question: str, context: RAGContext, generator: Generator, memo: MemoEmbedder,
                  answer: Answer, streaming: bool, turn: AnswerTurn | None = None) -> Generator_[Event, None, None]:
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
        if is_no_answer(text):  # the model's fixed reply (prompt.NO_ANSWER), said in the user's language
            answer.answer, answer.abstained = message("not_relevant", answer.language), True
            return
        pause_point()  # before the claims are checked
        shipped = yield from self._verified(text, request, generator, memo, answer, turn)
        answer.answer = shipped
        answer.citations = _citations(answer, context)

    def _verified(self, text: str, request: GenerationRequest, generator: Generator, memo: MemoEmbedder,
                  answer: Answer, turn: AnswerTurn | None) -> Generator_[Event, None, str]:
        """Check every claim of ``text`` (``answer.claims``) and return the text that
        may ship. A model's failed claims are named back to it once; what still
        fails is dropped; when nothing checked remains the answer is quoted from the
        sources instead (extractive) and says so. Yields a ``restart`` and the new
        text when it differs from what was streamed."""
        context = request.context
        checker = GroundingChecker(memo)
        drop = self.settings.answer.drop_unsupported
        general = turn is not None and turn.policy == "general"
        llm = not isinstance(generator, ExtractiveGenerator)
        # A quote is the source's own words: the check reports on it but never cuts it.
        shipped, grounding = checker.check(text, context, drop_unsupported=drop and llm, general=general,
                                           language=answer.language)
        if drop and llm and grounding.dropped:
            retry = self._regenerate(request, generator, text, grounding)
            if retry is not None:
                first = grounding.first + [*grounding.sentences, *grounding.dropped]
                for claim in first:
                    claim.note = "first reply" if claim.note is None else f"first reply, {claim.note}"
                if is_no_answer(retry):
                    grounding.action.insert(0, "regenerated")
                else:
                    shipped, grounding = checker.check(retry, context, drop_unsupported=True, general=general,
                                                       language=answer.language)
                    grounding.first = first
                    grounding.action.insert(0, "regenerated")
        if drop and llm and not any(c.status == "supported" for c in grounding.sentences) and (
                grounding.dropped or grounding.first):
            failed = "; ".join(c.problem for c in grounding.dropped if c.problem) or "no claim could be checked"
            quoted = ExtractiveGenerator(memo).generate(request)
            first = grounding.first + [*grounding.sentences, *grounding.dropped]
            done = [a for a in grounding.action if a != "dropped"]
            shipped, grounding = checker.check(quoted, context)
            grounding.first, grounding.action = first, [*done, "fallback"]
            answer.generator = "extractive"
            answer.fallback_reason = f"the model's answer failed the claim check ({failed}); quoted from the sources"
        answer.grounding = grounding
        if shipped != text:
            yield {"type": "restart", "reason": "claims checked against the sources: "
                                                + ", ".join(grounding.action or ["re-cited"])}
            yield {"type": "delta", "text": shipped}
        return shipped

    def _regenerate(self, request: GenerationRequest, generator: Generator, text: str,
                    grounding: Grounding) -> str | None:
        """Ask the model once more, naming the claims its sources do not support;
        None when the provider fails (the checked part of the first reply stands)."""
        failed = "\n".join(f"- {c.text}" + (f" ({c.problem})" if c.problem else "") for c in grounding.dropped)
        prompt = Prompt(system=request.prompt.system, tag=request.prompt.tag, user=(
            f"{request.prompt.user}\n\nYour previous answer was:\n{text}\n\nThese statements are not supported "
            f"by the sources they cite:\n{failed}\n\nAnswer again. State only facts the sources state, each with "
            f"the number of the source that states it, and leave out what they do not say."))
        retry = GenerationRequest(question=request.question, context=request.context, prompt=prompt,
                                  temperature=request.temperature, max_output_tokens=request.max_output_tokens,
                                  query_vector=request.query_vector, usage=request.usage)
        try:
            with span("regenerate", generator=generator.name), self.remote_wait():
                return generator.generate(retry).strip()
        except GeneratorError as exc:  # the provider failed on the retry: keep what passed
            log.info("regeneration failed: %s", exc)
            return None

    def _unmet(self, question: str, context: RAGContext, floor: float | None, glossary: dict[str, str],
               searcher: Searcher, scope: Scope, typed: str, memo: Embedder) -> list[str] | Sibling:
        """Why the kept sources do not answer ``question`` although they cleared the
        floor: the constraints (durations, names) no source meets; a kind of product
        no document names while the sources cover a sibling ("car loan" over personal
        loans: ``Sibling``); or ``WEAK`` when the best relevance is within
        ``answer.lexical_margin`` of the floor and the sources hold under half of the
        question's terms (constraints.py). [] when they answer it, the checks are off
        or there are no sources. ``typed`` is the user's own words (``question`` may be a
        follow-up's rewrite, whose joined phrases are no kind of anything)."""
        settings = self.settings.answer
        if not settings.check_constraints or not context.sources:
            return []
        evidence = [index_text(s.title, s.text, s.section) for s in context.sources]
        missing = missing_constraints(question, evidence, glossary)
        if missing:
            return missing
        sibling = missing_sibling(typed, evidence, lambda phrase: self._holds(phrase, scope, searcher),
                                  language=searcher.language(scope), alike=lambda w, kinds: alike(memo, w, kinds))
        if sibling is not None:
            return sibling
        best = max((s.relevance for s in context.sources if s.relevance is not None), default=None)
        if (floor is not None and best is not None and best < floor + settings.lexical_margin
                and term_coverage(question, evidence) < MIN_COVERAGE):
            return [WEAK]
        return []

    def _glossary(self, question: str, scope: Scope, searcher: Searcher) -> dict[str, str]:
        """The question's abbreviations that the collection spells out somewhere
        ("Equated Monthly Instalment (EMI)"), and its spelled-out names that the
        collection abbreviates: found through the keyword index, so a question
        saying "EMI" meets a page that only says "instalment", and one saying "Real
        Time Gross Settlement" a page that only says "RTGS"."""
        out: dict[str, str] = {}
        asked = [*ABBREVIATION.findall(question), *LONG_FORM.findall(question)]
        for term in dict.fromkeys(asked):
            wanted = " ".join(re.findall(r"\w+", fold(term)))
            for hit in self._lookup(term, scope, searcher, 5):
                other = definitions(hit.text).get(wanted)
                if other:
                    out[term] = other
                    break
        return out

    def _holds(self, phrase: str, scope: Scope, searcher: Searcher) -> bool:
        """Does any document of the scope hold ``phrase`` as written (plural or not,
        a hyphen or a space: "per-transaction limit" in "limit per transaction")?"""
        if "-" in phrase and self._holds(phrase.split()[0].replace("-", " ") if " " in phrase else phrase.replace(
                "-", " "), scope, searcher):
            return True
        wanted = re.compile(r"\b" + r"\W+".join(re.escape(fold(w).rstrip("s")) + r"\w{0,2}" for w in phrase.split())
                            + r"\b")
        return any(wanted.search(fold(hit.text)) for hit in self._lookup(phrase, scope, searcher, 10))

    @staticmethod
    def _lookup(text: str, scope: Scope, searcher: Searcher, k: int) -> list[Hit]:
        try:
            return searcher.search(text, scope, mode="keyword", k=k).hits
        except (ConfigError, NotFoundError):
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
