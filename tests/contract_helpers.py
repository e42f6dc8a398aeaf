"""What the store contract's mixins share: small hand-made vectors, a document
writer that goes through ragline's real analyzer, and the ``store`` fixture."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable

import numpy as np
import pytest

from ragline.analyzer import analyze
from ragline.models import Scope, content_hash, stable_id
from ragline.store import Store
from ragline.store.types import (
    ChunkRecord,
    DocumentRecord,
    JobInfo,
)

DIM = 8
MODEL = "test/model"
A = Scope("acme", ("kb",))


def unit(*values: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def doc_id(scope: Scope, source: str) -> str:
    return stable_id(scope.tenant, scope.collection, scope.owner or "", source)


def put(store: Store, scope: Scope, source: str, texts: list[str], vectors: list[np.ndarray] | None = None, *,
        title: str | None = None, metadata: dict | None = None, pages: list[int | None] | None = None,
        origin: str | None = None, version: str = "1", language: str | None = None) -> str:
    """Store one document of chunks (terms analyzed in ``language``, as ingestion
    would for a collection of that language); returns its id."""
    did = doc_id(scope, source)
    record = DocumentRecord(id=did, source=source, origin=origin, title=title, media_type="text/plain",
                            content_hash=content_hash(version + "|".join(texts)), metadata=metadata or {})
    chunks, offset = [], 0
    for i, text in enumerate(texts):
        chunks.append(ChunkRecord(id=stable_id(did, content_hash(text), str(i)), position=i, text=text,
                                  content_hash=content_hash(text), start=offset, end=offset + len(text),
                                  terms=" ".join(analyze(text, language)), page=(pages or [None] * len(texts))[i],
                                  section=f"§{i}"))
        offset += len(text) + 1
    if vectors is None:
        vectors = [unit(*(random.Random(text).random() for _ in range(DIM))) for text in texts]
    store.put_document(scope, record, chunks, np.stack(vectors) if vectors else np.zeros((0, DIM), np.float32))
    return did


def collection(store: Store, scope: Scope, dimension: int = DIM) -> None:
    store.ensure_collection(scope, model_id=MODEL, dimension=dimension)


class _Base:
    @pytest.fixture
    def store(self, make_store: Callable[[], Store]):
        s = make_store()
        yield s
        s.close()


def claim_in_parallel(make_store: Callable[[], Store], workers: int, *, rounds: int | None = None,
                      lease_s: float = 30.0, max_tries: int = 3, **caps: object) -> list[JobInfo]:
    """Every claim ``workers`` threads make, each on its own store (as separate processes
    would), started together; each claims until the queue is empty, or ``rounds`` times."""
    claimed: list[JobInfo] = []
    lock, start = threading.Lock(), threading.Barrier(workers)

    def worker(n: int) -> None:
        own = make_store()
        try:
            start.wait()
            tries = 0
            while rounds is None or tries < rounds:
                tries += 1
                job = own.admin.claim_job(f"w{n}", lease_s, max_tries, **caps)
                if job is not None:
                    with lock:
                        claimed.append(job)
                elif rounds is None:  # the queue is empty
                    return
        finally:
            own.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return claimed
