"""Running a BEIR split through the real pipeline: ingest the corpus into a
throwaway collection, search every judged query, map chunk hits back to
documents, and score the run.

The throwaway collection lives in its own SQLite file under
``<home>/eval/`` (never in the user's store) and is named by a fingerprint of
everything that shapes the index: the corpus bytes, the embedding model (with its
precision and the tokens it reads), the chunking settings and overflow mode, and the
keyword analyzer. An unchanged setup therefore reuses
the collection (the re-ingest finds every document unchanged and does no work);
a changed one gets a fresh collection, and the embedding cache in ``<home>``
still spares re-embedding any chunk text seen before.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..analyzer import ANALYZER_VERSION
from ..engine import Engine
from ..errors import ConfigError
from ..ingest.pipeline import IngestSummary, Progress, cache_model_key
from ..models import Hit, Scope
from ..retrieve.search import MODES
from ..settings import Settings
from ..store import open_store
from .beir import BeirDataset
from .metrics import DEFAULT_METRICS, evaluate

DOC_DEPTH = 100  # documents kept per query: recall@100 is the deepest metric
AGGREGATES = ("max", "sum")


def document_id(hit: Hit) -> str:
    """The BEIR id of a hit's document: the JSONL loader's ``record_id``."""
    record = hit.metadata.get("record_id")
    return str(record) if record is not None else hit.source.rsplit("#", 1)[-1]


def to_documents(hits: Iterable[Hit], how: str = "max", depth: int = DOC_DEPTH) -> list[tuple[str, float]]:
    """Chunk hits → (document id, score), best first. ``max`` scores a document by its best
    chunk, ``sum`` by the sum of its retrieved chunks' scores (ties keep hit order)."""
    if how not in AGGREGATES:
        raise ConfigError(f"unknown aggregation {how!r}; choose one of: {', '.join(AGGREGATES)}")
    scores: dict[str, float] = {}
    for hit in hits:
        doc = document_id(hit)
        if how == "sum":
            scores[doc] = scores.get(doc, 0.0) + hit.score
        elif doc not in scores:  # hits arrive best first, so the first one is the max
            scores[doc] = hit.score
    ranked = list(scores.items())
    if how == "sum":
        ranked.sort(key=lambda pair: -pair[1])  # stable: equal sums keep first-seen order
    return ranked[:depth]


@dataclass
class ModeResult:
    """The figures for one mode on one split: the ``--json`` shape of ``ragline eval``."""

    dataset: str
    split: str
    mode: str
    queries: int
    metrics: dict[str, float]
    latencies_ms: list[float]
    ingest_seconds: float
    run: dict[str, list[tuple[str, float]]] = field(default_factory=dict, repr=False)

    def latency(self, percentile: float) -> float:
        return float(np.percentile(self.latencies_ms, percentile)) if self.latencies_ms else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dataset": self.dataset, "split": self.split, "mode": self.mode,
                               "queries": self.queries}
        out.update({name: round(value, 4) for name, value in self.metrics.items()})
        out["latency_ms"] = {"p50": round(self.latency(50), 2), "p95": round(self.latency(95), 2)}
        out["ingest_seconds"] = round(self.ingest_seconds, 3)
        return out


class EvalRunner:
    """Evaluates one dataset split with one Settings (embedder, chunking, search)."""

    TENANT = "eval"

    def __init__(self, settings: Settings, dataset: BeirDataset, *, engine: Engine | None = None) -> None:
        self.settings = settings
        self.dataset = dataset
        if engine is None:
            # On the embedded default, each dataset gets its own file beside the user's data;
            # with a configured backend (PostgreSQL, Qdrant) the "eval" tenant lives there.
            url = settings.store.url
            if url is None:
                path_tag = hashlib.sha256(str(dataset.root).encode()).hexdigest()[:8]
                url = str(settings.home / "eval" / f"{dataset.name}-{path_tag}.sqlite")
            engine = Engine(settings, store=open_store(settings, url))
        self.engine = engine
        self.ingest_summary: IngestSummary | None = None

    @property
    def scope(self) -> Scope:
        return Scope(self.TENANT, (self.collection_name(),))

    def collection_name(self) -> str:
        """A name that changes whenever anything shaping the index changes."""
        key = json.dumps({
            "corpus": self._corpus_hash,
            "model": cache_model_key(self.engine.embedder),  # precision and tokens read shape the vectors
            "chunking": self.settings.chunking.model_dump(),
            "overflow": self.settings.embedder.overflow,  # shapes the chunks too (the fast preset's head)
            "analyzer": ANALYZER_VERSION,
        }, sort_keys=True)
        return f"{self.dataset.name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"

    @cached_property
    def _corpus_hash(self) -> str:
        return self.dataset.corpus_fingerprint()

    def prepare(self, progress: Progress | None = None) -> IngestSummary:
        """Ingest the corpus (incrementally: an unchanged collection does no work)."""
        summary = self.engine.ingest([self.dataset.corpus], self.scope, progress=progress)
        if summary.failed:
            first = summary.failed[0]
            raise ConfigError(f"{len(summary.failed)} corpus records failed to load "
                              f"(first: {first['path']}: {first['error']})")
        self.ingest_summary = summary
        return summary

    def chunk_depth(self) -> int:
        """Chunk hits to fetch so that about ``DOC_DEPTH`` distinct documents come back."""
        info = self.engine.get_collection(self.scope)
        per_doc = info.chunks / info.documents if info.documents else 1.0
        return math.ceil(DOC_DEPTH * max(1.0, per_doc) * 2)

    def run_mode(self, mode: str, *, k: int | None = None, aggregate: str | None = None,
                 limit: int | None = None, metrics: Sequence[str] = DEFAULT_METRICS) -> ModeResult:
        """Search every judged query in ``mode`` and score the document ranking."""
        if mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; choose one of: {', '.join(MODES)}")
        if self.ingest_summary is None:
            self.prepare()
        aggregate = aggregate or self.settings.search.doc_aggregate
        depth = k or self.chunk_depth()
        queries = list(self.dataset.queries.items())[:limit] if limit else list(self.dataset.queries.items())
        scope = self.scope
        self.engine.search(queries[0][1], scope, mode=mode, k=depth)  # warm: model, vector matrix, caches
        run: dict[str, list[tuple[str, float]]] = {}
        latencies: list[float] = []
        for qid, text in queries:
            started = time.perf_counter()
            result = self.engine.search(text, scope, mode=mode, k=depth)
            latencies.append((time.perf_counter() - started) * 1000)
            run[qid] = to_documents(result.hits, aggregate)
        qrels = {qid: self.dataset.qrels[qid] for qid, _ in queries}
        return ModeResult(dataset=self.dataset.name, split=self.dataset.split, mode=mode, queries=len(queries),
                          metrics=evaluate({q: [d for d, _ in r] for q, r in run.items()}, qrels, metrics),
                          latencies_ms=latencies,
                          ingest_seconds=self.ingest_summary.seconds if self.ingest_summary else 0.0, run=run)

    def close(self) -> None:
        self.engine.close()


def write_trec_run(results: Sequence[ModeResult], path: Path) -> None:
    """The document rankings as a TREC run file: ``qid Q0 docid rank score mode``."""
    with path.open("w", encoding="utf-8") as handle:
        for result in results:
            for qid, ranked in result.run.items():
                for rank, (doc, score) in enumerate(ranked, start=1):
                    handle.write(f"{qid} Q0 {doc} {rank} {score:.6f} {result.mode}\n")
