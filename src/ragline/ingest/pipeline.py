"""Incremental ingestion: files → Documents → Chunks → vectors → store.

Ids are deterministic (tenant, collection, owner, source), so re-ingesting is
idempotent: an unchanged document does no work, a changed one re-embeds only
chunks whose text is new (vectors of unchanged chunks are reused from the store
or the embedding cache), and each document is written in one transaction, so a
failure never leaves partial chunks behind.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..embed.base import Embedder, EmbeddingCache
from ..errors import EmbedderError, LoaderError
from ..models import Document, Scope, content_hash, document_id, index_text, stable_id
from ..retrieve.analyzer import ANALYZER_VERSION, analyze
from ..store import Store
from ..store.types import ChunkRecord, DocumentRecord
from .chunkers import Chunker
from .loaders import supported_extensions
from .sandbox import ParserSandbox

Progress = Callable[[int, int, str], None]
"""Called as progress(done_files, total_files, current_path)."""


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
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "updated": self.updated, "unchanged": self.unchanged,
                "deleted": self.deleted, "failed": self.failed, "warnings": self.warnings, "chunks": self.chunks,
                "embedded": self.embedded, "seconds": round(self.seconds, 3)}


def discover(paths: Iterable[Path]) -> tuple[list[tuple[Path, str]], list[dict[str, str]]]:
    """Expand paths into (file, source) pairs. A directory contributes the supported
    files under it (hidden ones skipped) with sources relative to its parent;
    a file named explicitly is always attempted."""
    found: list[tuple[Path, str]] = []
    missing: list[dict[str, str]] = []
    extensions = set(supported_extensions())
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            root = path.resolve()
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    file = Path(dirpath) / name
                    if name.startswith(".") or file.suffix.lower() not in extensions:
                        continue
                    found.append((file, file.relative_to(root.parent).as_posix()))
        elif path.is_file():
            found.append((path.resolve(), path.name))
        else:
            missing.append({"path": str(raw), "error": "no such file or directory"})
    return found, missing


@dataclass
class _Pending:
    record: DocumentRecord
    chunks: list[ChunkRecord]
    vectors: list[np.ndarray | None]
    is_new: bool


class Ingestor:
    """Runs ingestion for one scope with one embedder and chunker."""

    def __init__(self, store: Store, embedder: Embedder, chunker: Chunker, sandbox: ParserSandbox,
                 cache: EmbeddingCache | None = None, chunking_config: dict[str, Any] | None = None,
                 batch_chunks: int = 256) -> None:
        self.store = store
        self.embedder = embedder
        self.chunker = chunker
        self.sandbox = sandbox
        self.cache = cache
        # Chunking settings and the keyword analyzer both shape what is stored: a change
        # to either re-indexes documents on their next ingest.
        self.config_hash = content_hash(json.dumps({"chunking": chunking_config or {}, "analyzer": ANALYZER_VERSION},
                                                   sort_keys=True))
        self.batch_chunks = batch_chunks

    # -- public ------------------------------------------------------------
    def ingest(self, paths: Iterable[Path], scope: Scope, *, password: str | None = None,
               progress: Progress | None = None, purge_missing: bool = False) -> IngestSummary:
        started = time.perf_counter()
        summary = IngestSummary()
        files, missing = discover(paths)
        summary.failed.extend(missing)
        seen: set[str] = set()
        failed_origins: set[str] = set()
        pending: list[_Pending] = []
        for done, (file, source) in enumerate(files):
            if progress:
                progress(done, len(files), source)
            try:
                results = self.sandbox.parse(file, source, password)
            except LoaderError as exc:
                summary.failed.append({"path": str(file), "error": exc.reason})
                failed_origins.add(str(file))
                continue
            for item in results:
                if isinstance(item, LoaderError):
                    summary.failed.append({"path": item.path, "error": item.reason})
                    failed_origins.add(str(file))
                    continue
                entry = self._prepare(item, str(file), scope, summary)
                seen.add(document_id(scope, item.source))
                if entry is not None:
                    pending.append(entry)
                if sum(len(p.chunks) for p in pending) >= self.batch_chunks:
                    self._flush(pending, scope, summary)
        self._flush(pending, scope, summary)
        if progress:
            progress(len(files), len(files), "")
        if purge_missing:
            summary.deleted = self._purge(paths, scope, seen, failed_origins)
        summary.seconds = time.perf_counter() - started
        return summary

    def add_documents(self, documents: list[Document], scope: Scope, origin: str | None = None) -> IngestSummary:
        """Ingest already-loaded documents (API text uploads, records)."""
        started = time.perf_counter()
        summary = IngestSummary()
        pending = [p for p in (self._prepare(d, origin, scope, summary) for d in documents) if p is not None]
        self._flush(pending, scope, summary)
        summary.seconds = time.perf_counter() - started
        return summary

    # -- stages ------------------------------------------------------------
    def _prepare(self, document: Document, origin: str | None, scope: Scope,
                 summary: IngestSummary) -> _Pending | None:
        doc_id = document_id(scope, document.source)
        doc_hash = content_hash(document.content_hash + self.config_hash + json.dumps(document.metadata, sort_keys=True, default=str))
        existing = self.store.get_document(scope, doc_id)
        if existing is not None and existing.content_hash == doc_hash and existing.state == "indexed":
            summary.unchanged += 1
            return None
        chunks = self.chunker.chunk(document)
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
            text = index_text(document.title, chunk.text)
            chash = content_hash(text)
            occurrences[chash] = occurrences.get(chash, 0) + 1
            records.append(ChunkRecord(
                id=stable_id(doc_id, chash, str(occurrences[chash])), position=chunk.position, text=chunk.text,
                content_hash=chash, start=chunk.start, end=chunk.end, terms=" ".join(analyze(text)),
                page=chunk.page, section=chunk.section,
            ))
            vectors.append(previous[chash][1] if chash in previous else None)
        metadata = dict(document.metadata)
        record = DocumentRecord(id=doc_id, source=document.source, origin=origin, title=document.title,
                                media_type=document.media_type, content_hash=doc_hash, metadata=metadata)
        return _Pending(record=record, chunks=records, vectors=vectors, is_new=existing is None)

    def _flush(self, pending: list[_Pending], scope: Scope, summary: IngestSummary) -> None:
        if not pending:
            return
        try:
            self._fill_vectors(pending, summary)
        except EmbedderError as exc:
            # The batch's documents fail; nothing of them is written; the run goes on.
            summary.failed.extend({"path": p.record.origin or p.record.source, "error": f"embedding failed: {exc}"}
                                  for p in pending)
            pending.clear()
            return
        for entry in pending:
            vectors = np.stack(entry.vectors) if entry.vectors else np.zeros((0, self.embedder.dimension), np.float32)
            self.store.put_document(scope, entry.record, entry.chunks, vectors)
            summary.chunks += len(entry.chunks)
            if entry.is_new:
                summary.added += 1
            else:
                summary.updated += 1
        pending.clear()

    def _fill_vectors(self, pending: list[_Pending], summary: IngestSummary) -> None:
        """Vectors for chunks that have none: from the cache, else embedded in one batch."""
        wanted: dict[str, str] = {}
        for entry in pending:
            for chunk, vector in zip(entry.chunks, entry.vectors):
                if vector is None:
                    wanted[chunk.content_hash] = index_text(entry.record.title, chunk.text)
        if not wanted:
            return
        model = self.embedder.model_id
        known = self.cache.get_many(model, list(wanted)) if self.cache else {}
        todo = [h for h in wanted if h not in known]
        if todo:
            fresh = self.embedder.embed_documents([wanted[h] for h in todo])
            summary.embedded += len(todo)
            computed = dict(zip(todo, fresh))
            if self.cache:
                self.cache.put_many(model, computed)
            known.update(computed)
        for entry in pending:
            entry.vectors = [v if v is not None else known[c.content_hash] for c, v in zip(entry.chunks, entry.vectors)]

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
