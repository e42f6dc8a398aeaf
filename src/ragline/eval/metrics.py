"""Ranking metrics over graded relevance judgements, as trec_eval computes them.

``qrels`` maps query id → {doc id: grade}; a grade > 0 is relevant, 0 or
negative is judged non-relevant. A ``run`` maps query id → doc ids, best first.

- nDCG@k: DCG = Σ_{i=1..k} grade_i / log2(i + 1) (linear gain, trec_eval's and
  BEIR's convention), divided by the DCG of the ideal ordering of all judged
  grades.
- recall@k: relevant docs in the top k / relevant docs judged.
- MRR@k: 1 / rank of the first relevant doc in the top k, else 0.

Queries with no relevant judgement are not evaluated (every metric would be
undefined); a judged query missing from the run scores 0 everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Sequence[str]]

DEFAULT_METRICS: tuple[str, ...] = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


def _dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain of the top ``k`` of ``ranked``."""
    ideal = _dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg([max(judged.get(doc, 0), 0) for doc in ranked[:k]]) / ideal


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents found in the top ``k``."""
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document within the top ``k``."""
    for rank, doc in enumerate(ranked[:k], start=1):
        if judged.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


_FUNCTIONS = {"ndcg": ndcg_at_k, "recall": recall_at_k, "mrr": mrr_at_k}


def parse_metric(name: str) -> tuple[str, int]:
    """``"ndcg@10"`` → ("ndcg", 10); a clear error for anything else."""
    base, _, cutoff = name.partition("@")
    if base not in _FUNCTIONS or not cutoff.isdigit() or int(cutoff) < 1:
        raise ValueError(f"unknown metric {name!r}; use one of {', '.join(sorted(_FUNCTIONS))} with @k, e.g. ndcg@10")
    return base, int(cutoff)


def per_query(run: Run, qrels: Qrels, metrics: Sequence[str] = DEFAULT_METRICS) -> dict[str, dict[str, float]]:
    """metric → {query id: value} for every query with at least one relevant judgement."""
    parsed = [(name, *parse_metric(name)) for name in metrics]
    out: dict[str, dict[str, float]] = {name: {} for name in metrics}
    for qid, judged in qrels.items():
        if not any(grade > 0 for grade in judged.values()):
            continue
        ranked = _dedupe(run.get(qid, ()))
        for name, base, k in parsed:
            out[name][qid] = _FUNCTIONS[base](ranked, judged, k)
    return out


def evaluate(run: Run, qrels: Qrels, metrics: Sequence[str] = DEFAULT_METRICS) -> dict[str, float]:
    """metric → mean over the evaluated queries (0.0 when none)."""
    scores = per_query(run, qrels, metrics)
    return {name: (sum(values.values()) / len(values) if values else 0.0) for name, values in scores.items()}


def _dedupe(ranked: Sequence[str]) -> list[str]:
    # A document counted twice would inflate DCG; keep its best (first) rank only.
    return list(dict.fromkeys(ranked))
