"""Metric code against hand-worked examples and against trec_eval (pytrec_eval)."""

from __future__ import annotations

import gzip
import math
import random
from pathlib import Path

import pytest

from ragline.eval.beir import load_qrels
from ragline.eval.metrics import evaluate, mrr_at_k, ndcg_at_k, parse_metric, per_query, recall_at_k

from tests.paths import SCIFACT, needs

FIXTURES = Path(__file__).parents[1] / "fixtures"

# Judgements: a is highly relevant, b relevant, c judged non-relevant, d unjudged.
JUDGED = {"a": 2, "b": 1, "c": 0}


def test_ndcg_hand_worked() -> None:
    # DCG@3 of [c, b, a] = 0/log2(2) + 1/log2(3) + 2/log2(4) = 0.63093 + 1 = 1.63093
    # IDCG@3 (a, b)     = 2/log2(2) + 1/log2(3)            = 2.63093
    assert ndcg_at_k(["c", "b", "a"], JUDGED, 3) == pytest.approx(1.630930 / 2.630930, abs=1e-6)
    assert ndcg_at_k(["a", "b", "c"], JUDGED, 3) == pytest.approx(1.0)
    # Cut at 1: DCG = 0 (c); the ideal is 2 → 0.
    assert ndcg_at_k(["c", "b", "a"], JUDGED, 1) == 0.0
    # [d, a]: unjudged d gains nothing; DCG@2 = 2/log2(3) = 1.26186; IDCG@2 = 2.63093
    assert ndcg_at_k(["d", "a"], JUDGED, 2) == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_ideal_uses_every_judged_document_not_only_retrieved() -> None:
    # Only b retrieved, at rank 1: DCG = 1; IDCG@10 = 2 + 1/log2(3) → 1/2.63093 = 0.38010
    assert ndcg_at_k(["b"], JUDGED, 10) == pytest.approx(0.380094, abs=1e-6)


def test_recall_hand_worked() -> None:
    assert recall_at_k(["c", "b", "a"], JUDGED, 2) == 0.5  # b of {a, b}
    assert recall_at_k(["c", "b", "a"], JUDGED, 3) == 1.0
    assert recall_at_k(["c", "d"], JUDGED, 10) == 0.0


def test_mrr_hand_worked() -> None:
    assert mrr_at_k(["c", "b", "a"], JUDGED, 10) == 0.5
    assert mrr_at_k(["c", "d", "e", "a"], JUDGED, 10) == 0.25
    assert mrr_at_k(["c", "d", "e", "a"], JUDGED, 3) == 0.0  # first relevant past the cut-off


def test_evaluate_averages_over_judged_queries_and_zero_for_missing_runs() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}, "q3": {"n": 0}}  # q3 has no relevant doc: not evaluated
    run = {"q1": ["a"], "q3": ["n"]}  # q2 retrieved nothing
    scores = per_query(run, qrels, ["ndcg@10", "recall@100"])
    assert scores["ndcg@10"] == {"q1": 1.0, "q2": 0.0}
    assert evaluate(run, qrels, ["ndcg@10"]) == {"ndcg@10": 0.5}


def test_duplicate_documents_count_once() -> None:
    run = {"q": ["a", "a", "b"]}
    assert evaluate(run, {"q": {"a": 1, "b": 1}}, ["recall@2"]) == {"recall@2": 1.0}


def test_negative_grades_are_non_relevant() -> None:
    assert ndcg_at_k(["a", "b"], {"a": -1, "b": 1}, 10) == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize("bad", ["ndcg", "ndcg@0", "map@10", "recall@x"])
def test_unknown_metric_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown metric"):
        parse_metric(bad)


def _trec_eval(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    """The same four figures from trec_eval. recip_rank has no cut-off there, so the run is cut at 10 for it."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged = {q: r for q, r in qrels.items() if any(g > 0 for g in r.values())}
    # Strictly decreasing scores: trec_eval sorts by score (ties by doc id), so ranks are kept exactly.
    scored = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in run.items() if q in judged}
    cut = {q: {d: s for d, s in docs.items() if s > len(docs) - 10} for q, docs in scored.items()}
    full = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10", "recall.10,100"}).evaluate(scored)
    top = pytrec_eval.RelevanceEvaluator(judged, {"recip_rank"}).evaluate(cut)
    n = len(judged)  # a judged query absent from the run counts as 0, as in ours

    def mean(table: dict, key: str) -> float:
        return sum(v[key] for v in table.values()) / n

    return {"ndcg@10": mean(full, "ndcg_cut_10"), "recall@10": mean(full, "recall_10"),
            "recall@100": mean(full, "recall_100"), "mrr@10": mean(top, "recip_rank")}


def test_agrees_with_trec_eval_on_random_graded_runs() -> None:
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(300)]
    qrels = {f"q{q}": {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, 12))} for q in range(60)}
    run = {q: rng.sample(docs, rng.randint(0, 150)) for q in qrels}
    ours = evaluate(run, qrels)
    theirs = _trec_eval(run, qrels)
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, abs=1e-9), name


@needs(SCIFACT / "qrels" / "test.tsv")
def test_agrees_with_trec_eval_on_a_real_scifact_run() -> None:
    # Top 100 documents per test query, as written by
    # `ragline eval ../shared/datasets/scifact --mode hybrid --save-run …` with the default MiniLM pipeline.
    run: dict[str, list[str]] = {}
    with gzip.open(FIXTURES / "scifact_test_hybrid.run.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            qid, _, doc, rank, _, tag = line.split()
            assert tag == "hybrid" and int(rank) == len(run.setdefault(qid, [])) + 1
            run[qid].append(doc)
    qrels = load_qrels(SCIFACT / "qrels" / "test.tsv")
    ours = evaluate(run, qrels)
    theirs = _trec_eval(run, qrels)
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, abs=1e-9), name
    assert ours["ndcg@10"] > 0.6  # a real, good run, not an empty one
