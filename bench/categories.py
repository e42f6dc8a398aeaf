"""Category inference and merchant normalisation measured on labelled raw bank
descriptions (``bench/datasets/money/merchants.jsonl``: description, merchant,
category in Monzo's taxonomy, split), written blind by someone who had not read
ragline's code.

The ``dev`` lines may be looked at while tuning; the ``test`` lines are measured
once, at the end (``--split test``). Each description is categorised as an import
categorises a transaction the bank gave no category for (``records.categories``:
known merchants, keyword rules, then the nearest labelled examples under the
embedding model), with no amount (the file has none): the sign tells nothing.

    .venv/bin/python bench/categories.py --split dev [--embedder minilm]
    # writes bench/categories.json and bench/categories.md (the split's figures, every mistake)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from ragline.embed.registry import make_embedder
from ragline.models.records import Transaction
from ragline.records.categories import Categorizer, categorise
from ragline.records.merchants import fold
from ragline.settings import EmbedderSettings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "datasets" / "money" / "merchants.jsonl"


def measure(rows: list[dict], categorizer: Categorizer) -> dict:
    txs = [Transaction(transaction_id=f"m{i}", account_id="a", timestamp="2026-01-01", description=r["description"],
                       amount=0, currency="GBP") for i, r in enumerate(rows)]
    started = time.perf_counter()
    done = categorise(txs, {}, categorizer)
    seconds = time.perf_counter() - started
    from ragline.records.categories import category_id

    mistakes, merchant_mistakes = [], []
    by_category: Counter[str] = Counter()
    right_by_category: Counter[str] = Counter()
    for row, tx in zip(rows, done):
        got = category_id(tx.transaction_category) or tx.transaction_category
        by_category[row["category"]] += 1
        if got == row["category"]:
            right_by_category[row["category"]] += 1
        else:
            mistakes.append({"description": row["description"], "expected": row["category"], "got": got})
        if fold(tx.merchant_name or "") != fold(row["merchant"]):
            merchant_mistakes.append({"description": row["description"], "expected": row["merchant"],
                                      "got": tx.merchant_name})
    n = len(rows)
    return {"descriptions": n, "category_accuracy": round((n - len(mistakes)) / n, 4) if n else None,
            "merchant_accuracy": round((n - len(merchant_mistakes)) / n, 4) if n else None,
            "per_category": {c: f"{right_by_category[c]}/{by_category[c]}" for c in sorted(by_category)},
            "seconds": round(seconds, 2), "mistakes": mistakes, "merchant_mistakes": merchant_mistakes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--embedder", default="minilm", help="the embedding model (none: rules only)")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"needs {args.data}")
    rows = [r for r in map(json.loads, args.data.read_text(encoding="utf-8").splitlines()) if r.get("split") ==
            args.split]
    embedder = None if args.embedder == "none" else make_embedder(EmbedderSettings(name=args.embedder))
    result = {"split": args.split, "embedder": args.embedder, **measure(rows, Categorizer(embedder))}
    (ROOT / "bench" / "categories.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n",
                                                    encoding="utf-8")
    lines = [f"# Category inference on `bench/datasets/money/{args.data.name}`, split `{args.split}`", "",
             f"Embedder `{args.embedder}`; {result['descriptions']} descriptions, categorised with no amount, "
             f"in {result['seconds']} s.", "",
             "| measure | value |", "| --- | --- |",
             f"| category accuracy | {result['category_accuracy']} |",
             f"| merchant name accuracy (folded) | {result['merchant_accuracy']} |", "",
             "Per category (right / labelled): " + ", ".join(f"{c} {v}" for c, v in result["per_category"].items()),
             "", "## Category mistakes", "", "| description | expected | got |", "| --- | --- | --- |",
             *(f"| {m['description']} | {m['expected']} | {m['got']} |" for m in result["mistakes"]),
             "", "Command: `.venv/bin/python bench/categories.py --split " + args.split + "`", ""]
    (ROOT / "bench" / "categories.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"{args.split}: {result['descriptions']} descriptions, category accuracy {result['category_accuracy']}, "
          f"merchant accuracy {result['merchant_accuracy']}")


if __name__ == "__main__":
    main()
