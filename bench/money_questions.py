"""Money questions written blind (``bench/datasets/money``: three real-format bank
exports, 273 questions with expected figures computed independently, split dev/test),
asked through the real path: the statements imported through the real importers into
a fresh home (the Engine), the bank's fee page ingested as a document, every question
asked through ``Engine.ask`` with its ``as_of`` as today, in the scope of the accounts
it is about.

Two columns:

- ``offline``: the default engine (no LLM): the rule parser plans, the template phrases.
- ``llm``: an OpenAI-compatible generator pointed at the fake LLM server
  (``tests/fakes/llm.py``, real HTTP, the real wire protocol). The fake is never told
  an answer: it plans by reading the prompt ragline sends (``tests/fakes/planner.py``:
  the question, today and the owner's names, read back out of the prompt and run
  through the offline parser — so the column measures ragline's LLM path, the tool
  call, the schema check and the execution, not a real model's reading), answers
  document questions with the deterministic reader (``tests/fakes/reader.py``), and
  phrases figures the same way.

Scoring, per question (``score``): **right** — the answer states the expected figure(s)
(every one of a comparison or a list; for a mixed question the figure and the fee
from the documents; for a name or a text question the name; for a question about
spending that does not exist, an answer that says there is none); **wrong** — it
states other figures and no assumption; **assumed** — other figures, with a stated
assumption; **error** — an exception. ``headline`` is stricter: the first figure of
the answer is the expected one.

The Monzo export has no balance column; its opening balance is what the user says
in ``accounts.md`` ("£1,884.67 on the morning of 1 June"), given to the store as
the user's own statement of it.

    .venv/bin/python bench/money_questions.py --dataset DIR --split dev   # tune on this
    .venv/bin/python bench/money_questions.py --dataset DIR --split test  # once, at the end
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.llm import FakeLLMServer, Reply  # noqa: E402
from tests.fakes.planner import plan_from_prompt  # noqa: E402
from tests.fakes.reader import read_answer  # noqa: E402

from ragline.engine import Engine  # noqa: E402
from ragline.models import Block, Document, Scope  # noqa: E402
from ragline.models.records import Balance  # noqa: E402
from ragline.records.importers import ImportOptions  # noqa: E402
from ragline.settings import GeneratorSettings, Settings  # noqa: E402

TENANT = "bench"
DOCS = "bank"
FILES = {"monzo": "monzo_current_account.csv", "joint": "calder_joint_account.csv", "savings": "calder_easy_saver.ofx"}


def opening_balance(accounts_md: str) -> tuple[Decimal, date] | None:
    """The Monzo opening balance the user states in accounts.md."""
    m = re.search(r"main balance was \*\*£([\d,]+\.\d\d)\*\* on the\s+morning of (\d+) (\w+) (\d{4})", accounts_md)
    if not m:
        return None
    from datetime import datetime, timedelta

    day = datetime.strptime(f"{m[2]} {m[3]} {m[4]}", "%d %B %Y").date() - timedelta(days=1)
    return Decimal(m[1].replace(",", "")), day


def build(home: Path, dataset: Path, scopes: set[tuple[str, ...]], generator: GeneratorSettings | None) -> Engine:
    settings = Settings(home=home, generator=generator or GeneratorSettings())
    engine = Engine(settings)
    statements = dataset / "statements"
    engine.add_documents([Document(source="fees.md", title="Calder Bank fees",
                                   blocks=[Block((statements / "fees.md").read_text(encoding="utf-8"))])],
                         Scope(TENANT, (DOCS,)))
    opening = opening_balance((statements / "accounts.md").read_text(encoding="utf-8"))
    for accounts in sorted(scopes):
        scope = owner_scope(accounts)
        for account in accounts:
            report = engine.transactions.import_file(statements / FILES[account], scope,
                                                     options=ImportOptions(account_id=account, currency="GBP"))
            if report.failed:
                print(f"  {account}: {len(report.failed)} rows failed: {report.failed[:3]}", file=sys.stderr)
            if account == "monzo" and opening is not None:
                engine.store.records.put_balances(scope, [Balance(account="monzo", amount=opening[0], currency="GBP",
                                                                  as_of=opening[1], source="api")])
    return engine


def owner_scope(accounts: tuple[str, ...] | list[str]) -> Scope:
    return Scope(TENANT, (DOCS,), "+".join(sorted(accounts)))


# -- scoring -------------------------------------------------------------------------
_DATE_NUMBER = re.compile(r"\b\d{1,2}(?= (?:January|February|March|April|May|June|July|August|September|October|"
                          r"November|December)\b)|\b(?:19|20)\d\d\b|\[\d+\]|\b\d{4}-\d\d(?:-\d\d)?\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


def figures(text: str) -> list[Decimal]:
    cleaned = _DATE_NUMBER.sub(" ", text)
    out = []
    for m in _NUMBER.finditer(cleaned):
        try:
            out.append(Decimal(m[0].replace(",", "")))
        except Exception:  # noqa: BLE001
            continue
    return out


def _has(text: str, value: str) -> bool:
    want = Decimal(str(value).replace(",", "").lstrip("£€").rstrip("%"))
    return any(abs(f) == want for f in figures(text))


def score(question: dict[str, Any], text: str) -> tuple[str, bool]:
    """(right | wrong | assumed, headline right) for an answer's text."""
    expected = question["expected"]
    kind = expected["type"]
    low = text.lower()
    assumed = "(assumed:" in low or "assuming" in low
    nums = figures(text)
    if kind in ("amount", "average", "balance"):
        right = _has(text, expected["value"])
    elif kind == "count":
        right = _has(text, str(expected["value"]))
    elif kind in ("compare", "amounts"):
        right = all(_has(text, v) for v in expected["values"].values())
    elif kind == "mixed":
        fact = expected["doc_fact"]
        right = _has(text, expected["value"]) and (fact.lower() in low or _has(text, fact))
    elif kind == "name":
        right = str(expected["value"]).lower() in low
    elif kind == "text":
        right = any(f.lower() in low for f in expected["facts"])
    elif kind == "none":
        right = bool(re.search(r"\bno\b|\bnothing\b|\bnone\b|\b0\.00\b|\bnot find\b|\bno such\b", low)) and \
            not any(n not in (0,) for n in nums if n != int(n) or n > 31)
    else:
        raise ValueError(f"unknown expected type {kind}")
    headline = right
    if right and kind in ("amount", "average", "balance", "count") and nums:
        headline = abs(nums[0]) == Decimal(str(expected["value"]))
    if right:
        return "right", headline
    return ("assumed" if assumed else "wrong"), False


def run(engine: Engine, questions: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
    results = []
    for q in questions:
        engine.transactions.today = date.fromisoformat(q["as_of"])
        started = time.perf_counter()
        try:
            answer = engine.ask(q["question"], owner_scope(q["accounts"])).to_dict()
            outcome, headline = score(q, answer["answer"])
            result = {"id": q["id"], "kind": q["kind"], "outcome": outcome, "headline": headline,
                      "answer": answer["answer"], "route": (answer.get("route") or {}).get("name"),
                      "planner": (answer.get("route") or {}).get("planner"),
                      "planner_fallback": (answer.get("route") or {}).get("planner_fallback"),
                      "stated": ((answer.get("records") or {}).get("stated"))}
        except Exception as exc:  # noqa: BLE001 — an error is a result here
            result = {"id": q["id"], "kind": q["kind"], "outcome": "error", "headline": False,
                      "answer": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-800:]}
        result["ms"] = round((time.perf_counter() - started) * 1000, 1)
        result["question"], result["expected"] = q["question"], q["expected"]
        results.append(result)
    counts = Counter(r["outcome"] for r in results)
    print(f"{label}: {len(results)} questions: right {counts['right']}, wrong {counts['wrong']}, "
          f"assumed {counts['assumed']}, error {counts['error']}", file=sys.stderr)
    return results


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    counts = Counter(r["outcome"] for r in results)
    per_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        per_kind[r["kind"]][r["outcome"]] += 1
    return {"questions": n, "right": counts["right"], "wrong": counts["wrong"], "assumed": counts["assumed"],
            "error": counts["error"], "right_rate": round(counts["right"] / n, 4) if n else 0,
            "wrong_unstated_rate": round(counts["wrong"] / n, 4) if n else 0,
            "headline_right": sum(1 for r in results if r["headline"]),
            "planner_fallbacks": sum(1 for r in results if r.get("planner_fallback")),
            "per_kind": {k: dict(v) for k, v in sorted(per_kind.items())}}


def markdown(out: dict[str, Any], command: str) -> str:
    """The figures as a page: per column, per kind, and every answer that was not right."""
    lines = [f"# Money questions ({out['split']} split)", "",
             f"`{command}` — {out['questions']} questions written blind (`bench/datasets/money/README.md`), "
             f"asked through `Engine.ask` with each question's `as_of` as today, in the scope of the accounts it is "
             f"about. Scoring: `bench/money_questions.py` (module docstring).", "",
             "| column | questions | right | wrong, no assumption stated | wrong, assumption stated | errors | "
             "headline figure right | planner fallbacks |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for column, data in out["columns"].items():
        s = data["summary"]
        lines.append(f"| {column} | {s['questions']} | {s['right']} ({s['right_rate']:.1%}) | {s['wrong']} "
                     f"({s['wrong_unstated_rate']:.1%}) | {s['assumed']} | {s['error']} | {s['headline_right']} | "
                     f"{s['planner_fallbacks']} |")
    for column, data in out["columns"].items():
        lines += ["", f"## {column}: per kind", "", "| kind | right | wrong | assumed | error |", "| --- | --- | --- | --- | --- |"]
        for kind, counts in data["summary"]["per_kind"].items():
            lines.append(f"| {kind} | {counts.get('right', 0)} | {counts.get('wrong', 0)} | "
                         f"{counts.get('assumed', 0)} | {counts.get('error', 0)} |")
        lines += ["", f"## {column}: answers that were not right", ""]
        for r in data["results"]:
            if r["outcome"] != "right":
                answer = " ".join(r["answer"].split())[:400]
                lines.append(f"- `{r['id']}` ({r['kind']}, {r['outcome']}) {r['question']} — expected "
                             f"`{json.dumps(r['expected'], ensure_ascii=False)}`; answered: {answer}")
    return "\n".join(lines) + "\n"


def fake_model(body: dict[str, Any]) -> dict[str, Any] | str:
    """The fake's tool call: a plan read from the prompt ragline sent."""
    user = "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")
    return plan_from_prompt(user)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ROOT / "bench" / "datasets" / "money")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--columns", default="offline,llm")
    parser.add_argument("--only", default="", help="comma-separated question ids (debugging)")
    parser.add_argument("--output", type=Path, default=None, help="default: bench/money_questions[_SPLIT].json")
    args = parser.parse_args()
    questions = [json.loads(line) for line in (args.dataset / "questions.jsonl").read_text().splitlines() if line]
    questions = [q for q in questions if args.split == "all" or q["split"] == args.split]
    if args.only:
        wanted = set(args.only.split(","))
        questions = [q for q in questions if q["id"] in wanted]
    scopes = {tuple(sorted(q["accounts"])) for q in questions}
    out: dict[str, Any] = {"dataset": str(args.dataset.name), "split": args.split, "columns": {}}
    for column in args.columns.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            if column == "llm":
                with FakeLLMServer("openai", default=Reply(text=read_answer, tool=fake_model)) as server:
                    engine = build(Path(tmp), args.dataset, scopes,
                                   GeneratorSettings(name="openai", base_url=server.base_url, api_key="fake",
                                                     model="fake-planner", max_retries=0))
                    try:
                        results = run(engine, questions, column)
                    finally:
                        engine.close()
            else:
                engine = build(Path(tmp), args.dataset, scopes, None)
                try:
                    results = run(engine, questions, column)
                finally:
                    engine.close()
        out["columns"][column] = {"summary": summary(results), "results": results}
    out["questions"] = len(questions)
    path = args.output or ROOT / "bench" / f"money_questions{'' if args.split == 'test' else '_' + args.split}.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    command = "bench/money_questions.py --dataset DIR --split " + args.split
    path.with_suffix(".md").write_text(markdown(out, command), encoding="utf-8")
    for column, data in out["columns"].items():
        s = data["summary"]
        print(f"{column:8} {s['questions']} questions: right {s['right']} ({s['right_rate']:.1%}), wrong without "
              f"assumption {s['wrong']} ({s['wrong_unstated_rate']:.1%}), assumed {s['assumed']}, errors {s['error']}, "
              f"headline right {s['headline_right']}")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
