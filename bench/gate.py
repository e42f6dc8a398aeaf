"""The should-we-retrieve gate (``ragline.conversations.gate``) on a labelled set:
``bench/gate/labelled.tsv`` (label, message; several languages). Prints accuracy,
precision and recall of "skip", and every miss; writes ``bench/gate/results.json``.

    python bench/gate.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from ragline.conversations.gate import should_retrieve

HERE = Path(__file__).resolve().parent / "gate"


def load(path: Path = HERE / "labelled.tsv") -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, message = line.split("\t", 1)
        rows.append((label, message))
    return rows


def evaluate(rows: list[tuple[str, str]]) -> dict:
    counts: Counter[str] = Counter()
    misses = []
    for label, message in rows:
        decision = should_retrieve(message)
        predicted = "retrieve" if decision.retrieve else "skip"
        counts[(label, predicted)] += 1  # type: ignore[index]
        if predicted != label:
            misses.append({"label": label, "message": message, "reason": decision.reason})
    total = len(rows)
    correct = counts[("skip", "skip")] + counts[("retrieve", "retrieve")]  # type: ignore[index]
    skip_pred = counts[("skip", "skip")] + counts[("retrieve", "skip")]  # type: ignore[index]
    skip_true = counts[("skip", "skip")] + counts[("skip", "retrieve")]  # type: ignore[index]
    return {"lines": total, "accuracy": round(correct / total, 4),
            "skip_precision": round(counts[("skip", "skip")] / skip_pred, 4) if skip_pred else None,  # type: ignore[index]
            "skip_recall": round(counts[("skip", "skip")] / skip_true, 4) if skip_true else None,  # type: ignore[index]
            "questions_skipped": counts[("retrieve", "skip")], "small_talk_retrieved": counts[("skip", "retrieve")],  # type: ignore[index]
            "misses": misses}


def main() -> int:
    result = evaluate(load())
    (HERE / "results.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "misses"}))
    for miss in result["misses"]:
        print(f"  {miss['label']:8} {miss['message']!r}  ({miss['reason']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
