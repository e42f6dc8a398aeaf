"""Fusion functions: hand-worked examples and the properties the searcher relies on."""

from __future__ import annotations

import pytest

from ragline.retrieve.fusion import min_max, reciprocal_rank_fusion, weighted_fusion

DENSE = [("a", 0.9), ("b", 0.8), ("c", 0.5)]
KEYWORD = [("c", 12.0), ("d", 7.0), ("a", 2.0)]


def test_rrf_hand_worked() -> None:
    fused = dict(reciprocal_rank_fusion([DENSE, KEYWORD], k=60))
    # a: 1/61 + 1/63; c: 1/63 + 1/61; b: 1/62; d: 1/62
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert fused["c"] == pytest.approx(fused["a"])
    assert fused["b"] == pytest.approx(1 / 62) == pytest.approx(fused["d"])
    assert set(fused) == {"a", "b", "c", "d"}


def test_rrf_weights_and_k_shift_the_order() -> None:
    dense_heavy = reciprocal_rank_fusion([DENSE, KEYWORD], k=1, weights=[3.0, 1.0])
    # k=1: a = 3/2 + 1/4 = 1.75, b = 3/3 = 1.0, c = 3/4 + 1/2 = 1.25, d = 1/3
    assert [item for item, _ in dense_heavy] == ["a", "c", "b", "d"]
    assert dict(dense_heavy)["a"] == pytest.approx(1.75)
    keyword_heavy = reciprocal_rank_fusion([DENSE, KEYWORD], k=1, weights=[1.0, 3.0])
    assert keyword_heavy[0][0] == "c"


def test_rrf_ignores_scores_only_ranks() -> None:
    rescaled = [(item, score * 1000) for item, score in KEYWORD]
    assert reciprocal_rank_fusion([DENSE, KEYWORD]) == reciprocal_rank_fusion([DENSE, rescaled])


def test_min_max_hand_worked() -> None:
    assert min_max(KEYWORD) == {"c": 1.0, "d": 0.5, "a": 0.0}
    assert min_max([("x", 3.0), ("y", 3.0)]) == {"x": 1.0, "y": 1.0}
    assert min_max([]) == {}


def test_weighted_fusion_hand_worked() -> None:
    fused = dict(weighted_fusion([DENSE, KEYWORD], [0.5, 0.5]))
    # dense min-max: a 1, b 0.75, c 0; keyword: c 1, d 0.5, a 0
    assert fused == pytest.approx({"a": 0.5, "b": 0.375, "c": 0.5, "d": 0.25})


def test_fusion_of_empty_lists_is_empty_and_one_list_keeps_its_order() -> None:
    assert reciprocal_rank_fusion([[], []]) == []
    assert weighted_fusion([[], []], [0.5, 0.5]) == []
    assert [i for i, _ in reciprocal_rank_fusion([[], KEYWORD])] == ["c", "d", "a"]
    assert [i for i, _ in weighted_fusion([DENSE, []], [0.5, 0.5])] == ["a", "b", "c"]
