"""Answers you can trust, measured on sets written blind (issue 27): three corpora in
the shape of the systems ragline replaces, asked through the real pipeline.

Sets (``bench/datasets/trust/<set>/``, each with a README.md): ``bank-in`` (an Indian
co-operative bank's leaflets, docx and PDF), ``shop-es`` (a Spanish shop's policies,
PDF), ``textbook`` (a textbook as ``chunks.json``, ingested as records: one document
per chunk, chapter/section/page kept as metadata, ``docs/formats.md``). Each question
has a ``split`` (dev: what the answer step may be tuned on; test: reported once),
a ``kind`` and the expected ``facts`` / ``wrong_facts``.

Every set goes into a fresh engine home, one collection per set. Single questions
are asked with ``Engine.ask``; a follow-up asks its history question first, then the
follow-up, in one conversation (``engine.conversations``); small talk goes through a
conversation too (its gate is where greetings are answered). Chat memory (the
user's past messages) is off, so no question sees another's.

Scoring (facts matched as whole words and numbers, ``match_fact``):

- answerable, paraphrase, abbreviation, follow-up — *right*: not abstained and a fact
  in the answer; *right, strict*: the same without the bare-number variants of the
  facts ("30" of "30 días": a bare 30 is also found in "30 €"); *fact in 1st unit*:
  right, and the fact is in the answer's first cited unit (no padding before it);
  *empty*: not abstained, and no text (every sentence removed); *wrong (wrong
  fact)*: not abstained, no fact, a wrong fact shipped;
  *wrong (any figure)*: not abstained, no fact, a wrong fact or some other number
  (one not in the question); *not right*: answered without a fact; *false refusal*:
  abstained; *citation precision*: share of the cited passages whose text holds a
  fact (answered questions).
- near-miss — *good*: abstained, or the answer says the documents do not cover it
  (a statement such as "do not mention" / "no mencionan") and names what they cover
  (a key word of ``covers_instead``); *wrong*: a wrong fact stated otherwise.
- off-topic — abstained; small talk — abstained or answered without sources.
- latency: wall time of each ``ask`` (the follow-up turn alone), p50/p95.

``--generator openai`` is the LLM column: the fake OpenAI server of
``tests/fakes/llm.py`` answering with the context reader of ``tests/fakes/reader.py``
(never told the answer). Runs are stored under ``<label>/<generator>`` in
``bench/trust.json`` and every stored run is rendered to ``bench/trust.md`` (with the
adversarial runs of ``bench/trust_adversarial.py``).

    .venv/bin/python bench/trust.py --set all --split dev --label after
    .venv/bin/python bench/trust.py --set all --split dev --label after --generator openai
    PYTHONPATH=/work/wt-before/src .venv/bin/python bench/trust.py --set all --split dev --label before
    .venv/bin/python bench/trust.py --set all --split test --label final   # once, at the end
"""

from __future__ import annotations

import argparse
import fcntl
import json
import re
import shutil
import statistics
import sys
import time
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATASETS = HERE / "datasets" / "trust"
SETS = ("bank-in", "shop-es", "textbook")
LOCALE = {"bank-in": "en", "shop-es": "es", "textbook": "en"}  # how the set writes its numbers
ANSWERABLE = ("answerable", "paraphrase", "abbreviation", "follow-up")
OUTPUT = HERE / "trust"
TENANT = "trust"

# -- fact matching ------------------------------------------------------------------
_CITATION = re.compile(r"\[\d{1,3}(?:\s*[-,–]\s*\d{1,3})*\]")
_TOKEN = re.compile(r"(?P<time>\d{1,2}:\d{2})(?!\d)|(?P<num>\d+(?:[.,]\d+)*)|(?P<word>[^\W\d_]+)|(?P<sym>[%])")
_PERCENT = re.compile(r"\bper\s*cent\b|\bpercent\b|\bpor\s+ciento\b", re.IGNORECASE)
_CURRENCY = {"rs", "inr", "rupee", "rupees", "eur", "euro", "euros", "gbp", "usd", "₹", "€", "£", "$"}
_BARE = re.compile(r"\s*[\d.,:]+\s*")
Token = tuple[str, str]  # ("n", "1000") a number, ("w", "days") a word, ("s", "%") a sign


def fold(text: str) -> str:
    """Lower case, accents off (días = dias), compatibility forms unified."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def number_value(raw: str, locale: str) -> str:
    """A number as written ("1,000", "1.000", "4,95", "10,00,000", "7.25") → its value
    as a canonical string, read with the set's conventions (es: "." groups thousands,
    "," is the decimal mark; en: the other way round, Indian grouping included)."""
    text = raw
    if locale == "es":
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", text):
            text = text.replace(".", "").replace(",", ".")
        elif re.fullmatch(r"\d+,\d+", text):
            text = text.replace(",", ".")
        else:
            text = text.replace(",", "")
    else:
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?", text):
            text = text.replace(",", "")
        elif re.fullmatch(r"\d+,\d{1,2}", text):  # a decimal comma in English text (rare)
            text = text.replace(",", ".")
        else:
            text = text.replace(",", "")
    if text.count(".") > 1:
        text = text.replace(".", "")
    try:
        value = Decimal(text).normalize()
    except InvalidOperation:
        return raw
    return format(value, "f")


def tokens(text: str, locale: str) -> list[Token]:
    """``text`` as comparable tokens: citations, currency signs and words, hyphens and
    punctuation dropped; "percent"/"por ciento" → "%"; numbers by value; "16:00" → 16."""
    text = _PERCENT.sub(" % ", _CITATION.sub(" ", unicodedata.normalize("NFKC", text)))
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        if m.group("time"):
            hours, minutes = m.group("time").split(":")
            out.append(("n", str(int(hours))) if minutes == "00" else ("t", f"{int(hours)}:{minutes}"))
        elif m.group("num"):
            raw = m.group("num").rstrip(".,")
            out.append(("n", number_value(raw, locale)))
        elif m.group("word"):
            word = fold(m.group("word"))
            if word not in _CURRENCY:
                out.append(("w", word))
        else:
            out.append(("s", m.group("sym")))
    return out


def _contains(haystack: Sequence[Token], needle: Sequence[Token]) -> bool:
    n = len(needle)
    return n > 0 and any(list(haystack[i:i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def match_fact(text: str, fact: str, locale: str) -> bool:
    """True when ``fact`` occurs in ``text`` as whole words and numbers: "1,000" =
    "1000", "7.25%" = "7.25 %" = "7.25 percent", "35 €" = "35,00 €" = "€35", "Rs. 500" =
    "₹500", "4,95" is not inside "14,95", "15" is not inside "150"."""
    needle = tokens(fact, locale)
    if not needle:
        return fold(fact).strip() in fold(text)
    return _contains(tokens(text, locale), needle)


def any_fact(text: str, facts: Sequence[str], locale: str) -> list[str]:
    return [f for f in facts if match_fact(text, f, locale)]


def strict_facts(facts: Sequence[str]) -> list[str]:
    """The facts without their bare-number variants ("30" of "30 días", "30"), unless
    only bare numbers are given: a bare "30" is also found in "30 €" for another thing."""
    worded = [f for f in facts if not _BARE.fullmatch(f)]
    return worded or list(facts)


def first_unit(text: str) -> str:
    """The answer up to its first citation group (what its first source was quoted for),
    or its first sentence when nothing is cited."""
    cut = re.search(r"\[\d{1,3}(?:\s*[-,–]\s*\d{1,3})*\]", text)
    if cut:
        return text[:cut.end()]
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def numbers_in(text: str, locale: str) -> set[str]:
    return {value for kind, value in tokens(text, locale) if kind in ("n", "t")}


# -- near misses ------------------------------------------------------------------------
# A sentence about the documents that says they lack something ("The documents cover
# personal loans; they do not mention car loans."), not policy text that happens to say
# "not covered" or "solo".
_ABOUT_DOCUMENTS = re.compile(r"\b(?:the|these|your|our|los|las|la|tus|sus|estos|estas)\s+(?:documents?|sources?|"
                              r"documentos?|documentaci[oó]n|fuentes?|book|libro|leaflets?)\b|knowledge base|"
                              r"base de conocimiento", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|nothing|nada|don't|doesn't|only|solo|sólo|únicamente|unicamente|instead|"
                       r"ni)\b", re.IGNORECASE)
_STOPWORDS = {fold(w) for w in (
    "the", "and", "for", "with", "from", "only", "this", "that", "these", "those", "their", "your", "our", "any",
    "all", "de", "del", "la", "las", "los", "el", "en", "y", "o", "a", "con", "para", "por", "solo", "sólo", "una",
    "uno", "un", "más", "mas", "que", "the", "of", "to", "in", "on", "at", "up", "maximum"
)}


def key_words(covers_instead: str | None) -> set[str]:
    """The words of ``covers_instead`` that name what the documents cover (4+ letters)."""
    return {w for w in re.findall(r"[^\W\d_]{4,}", fold(covers_instead or "")) if w not in _STOPWORDS}


def says_covers_instead(answer: str, covers_instead: str | None, question: str = "") -> bool:
    """The answer says the documents do not cover the thing asked, and names what they
    cover (a key word of ``covers_instead`` that the question does not hold)."""
    text = _CITATION.sub(" ", answer)
    says = any(_ABOUT_DOCUMENTS.search(s) and _NEGATION.search(s) for s in re.split(r"(?<=[.!?])\s+", text))
    words = {w[:6] for w in re.findall(r"[^\W\d_]+", fold(text))}
    asked = {w[:6] for w in re.findall(r"[^\W\d_]+", fold(question))}
    return says and any(k[:6] in words and k[:6] not in asked for k in key_words(covers_instead))


# -- running a set -------------------------------------------------------------------------
def load_questions(name: str, split: str) -> list[dict[str, Any]]:
    path = DATASETS / name / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [q for q in rows if split == "all" or q["split"] == split]


def corpus(name: str) -> list[Path]:
    """What to ingest: the set's docs/ folder, or its chunks.json (records: one document
    per chunk, ``metadata`` flattened into filterable fields, page and section kept)."""
    folder = DATASETS / name
    if (folder / "chunks.json").exists():
        return [folder / "chunks.json"]
    if (folder / "docs").is_dir():
        return [folder / "docs"]
    raise SystemExit(f"{folder}: no docs/ folder and no chunks.json")


def ready(name: str) -> bool:
    """A set is ready when its writer has finished: questions and README present."""
    folder = DATASETS / name
    return (folder / "questions.jsonl").exists() and (folder / "README.md").exists()


def ensure_path() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def fake_reader(stack: ExitStack) -> Any:
    """Generator settings for the fake OpenAI server answering with the context reader."""
    from ragline.settings import GeneratorSettings

    ensure_path()
    from tests.fakes.llm import FakeLLMServer, Reply
    from tests.fakes.reader import read_answer

    server = stack.enter_context(FakeLLMServer("openai", default=Reply(text=read_answer)))
    return GeneratorSettings(name="openai", base_url=server.base_url, model="fake-reader", api_key="fake",
                             max_retries=0)


def wire(answer: Any) -> dict[str, Any]:
    """``Answer.to_dict(details=True)``, whatever version of ragline answered."""
    try:
        return answer.to_dict(details=True)
    except TypeError:
        return answer.to_dict()


def cited_texts(engine: Any, scope: Any, answer: Any) -> list[str]:
    """The text of each passage the answer cites (as stored: the chunk)."""
    pairs = [(c.chunk_id, c.score) for c in answer.citations if c.chunk_id]
    return [hit.text for hit in engine.store.get_hits(scope, pairs)] if pairs else []


def ask_one(engine: Any, scope: Any, question: dict[str, Any]) -> tuple[Any, dict[str, Any], float, str]:
    """(typed Answer, wire dict, milliseconds, how it was asked) for one question."""
    no_memory = {"enabled": False}
    if question["kind"] == "follow-up" and question.get("history"):
        cid = None
        for earlier in question["history"]:
            cid = engine.conversations.ask(earlier, scope, conversation_id=cid, rag_options=no_memory).conversation_id
        started = time.perf_counter()
        turn = engine.conversations.ask(question["question"], scope, conversation_id=cid, rag_options=no_memory)
        return turn.answer, turn.data, (time.perf_counter() - started) * 1000, "conversation"
    if question["kind"] == "smalltalk":
        started = time.perf_counter()
        turn = engine.conversations.ask(question["question"], scope, rag_options=no_memory)
        return turn.answer, turn.data, (time.perf_counter() - started) * 1000, "conversation"
    started = time.perf_counter()
    answer = engine.ask(question["question"], scope)
    return answer, wire(answer), (time.perf_counter() - started) * 1000, "ask"


def score(question: dict[str, Any], answer: Any, data: dict[str, Any], cited: list[str], locale: str) -> dict[str, Any]:
    """The row of one question: what came back and how it scores (module docstring)."""
    text = answer.answer or ""
    kind = question["kind"]
    facts, wrong = question.get("facts") or [], question.get("wrong_facts") or []
    abstained = bool(answer.abstained)
    found = any_fact(text, facts, locale) if not abstained else []
    shipped_wrong = any_fact(text, wrong, locale) if not abstained else []
    asked_numbers = numbers_in(" ".join([question["question"], *question.get("history", [])]), locale)
    other_numbers = sorted(numbers_in(text, locale) - asked_numbers) if not abstained else []
    row: dict[str, Any] = {
        "id": question["id"], "split": question["split"], "kind": kind, "question": question["question"],
        "history": question.get("history") or [], "facts": facts, "wrong_facts": wrong,
        "covers_instead": question.get("covers_instead"), "source": question.get("source"),
        "answer": text, "abstained": abstained, "generator": answer.generator,
        "fallback_reason": getattr(answer, "fallback_reason", None),
        "grounding_action": (data.get("grounding") or {}).get("action", []),
        "gate": (data.get("gate") or {}).get("retrieve"), "citations": len(cited),
        "refused_by": None if not abstained else "ragline" if answer.generator == "none" else "model",
        "query": (data.get("query") or {}).get("rewritten"),
        "citations_with_fact": sum(bool(any_fact(t, facts, locale)) for t in cited),
        "facts_found": found, "wrong_found": shipped_wrong, "other_numbers": other_numbers,
        "strict": bool(any_fact(text, strict_facts(facts), locale)) if found else False,
        "fact_first": bool(any_fact(first_unit(text), facts, locale)) if found else False,
        "cited_sources": [c.source for c in answer.citations],
    }
    if kind in ANSWERABLE:
        right = bool(found)
        row["outcome"] = ("refused" if abstained else "right" if right else "empty" if not text.strip() else
                          "wrong_fact" if shipped_wrong else "other_figure" if other_numbers else "no_fact")
    elif kind == "near-miss":
        row["says_covers_instead"] = says_covers_instead(text, question.get("covers_instead"), question["question"])
        covers = not abstained and row["says_covers_instead"]
        row["outcome"] = ("abstained" if abstained else "covers_instead" if covers else "empty" if not text.strip() else
                          "wrong_fact" if shipped_wrong else "answered")
    elif kind == "smalltalk":
        row["outcome"] = "abstained" if abstained else "small_talk" if not answer.citations else "answered"
    else:
        row["outcome"] = "abstained" if abstained else "answered"
    return row


def run_set(name: str, questions: list[dict[str, Any]], generator: Any, embedder: str,
            home: Path) -> list[dict[str, Any]]:
    """Ingest set ``name`` into a fresh home and ask ``questions`` (``load_questions``)."""
    from ragline.engine import Engine
    from ragline.models import Scope
    from ragline.settings import EmbedderSettings, Settings

    shutil.rmtree(home, ignore_errors=True)
    engine = Engine(Settings(home=home, embedder=EmbedderSettings(name=embedder), generator=generator))
    scope = Scope(TENANT, (name,))
    rows = []
    try:
        started = time.perf_counter()
        summary = engine.ingest(corpus(name), scope)
        failed = getattr(summary, "failed", [])
        print(f"{name}: ingested in {time.perf_counter() - started:.1f}s" + (f", failed: {failed}" if failed else ""),
              file=sys.stderr)
        engine.search("warm up", scope)  # the model's first load is not an answer's latency
        for question in questions:
            answer, data, ms, via = ask_one(engine, scope, question)
            cited = cited_texts(engine, scope, answer)
            row = score(question, answer, data, cited, LOCALE.get(name, "en"))
            row.update(set=name, ms=round(ms, 1), via=via)
            rows.append(row)
    finally:
        engine.close()
    return rows


# -- summaries -----------------------------------------------------------------------------
def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1], 1)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one set and split (module docstring), overall and per kind."""
    answerable = [r for r in rows if r["kind"] in ANSWERABLE]
    answered = [r for r in answerable if not r["abstained"]]
    near = [r for r in rows if r["kind"] == "near-miss"]
    off = [r for r in rows if r["kind"] == "off-topic"]
    talk = [r for r in rows if r["kind"] == "smalltalk"]
    n = len(answerable)
    cited = sum(r["citations"] for r in answered)
    out: dict[str, Any] = {
        "questions": len(rows),
        "answerable": {
            "questions": n,
            "right": _share(sum(r["outcome"] == "right" for r in answerable), n),
            "wrong_fact": _share(sum(r["outcome"] == "wrong_fact" for r in answerable), n),
            "wrong_any_figure": _share(sum(r["outcome"] in ("wrong_fact", "other_figure") for r in answerable), n),
            "not_right": _share(sum(r["outcome"] in ("wrong_fact", "other_figure", "no_fact", "empty")
                                    for r in answerable), n),
            "empty": _share(sum(r["outcome"] == "empty" for r in answerable), n),
            "false_refusal": _share(sum(r["outcome"] == "refused" for r in answerable), n),
            "refused_before_model": _share(sum(r["outcome"] == "refused" and r.get("refused_by") == "ragline"
                                               for r in answerable), n),
            "right_strict": _share(sum(r["outcome"] == "right" and r["strict"] for r in answerable), n),
            "fact_first": _share(sum(r["outcome"] == "right" and r["fact_first"] for r in answerable), n),
            "right_with_wrong_fact": _share(sum(r["outcome"] == "right" and bool(r["wrong_found"])
                                                for r in answerable), n),
            "citation_precision": _share(sum(r["citations_with_fact"] for r in answered), cited),
        },
        "near_miss": {"questions": len(near),
                      "good": _share(sum(r["outcome"] in ("abstained", "covers_instead") for r in near), len(near)),
                      "abstained": _share(sum(r["outcome"] == "abstained" for r in near), len(near)),
                      "covers_instead": _share(sum(r["outcome"] == "covers_instead" for r in near), len(near)),
                      "names_what_is_covered": _share(sum(bool(r.get("says_covers_instead")) for r in near),
                                                      len(near)),
                      "wrong_fact": _share(sum(r["outcome"] == "wrong_fact" for r in near), len(near))},
        "off_topic": {"questions": len(off), "abstained": _share(sum(r["abstained"] for r in off), len(off))},
        "smalltalk": {"questions": len(talk),
                      "ok": _share(sum(r["outcome"] in ("abstained", "small_talk") for r in talk), len(talk))},
        "latency_ms": {"p50": percentile([r["ms"] for r in rows], 50), "p95": percentile([r["ms"] for r in rows], 95)},
        "fell_back": sum(1 for r in rows if r.get("fallback_reason")),
        "by_kind": {},
    }
    for kind in sorted({r["kind"] for r in rows}):
        mine = [r for r in rows if r["kind"] == kind]
        counts: dict[str, int] = {}
        for r in mine:
            outcome = r["outcome"] + (" (by the model)" if r["abstained"] and r.get("refused_by") == "model" else "")
            counts[outcome] = counts.get(outcome, 0) + 1
        out["by_kind"][kind] = {"questions": len(mine), **counts}
    return out


# -- storage and rendering ---------------------------------------------------------------------
@contextmanager
def stored(out: Path = OUTPUT) -> Iterator[dict[str, Any]]:
    """Read-modify-write of the results file under a lock (runs may finish together)."""
    path = out.with_suffix(".json")
    lock = out.with_suffix(".lock")
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        saved.setdefault("corpora", {})
        saved.setdefault("adversarial", {})
        yield saved
        path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        out.with_suffix(".md").write_text(render(saved), encoding="utf-8")
    lock.unlink(missing_ok=True)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def corpora_tables(runs: dict[str, Any]) -> str:
    columns = ["set", "split", "run", "generator", "answerable", "right %", "right, strict %", "fact in 1st unit %",
               "wrong (wrong fact) %", "wrong (any figure) %", "not right %", "false refusal %", "near-miss good %",
               "off-topic abstained %", "small talk ok %", "citation precision", "p50 ms", "p95 ms"]
    lines = ["| " + " | ".join(columns) + " |", "| --- | --- | --- | --- |" + " ---: |" * (len(columns) - 4)]
    keyed = []
    for key, run in runs.items():
        for name, by_split in run["sets"].items():
            for split, s in by_split.items():
                keyed.append(((name, split, run["generator"], key), run, name, split, s))
    for _, run, name, split, s in sorted(keyed, key=lambda k: k[0]):
        a = s["answerable"]
        precision = "–" if a["citation_precision"] is None else f"{a['citation_precision']:.3f}"
        lines.append(f"| {name} | {split} | {run['label']} | {run['generator']} | {a['questions']} | "
                     f"{_pct(a['right'])} | {_pct(a.get('right_strict'))} | {_pct(a.get('fact_first'))} | "
                     f"{_pct(a['wrong_fact'])} | {_pct(a['wrong_any_figure'])} | "
                     f"{_pct(a['not_right'])} | {_pct(a['false_refusal'])} | {_pct(s['near_miss']['good'])} | "
                     f"{_pct(s['off_topic']['abstained'])} | {_pct(s['smalltalk']['ok'])} | {precision} | "
                     f"{s['latency_ms']['p50']} | {s['latency_ms']['p95']} |")
    kinds = ["| set | split | run | generator | kind | questions | outcomes |",
             "| --- | --- | --- | --- | --- | ---: | --- |"]
    for _, run, name, split, s in sorted(keyed, key=lambda k: k[0]):
        for kind, counts in s["by_kind"].items():
            rest = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "questions")
            kinds.append(f"| {name} | {split} | {run['label']} | {run['generator']} | {kind} | {counts['questions']} "
                         f"| {rest} |")
    return "\n".join(lines) + "\n\nOutcomes per kind:\n\n" + "\n".join(kinds)


# -- the adversarial runs' tables (bench/trust_adversarial.py stores them; rendered with the rest) --
LABELS: tuple[str, ...] = ("supported", "wrong_number", "wrong_entity", "wrong_citation", "unsupported", "uncited")


def judged(entry: dict[str, int]) -> int:
    """Labelled sentences the check was seen judging (matched, and the model was asked)."""
    return entry.get("sentences", 0) - entry.get("unmatched", 0) - entry.get("not_asked", 0)


def adversarial_tables(runs: dict[str, Any]) -> str:
    """The adversarial part of bench/trust.md."""
    lines = [("| run | split | items | **wrong shipped as supported** (target 0) | of which: labelled sentences | "
             "wrong fact stated | money | wrong shipped flagged | wrong citation corrected | "
             "detected (non-supported, first reply) | "
             "false alarms | user got | money check | p50 ms | p95 ms |"),
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |"]
    recall = ["| run | split | set | " + " | ".join(LABELS[1:]) + " |", "| --- | --- | --- |" + " ---: |" * 5]
    for run in runs.values():
        s = run["summary"]
        d, m = s["documents"], s["money"]
        got = ", ".join(f"{k} {v}" for k, v in sorted(d["got"].items()))
        lines.append(f"| {run['label']} | {run['split']} | {s['items']} | **{s['target_wrong_shipped']}** | "
                     f"{d['shipped_supported']} | {d['wrong_fact_stated']} | {m['shipped_supported']} | "
                     f"{d.get('shipped_flagged', 0)} | {d['corrected_citation']} | {d['detected_all']:.3f} | "
                     f"{d['false_alarms']}/{d['supported_sentences']} "
                     f"(money {m['false_alarms']}/{m['supported_sentences']}) | {got} | {run['money_check']} | "
                     f"{s['latency_ms']['p50']} | {s['latency_ms']['p95']} |")
        for part in ("documents", "money"):
            cells = []
            for label in LABELS[1:]:
                v = s[part]["recall"].get(label)
                extra = [f"{v[k]} {k.replace('_', ' ')}" for k in ("unmatched", "not_asked") if v and v.get(k)]
                cells.append("–" if not v else f"{v['detected']}/{judged(v)}" + (f" (+{', '.join(extra)})"
                                                                                   if extra else ""))
            recall.append(f"| {run['label']} | {run['split']} | {part} | " + " | ".join(cells) + " |")
    return ("\n".join(lines) + "\n\nDetection per label (first reply's status not `supported`; "
            "unmatched: no grounding claim resembled the labelled sentence):\n\n" + "\n".join(recall))


def render(saved: dict[str, Any]) -> str:
    """bench/trust.md from everything stored."""
    parts = ["# Answers you can trust: the blind sets (issue 27)\n",
             ("Written by `bench/trust.py` (corpora) and `bench/trust_adversarial.py` (adversarial replies); "
             "the definitions are in their module docstrings. `before` is commit 22a5b4d, `after` the working "
             "tree named in each run. Dev split: what the answer step may be tuned on. **Test split: run once, "
             "at the end** (commands below).\n")]
    if saved.get("corpora"):
        parts += ["## Corpora\n", corpora_tables(saved["corpora"]), ""]
    parts += [("The old labelled set (`bench/datasets/answers`, `bench/quality_answers.py`) before and after: "
              "`bench/trust_labelled.md`.\n")]
    if saved.get("adversarial"):
        parts += ["## Adversarial replies\n", adversarial_tables(saved["adversarial"]), ""]
    parts += ["## Commands\n", "```sh",
              "# dev (tuning) — after (this tree) and before (commit 22a5b4d in a worktree)",
              ".venv/bin/python bench/trust.py --set all --split dev --label after",
              ".venv/bin/python bench/trust.py --set all --split dev --label after --generator openai",
              ".venv/bin/python bench/trust_adversarial.py --split dev --label after",
              "git worktree add --detach /work/wt-before 22a5b4d",
              "PYTHONPATH=/work/wt-before/src .venv/bin/python bench/trust.py --set all --split dev --label before",
              ("PYTHONPATH=/work/wt-before/src .venv/bin/python bench/trust.py --set all --split dev --label before "
              "--generator openai"),
              "PYTHONPATH=/work/wt-before/src .venv/bin/python bench/trust_adversarial.py --split dev --label before",
              "# the old labelled set (bench/datasets/answers), before and after → bench/trust_labelled.{json,md}",
              (".venv/bin/python bench/quality_answers.py --label after --out bench/trust_labelled "
              "--home /tmp/ragline-trust/labelled-after"),
              (".venv/bin/python bench/quality_answers.py --label after-llm --generator openai "
               "--out bench/trust_labelled --home /tmp/ragline-trust/labelled-after-llm"),
              ("PYTHONPATH=/work/wt-before/src .venv/bin/python bench/quality_answers.py --label before "
              "--out bench/trust_labelled --home /tmp/ragline-trust/labelled-before"),
              ("PYTHONPATH=/work/wt-before/src .venv/bin/python bench/quality_answers.py --label before-llm "
              "--generator openai --out bench/trust_labelled --home /tmp/ragline-trust/labelled-before-llm"),
              "# the CI slice (10 shop-es dev questions, 10 adversarial dev items)",
              ".venv/bin/pytest -q -p no:cacheprovider bench/checks/test_trust_slice.py",
              "# test — once, at the end, when the lead says so",
              ".venv/bin/python bench/trust.py --set all --split test --label final",
              ".venv/bin/python bench/trust.py --set all --split test --label final --generator openai",
              ".venv/bin/python bench/trust_adversarial.py --split test --label final",
              "```", ""]
    return "\n".join(parts)


def ragline_source() -> str:
    """Which ragline answered: its source folder and a hash of its code (the tree
    changes between runs while the answer step is worked on)."""
    import hashlib

    import ragline

    package = Path(ragline.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return f"{package.parent} (code {digest.hexdigest()[:12]})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="all", choices=(*SETS, "all"))
    parser.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    parser.add_argument("--generator", default="extractive", choices=("extractive", "openai"))
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--label", default="current", help="name of this run (before, after, …)")
    parser.add_argument("--home", type=Path, default=Path("/tmp/ragline-trust"), help="engine homes (wiped per set)")
    parser.add_argument("--out", type=Path, default=OUTPUT, help="results file, without suffix (.json and .md)")
    parser.add_argument("--no-save", action="store_true", help="print the figures, store nothing")
    args = parser.parse_args(argv)
    from ragline.settings import GeneratorSettings

    asked: tuple[str, ...] = SETS if args.set == "all" else (args.set,)
    waiting = [n for n in asked if not ready(n)]
    if waiting and args.set != "all":
        raise SystemExit(f"{args.set}: questions.jsonl or README.md is not there yet")
    names = tuple(n for n in asked if n not in waiting)
    if waiting:
        print(f"skipped (not written yet): {', '.join(waiting)}", file=sys.stderr)
    key = f"{args.label}/{args.generator}"
    results: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    with ExitStack() as stack:
        generator = fake_reader(stack) if args.generator == "openai" else GeneratorSettings()
        for name in names:
            home = args.home / key.replace("/", "-") / name
            mine = run_set(name, load_questions(name, args.split), generator, args.embedder, home)
            splits = ("dev", "test") if args.split == "all" else (args.split,)
            results[name] = {s: summarise([r for r in mine if r["split"] == s]) for s in splits
                             if any(r["split"] == s for r in mine)}
            rows += mine
    run = {"label": args.label, "generator": "extractive" if args.generator == "extractive" else "openai:fake-reader",
           "embedder": args.embedder, "ragline": ragline_source(), "when": time.strftime("%Y-%m-%d %H:%M"),
           "sets": results, "rows": rows}
    print(json.dumps({n: {s: {k: v for k, v in x.items() if k != "by_kind"} for s, x in r.items()}
                      for n, r in results.items()}, indent=1))
    if args.no_save:
        return
    with stored(args.out) as saved:
        previous = saved["corpora"].get(key)
        if previous:  # a run of some sets keeps the other sets of the same label
            for name, by_split in previous["sets"].items():
                if name not in results:
                    run["sets"][name] = by_split
                else:
                    for split, summary in by_split.items():
                        run["sets"][name].setdefault(split, summary)
            kept = {(r["set"], r["split"]) for r in rows}
            run["rows"] = [r for r in previous["rows"] if (r["set"], r["split"]) not in kept] + rows
        saved["corpora"][key] = run


if __name__ == "__main__":
    main()
