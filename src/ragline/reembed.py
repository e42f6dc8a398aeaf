"""Model swap without a wipe: re-embed a collection with another model while
searches keep using the old vectors, then switch in one transaction.

1. Every chunk's index text (``title\\ntext``) is embedded with the new model into
   the tenant's embedding cache, keyed by (model, content hash), batch by batch.
   The cache is the staging area: a run that crashes resumes where it stopped
   (cached vectors are not embedded again), and chunks whose text another
   collection already embedded with this model cost nothing.
2. With an external index (Qdrant), each document's points are also written under
   a new index key, beside the old key's points that searches still read.
3. ``Store.switch_model`` gives every chunk its new vector and pins the collection
   to the new model and dimension (and the new key), atomically. Chunks written
   meanwhile have no new vector yet: the switch then changes nothing and names
   them, and the loop embeds them and tries again.

Until the switch the collection stays pinned to the old model: engines configured
with it keep searching and ingesting; afterwards they get a ``ModelMismatchError``
naming both models, and are restarted with the new model's settings.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from .analyzer import analyze
from .embed import check_vectors
from .embed.base import Embedder, EmbeddingCache
from .errors import StoreError
from .models import Scope, index_text
from .store import Store
from .store.types import CollectionRef, StoredDocument

Progress = Callable[[int, int], None]
"""Called as progress(chunks_done, chunks_total) while embedding."""

MAX_ROUNDS = 5  # switch attempts; each embeds only what was written since the last


@dataclass
class ReembedReport:
    collection: str
    old_model: str
    new_model: str
    dimension: int
    chunks: int = 0  # chunks switched
    embedded: int = 0  # texts embedded by this run (the rest came from the cache)
    rounds: int = 0
    seconds: float = 0.0
    switched: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"collection": self.collection, "old_model": self.old_model, "new_model": self.new_model,
                "dimension": self.dimension, "chunks": self.chunks, "embedded": self.embedded,
                "rounds": self.rounds, "seconds": round(self.seconds, 3), "switched": self.switched}


class Reembedder:
    """Re-embeds one collection of one tenant with ``embedder`` (see the module docstring)."""

    def __init__(self, store: Store, embedder: Embedder, cache: EmbeddingCache, tenant: str, collection: str, *,
                 batch: int = 256, progress: Progress | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.cache = cache
        self.tenant = tenant
        self.collection = collection
        self.batch = max(1, batch)
        self.progress = progress
        self._indexed: set[str] = set()  # chunk ids written under the new index key by this run

    def run(self) -> ReembedReport:
        started = time.perf_counter()
        info = self.store.get_collection(Scope(self.tenant, (self.collection,)))
        model, dimension = self.embedder.model_id, self.embedder.dimension
        report = ReembedReport(self.collection, info.model_id, model, dimension)
        if (info.model_id, info.dimension) == (model, dimension):
            return report  # already there
        old_ref = self.store.collection_ref(self.tenant, self.collection)
        new_ref = replace(old_ref, key=next_key(old_ref.key, model), dimension=dimension)
        external = self.store.external_index
        for report.rounds in range(1, MAX_ROUNDS + 1):
            report.embedded += self._fill(new_ref if external else None)
            missing = self.store.switch_model(self.tenant, self.collection, old_model=info.model_id, model_id=model,
                                              dimension=dimension, vectors=self._lookup,
                                              key=new_ref.key if external else None)
            if not missing:
                report.switched, report.seconds = True, time.perf_counter() - started
                report.chunks = self.store.get_collection(Scope(self.tenant, (self.collection,))).chunks
                return report
        raise StoreError(f"collection {self.collection!r} kept changing during {MAX_ROUNDS} switch attempts "
                         f"(or the embedding cache at {self.cache.path} is failing); run reembed again")

    # -- stages ---------------------------------------------------------------------
    def _fill(self, new_ref: CollectionRef | None) -> int:
        """Embed every chunk without a new vector in the cache; with an external index,
        write each document under the new key. Returns how many texts were embedded."""
        total = self.store.get_collection(Scope(self.tenant, (self.collection,))).chunks
        done = embedded = 0
        for group in _groups(self.store.export_documents(self.tenant, self.collection), self.batch):
            texts = {c.content_hash: index_text(d.record.title, c.text, c.section) for d in group for c in d.chunks}
            known = self.cache.get_many(self.embedder.model_id, list(texts), tenant=self.tenant)
            todo = [h for h in texts if h not in known]
            if todo:
                vectors = check_vectors(self.embedder.embed_documents([texts[h] for h in todo]), len(todo),
                                        self.embedder.dimension, self.embedder.model_id)
                fresh = dict(zip(todo, vectors))
                self.cache.put_many(self.embedder.model_id, fresh, tenant=self.tenant)
                known.update(fresh)
                embedded += len(todo)
            if new_ref is not None:
                self._index(new_ref, group, known)
            done += sum(len(d.chunks) for d in group)
            if self.progress is not None:
                self.progress(done, total)
        return embedded

    def _index(self, ref: CollectionRef, documents: list[StoredDocument], known: dict[str, np.ndarray]) -> None:
        for stored in documents:
            if not stored.chunks or all(c.id in self._indexed for c in stored.chunks):
                continue
            for chunk in stored.chunks:  # exported chunks carry no terms: the keyword half needs them
                chunk.terms = " ".join(analyze(index_text(stored.record.title, chunk.text, chunk.section), ref.config.get("language")))
            vectors = np.stack([known[c.content_hash] for c in stored.chunks])
            self.store.index_under(ref, stored.owner, stored.record, stored.chunks, vectors)
            self._indexed.update(c.id for c in stored.chunks)

    def _lookup(self, pairs: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        """The switch's source of new vectors: the cache, and for an external index only
        chunks already written under the new key."""
        found = self.cache.get_many(self.embedder.model_id, [h for _, h in pairs], tenant=self.tenant)
        external = self.store.external_index
        return {cid: found[h] for cid, h in pairs if h in found and (not external or cid in self._indexed)}


def next_key(key: str, model_id: str) -> str:
    """The index key a collection gets with ``model_id``: its row id kept, the rest
    derived from the old key and the model, so a resumed run reuses the same one."""
    row = key.split(".", 1)[0]
    return f"{row}.{hashlib.sha256(f'{key}|{model_id}'.encode()).hexdigest()[:12]}"


def _groups(documents: Iterator[StoredDocument], size: int) -> Iterator[list[StoredDocument]]:
    """Whole documents, about ``size`` chunks per group (one embedding call each)."""
    group: list[StoredDocument] = []
    count = 0
    for document in documents:
        group.append(document)
        count += len(document.chunks)
        if count >= size:
            yield group
            group, count = [], 0
    if group:
        yield group
