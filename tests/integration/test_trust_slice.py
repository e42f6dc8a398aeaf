"""A small slice of the blind trust sets in the suite, so their harness does not rot
(the full sets: ``make bench-checks`` and bench/trust.md): five adversarial LLM
replies of the dev split through the fake OpenAI server, and no wrong claim of
theirs ships as supported (issue 27's target)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.mark.timeout(600)
def test_five_adversarial_replies_ship_no_wrong_claim_as_supported(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from bench import trust_adversarial

    items = sorted(trust_adversarial.load_items("dev"), key=lambda item: item["id"])
    wanted = ["wrong_number", "wrong_entity", "uncited", "partly_right", "correct_normalised"]
    chosen = [next(item for item in items if item.get("kind") == kind) for kind in wanted]
    rows, _ = trust_adversarial.run(chosen, "hashing", tmp_path / "adversarial")
    summary = trust_adversarial.summarise(rows)
    shipped = [(r["id"], s["sentence"]) for r in rows for s in r["sentences"] if s["verdict"] == "shipped_supported"]
    assert summary["items"] == len(wanted) and summary["target_wrong_shipped"] == 0, shipped
