"""Measuring the money-question router (``records.router.classify``) on a labelled
set: a TSV of ``split, route, intent, question`` (``#`` lines are comments).
``bench/router_accuracy.py`` runs it on ``tests/fixtures/transactions/router_questions.tsv``."""

from __future__ import annotations

from pathlib import Path

from ..records.router import classify


def load(path: Path) -> list[dict[str, str]]:
    """The labelled questions: split, route, intent ('' for retrieval), question."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            split, target, intent, question = line.split("\t")
            rows.append({"split": split, "route": target, "intent": intent, "question": question})
    return rows


def measure(rows: list[dict[str, str]]) -> dict[str, object]:
    """Accuracy per split and overall, with every mistake."""
    out: dict[str, object] = {}
    for split in ("dev", "heldout", "all"):
        chosen = [r for r in rows if split in ("all", r["split"])]
        route_ok = intent_ok = 0
        mistakes = []
        for row in chosen:
            intent, reason = classify(row["question"])
            got_route = "records" if intent else "retrieval"
            route_ok += got_route == row["route"]
            right = got_route == row["route"] and (intent or "") == row["intent"]
            intent_ok += right
            if not right:
                mistakes.append({"question": row["question"], "expected": row["intent"] or "retrieval",
                                 "got": intent or "retrieval", "reason": reason})
        out[split] = {"questions": len(chosen), "route_accuracy": round(route_ok / len(chosen), 4),
                      "intent_accuracy": round(intent_ok / len(chosen), 4), "mistakes": mistakes}
    return out
