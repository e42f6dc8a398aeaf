"""Fusion functions: hand-worked examples and the properties the searcher relies on."""

from __future__ import annotations

import math

import pytest

from ragline.retrieve.fusion import (
    FUSIONS,
    adaptive_weights,
    confidence_weight,
    distribution,
    fuse,
    min_max,
    normalised_fusion,
    padded_top_z,
    reciprocal_rank_fusion,
    top_z,
    weighted_fusion,
)
from ragline.settings import SearchSettings

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


def test_distribution_hand_worked() -> None:
    # scores 1, 2, 3: mean 2, σ = √(2/3); low = 2 − 3σ, span 6σ
    sigma = (2 / 3) ** 0.5
    scaled = distribution([("x", 3.0), ("y", 2.0), ("z", 1.0)])
    assert scaled["y"] == pytest.approx(0.5)
    assert scaled["x"] == pytest.approx((3 - (2 - 3 * sigma)) / (6 * sigma))
    assert scaled["z"] == pytest.approx(1 - scaled["x"])
    assert distribution([("x", 3.0), ("y", 3.0)]) == {"x": 1.0, "y": 1.0}
    assert distribution([]) == {}


def test_distribution_is_not_stretched_by_one_outlier_as_min_max_is() -> None:
    tail = [(f"t{i}", 1.0 + i / 100) for i in range(50)]
    with_outlier = [("top", 100.0)] + tail
    # min-max squeezes the whole tail to ~0 and the outlier alone to 1; DBSF caps the outlier at 1
    assert min_max(with_outlier)["t49"] < 0.01
    assert distribution(with_outlier)["top"] == 1.0
    assert all(0.0 <= v <= 1.0 for v in distribution(with_outlier).values())


def test_top_z_and_adaptive_weights() -> None:
    flat = [(f"f{i}", 1.0) for i in range(5)]
    standout = [("s", 10.0)] + [(f"r{i}", 1.0) for i in range(9)]
    assert top_z(flat) == 0.0 and top_z([("one", 3.0)]) == 0.0
    assert top_z(standout) == pytest.approx(3.0)  # 10 vs mean 1.9, σ 2.7
    weights = adaptive_weights([flat, standout], [0.5, 0.5])
    assert weights == pytest.approx([0.0, 1.0])  # the list without a standout match drops out
    assert adaptive_weights([flat, flat], [0.3, 0.7]) == [0.3, 0.7]  # no evidence: static weights
    mixed = adaptive_weights([DENSE, KEYWORD], [0.5, 0.5])
    assert sum(mixed) == pytest.approx(1.0)


def test_fuse_dispatches_to_each_method() -> None:
    assert fuse("weighted", DENSE, KEYWORD, dense_weight=0.4) == weighted_fusion([DENSE, KEYWORD], [0.4, 0.6])
    assert fuse("rrf", DENSE, KEYWORD, dense_weight=0.5, rrf_k=10) == reciprocal_rank_fusion([DENSE, KEYWORD], k=10)
    for method in FUSIONS:
        fused = fuse(method, DENSE, KEYWORD)
        assert {item for item, _ in fused} == {"a", "b", "c", "d"}
        assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)
        assert [i for i, _ in fuse(method, DENSE, [])] == ["a", "b", "c"]  # one list keeps its order
    with pytest.raises(ValueError, match="unknown fusion"):
        fuse("magic", DENSE, KEYWORD)


def test_every_fusion_is_a_setting() -> None:
    for method in FUSIONS:
        assert SearchSettings(fusion=method).fusion == method


# A dense list with no standout (cosines falling gently, as for a question the model
# does not read well) and a keyword list whose best hit stands far above the rest.
FLAT_DENSE = [(f"d{i}", 0.62 - i * 0.004) for i in range(30)]
STANDOUT_KEYWORD = [("k0", 24.0), ("d5", 9.5), ("k2", 9.1), ("k3", 8.8)] + [(f"k{i}", 8.0 - i * 0.1) for i in range(4, 30)]


def test_padded_top_z_hand_worked() -> None:
    # one hit at depth 4: scores 3, 0, 0, 0 → mean 0.75, σ = √1.6875, z = 2.25 / 1.299 = √3
    assert padded_top_z([("a", 3.0)], 4) == pytest.approx(3 ** 0.5)
    assert top_z([("a", 3.0)]) == 0.0  # unpadded, a lone hit would carry no confidence
    assert padded_top_z([], 4) == 0.0 and padded_top_z([("a", 1.0), ("b", 1.0)], 2) == 0.0
    long = [(f"x{i}", float(100 - i)) for i in range(100)]
    assert padded_top_z(long, 10) == pytest.approx(top_z(long[:10]))  # only the first ``depth`` count


def test_confidence_weight_leans_to_the_list_whose_best_hit_stands_out() -> None:
    shifted = confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 0.6, slope=0.5, depth=20)
    assert shifted < 0.6
    assert confidence_weight(STANDOUT_KEYWORD, FLAT_DENSE, 0.6, slope=0.5, depth=20) > 0.6
    steeper = confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 0.6, slope=1.0, depth=20)
    assert steeper < shifted
    # logit(w) moves by exactly slope × (z_dense − z_keyword)
    gap = padded_top_z(FLAT_DENSE, 20) - padded_top_z(STANDOUT_KEYWORD, 20)
    logit = lambda w: math.log(w / (1 - w))  # noqa: E731
    assert logit(shifted) - logit(0.6) == pytest.approx(0.5 * gap)
    # no evidence either way, no slope, or a fixed 0/1 weight: the static weight
    assert confidence_weight(FLAT_DENSE, FLAT_DENSE, 0.6, slope=0.5, depth=20) == pytest.approx(0.6)
    assert confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 0.6, slope=0.0, depth=20) == pytest.approx(0.6)
    assert confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 1.0, slope=0.5, depth=20) == 1.0
    assert confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 0.0, slope=0.5, depth=20) == 0.0
    assert confidence_weight(FLAT_DENSE, [], 0.6, slope=0.5, depth=20) == 1.0
    assert confidence_weight([], STANDOUT_KEYWORD, 0.6, slope=0.5, depth=20) == 0.0
    huge = [("a", 1e9)] + [(f"b{i}", 0.0) for i in range(19)]
    assert 0.0 <= confidence_weight(huge, FLAT_DENSE, 0.6, slope=10.0, depth=20) <= 1.0  # no overflow


def test_confidence_fusion_follows_the_confident_list_where_static_weights_do_not() -> None:
    static = fuse("dbsf", FLAT_DENSE, STANDOUT_KEYWORD, dense_weight=0.6)
    adaptive = fuse("confidence", FLAT_DENSE, STANDOUT_KEYWORD, dense_weight=0.6, slope=0.5, depth=20)
    assert static[0][0] != "k0" and adaptive[0][0] == "k0"
    # with no slope it is DBSF at the static weight, item for item
    assert fuse("confidence", FLAT_DENSE, STANDOUT_KEYWORD, dense_weight=0.6, slope=0.0) == static
    weight = confidence_weight(FLAT_DENSE, STANDOUT_KEYWORD, 0.6, slope=0.5, depth=20)
    assert adaptive == normalised_fusion([FLAT_DENSE, STANDOUT_KEYWORD], [weight, 1 - weight], distribution)
