"""Second-pass options for bench/quality.py: pseudo-relevance feedback (keyword RM3-like,
dense Rocchio, both) and the cosine re-sort of the top candidates, each applied to the
default hybrid's first pass on every query, plus the latency of each search stage.

The first-pass lists come from quality.py's cache; this module runs what the searcher
runs for ``search.feedback`` (ragline.retrieve.feedback, through the scoped store) with
the feedback settings of ``Settings().search`` (so ``RAGLINE_SEARCH__FEEDBACK_DOCS=10``
measures another setting), and keeps each variant's top chunks in a cache file named by
those settings: re-running the report does not search again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from ragline.analyzer import query_terms
from ragline.eval.runner import EvalRunner, document_id
from ragline.retrieve.feedback import dense_feedback, keyword_feedback
from ragline.retrieve.fusion import fuse
from ragline.retrieve.search import keyword_language
from ragline.settings import SearchSettings

KEEP = 200  # chunks kept per variant and query: enough for nDCG@10 over documents
VARIANTS = ("feedback keyword", "feedback dense", "feedback both", "cosine re-sort")
STAGES = ("embed", "dense", "keyword", "fuse", *VARIANTS)


def settings_key(search: SearchSettings) -> str:
    """What the second pass depends on, as a short tag for the cache file name."""
    fields = ("fusion", "dense_weight", "rrf_k", "confidence_slope", "confidence_depth", "overfetch", "feedback_docs", "feedback_terms",
              "feedback_keyword_weight", "feedback_dense_weight", "rerank_depth")
    text = json.dumps({f: getattr(search, f) for f in fields}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def second_pass(runner: EvalRunner, lists: dict, docs: dict[str, str], search: SearchSettings,
                cache: Path, variants: tuple[str, ...] = VARIANTS) -> tuple[dict[str, dict[str, list]], dict[str, float]]:
    """(variant → query id → ranked chunks, stage → mean ms per query) for ``variants``
    (the feedback searches skipped when no feedback variant is asked for). ``docs``
    gains the document of every chunk the second pass found."""
    if cache.exists():
        saved = json.loads(gzip.decompress(cache.read_bytes()))
        docs.update(saved["docs"])
        return saved["runs"], saved["ms"]
    runner.prepare()
    store, scope = runner.engine.store, runner.scope
    searches = store.scoped(scope)
    language = keyword_language(searches)
    depth = search.overfetch
    runs: dict[str, dict[str, list]] = {v: {} for v in VARIANTS}
    spent = dict.fromkeys(STAGES, 0.0)
    feedback = any(v.startswith("feedback") for v in variants)

    def fused(dense, keyword):
        return fuse(search.fusion, dense, keyword, dense_weight=search.dense_weight, rrf_k=search.rrf_k,
                    slope=search.confidence_slope, depth=search.confidence_depth)

    n = 0
    for qid, text in runner.dataset.queries.items():
        if qid not in lists:
            continue
        n += 1
        dense, keyword = lists[qid]
        clock = time.perf_counter()
        vector = np.asarray(runner.engine.embedder.embed_query(text), dtype=np.float32)
        clock = _tick(spent, "embed", clock)
        searches.dense(vector, depth)  # timed only: the lists themselves come from the cache
        clock = _tick(spent, "dense", clock)
        searches.keyword(query_terms(text, language=language), depth)
        clock = _tick(spent, "keyword", clock)
        first = fused(dense, keyword)
        clock = _tick(spent, "fuse", clock)
        if feedback:
            kw2 = keyword_feedback(store, scope, searches, query_terms(text, language=language), first, keyword,
                                   depth, docs=search.feedback_docs, n_terms=search.feedback_terms,
                                   weight=search.feedback_keyword_weight, language=language)
            runs["feedback keyword"][qid] = fused(dense, kw2)[:KEEP]
            clock = _tick(spent, "feedback keyword", clock)
            dense2, _ = dense_feedback(store, scope, searches, vector, first, depth, docs=search.feedback_docs,
                                       weight=search.feedback_dense_weight)
            runs["feedback dense"][qid] = fused(dense2, keyword)[:KEEP]
            clock = _tick(spent, "feedback dense", clock)
            runs["feedback both"][qid] = fused(dense2, kw2)[:KEEP]
        top = first[:search.rerank_depth]
        stored = store.vectors(scope, [chunk for chunk, _ in top])
        resorted = sorted(((c, float(np.dot(stored[c], vector))) for c, _ in top if c in stored), key=lambda p: -p[1])
        runs["cosine re-sort"][qid] = (resorted + [p for p in first[len(top):]])[:KEEP]
        clock = _tick(spent, "cosine re-sort", clock)
    runs = {v: run for v, run in runs.items() if v in variants}
    ms = {stage: round(spent[stage] * 1000 / max(1, n), 2) for stage in STAGES}
    ms["feedback both"] = round(ms["feedback keyword"] + ms["feedback dense"], 2)  # both second searches
    ms["load_average"] = round(os.getloadavg()[0], 1)  # when these were timed: a busy machine inflates them
    _fill_docs(runner, runs, docs)
    cache.write_bytes(gzip.compress(json.dumps({"runs": runs, "ms": ms, "docs": docs}).encode()))
    return runs, ms


def _tick(spent: dict[str, float], stage: str, since: float) -> float:
    now = time.perf_counter()
    spent[stage] += now - since
    return now


def _fill_docs(runner: EvalRunner, runs: dict[str, dict[str, list]], docs: dict[str, str]) -> None:
    """The BEIR document of every chunk the second pass found that the first did not,
    read through the scoped store."""
    unknown = sorted({c for run in runs.values() for ranked in run.values() for c, _ in ranked} - set(docs))
    for start in range(0, len(unknown), 500):
        batch = [(chunk, 0.0) for chunk in unknown[start:start + 500]]
        for hit in runner.engine.store.get_hits(runner.scope, batch):
            docs[hit.chunk_id] = document_id(hit)
