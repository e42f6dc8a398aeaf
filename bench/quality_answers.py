"""Answers that know what they don't know: the labelled answer set
(``bench/datasets/answers/questions.jsonl``) asked of the sample knowledge base and
the test PDFs, through the real answer pipeline (``Engine.ask``).

Figures, per kind of question:

- answerable: answer rate (not abstained), fact rate (the answer contains one of
  the question's expected facts) and citation precision (share of the answer's
  citations whose passage contains an expected fact);
- near miss (the right topic, a fact the knowledge base does not hold) and
  off-topic: abstention rate.

    .venv/bin/python bench/quality_answers.py            # → bench/quality_answers.{json,md}
    .venv/bin/python bench/quality_answers.py --embedder hashing --home /tmp/q-answers-hashing
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import EmbedderSettings, Settings

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "datasets" / "answers" / "questions.jsonl"
SOURCES = [HERE.parent / "src" / "ragline" / "sample", Path("/work/shared/testdata")]
SCOPE = Scope("bench", ("answers",))
KINDS = ("answerable", "near-miss", "off-topic")


def contains(text: str, facts: list[str]) -> bool:
    lowered = " ".join(text.split()).lower()
    return any(fact.lower() in lowered for fact in facts)


def ask_all(engine: Engine, questions: list[dict]) -> list[dict]:
    """One row per question: the answer, whether it abstained, and its citations' checks."""
    rows = []
    for question in questions:
        answer = engine.ask(question["question"], SCOPE)
        cited = engine.store.get_hits(SCOPE, [(c.chunk_id, c.score) for c in answer.citations])
        rows.append({"id": question["id"], "kind": question["kind"], "question": question["question"],
                     "answer": answer.answer, "abstained": answer.abstained,
                     "has_fact": contains(answer.answer, question["facts"]),
                     "citations_with_fact": sum(contains(hit.text, question["facts"]) for hit in cited),
                     "citations": len(cited)})
    return rows


def summarise(rows: list[dict]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue
        abstained = sum(r["abstained"] for r in mine) / len(mine)
        entry = {"questions": len(mine), "abstained": round(abstained, 4)}
        if kind == "answerable":
            answered = [r for r in mine if not r["abstained"]]
            citations = sum(r["citations"] for r in answered)
            entry.update({"answer_rate": round(1 - abstained, 4),
                          "fact_rate": round(sum(r["has_fact"] for r in mine) / len(mine), 4),
                          "citation_precision": round(sum(r["citations_with_fact"] for r in answered)
                                                      / citations, 4) if citations else 0.0})
        out[kind] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/ragline-quality/answers"))
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", type=Path, default=HERE / "quality_answers")
    parser.add_argument("--label", default="current", help="name of this run in the output (e.g. before, after)")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    engine = Engine(Settings(home=args.home, embedder=EmbedderSettings(name=args.embedder)))
    try:
        engine.ingest(SOURCES, SCOPE)
        rows = ask_all(engine, questions)
    finally:
        engine.close()
    summary = summarise(rows)
    path = args.out.with_suffix(".json")
    saved = json.loads(path.read_text()) if path.exists() else {}
    saved[args.label] = {"embedder": args.embedder, "summary": summary, "rows": rows}
    path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
    lines = ["| run | answer rate | fact in answer | citation precision | near-miss abstained | off-topic abstained |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for label, run in saved.items():
        s = run["summary"]
        lines.append(f"| {label} ({run['embedder']}) | {s['answerable']['answer_rate']:.3f} | "
                     f"{s['answerable']['fact_rate']:.3f} | {s['answerable']['citation_precision']:.3f} | "
                     f"{s['near-miss']['abstained']:.3f} | {s['off-topic']['abstained']:.3f} |")
    table = "\n".join(lines)
    args.out.with_suffix(".md").write_text(f"# Answer set ({len(questions)} questions)\n\n"
                                           f"`python bench/quality_answers.py --label LABEL`\n\n{table}\n")
    print(table)


if __name__ == "__main__":
    main()
