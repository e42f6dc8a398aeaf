"""The Engine: the one module that knows every stage. CLI, API and UI are thin
adapters over it. Build it with a Settings object; nothing loads until used."""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import tracing
from .analyzer import DEFAULT_LANGUAGE, detect_language
from .embed import make_embedder
from .embed.base import DelegatingEmbedder, Embedder, EmbeddingCache
from .embed.cache import QueryCache
from .embed.registry import max_tokens as embedder_max_tokens
from .engine_admin import EngineAdmin
from .errors import RaglineError
from .models import Document, Scope
from .models.usage import ASK, MatchStat
from .retrieve.rerank import Reranker, make_reranker
from .retrieve.search import Searcher, SearchResult
from .settings import ChunkingSettings, Settings
from .store import Store, backend_for, open_store, redact
from .store.filters import Filters
from .store.types import CollectionInfo
from .usage.embedding import MeteredEmbedder
from .usage.meter import UsageMeter
from .usage.ranking import CANDIDATES_PER_HIT, by_counters, check_usage_options
from .usage.report import usage_report

if TYPE_CHECKING:  # the ingest side loads on first ingest: a search never imports the loaders
    from .answer import Answer, Answerer, AnswerStream, Generator, Router
    from .conversations import Conversations
    from .ingest.loaders.options import LoadOptions
    from .ingest.pipeline import Ingestor, IngestSummary, Progress
    from .ingest.sandbox import ParserSandbox
    from .records.service import Transactions
    from .reembed import ReembedReport
    from .store.migrate import MigrationReport


class Engine(EngineAdmin):
    """Ingest, search and answer over one store with one embedding model; the
    bookkeeping operations (tenants, keys, documents, jobs) come from ``EngineAdmin``."""

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None,
                 store: Store | None = None) -> None:
        self.settings = settings or Settings()
        self._embedder = embedder
        self._store = store
        self._sandbox: ParserSandbox | None = None
        self._warming: threading.Thread | None = None
        # Entered while an answer waits on a remote LLM: the server lends its request slot back
        # (server/fairness.py) so a slow provider holds no share of the CPU.
        self.remote_wait: Callable[[], AbstractContextManager[object]] = nullcontext
        tracing.configure(self.settings.tracing)  # spans stay a no-op unless configured
        # A script that never calls close(): its background threads (message embedding,
        # usage) are stopped and what they hold is written before the interpreter ends,
        # not killed inside ONNX Runtime ("terminate called without an active exception").
        self._at_exit = _CloseAtExit(self)
        atexit.register(self._at_exit)

    # -- components (lazy) ----------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.settings)
        return self._store

    def connect(self) -> None:
        """Open the store now rather than on first use: ``ConfigError`` for a misconfigured
        ``RAGLINE_STORE__URL``, ``StoreUnavailableError`` when it cannot be reached."""
        self.store  # noqa: B018

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedder, cache_dir=self.settings.embedder.model_cache())
        return self._embedder

    def warm_up(self) -> None:
        """Start loading the embedding model in a background thread (a cold CLI search
        or ask): ONNX Runtime builds the session without holding the GIL, so it overlaps
        opening the store and importing the answer stage. Errors are left for the first
        real use to report; ``close`` waits for the thread."""
        if self._warming is not None:
            return
        try:
            load = getattr(self.embedder, "warm_up", None)  # local models; remote ones have nothing to load
        except RaglineError:  # a misconfigured embedder: reported where it is used, as before
            return
        if load is None:
            return

        def run() -> None:
            try:
                load()
            except Exception:  # noqa: BLE001, S110 - the first embed call raises it, with its message
                pass

        self._warming = threading.Thread(target=run, name="ragline-warm-up", daemon=True)
        self._warming.start()

    @cached_property
    def reranker(self) -> Reranker | None:
        """The rerank stage ``search.rerank`` names (None: the search's own order)."""
        return make_reranker(self.settings.search, self.store, self.embedder)

    @cached_property
    def query_cache(self) -> QueryCache:
        """Query vectors by (tenant, model, text), bounded by ``embedder.query_cache_size``."""
        return QueryCache(self.settings.embedder.query_cache_size)

    @cached_property
    def embedding_cache(self) -> EmbeddingCache:
        return EmbeddingCache(self.settings.home / "embedding-cache.sqlite")

    @property
    def sandbox(self) -> ParserSandbox:
        if self._sandbox is None:
            from .ingest.loaders.options import LoadOptions
            from .ingest.sandbox import ParserSandbox

            self._sandbox = ParserSandbox(self.settings.limits, LoadOptions.from_settings(self.settings.ingest))
        return self._sandbox

    def collection(self, scope: Scope, chunking: ChunkingSettings | None = None, *,
                   language: str | None = None) -> CollectionInfo:
        """Create the scope's collection if needed (recording model, chunking and, when
        given or configured, its keyword language), or check the existing one matches
        this engine's embedding model."""
        config: dict[str, Any] = {"chunking": (chunking or self.settings.chunking).model_dump()}
        if (language or self.settings.search.language) is not None:
            config["language"] = language or self.settings.search.language
        return self.store.ensure_collection(scope, model_id=self.embedder.model_id,
                                            dimension=self.embedder.dimension, config=config)

    def _ingestor(self, scope: Scope, options: LoadOptions | None = None) -> Ingestor:
        from .ingest.chunkers import LengthLimit, make_chunker
        from .ingest.pipeline import Ingestor

        info = self.collection(scope)
        chunking = ChunkingSettings(**info.config.get("chunking", {}))
        count_tokens = getattr(self.embedder, "count_tokens", None)
        limit = embedder_max_tokens(self.embedder)
        overflow = self.settings.embedder.overflow
        # "head": chunks longer than the model's window are wanted (the keyword side reads them whole).
        chunker = make_chunker(chunking, token_length=count_tokens, window=None if overflow == "head" else limit)
        length_limit = None
        config = chunking.model_dump()
        if limit is not None and count_tokens is not None:
            length_limit = LengthLimit(limit, count_tokens, mode=overflow, model_id=self.embedder.model_id)
            config.update(max_tokens=limit, overflow=overflow)  # both shape the chunks: part of the config hash
        language, settle = self._language(scope, info)
        sandbox = self.sandbox if options is None else self.sandbox.with_options(options)
        embedder = MeteredEmbedder(self.embedder, self.meter, scope.tenant)  # tokens embedded, per tenant
        return Ingestor(self.store, embedder, chunker, sandbox, cache=self.embedding_cache,
                        chunking_config=config, batch_chunks=max(64, self.settings.embedder.batch_size * 8),
                        limits=self.settings.limits, data_dir=self.settings.home, length_limit=length_limit,
                        language=language, settle_language=settle)

    def _language(self, scope: Scope, info: CollectionInfo) -> tuple[str | None, Callable[[str], str] | None]:
        """The collection's keyword language; for a new, empty collection without one,
        (None, a detector): its first document's text decides, recorded in the collection."""
        language = info.config.get("language")
        if language is not None or info.documents:
            return language or DEFAULT_LANGUAGE, None  # filled before languages existed: English terms
        return None, lambda text: self.store.settle_language(scope, detect_language(text))

    # -- operations -----------------------------------------------------------
    @tracing.traced("ingest")
    def ingest(self, paths: Iterable[Path | str], scope: Scope, *, password: str | None = None,
               progress: Progress | None = None, options: LoadOptions | None = None) -> IngestSummary:
        """Load, chunk, embed and store files and directories (incrementally);
        ``options`` (record fields, OCR) default to ``settings.ingest``. Paths that
        hold no file to read (``/nonexistent``) are reported as failed without creating
        the collection: a typo leaves no empty collection behind."""
        from .ingest.discover import discover
        from .ingest.pipeline import IngestSummary

        targets = [Path(p) for p in paths]
        found = discover(targets, self.settings.home)
        if not found.files:
            return IngestSummary(failed=list(found.failed), warnings=list(found.warnings))
        return self._ingestor(scope, options).ingest(targets, scope, password=password,
                                                     progress=progress)

    @tracing.traced("ingest")
    def sync(self, directory: Path | str, scope: Scope, *, password: str | None = None,
             progress: Progress | None = None, options: LoadOptions | None = None) -> IngestSummary:
        """Ingest a directory and purge documents whose files are gone from it."""
        return self._ingestor(scope, options).ingest([Path(directory)], scope, password=password,
                                                     progress=progress, purge_missing=True)

    def add_documents(self, documents: list[Document], scope: Scope) -> IngestSummary:
        return self._ingestor(scope).add_documents(documents, scope)

    def ingest_file(self, path: Path | str, scope: Scope, *, source: str | None = None,
                    password: str | None = None, progress: ChunkProgress | None = None,
                    origin: str | None = None) -> IngestSummary:
        """Ingest one file as one unit of work (a server job), reporting chunk progress
        as ``progress(stage, done_chunks, total_chunks)``. A file that cannot be parsed
        raises ``LoaderError``; per-record failures are listed in the summary. ``origin``:
        where its documents say they came from (default: the file's path; a kept upload
        read from the catalog names its key there, not the temporary copy's path)."""
        from .errors import LoaderError

        path = Path(path)
        if progress is not None:
            progress("parsing", 0, 0)
        documents: list[Document] = []
        failed: list[dict[str, str]] = []
        for item in self.sandbox.parse(path, source or path.name, password):
            if isinstance(item, LoaderError):
                failed.append({"path": item.path, "error": item.reason})
            else:
                documents.append(item)
        summary = self.ingest_documents(documents, scope, origin=origin or str(path.resolve()), progress=progress)
        summary.failed[:0] = failed
        return summary

    @tracing.traced("ingest")
    def ingest_documents(self, documents: list[Document], scope: Scope, *, origin: str | None = None,
                         progress: ChunkProgress | None = None) -> IngestSummary:
        """``add_documents`` with an origin (the kept upload) and chunk progress:
        ``progress("embedding", done, total)`` as batches are embedded."""
        from .ingest.chunkers import BLOCKS_AS_CHUNKS

        ingestor = self._ingestor(scope)
        if progress is None:
            return ingestor.add_documents(documents, scope, origin=origin)
        # Chunking twice is cheap next to embedding, and gives an honest total up front.
        total = sum(len((BLOCKS_AS_CHUNKS if d.chunked else ingestor.chunker).chunk(d)) for d in documents)
        progress("embedding", 0, total)
        # Report every few batches: slices much larger than one batch keep the
        # embedder's length-sorting (less padding) effective.
        ingestor.embedder = _ReportingEmbedder(ingestor.embedder, self.settings.embedder.batch_size * 4,
                                               lambda done: progress("embedding", min(done, total), total))
        summary = ingestor.add_documents(documents, scope, origin=origin)
        progress("embedding", total, total)
        return summary

    def search(self, query: str, scope: Scope, *, mode: str | None = None, k: int | None = None,
               threshold: float | None = None, filters: Filters | None = None, sort: str | None = None,
               min_matches: int | None = None, max_matches: int | None = None) -> SearchResult:
        """Search; every hit returned is counted (``match_count``, written off the query
        path) and carries its counters; ``sort`` (score, match_count, last_matched_at)
        and ``min_matches``/``max_matches`` order and filter by them (``ragline.usage``)."""
        by_usage = check_usage_options(sort, min_matches, max_matches)
        searcher = Searcher(self.store, self.query_cache.for_tenant(self.embedder, scope.tenant), self.settings.search,
                            reranker=self.reranker)
        want = k or self.settings.search.k
        result = searcher.search(query, scope, mode=mode, k=min(1000, want * CANDIDATES_PER_HIT) if by_usage else k,
                                 threshold=threshold, filters=filters)
        result.hits = by_counters(result.hits, sort=sort, min_matches=min_matches, max_matches=max_matches)[:want]
        self.meter.matched(scope.tenant, [hit.chunk_id for hit in result.hits])
        return result

    # -- usage (ragline.usage) --------------------------------------------------
    @cached_property
    def meter(self) -> UsageMeter:
        """Match counters and usage rows, noted in memory and written in the background."""
        return UsageMeter(self.store, self.settings.usage.flush_interval_s)

    def _answered(self, scope: Scope, answer: Answer) -> None:
        """An answer's bookkeeping: one question with the LLM tokens its provider
        reported, and a match for each source it was given."""
        usage = answer.usage or {}
        self.meter.used(scope.tenant, ASK, usage.get("model") or answer.generator,
                        input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0))
        self.meter.matched(scope.tenant, [source.chunk_id for source in answer.context.sources])

    def usage_report(self, tenant: str, since: str | None = None) -> dict[str, Any]:
        """The tenant's tokens embedded, questions and LLM tokens from day ``since``
        (``YYYY-MM-DD``) on, with an estimated cost (``usage.report``); what is still
        pending is written first. (``usage`` is what the tenant stores, for quotas.)"""
        self.meter.flush()
        return usage_report(tenant, self.store.usage_records(tenant, since=since), self.settings.usage, since)

    def match_stats(self, scope: Scope, *, level: str = "chunk", order: str = "most",
                    limit: int = 20) -> list[MatchStat]:
        """The most and never matched chunks or documents of the scope (``ragline stats``)."""
        self.meter.flush()
        return self.store.match_stats(scope, level=level, order=order, limit=limit)

    # -- answers (ragline.answer) ---------------------------------------------
    @cached_property
    def answerer(self) -> Answerer:
        """The documents route: search, context, generate, grounding (``ragline.answer``)."""
        from .answer import Answerer

        return Answerer(self.store, self.embedder, self.settings, query_cache=self.query_cache,
                        remote_wait=lambda: self.remote_wait(), reranker=self.reranker)

    @cached_property
    def transactions(self) -> Transactions:
        """Bank transactions as records: import, list, and exact answers to money
        questions (``ragline.records``)."""
        from .records.service import Transactions

        return Transactions(self.store.records, self, self.settings, embedder=lambda: self.embedder)

    @cached_property
    def router(self) -> Router:
        """The ways a question is answered, asked in order (``answer.route``): a money
        question from the asker's transactions, anything else from the documents."""
        from .answer import Router
        from .records.route import RecordsRoute
        from .records.service import OwnTextRoute

        # The documents route searches an owner's transactions' text when they have nothing else.
        documents = OwnTextRoute(self.answerer, self.answer_scope)
        return Router([RecordsRoute(self.transactions), documents], self.answerer.generator,
                      on_answer=self._answered, language=self.answerer.language)

    def answer_scope(self, scope: Scope) -> Scope:
        """Where a question in ``scope`` is searched (``Transactions.answer_scope``)."""
        return self.transactions.answer_scope(scope, [c.name for c in self.store.list_collections(scope.tenant)])

    @cached_property
    def conversations(self) -> Conversations:
        """Conversations and their turns: chat memory, follow-ups, the user's past
        messages (``ragline.conversations``)."""
        from .conversations import Conversations

        return Conversations(self.store, self.router, self.embedder, counter=self.answerer.counter)

    def ask(self, question: str, scope: Scope, *, generator: str | Generator | None = None, stream: bool = False,
            mode: str | None = None, filters: Filters | None = None) -> Answer | AnswerStream:
        """A grounded answer with numbered citations, or an abstention; ``Answer.to_dict()``
        is the JSON shape. ``generator`` overrides ``settings.generator.name``; a failing
        provider falls back to extractive (``fallback_reason`` says why). With
        ``stream=True`` this is ``ask_stream``."""
        if stream:
            return self.ask_stream(question, scope, generator=generator, mode=mode, filters=filters)
        return self.router.ask(question, scope, generator=generator, mode=mode, filters=filters)

    def ask_stream(self, question: str, scope: Scope, *, generator: str | Generator | None = None,
                   mode: str | None = None, filters: Filters | None = None) -> AnswerStream:
        """Answer events: ``{"type": "delta", "text"}`` …, maybe ``{"type": "restart", "reason"}``
        (discard the text so far), then ``{"type": "done", "answer": Answer.to_dict()}``; the
        typed Answer is on the stream's ``.answer`` afterwards."""
        return self.router.stream(question, scope, generator=generator, mode=mode, filters=filters)

    def status(self) -> dict[str, Any]:
        store = self.store
        tenants = []
        for tenant in store.tenants():
            tenants.append({
                "tenant": tenant,
                "collections": [
                    {"name": c.name, "documents": c.documents, "chunks": c.chunks, "model": c.model_id,
                     "dimension": c.dimension, "chunking": c.config.get("chunking"),
                     "language": c.config.get("language")}
                    for c in store.list_collections(tenant)
                ],
            })
        counts = store.counts()
        url = self.settings.store.url
        return {"home": str(self.settings.home), "store": backend_for(url), "store_url": redact(url or store.url),
                "model": self.embedder.model_id, **counts, "details": tenants}

    def migrate(self, to_url: str, tenants: list[str] | None = None,
                progress: Callable[[str], None] | None = None) -> MigrationReport:
        """Copy tenants (default: all) from this engine's store to the store at ``to_url``,
        vectors included (no re-embedding); running it again copies nothing new."""
        from .store.migrate import migrate

        target = open_store(self.settings, to_url)
        try:
            return migrate(self.store, target, tenants, progress)
        finally:
            target.close()

    def reembed(self, scope: Scope, embedder: Embedder | None = None, *,
                progress: Callable[[int, int], None] | None = None) -> ReembedReport:
        """Re-embed the scope's collection with ``embedder`` (default: this engine's)
        while searches keep the old vectors, then switch atomically; resumable
        (``ragline.reembed``)."""
        from .reembed import Reembedder

        return Reembedder(self.store, embedder or self.embedder, self.embedding_cache, scope.tenant,
                          scope.collection, batch=max(64, self.settings.embedder.batch_size * 8),
                          progress=progress).run()

    def close(self) -> None:
        atexit.unregister(self._at_exit)
        if self._warming is not None:  # never leave ONNX Runtime mid-load at interpreter exit
            self._warming.join()
        if "conversations" in self.__dict__:
            self.conversations.close()
        if "answerer" in self.__dict__:
            self.answerer.close()
        if self._sandbox is not None:
            self._sandbox.close()
        if "meter" in self.__dict__:
            self.meter.close()  # before the store closes: its last write needs it
        if self._store is not None:
            self._store.close()


class _CloseAtExit:
    """An atexit hook that closes an engine still open, without keeping it alive."""

    def __init__(self, engine: Engine) -> None:
        self._engine = weakref.ref(engine)

    def __call__(self) -> None:
        engine = self._engine()
        if engine is not None:
            engine.close()


ChunkProgress = Callable[[str, int, int], None]
"""Called as progress(stage, done_chunks, total_chunks); stage is "parsing" or "embedding"."""


class _ReportingEmbedder(DelegatingEmbedder):
    """Embeds documents in batches and reports the running count after each one,
    so a job's progress moves while a large file is embedded."""

    def __init__(self, inner: Embedder, batch_size: int, report: Callable[[int], None]) -> None:
        super().__init__(inner)
        self.batch_size = max(1, batch_size)
        self.report = report
        self.done = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        parts = []
        for i in range(0, len(texts), self.batch_size):
            parts.append(self.inner.embed_documents(texts[i:i + self.batch_size]))
            self.done += len(parts[-1])
            self.report(self.done)
        return np.concatenate(parts) if parts else np.zeros((0, self.dimension), dtype=np.float32)
