"""Incremental ingestion: files → Documents → Chunks → vectors → store.

Ids are deterministic (tenant, collection, owner, source), so re-ingesting is
idempotent: an unchanged document does no work, a changed one re-embeds only
chunks whose text is new (vectors of unchanged chunks are reused from the store
or the embedding cache), and each document is written in one transaction, so a
failure never leaves partial chunks behind.

Embedding overlaps the rest: a batch's vectors are computed on one worker thread
(ONNX Runtime releases the GIL) while this thread parses and chunks the next
files and writes the previous batch. The store is only touched from the calling
thread, so store backends need not be thread-safe; the worker caches each
embedder batch as it is done (``EmbeddingCache`` locks), so a run that crashes
re-embeds only what it had not finished.
"""

from __future__ import annotations

import contextvars
import json
import os
import queue
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..analyzer import ANALYZER_VERSION, DEFAULT_LANGUAGE, analyze
from ..embed import check_vectors
from ..embed.base import Embedder, EmbeddingCache
from ..embed.quantize import QUANT_VERSION
from ..errors import EmbedderError, LoaderError
from ..models import Document, Scope, content_hash, document_id, index_text, stable_id
from ..settings import LimitSettings
from ..store import Store
from ..store.types import ChunkRecord, DocumentInfo, DocumentRecord
from ..tracing import span
from .chunkers import BLOCKS_AS_CHUNKS, Chunker, LengthLimit
from .discover import Discovery, discover, nfc
from .limits import bound_metadata, too_many_chunks, too_much_text
from .sandbox import ParserSandbox, SandboxView

__all__ = ["Discovery", "IngestSummary", "Ingestor", "Progress", "discover"]

Progress = Callable[[int, int, str], None]
"""Called as progress(done_files, total_files, current_path)."""
PREFETCH_MIN = 32  # a file of at least this many documents reads its stored ones at once


@dataclass
class IngestSummary:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    chunks: int = 0
    embedded: int = 0
    headed: int = 0  # chunks longer than the model's input: embedded from their head (embedder.overflow)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "updated": self.updated, "unchanged": self.unchanged,
                "deleted": self.deleted, "failed": self.failed, "warnings": self.warnings, "chunks": self.chunks,
                "embedded": self.embedded, "headed": self.headed, "seconds": round(self.seconds, 3)}


@dataclass
class _Pending:
    record: DocumentRecord
    chunks: list[ChunkRecord]
    vectors: list[np.ndarray | None]
    is_new: bool


@dataclass
class _Batch:
    """Documents whose missing vectors are being embedded: each embedder batch's
    vectors arrive on ``parts`` (then None); ``done`` raises what embedding raised."""

    pending: list[_Pending]
    known: dict[str, np.ndarray]
    parts: queue.SimpleQueue[dict[str, np.ndarray] | None] = field(default_factory=queue.SimpleQueue)
    done: Future[None] | None = None


class Ingestor:
    """Runs ingestion for one scope with one embedder and chunker."""

    def __init__(self, store: Store, embedder: Embedder, chunker: Chunker, sandbox: ParserSandbox | SandboxView,
                 cache: EmbeddingCache | None = None, chunking_config: dict[str, Any] | None = None,
                 batch_chunks: int = 256, *, limits: LimitSettings | None = None,
                 data_dir: Path | None = None, length_limit: LengthLimit | None = None,
                 language: str | None = None, settle_language: Callable[[str], str] | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.chunker = chunker
        self.length_limit = length_limit  # the embedder's input limit, applied after chunking
        self.sandbox = sandbox
        self.cache = cache
        self.chunking_config = chunking_config or {}
        # The collection's keyword language; None (analyzed as English) until
        # ``settle_language``, given the first document with text, has detected and
        # recorded it for a new collection.
        self.language = language
        self.settle_language = settle_language
        self.batch_chunks = batch_chunks
        self.limits = limits or getattr(sandbox, "limits", None) or LimitSettings()
        # Folder walks skip ragline's data directory (kept uploads of every tenant). The
        # embedding cache lives there, so it names the directory when no one else does.
        self.data_dir = data_dir or (cache.path.parent if cache is not None and hasattr(cache, "path") else None)

    @property
    def config_hash(self) -> str:
        """Chunking settings and the keyword analysis (version, language) shape what is
        stored: a change to either re-indexes documents on their next ingest."""
        config: dict[str, Any] = {"chunking": self.chunking_config, "analyzer": ANALYZER_VERSION}
        if self.language not in (None, DEFAULT_LANGUAGE):  # English hashes as before languages existed
            config["language"] = self.language
        return content_hash(json.dumps(config, sort_keys=True))

    # -- public ------------------------------------------------------------
    def ingest(self, paths: Iterable[Path], scope: Scope, *, password: str | None = None,
               progress: Progress | None = None, purge_missing: bool = False) -> IngestSummary:
        """Ingest files and folders (see ``discover`` for what a folder contributes)."""
        started = time.perf_counter()
        paths = list(paths)
        summary = IngestSummary()
        found = discover(paths, self.data_dir)
        files = found.files
        summary.failed.extend(found.failed)
        summary.warnings.extend(found.warnings)
        seen: set[str] = set()
        failed_origins: set[str] = set()
        pending: list[_Pending] = []
        with ThreadPoolExecutor(1, thread_name_prefix="ragline-embed") as worker:
            self._overlapped(files, scope, password, progress, summary, seen, failed_origins, pending, worker)
        if progress:
            progress(len(files), len(files), "")
        if purge_missing:
            summary.deleted = self._purge(paths, scope, seen, failed_origins)
        summary.seconds = time.perf_counter() - started
        return summary

    def _overlapped(self, files: list[tuple[Path, str]], scope: Scope, password: str | None,
                    progress: Progress | None, summary: IngestSummary, seen: set[str], failed_origins: set[str],
                    pending: list[_Pending], worker: ThreadPoolExecutor) -> None:
        """Parse, chunk and write on this thread while the previous batch embeds on ``worker``."""
        inflight: _Batch | None = None
        for done, (file, source) in enumerate(files):
            if progress:
                progress(done, len(files), source)
            try:
                results = self.sandbox.parse(file, source, password)
            except LoaderError as exc:
                summary.failed.append({"path": str(file), "error": exc.reason})
                failed_origins.add(str(file))
                continue
            documents: list[Document] = []
            for item in results:
                if isinstance(item, LoaderError):
                    summary.failed.append({"path": item.path, "error": item.reason})
                    failed_origins.add(str(file))
                else:
                    documents.append(item)
            entries = self._prepare_file(documents, str(file), source, scope, summary)
            if entries is None:
                failed_origins.add(str(file))  # sync keeps what an earlier run stored
                continue
            seen.update(document_id(scope, d.source) for d in documents)
            for entry in entries:
                pending.append(entry)
                if sum(len(p.chunks) for p in pending) >= self.batch_chunks:
                    inflight = self._flush(pending, scope, summary, inflight, worker)
        inflight = self._flush(pending, scope, summary, inflight, worker)
        self._finish(inflight, scope, summary)

    def add_documents(self, documents: list[Document], scope: Scope, origin: str | None = None) -> IngestSummary:
        """Ingest already-loaded documents (API text uploads, records). With an
        ``origin`` they are one file's documents, and the per-file limits apply to
        them together; without, to each document alone."""
        started = time.perf_counter()
        summary = IngestSummary()
        groups = [documents] if origin is not None else [[d] for d in documents]
        pending: list[_Pending] = []
        for group in groups:
            if group:
                pending.extend(self._prepare_file(group, origin, _file_name(origin, group), scope, summary) or [])
        self._flush(pending, scope, summary)
        summary.seconds = time.perf_counter() - started
        return summary

    # -- stages ------------------------------------------------------------
    def _prepare_file(self, documents: Sequence[Document], origin: str | None, name: str, scope: Scope,
                      summary: IngestSummary) -> list[_Pending] | None:
        """Prepare one file's documents, or None when the file is over a per-file limit:
        then it is reported failed, and nothing of it is stored."""
        limits = self.limits
        chars = sum(len(d.text) for d in documents)
        if chars > limits.max_extracted_chars:
            self._refuse(summary, origin or name, too_much_text(name, chars, limits.max_extracted_chars))
            return None
        local = IngestSummary()  # counted into the run's summary only if the file is accepted
        entries: list[_Pending] = []
        chunks = 0
        # A file of many records (JSON Lines, CSV, a mailbox): its stored documents in one
        # read, not one per record (5,183 lookups were 0.4 s of SciFact's 1.1 s re-ingest).
        known = ({d.id: d for d in self.store.list_documents(scope, origin_prefix=origin)}
                 if origin and len(documents) >= PREFETCH_MIN else None)
        for document in documents:
            entry = self._prepare(document, origin, scope, local, known)
            if entry is None:
                continue
            chunks += len(entry.chunks)
            if chunks > limits.max_chunks_per_file:
                self._refuse(summary, origin or name, too_many_chunks(name, chunks, limits.max_chunks_per_file))
                return None
            entries.append(entry)
        summary.unchanged += local.unchanged
        summary.failed.extend(local.failed)
        summary.warnings.extend(local.warnings)
        summary.headed += local.headed
        return entries

    @staticmethod
    def _refuse(summary: IngestSummary, path: str, error: LoaderError) -> None:
        summary.failed.append({"path": path, "error": error.reason})

    def _prepare(self, document: Document, origin: str | None, scope: Scope, summary: IngestSummary,
                 known: dict[str, DocumentInfo] | None = None) -> _Pending | None:
        document.source = nfc(document.source)  # one document whatever the spelling (API uploads too)
        limits = self.limits
        document.metadata, dropped = bound_metadata(
            document.metadata, max_keys=limits.max_metadata_keys, max_key_chars=limits.max_metadata_key_chars,
            max_value_chars=limits.max_metadata_value_chars, max_total_chars=limits.max_metadata_chars)
        if dropped:
            summary.warnings.append({"path": document.source, "warning": dropped})
        doc_id = document_id(scope, document.source)
        if self.language is None and self.settle_language is not None and document.text.strip():
            self.language = self.settle_language(document.text)  # a text-less document decides nothing
        doc_hash = content_hash(document.content_hash + self.config_hash + json.dumps(document.metadata, sort_keys=True, default=str)
                                + ("|chunked" if document.chunked else ""))
        # Not among the file's known documents: it may still be stored, from another origin.
        existing = (known or {}).get(doc_id) or self.store.get_document(scope, doc_id)
        if existing is not None and existing.content_hash == doc_hash and existing.state == "indexed":
            summary.unchanged += 1
            return None
        with span("chunk"):
            chunks = (BLOCKS_AS_CHUNKS if document.chunked else self.chunker).chunk(document)
        if self.length_limit is not None:
            chunks, overflow, headed = self.length_limit.apply(document.title, chunks)
            summary.headed += headed
            if overflow:
                summary.warnings.append({"path": document.source, "warning": overflow})
        if "warning" in document.metadata:
            summary.warnings.append({"path": document.source, "warning": str(document.metadata["warning"])})
        if not chunks and document.blocks:
            summary.failed.append({"path": document.source, "error": "no text left after chunking"})
            return None
        previous = self.store.chunk_vectors(scope, doc_id) if existing is not None else {}
        records: list[ChunkRecord] = []
        vectors: list[np.ndarray | None] = []
        occurrences: dict[str, int] = {}
        for chunk in chunks:
            text = index_text(document.title, chunk.text, chunk.section)
            chash = content_hash(text)
            occurrences[chash] = occurrences.get(chash, 0) + 1
            records.append(ChunkRecord(
                id=stable_id(doc_id, chash, str(occurrences[chash])), position=chunk.position, text=chunk.text,
                content_hash=chash, start=chunk.start, end=chunk.end, terms=" ".join(analyze(text, self.language)),
                page=chunk.page, section=chunk.section,
            ))
            vectors.append(previous[chash][1] if chash in previous else None)
        metadata = dict(document.metadata)
        record = DocumentRecord(id=doc_id, source=document.source, origin=origin, title=document.title,
                                media_type=document.media_type, content_hash=doc_hash, metadata=metadata)
        return _Pending(record=record, chunks=records, vectors=vectors, is_new=existing is None)

    def _flush(self, pending: list[_Pending], scope: Scope, summary: IngestSummary, inflight: _Batch | None = None,
               worker: ThreadPoolExecutor | None = None) -> _Batch | None:
        """Start embedding ``pending`` (on ``worker``, else here and now), then finish the
        batch that was in flight; return the new batch, still in flight with a worker."""
        if not pending:
            return inflight
        batch = self._start(list(pending), summary, scope.tenant, worker)
        pending.clear()
        self._finish(inflight, scope, summary)
        if worker is None:
            self._finish(batch, scope, summary)
            return None
        return batch

    def _start(self, pending: list[_Pending], summary: IngestSummary, tenant: str,
               worker: ThreadPoolExecutor | None) -> _Batch:
        """Vectors for chunks that have none: from the tenant's cache (looked up here),
        the rest embedded on ``worker`` (or here, without one)."""
        wanted: dict[str, str] = {}
        for entry in pending:
            for chunk, vector in zip(entry.chunks, entry.vectors):
                if vector is None:
                    wanted[chunk.content_hash] = index_text(entry.record.title, chunk.text, chunk.section)
        model = cache_model_key(self.embedder)
        known = self.cache.get_many(model, list(wanted), tenant=tenant) if (self.cache and wanted) else {}
        # Sorted by length, like the embedder's own batches: similar lengths, little padding.
        todo = sorted((h for h in wanted if h not in known), key=lambda h: len(wanted[h]))
        batch = _Batch(pending, known)
        if todo:
            texts = [wanted[h] for h in todo]
            if worker is None:
                batch.done = Future()
                try:
                    self._embed(todo, texts, model, tenant, batch.parts)
                    batch.done.set_result(None)
                except EmbedderError as exc:
                    batch.done.set_exception(exc)
            else:
                # In this thread's context: the embed spans stay children of this ingest's span.
                batch.done = worker.submit(contextvars.copy_context().run, self._embed, todo, texts, model, tenant,
                                           batch.parts)
        return batch

    def _embed(self, hashes: list[str], texts: list[str], model: str, tenant: str,
               parts: queue.SimpleQueue[dict[str, np.ndarray] | None]) -> None:
        """Embed ``texts`` in the embedder's batch size, caching each batch's vectors and
        handing them to ``parts`` (None at the end). May run on the worker thread: it
        never touches the store (the cache is thread-safe)."""
        step = max(1, int(getattr(self.embedder, "batch_size", 0) or 32))
        try:
            for start in range(0, len(texts), step):
                part = texts[start:start + step]
                # Checked before anything is cached or stored: a NaN or wrong-width vector
                # from any embedder would poison every later search of the collection.
                with span("embed", texts=len(part)):
                    vectors = check_vectors(self.embedder.embed_documents(part), len(part),
                                            self.embedder.dimension, model)
                computed = dict(zip(hashes[start:start + step], vectors))
                if self.cache:
                    self.cache.put_many(model, computed, tenant=tenant)
                parts.put(computed)
        finally:
            parts.put(None)

    def _finish(self, batch: _Batch | None, scope: Scope, summary: IngestSummary) -> None:
        """Wait for the batch's vectors, cache them, and write its documents (one
        transaction each). An embedding failure fails the batch's documents, nothing of
        them is written, and the run goes on."""
        if batch is None:
            return
        if batch.done is not None:
            while (computed := batch.parts.get()) is not None:
                summary.embedded += len(computed)
                batch.known.update(computed)
            try:
                batch.done.result()
            except EmbedderError as exc:
                summary.failed.extend({"path": p.record.origin or p.record.source,
                                       "error": f"embedding failed: {exc}"} for p in batch.pending)
                return
        for entry in batch.pending:
            ready: list[np.ndarray] = [v if v is not None else batch.known[c.content_hash]
                                       for c, v in zip(entry.chunks, entry.vectors)]
            entry.vectors = list(ready)
            vectors = np.stack(ready) if ready else np.zeros((0, self.embedder.dimension), np.float32)
            with span("store", chunks=len(entry.chunks)):
                self.store.put_document(scope, entry.record, entry.chunks, vectors)
            summary.chunks += len(entry.chunks)
            if entry.is_new:
                summary.added += 1
            else:
                summary.updated += 1

    def _purge(self, paths: Iterable[Path], scope: Scope, seen: set[str], failed_origins: set[str]) -> int:
        stale: list[str] = []
        for raw in paths:
            root = Path(raw).resolve()
            prefix = str(root) + (os.sep if root.is_dir() or not root.exists() else "")
            for doc in self.store.list_documents(Scope(scope.tenant, (scope.collection,), scope.owner), origin_prefix=prefix):
                if doc.id in seen or doc.owner != scope.owner or doc.origin in failed_origins:
                    continue
                stale.append(doc.id)
        return self.store.delete_documents(Scope(scope.tenant, (scope.collection,), scope.owner), stale)


def cache_model_key(embedder: Embedder) -> str:
    """The embedding cache's model key: the model id, plus the precision and its recipe
    when a local model runs quantized (its vectors differ slightly from the exact ones,
    and from another recipe's: a collection embedded one way must not be filled from
    another), plus the tokens read when fewer than the model could."""
    inner: Any = getattr(embedder, "inner", embedder)  # CountingEmbedder and similar wrappers
    precision = getattr(inner, "precision", "fp32")
    key = embedder.model_id if precision == "fp32" else f"{embedder.model_id}#{precision}-{QUANT_VERSION}"
    # A model told to read fewer tokens (embedder.max_tokens) embeds a long text's head only.
    reads_less = getattr(inner, "max_seq_length", 0) < getattr(inner, "model_max_seq_length", 0)
    return f"{key}#read{inner.max_tokens}" if reads_less else key


def _file_name(origin: str | None, documents: Sequence[Document]) -> str:
    """How a limit error names the file: the source it was uploaded as."""
    if len(documents) == 1 or origin is None:
        return documents[0].source
    return documents[0].source.split("#", 1)[0]
