"""bench/quality.py's choice rule and leave-one-set-out, on hand-made train scores."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def quality(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import quality as module

    a, b, c = ("weighted", 0.6, 0, 0, 500), ("dbsf", 0.5, 0, 0, 100), ("confidence", 0.6, 0.25, 20, 100)
    monkeypatch.setattr(module, "VARIANTS", [a, b, c])
    monkeypatch.setattr(module, "DEFAULT", a)
    yield module
    sys.modules.pop("quality", None)


def results(rows: dict[str, dict[str, float]]) -> dict:
    """set → {"train": {"scores": {label: {"ndcg@10": value}}}}"""
    return {name: {"train": {"queries": 10, "scores": {k: {"ndcg@10": v} for k, v in scores.items()}}}
            for name, scores in rows.items()}


SCORES = results({
    # better list 0.70; weighted +0.04, dbsf +0.02, confidence +0.03
    "big": {"dense": 0.70, "keyword": 0.68, "weighted w=0.6": 0.74, "dbsf w=0.5 @100": 0.72,
            "confidence w=0.6 s=0.25 n=20 @100": 0.73},
    # keyword-led: weighted falls 0.015 below it, dbsf 0.001 (within the tolerance), confidence 0.01
    "spanish": {"dense": 0.77, "keyword": 0.95, "weighted w=0.6": 0.935, "dbsf w=0.5 @100": 0.949,
                "confidence w=0.6 s=0.25 n=20 @100": 0.94},
    "docs": {"dense": 0.90, "keyword": 0.91, "weighted w=0.6": 0.93, "dbsf w=0.5 @100": 0.92,
             "confidence w=0.6 s=0.25 n=20 @100": 0.925},
})


def test_the_rule_prefers_the_best_worst_margin_a_shortfall_within_tolerance_counting_as_none(quality) -> None:
    # weighted has the best mean, but is 0.015 below keyword on one set; dbsf is within 0.002 everywhere
    assert quality.choose(SCORES) == "dbsf w=0.5 @100"
    # without the keyword-led set, every variant is above the better list: the best mean wins
    assert quality.choose(SCORES, ["big", "docs"]) == "weighted w=0.6"


def test_leave_one_out_scores_each_set_with_the_choice_made_on_the_others(quality) -> None:
    rows = {row["held_out"]: row for row in quality.leave_one_out(SCORES)}
    assert rows["spanish"]["chosen"] == "weighted w=0.6"  # chosen without it: it then falls below keyword
    assert rows["spanish"]["margin"] == pytest.approx(-0.015)
    assert rows["big"]["chosen"] == "dbsf w=0.5 @100"
    assert rows["big"]["margin"] == pytest.approx(0.02)
    assert rows["big"]["default_margin"] == pytest.approx(0.04)
    assert all(row["better_list"] == max(SCORES[n]["train"]["scores"]["dense"]["ndcg@10"],
                                         SCORES[n]["train"]["scores"]["keyword"]["ndcg@10"])
               for n, row in rows.items())


def test_best_two_chunks_aggregation(quality) -> None:
    docs = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}
    ranked = [("b1", 0.9), ("a1", 0.5), ("c1", 0.45), ("a2", 0.45), ("a3", 0.44)]
    assert quality.documents(ranked, docs, "max") == ["B", "A", "C"]
    assert quality.documents(ranked, docs, "top2") == ["A", "B", "C"]  # 0.95 > 0.9; a3 is a third chunk
    assert quality.documents(ranked, docs, "sum") == ["A", "B", "C"]
