"""Measure the money-question router on the labelled questions in
``tests/fixtures/transactions/router_questions.tsv`` (``ragline.eval.router``).

Reports, per split (``dev``: looked at while writing the rules; ``heldout``:
written with the rest, never tuned on), the route accuracy (records vs retrieval)
and the intent accuracy (route and intent both right), and lists the mistakes.

    .venv/bin/python bench/router_accuracy.py   # writes bench/router_accuracy.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ragline.eval.router import load, measure

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "fixtures" / "transactions" / "router_questions.tsv"
OUTPUT = ROOT / "bench" / "router_accuracy.json"


def main() -> None:
    result = measure(load(LABELS))
    OUTPUT.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for split in ("dev", "heldout", "all"):
        r = result[split]
        print(f"{split:8} {r['questions']:4} questions  route {r['route_accuracy']:.3f}  "  # type: ignore[index]
              f"intent {r['intent_accuracy']:.3f}")  # type: ignore[index]
    print(f"wrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
