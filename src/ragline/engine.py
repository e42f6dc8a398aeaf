"""The Engine: the one module that knows every stage. CLI, API and UI are thin
adapters over it. Build it with a Settings object; nothing loads until used."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

from .embed import make_embedder
from .embed.base import Embedder, EmbeddingCache
from .ingest.chunkers import make_chunker
from .ingest.pipeline import Ingestor, IngestSummary, Progress
from .ingest.sandbox import ParserSandbox
from .models import Document, Scope
from .retrieve.search import Searcher, SearchResult
from .settings import ChunkingSettings, Settings
from .store import Store, open_store
from .store.base import CollectionInfo, Filters


class Engine:
    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None,
                 store: Store | None = None) -> None:
        self.settings = settings or Settings()
        self._embedder = embedder
        self._store = store
        self._sandbox: ParserSandbox | None = None

    # -- components (lazy) ----------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.settings)
        return self._store

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedder, cache_dir=self.settings.home / "models")
        return self._embedder

    @cached_property
    def embedding_cache(self) -> EmbeddingCache:
        return EmbeddingCache(self.settings.home / "embedding-cache.sqlite")

    @property
    def sandbox(self) -> ParserSandbox:
        if self._sandbox is None:
            self._sandbox = ParserSandbox(self.settings.limits)
        return self._sandbox

    def _token_length(self):
        count = getattr(self.embedder, "count_tokens", None)
        return count

    def collection(self, scope: Scope, chunking: ChunkingSettings | None = None) -> CollectionInfo:
        """Create the scope's collection if needed (recording model and chunking), or
        check the existing one matches this engine's embedding model."""
        config = {"chunking": (chunking or self.settings.chunking).model_dump()}
        return self.store.ensure_collection(scope, model_id=self.embedder.model_id,
                                            dimension=self.embedder.dimension, config=config)

    def _ingestor(self, scope: Scope) -> Ingestor:
        info = self.collection(scope)
        chunking = ChunkingSettings(**info.config.get("chunking", {}))
        chunker = make_chunker(chunking, token_length=self._token_length())
        return Ingestor(self.store, self.embedder, chunker, self.sandbox, cache=self.embedding_cache,
                        chunking_config=chunking.model_dump(), batch_chunks=max(64, self.settings.embedder.batch_size * 8))

    # -- operations -----------------------------------------------------------
    def ingest(self, paths: Iterable[Path | str], scope: Scope, *, password: str | None = None,
               progress: Progress | None = None) -> IngestSummary:
        """Load, chunk, embed and store files and directories (incrementally)."""
        return self._ingestor(scope).ingest([Path(p) for p in paths], scope, password=password, progress=progress)

    def sync(self, directory: Path | str, scope: Scope, *, password: str | None = None,
             progress: Progress | None = None) -> IngestSummary:
        """Ingest a directory and purge documents whose files are gone from it."""
        return self._ingestor(scope).ingest([Path(directory)], scope, password=password, progress=progress,
                                            purge_missing=True)

    def add_documents(self, documents: list[Document], scope: Scope) -> IngestSummary:
        return self._ingestor(scope).add_documents(documents, scope)

    def search(self, query: str, scope: Scope, *, mode: str | None = None, k: int | None = None,
               threshold: float | None = None, filters: Filters | None = None) -> SearchResult:
        searcher = Searcher(self.store, self.embedder, self.settings.search)
        return searcher.search(query, scope, mode=mode, k=k, threshold=threshold, filters=filters)

    def delete(self, scope: Scope, doc_ids: list[str]) -> int:
        return self.store.delete_documents(scope, doc_ids)

    def status(self) -> dict[str, Any]:
        store = self.store
        tenants = []
        for tenant in store.tenants():
            tenants.append({
                "tenant": tenant,
                "collections": [
                    {"name": c.name, "documents": c.documents, "chunks": c.chunks, "model": c.model_id,
                     "dimension": c.dimension, "chunking": c.config.get("chunking")}
                    for c in store.list_collections(tenant)
                ],
            })
        counts = store.counts() if hasattr(store, "counts") else {}
        return {"home": str(self.settings.home), "store": self.settings.store,
                "model": self.embedder.model_id, **counts, "details": tenants}

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
        if self._store is not None:
            self._store.close()
