"""Answers that know what they don't know: the labelled answer set
(``bench/datasets/answers/questions.jsonl``) asked of the sample knowledge base and
the test PDFs, through the real answer pipeline (``Engine.ask``).

Figures, per kind of question:

- answerable: answer rate (not abstained), fact rate (the answer contains one of
  the question's expected facts) and citation precision (share of the answer's
  citations whose passage contains an expected fact);
- FAQ-style (answerable questions asked as a heading says them, ``"faq": true``):
  the same figures on that subset;
- near miss (the right topic, a fact the knowledge base does not hold) and
  off-topic: abstention rate;
- readability (answered answerable questions): share of answer sentences that
  contain an expected fact ("on point"), answers whose first sentence has it,
  answers with a sentence opening by pointing back ("When that happens, …",
  "It …"), with table pipes, with a heading in capitals glued in, mean words.

Every figure is given for all questions and for the held-out half (ids with an
even number: s02, n02, …); the answer step's rules were tuned on the odd half.

``--generator openai`` asks an OpenAI-compatible LLM: the real API when
OPENAI_API_KEY is set (and ``--base-url``/``--model`` if needed), else the fake
server of ``tests/fakes/llm.py`` speaking the real wire protocol, answering with
the deterministic context reader of ``tests/fakes/reader.py`` (it is never told
the answer; see its docstring).

    .venv/bin/python bench/quality_answers.py --label after            # → bench/quality_answers.{json,md}
    .venv/bin/python bench/quality_answers.py --label after --generator openai
    .venv/bin/python bench/quality_answers.py --embedder hashing --home /tmp/q-answers-hashing
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from contextlib import ExitStack
from pathlib import Path

from ragline.answer.readable import starts_dangling
from ragline.answer.text import strip_citations
from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import EmbedderSettings, GeneratorSettings, Settings

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "datasets" / "answers" / "questions.jsonl"
SOURCES = [HERE.parent / "src" / "ragline" / "sample", Path("/work/shared/testdata")]
SCOPE = Scope("bench", ("answers",))
KINDS = ("answerable", "near-miss", "off-topic")
_CITED_UNIT = re.compile(r"(?<=\])[.!?]?\s+(?=\S)")
_GLUED_HEADING = re.compile(r"\b[A-Z]{2,}(?:\s+[A-Z]{2,}){2,}\b")


def contains(text: str, facts: list[str]) -> bool:
    lowered = " ".join(text.split()).lower()
    return any(fact.lower() in lowered for fact in facts)


def held_out(question_id: str) -> bool:
    """The report half: ids whose number is even (the rules were tuned on the odd ones)."""
    digits = re.sub(r"\D", "", question_id)
    return bool(digits) and int(digits) % 2 == 0


def ask_all(engine: Engine, questions: list[dict], generator: str) -> list[dict]:
    """One row per question: the answer, whether it abstained, and its citations' checks."""
    rows = []
    for question in questions:
        answer = engine.ask(question["question"], SCOPE, generator=generator)
        cited = engine.store.get_hits(SCOPE, [(c.chunk_id, c.score) for c in answer.citations])
        rows.append({"id": question["id"], "kind": question["kind"], "question": question["question"],
                     "faq": bool(question.get("faq")), "facts": question["facts"],
                     "answer": answer.answer, "abstained": answer.abstained, "generator": answer.generator,
                     "has_fact": contains(answer.answer, question["facts"]),
                     "citations_with_fact": sum(contains(hit.text, question["facts"]) for hit in cited),
                     "citations": len(cited)})
    return rows


def quoted_units(answer: str) -> list[str]:
    """The answer cut after each citation group: what one source was quoted for
    ("X. It can be raised … [1]." is one unit, so its "It" has its antecedent)."""
    parts = [strip_citations(p) for p in _CITED_UNIT.split(answer)]
    return [p for p in parts if p.strip(" .")] or [answer]


def readability(rows: list[dict]) -> dict[str, float]:
    """The readability proxies over answered answerable rows (module docstring)."""
    answered = [r for r in rows if r["kind"] == "answerable" and not r["abstained"]]
    if not answered:
        return {}
    on_point, first, dangling, pipes, glued, words = [], 0, 0, 0, 0, 0
    for row in answered:
        sentences = quoted_units(row["answer"])
        hits = [contains(s, row["facts"]) for s in sentences]
        on_point.append(sum(hits) / len(hits))
        first += hits[0]
        dangling += any(starts_dangling(s) for s in sentences)
        pipes += "|" in row["answer"]
        glued += bool(_GLUED_HEADING.search(row["answer"]))
        words += len(strip_citations(row["answer"]).split())
    n = len(answered)
    return {"answers": n, "on_point": round(sum(on_point) / n, 4), "fact_first": round(first / n, 4),
            "dangling": round(dangling / n, 4), "pipes": round(pipes / n, 4), "glued_heading": round(glued / n, 4),
            "mean_words": round(words / n, 1)}


def summarise(rows: list[dict]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    groups = {kind: [r for r in rows if r["kind"] == kind] for kind in KINDS}
    groups["faq"] = [r for r in rows if r["kind"] == "answerable" and r.get("faq")]
    for kind, mine in groups.items():
        if not mine:
            continue
        abstained = sum(r["abstained"] for r in mine) / len(mine)
        entry = {"questions": len(mine), "abstained": round(abstained, 4)}
        if kind in ("answerable", "faq"):
            answered = [r for r in mine if not r["abstained"]]
            citations = sum(r["citations"] for r in answered)
            entry.update({"answer_rate": round(1 - abstained, 4),
                          "fact_rate": round(sum(r["has_fact"] for r in mine) / len(mine), 4),
                          "citation_precision": round(sum(r["citations_with_fact"] for r in answered)
                                                      / citations, 4) if citations else 0.0})
        out[kind] = entry
    out["readability"] = readability(rows)
    return out


def summaries(rows: list[dict]) -> dict[str, dict]:
    """The summary on all rows, on the held-out half and on the original 168 (no FAQ rows)."""
    return {"all": summarise(rows), "held_out": summarise([r for r in rows if held_out(r["id"])]),
            "no_faq": summarise([r for r in rows if not r.get("faq")])}


def fake_openai(stack: ExitStack) -> GeneratorSettings:
    """Generator settings for the fake OpenAI server answering with the context reader."""
    sys.path.insert(0, str(HERE.parent))
    from tests.fakes.llm import FakeLLMServer, Reply
    from tests.fakes.reader import read_answer

    server = stack.enter_context(FakeLLMServer("openai", default=Reply(text=read_answer)))
    return GeneratorSettings(name="openai", base_url=server.base_url, model="fake-reader", api_key="fake",
                             max_retries=0)


def table(saved: dict, part: str) -> str:
    lines = [f"### {part.replace('_', ' ')}\n",
             ("| run | generator | answer rate | fact in answer | citation precision | FAQ answered | FAQ fact "
              "| near-miss abstained | off-topic abstained |"),
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, run in saved.items():
        s = run.get("summaries", {}).get(part)
        if not s:
            continue
        a, faq = s["answerable"], s.get("faq", {})
        lines.append(f"| {label} ({run['embedder']}) | {run.get('generator', 'extractive')} | {a['answer_rate']:.3f} | "
                     f"{a['fact_rate']:.3f} | {a['citation_precision']:.3f} | "
                     f"{faq.get('answer_rate', float('nan')):.3f} | {faq.get('fact_rate', float('nan')):.3f} | "
                     f"{s['near-miss']['abstained']:.3f} | {s['off-topic']['abstained']:.3f} |")
    lines += ["", ("| run | answers | on point | fact in 1st sentence | dangling opener | table pipes "
                   "| glued heading | mean words |"), "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, run in saved.items():
        r = run.get("summaries", {}).get(part, {}).get("readability")
        if r:
            lines.append(f"| {label} | {r['answers']} | {r['on_point']:.3f} | {r['fact_first']:.3f} | "
                         f"{r['dangling']:.3f} | {r['pipes']:.3f} | {r['glued_heading']:.3f} | {r['mean_words']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/ragline-quality/answers"))
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--generator", default="extractive", choices=("extractive", "openai"))
    parser.add_argument("--base-url", default=None, help="real OpenAI-compatible endpoint (with OPENAI_API_KEY)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", type=Path, default=HERE / "quality_answers")
    parser.add_argument("--label", default="current", help="name of this run in the output (e.g. before, after)")
    args = parser.parse_args()
    questions = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    with ExitStack() as stack:
        generator = GeneratorSettings()
        model = "extractive"
        if args.generator == "openai":
            if os.environ.get("OPENAI_API_KEY"):  # a real model, only when a key is set
                generator = GeneratorSettings(name="openai", base_url=args.base_url, model=args.model)
                model = f"openai:{args.model or 'default'}"
            else:
                generator, model = fake_openai(stack), "openai:fake-reader"
        engine = Engine(Settings(home=args.home, embedder=EmbedderSettings(name=args.embedder), generator=generator))
        try:
            engine.ingest(SOURCES, SCOPE)
            rows = ask_all(engine, questions, generator.name)
        finally:
            engine.close()
    fell_back = sum(r["generator"] == "extractive" for r in rows) if args.generator == "openai" else 0
    path = args.out.with_suffix(".json")
    saved = json.loads(path.read_text()) if path.exists() else {}
    for run in saved.values():  # runs saved by the script's first version: summarise their rows again
        if "summaries" not in run and run.get("rows") and "facts" in run["rows"][0]:
            run["summaries"] = summaries(run["rows"])
    saved[args.label] = {"embedder": args.embedder, "generator": model, "fell_back": fell_back,
                         "summaries": summaries(rows), "rows": rows}
    path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
    parts = "\n\n".join(table(saved, part) for part in ("all", "held_out", "no_faq"))
    args.out.with_suffix(".md").write_text(
        f"# Answer set ({len(questions)} questions)\n\n`python bench/quality_answers.py --label LABEL "
        f"[--generator openai]`; `all`: every question, `held out`: the even ids (rules tuned on the odd ones), "
        f"`no faq`: the original 168 without the 15 FAQ-style heading questions.\n\n{parts}\n")
    print(parts)
    if fell_back:
        print(f"warning: {fell_back} answers fell back to extractive")


if __name__ == "__main__":
    main()
