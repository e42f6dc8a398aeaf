"""How long the exact route takes: the test suite's generated statements (two
owners, 24 months, 2,806 rows) imported on the embedded store, then each kind of
money question asked 20 times through ``Engine.ask`` (route + SQL + phrasing).

The hashing embedder is used: the exact route embeds nothing, and the import's
embedding time is the embedder's, measured elsewhere (``make bench``).

    .venv/bin/python bench/transactions_exact.py   # writes bench/transactions_exact.json
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.statements import owner_rows, write_csv  # the generator the tests check against

from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import EmbedderSettings, Settings

OUTPUT = ROOT / "bench" / "transactions_exact.json"
QUESTIONS = ["Where am I spending the most money?", "How much did I spend on groceries last month?",
             "What were my 5 largest purchases last year?", "How has my spending changed over the last few months?",
             "What subscriptions am I paying for?", "Did I earn more than I spent last year?",
             "Which merchants do I spend the most at?"]
RUNS = 20


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        engine = Engine(Settings(home=Path(home), embedder=EmbedderSettings(name="hashing")))
        engine.transactions.today = date(2025, 1, 15)
        ann = Scope("bench", ("transactions",), "ann")
        rows = owner_rows(1, currency="GBP", start=date(2023, 1, 1), months=24, salary=Decimal("3100.00"),
                          rent=Decimal("1250.00"), foreign="EUR")
        bob = owner_rows(2, currency="EUR", start=date(2023, 1, 1), months=24, salary=Decimal("2800.00"),
                         rent=Decimal("950.00"), scale=Decimal("1.17"))
        started = time.perf_counter()
        engine.transactions.import_bytes(write_csv(rows, "starling")[0], "ann.csv", ann)
        engine.transactions.import_bytes(write_csv(bob, "starling")[0], "bob.csv",
                                         Scope("bench", ("transactions",), "bob"))
        import_s = time.perf_counter() - started
        latencies = {}
        for question in QUESTIONS:
            times = []
            for _ in range(RUNS):
                started = time.perf_counter()
                answer = engine.ask(question, ann)
                times.append((time.perf_counter() - started) * 1000)
                assert answer.route and answer.route["name"] == "records", question
            times.sort()
            latencies[question] = {"p50_ms": round(statistics.median(times), 1),
                                   "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
        engine.close()
    result = {"rows": len(rows) + len(bob), "import_seconds_hashing_embedder": round(import_s, 2),
              "runs_per_question": RUNS, "latency": latencies}
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{result['rows']} rows imported in {result['import_seconds_hashing_embedder']} s (hashing embedder)")
    for question, figures in latencies.items():
        print(f"  p50 {figures['p50_ms']:6.1f} ms  p95 {figures['p95_ms']:6.1f} ms  {question}")
    print(f"wrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
