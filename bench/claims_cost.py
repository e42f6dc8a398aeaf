"""What the claim check costs per answer: every adversarial reply that has sources
(bench/datasets/trust/adversarial) checked against them — its passages read
(``claims.Passage.of``) and each cited sentence checked (``claims.check_claim``) —
``--rounds`` times; the median and p95 per reply, written to bench/claims_cost.md."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from ragline.answer.claims import check_claim
from ragline.answer.passages import Passage

HERE = Path(__file__).resolve().parent
ITEMS = HERE / "datasets" / "trust" / "adversarial" / "items.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    items = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [it for it in items if it["sources"]]
    times: list[float] = []
    for _ in range(args.rounds):
        for item in items:
            keys = {s["key"]: i + 1 for i, s in enumerate(item["sources"])}
            reply = re.sub(r"\[(S\d+)\]", lambda m: f"[{keys.get(m.group(1), 9)}]", item["reply"])
            started = time.perf_counter()
            passages = [Passage.of(keys[s["key"]], s["text"], s["title"]) for s in item["sources"]]
            for sentence in re.split(r"(?<=[.!?])\s+", reply):
                cited = [int(n) for n in re.findall(r"\[(\d)\]", sentence)]
                if cited:
                    check_claim(sentence, cited, passages)
            times.append((time.perf_counter() - started) * 1000)
    times.sort()
    line = (f"| {len(items)} | {args.rounds} | {statistics.median(times):.2f} | "
            f"{times[int(len(times) * 0.95)]:.2f} |")
    (HERE / "claims_cost.md").write_text(
        "# Claim check cost per answer\n\n`python bench/claims_cost.py` (module docstring).\n\n"
        "| replies | rounds | median ms | p95 ms |\n| ---: | ---: | ---: | ---: |\n" + line + "\n", encoding="utf-8")
    print(line)


if __name__ == "__main__":
    main()
