"""Follow-up recall: 55 multi-turn conversations (``bench/conversations/``: 35 over
the sample knowledge base, 20 over SciFact) run through ``engine.conversations``
with and without rewriting and carried sources.

Each turn names the passage that answers it: for the sample knowledge base a file
and a phrase the passage holds, for SciFact the document. A turn is a hit at k when
one of the first k passages retrieved for it (the ranking the answer is built
from) is that passage. Turns after the first are split into *follow-ups* (same
source as the turn before) and *moves on* (another source), so carrying is seen
both where it should help and where it could hurt.

    python bench/followups.py [--home DIR] [--output bench/]   # DIR keeps the ingested corpora
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from ragline.answer.turn import AnswerTurn
from ragline.engine import Engine
from ragline.models import Scope
from ragline.retrieve.search import Searcher
from ragline.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "ragline" / "sample"
SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"
CONFIGS = [
    ("question alone", {"rewrite": False, "carry_sources": False}),
    ("rewrite (carry terms)", {"rewrite": True, "carry_sources": False}),
    ("carried sources", {"rewrite": False, "carry_sources": True}),
    ("rewrite + carried sources", {"rewrite": True, "carry_sources": True}),
]


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (ROOT / "bench" / "conversations" / f"{name}.jsonl").read_text().splitlines()
            if line.strip()]


def matches(hit, turn: dict) -> bool:
    if "doc" in turn:
        return hit.source.endswith("#" + turn["doc"])
    return hit.source.endswith(turn["source"]) and turn["contains"] in hit.text


def run(engine: Engine, scope: Scope, conversations: list[dict], options: dict) -> list[dict]:
    searcher = Searcher(engine.store, engine.embedder, engine.settings.search)
    rows = []
    for conv in conversations:
        cid = None
        previous = None
        for i, turn in enumerate(conv["turns"]):
            result = engine.conversations.ask(turn["q"], scope, conversation_id=cid, options=options,
                                              rag_options={"enabled": False})
            cid = result.conversation_id
            query = result.data["query"]
            ranking = AnswerTurn(query=query["rewritten"] if query["rewritten"] != turn["q"] else None,
                                 carried_sources=query["carried_sources"]).search(
                searcher, turn["q"], scope, mode=None, k=10, filters=None).hits
            rank = next((r for r, hit in enumerate(ranking, 1) if matches(hit, turn)), None)
            key = turn.get("doc") or turn["source"]
            kind = "first" if i == 0 else ("follow-up" if key == previous else "moves on")
            rows.append({"conversation": conv["id"], "turn": i + 1, "kind": kind, "question": turn["q"],
                         "query": query["rewritten"], "method": query["method"],
                         "carried_sources": len(query["carried_sources"]), "rank": rank})
            previous = key
    return rows


def summary(rows: list[dict]) -> dict:
    def rate(sel: list[dict], k: int) -> float:
        return round(sum(1 for r in sel if r["rank"] is not None and r["rank"] <= k) / len(sel), 3) if sel else 0.0

    out = {}
    for kind in ("follow-up", "moves on", "first"):
        sel = [r for r in rows if r["kind"] == kind]
        out[kind] = {"turns": len(sel), "recall@1": rate(sel, 1), "recall@5": rate(sel, 5),
                     "mrr@10": round(sum(1 / r["rank"] for r in sel if r["rank"]) / len(sel), 3) if sel else 0.0}
    later = [r for r in rows if r["kind"] != "first"]
    out["all later turns"] = {"turns": len(later), "recall@1": rate(later, 1), "recall@5": rate(later, 5),
                              "mrr@10": round(sum(1 / r["rank"] for r in later if r["rank"]) / len(later), 3)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None, help="data dir to reuse (default: a temporary one)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench")
    parser.add_argument("--skip-scifact", action="store_true")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="ragline-followups-"))
    engine = Engine(Settings(home=home))
    engine.conversations.background = False
    corpora = [("bank", SAMPLE, load("bank"))]
    if not args.skip_scifact:
        corpora.append(("scifact", SCIFACT, load("scifact")))
    results: dict = {"model": engine.embedder.model_id, "mode": engine.settings.search.mode, "corpora": {}}
    try:
        for name, path, conversations in corpora:
            scope = Scope("bench", (name,))
            started = time.perf_counter()
            engine.ingest([path], scope)
            print(f"{name}: ingested in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            per_config = {}
            for label, options in CONFIGS:
                rows = run(engine, scope, conversations, options)
                per_config[label] = {"summary": summary(rows), "turns": rows}
                print(f"{name} / {label}: {json.dumps(per_config[label]['summary'])}", file=sys.stderr)
            results["corpora"][name] = {"conversations": len(conversations), "configs": per_config}
    finally:
        engine.close()
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "followups.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    (args.output / "followups.md").write_text(markdown(results))
    print(markdown(results))
    return 0


def markdown(results: dict) -> str:
    lines = ["# Follow-up recall", "",
             (f"Model {results['model']}, {results['mode']} search, no LLM (the carry rewrite). "
              "Generated by `bench/followups.py`."), ""]
    for name, corpus in results["corpora"].items():
        lines += [f"## {name} ({corpus['conversations']} conversations)", "",
                  "| configuration | follow-ups | recall@1 | recall@5 | MRR@10 | moves on | recall@5 | MRR@10 |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for label, data in corpus["configs"].items():
            f, m = data["summary"]["follow-up"], data["summary"]["moves on"]
            lines.append(f"| {label} | {f['turns']} | {f['recall@1']:.3f} | {f['recall@5']:.3f} | {f['mrr@10']:.3f} "
                         f"| {m['turns']} | {m['recall@5']:.3f} | {m['mrr@10']:.3f} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
