"""A slice of the blind trust sets (bench/trust.py, bench/trust_adversarial.py), dev
split only: ten shop-es questions (every kind) through the real pipeline, and ten
adversarial replies through the fake LLM. Correctness, not the figures: the harness
runs and scores every question; and no wrong claim of the adversarial replies ships
as supported (issue 27's target)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench import trust, trust_adversarial

SLICE = 10


def stratified(rows: list[dict], n: int) -> list[dict]:
    """The first row of each kind (by id), then the next ones by id, up to ``n``."""
    ordered = sorted(rows, key=lambda r: r["id"])
    chosen: list[dict] = []
    for row in ordered:
        if row["kind"] not in {c["kind"] for c in chosen}:
            chosen.append(row)
    chosen += [r for r in ordered if r not in chosen][: max(0, n - len(chosen))]
    return chosen[:n]


def test_fact_matching_reads_numbers_as_written() -> None:
    assert trust.match_fact("El envío cuesta 4,95 € [1].", "4,95 €", "es")
    assert not trust.match_fact("cuesta 14,95 €", "4,95", "es")
    assert trust.match_fact("máximo 1.000 € por pedido", "1000", "es")
    assert trust.match_fact("a fee of ₹4000 a year", "Rs. 4,000", "en")
    assert trust.match_fact("7.25 percent p.a.", "7.25%", "en")
    assert not trust.match_fact("150 €", "50 €", "es")


@pytest.mark.timeout(600)
def test_a_slice_of_shop_es_runs_and_is_scored(tmp_path: Path) -> None:
    from ragline.settings import GeneratorSettings

    questions = stratified(trust.load_questions("shop-es", "dev"), SLICE)
    rows = trust.run_set("shop-es", questions, GeneratorSettings(), "minilm", tmp_path / "shop-es")
    assert [r["id"] for r in rows] == [q["id"] for q in questions]
    assert all(r["outcome"] and r["ms"] > 0 for r in rows)
    summary = trust.summarise(rows)
    assert summary["questions"] == SLICE
    for figure in ("right", "false_refusal", "not_right"):
        assert 0.0 <= summary["answerable"][figure] <= 1.0


@pytest.mark.timeout(600)
def test_no_wrong_claim_of_an_adversarial_slice_ships_as_supported(tmp_path: Path) -> None:
    items = stratified(trust_adversarial.load_items("dev"), SLICE)
    rows, _ = trust_adversarial.run(items, "minilm", tmp_path / "adversarial")
    summary = trust_adversarial.summarise(rows)
    assert summary["items"] == SLICE
    shipped = [(r["id"], s["sentence"]) for r in rows for s in r["sentences"] if s["verdict"] == "shipped_supported"]
    stated = [(r["id"], w) for r in rows for w in r["wrong_fact_in_answer"] if w["how"] == "stated"]
    assert summary["target_wrong_shipped"] == 0, (shipped, stated)
