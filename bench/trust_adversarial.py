"""Adversarial replies (issue 27): LLM replies with a wrong number, a figure for the
wrong thing, an uncited or unsupported claim, a wrong citation — does ragline ship
any of them as supported?

The set (``bench/datasets/trust/adversarial/items.jsonl``, written blind; its README
has the labels) gives each item a question, its sources (key, title, text), a reply
citing them as ``[S1]``… and a label for every sentence of the reply. Money items
give a records table instead of sources.

For each item with sources: its sources are stored as documents (title + text,
source name ``<item>-<key>``), one collection per item, so only they can be
retrieved; the question is asked through the real pipeline (``Engine.ask``) with the
OpenAI generator pointed at the fake server of ``tests/fakes/llm.py``, scripted
(``tests/fakes/scripted.py``) to reply with the item's text, each ``[Sx]`` rewritten
to the number the prompt gave that source (a source the prompt lacks gets a number
the prompt does not use). The fake says the same to every request: asked again
with its failed claims named, it repeats itself.

The answer's ``grounding.claims`` (``Answer.to_dict()``) are matched to the labelled
sentences by their numbers and words (not the exact string: citations are
renumbered, the splitter may cut differently). Figures:

- **wrong claims shipped as supported** (target 0): a sentence labelled other than
  ``supported`` that ships in the final answer with status ``supported`` (a
  ``wrong_citation`` sentence re-cited to another source is counted as corrected,
  not shipped), plus answers that state one of the item's wrong facts in a shipped
  sentence that is neither a labelled-supported sentence nor quoted from a source;
- **wrong shipped flagged**: a labelled wrong sentence in the final answer with its
  failure shown (e.g. kept as "uncited", or "not from your documents");
- **detection recall** per label: the labelled sentence's status in the model's
  first reply is not ``supported``; **false alarms**: ``supported`` sentences flagged;
- **what the user got**: kept (as written), regenerated, dropped, fallback (quoted
  from the sources), abstained, or not asked (ragline abstained before the model;
  the item's sentences are then left out of the recall and false-alarm figures).

Money items: every sentence is checked with ``ragline.answer.claims.check_records_claim``
against the table (rows sorted by amount, largest first, as a ranked table is); in
a ragline without it (``before``), with the rule it had, ``records.phrasing.stray_numbers``
(a sentence passes when every number in it is one of the table's figures).

ragline at commit 22a5b4d (``before``) has no ``grounding.claims``: its shipped
sentences and their statuses are read from ``details.sentences``.

    .venv/bin/python bench/trust_adversarial.py --split dev --label after
    PYTHONPATH=/work/wt-before/src .venv/bin/python bench/trust_adversarial.py --split dev --label before
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from collections import Counter
from contextlib import ExitStack
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from bench.trust import OUTPUT, fold, judged, match_fact, percentile, ragline_source, stored, tokens, wire

ITEMS = HERE / "datasets" / "trust" / "adversarial" / "items.jsonl"
MATCH = 0.55  # least similarity for a grounding claim to be the labelled sentence
TENANT = "trust-adversarial"
_STOP = {fold(w) for w in (
    "the", "and", "for", "with", "from", "that", "this", "are", "was", "were", "you", "your", "our", "its", "can",
    "has", "have", "will", "de", "del", "la", "las", "los", "el", "en", "y", "o", "a", "con", "para", "por", "una",
    "uno", "un", "que", "se", "es", "son", "su", "sus", "al", "lo"
)}


def load_items(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [i for i in rows if split == "all" or i["split"] == split]


# -- matching a labelled sentence to a grounding claim --------------------------------------
def signature(text: str, locale: str) -> tuple[set[str], set[str]]:
    """(numbers, content words) of a sentence, citations left out."""
    toks = tokens(re.sub(r"\[S\d+\]", " ", text), locale)
    numbers = {v for k, v in toks if k in ("n", "t")}
    words = {v[:6] for k, v in toks if k == "w" and len(v) >= 3 and v not in _STOP}
    return numbers, words


def _jaccard(a: set[str], b: set[str]) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def similarity(a: str, b: str, locale: str) -> float:
    na, wa = signature(a, locale)
    nb, wb = signature(b, locale)
    return 0.6 * _jaccard(wa, wb) + 0.4 * _jaccard(na, nb)


def best(sentence: str, claims: list[dict[str, Any]], locale: str) -> tuple[dict[str, Any] | None, float]:
    scored = [(similarity(sentence, c["text"], locale), i) for i, c in enumerate(claims)]
    if not scored:
        return None, 0.0
    sim, index = max(scored)
    return (claims[index], sim) if sim >= MATCH else (None, sim)


def claims_of(data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """(the first reply's claims, the shipped claims, action) of an answer's wire dict,
    in either shape: ``grounding.claims`` (each with ``shipped``), or before it,
    ``details.sentences`` (shipped) and ``details.dropped_sentences``."""
    grounding = data.get("grounding") or {}
    action = list(grounding.get("action") or [])
    if "claims" in grounding:
        claims = grounding["claims"]
        shipped = [c for c in claims if c.get("shipped")]
        first = [c for c in claims if (c.get("note") or "").startswith("first reply")]
        if not first and "fallback" in action:
            first = [c for c in claims if not c.get("shipped")]
        return first or claims, shipped, action
    details = data.get("details") or {}
    shipped = [dict(s, shipped=True) for s in details.get("sentences", [])]
    dropped = [dict(s, shipped=False) for s in details.get("dropped_sentences", [])]
    return shipped + dropped, shipped, action


def quoted(text: str, sources: list[dict[str, Any]]) -> bool:
    """The sentence is quoted from one of the sources (an extractive fallback)."""
    plain = " ".join(fold(re.sub(r"\[\d{1,3}\]", " ", text)).split()).strip(" .")
    return bool(plain) and any(plain in " ".join(fold(s["text"]).split()) for s in sources)


# -- one item ---------------------------------------------------------------------------
def score_item(item: dict[str, Any], answer: Any, data: dict[str, Any], numbers: dict[str, int] | None,
               asked: int) -> dict[str, Any]:
    """The row of one item: each labelled sentence's first status and whether it shipped."""
    locale = "es" if item.get("language") == "es" else "en"
    first, shipped, action = claims_of(data)
    text = answer.answer or ""
    # A shipped sentence quoted from a source (an extractive fallback) is the source's, not the model's.
    own = [c for c in shipped if not quoted(c["text"], item["sources"])]
    sentences = []
    for claim in item["claims"]:
        label, sentence = claim["label"], claim["sentence"]
        found, sim = best(sentence, first, locale)
        numbers_claimed = signature(sentence, locale)[0]
        out, _out_sim = best(sentence, [c for c in own if numbers_claimed <= signature(c["text"], locale)[0]], locale)
        verdict = None
        if label != "supported" and out is not None:
            meant = sorted((numbers or {}).get(k, -1) for k in re.findall(r"\[(S\d+)\]", sentence))
            if label == "wrong_citation" and numbers is not None and sorted(out.get("cited") or []) != meant:
                verdict = "corrected"  # re-cited to the source that states it
            elif out.get("status") == "supported":
                verdict = "shipped_supported"
            else:
                verdict = "shipped_flagged"  # in the answer, marked with its failure (or "not from your documents")
        first_status = "not asked" if asked == 0 else found.get("status") if found else None
        sentences.append({"label": label, "sentence": sentence, "first_status": first_status,
                          "first_text": found.get("text") if found else None, "match": round(sim, 3),
                          "shipped_status": out.get("status") if out else None,
                          "shipped_text": out.get("text") if out else None,
                          "shipped_note": out.get("note") if out else None, "verdict": verdict})
    supported_texts = [c["sentence"] for c in item["claims"] if c["label"] == "supported"]
    stray_wrong = []
    if not answer.abstained:
        counted = {s["shipped_text"] for s in sentences if s["verdict"] == "shipped_supported"}
        units = shipped or [{"text": text}]
        for wrong in item.get("wrong_facts") or []:
            for unit in units:
                if unit["text"] in counted or not match_fact(unit["text"], wrong, locale):
                    continue  # counted once, as its labelled sentence
                if any(similarity(unit["text"], s, locale) >= 0.8 for s in supported_texts):
                    continue  # a correct sentence that mentions the other value
                kind = "quoted" if quoted(unit["text"], item["sources"]) else "stated"
                stray_wrong.append({"wrong_fact": wrong, "sentence": unit["text"], "how": kind})
    got = ("not asked" if asked == 0 else "abstained" if answer.abstained else
           "+".join(action) if action else "kept")
    return {"id": item["id"], "kind": item["kind"], "domain": item["domain"], "language": item.get("language"),
            "question": item["question"], "reply": item["reply"], "answer": text, "abstained": answer.abstained,
            "generator": answer.generator, "fallback_reason": getattr(answer, "fallback_reason", None),
            "model_requests": asked, "got": got, "action": action, "sentences": sentences,
            "wrong_fact_in_answer": stray_wrong, "facts_in_answer": [f for f in item.get("facts") or []
                                                                     if match_fact(text, f, locale)]}


def money_checker() -> tuple[str, Any]:
    """("claims", check) with ragline's records claim check, else ("stray numbers", check)
    with the rule before it; check(sentence, item) → status."""
    try:
        from ragline.answer.claims import RecordRow, check_records_claim
    except ImportError:
        from ragline.answer.context import RAGContext, Source
        from ragline.models import Hit
        from ragline.records.phrasing import stray_numbers

        def by_strays(sentence: str, item: dict[str, Any]) -> tuple[str, str | None]:
            rows = item["records"]["rows"]
            text = "\n".join(f"{r['label']}: {r['amount']} {r['currency']}" for r in rows)
            hit = Hit(chunk_id="records-1", doc_id="records", source="table", score=1.0, text=text)
            context = RAGContext(context=text, sources=[Source(n=1, hit=hit, text=text, tokens=0)])
            strays = stray_numbers(sentence, context, item["question"])
            return ("wrong_number", f"not computed: {', '.join(strays)}") if strays else ("supported", None)

        return "stray numbers (the rule before)", by_strays

    def by_claims(sentence: str, item: dict[str, Any]) -> tuple[str, str | None]:
        rows = sorted((RecordRow(r["label"], Decimal(r["amount"]), r["currency"]) for r in item["records"]["rows"]),
                      key=lambda row: row.amount, reverse=True)
        check = check_records_claim(sentence, rows)
        return check.status, check.problem

    return "check_records_claim", by_claims


def money_item(item: dict[str, Any], check: Any) -> dict[str, Any]:
    sentences = []
    for claim in item["claims"]:
        status, problem = check(claim["sentence"], item)
        verdict = "shipped_supported" if claim["label"] != "supported" and status == "supported" else None
        sentences.append({"label": claim["label"], "sentence": claim["sentence"], "first_status": status,
                          "problem": problem, "shipped_status": status if status == "supported" else None,
                          "match": 1.0, "verdict": verdict})
    return {"id": item["id"], "kind": item["kind"], "domain": "money", "language": item.get("language"),
            "question": item["question"], "reply": item["reply"], "sentences": sentences, "got": "checked",
            "wrong_fact_in_answer": []}


def run(items: list[dict[str, Any]], embedder: str, home: Path) -> tuple[list[dict[str, Any]], str]:
    from tests.fakes.llm import FakeLLMServer, Reply
    from tests.fakes.scripted import key_numbers, scripted

    from ragline.engine import Engine
    from ragline.models import Block, Document, Scope
    from ragline.settings import EmbedderSettings, GeneratorSettings, Settings

    method, check = money_checker()
    rows = []
    current: dict[str, Any] = {"reply": lambda prompt: ""}  # set per item
    shutil.rmtree(home, ignore_errors=True)
    with ExitStack() as stack:
        server = stack.enter_context(FakeLLMServer("openai", default=Reply(text=lambda p: current["reply"](p))))
        generator = GeneratorSettings(name="openai", base_url=server.base_url, model="scripted", api_key="fake",
                                      max_retries=0)
        engine = Engine(Settings(home=home, embedder=EmbedderSettings(name=embedder), generator=generator))
        stack.callback(engine.close)
        for item in items:
            if item.get("records"):
                rows.append(money_item(item, check))
                continue
            scope = Scope(TENANT, (item["id"],))
            titles = {s["key"]: s["title"] for s in item["sources"]}
            engine.add_documents([Document(source=f"{item['id']}-{s['key']}", title=s["title"],
                                           blocks=[Block(text=s["text"])]) for s in item["sources"]], scope)
            current["reply"] = scripted(item["reply"], titles)
            before = len(server.requests)
            started = time.perf_counter()
            answer = engine.ask(item["question"], scope)
            ms = (time.perf_counter() - started) * 1000
            requests = server.requests[before:]
            numbers = None
            if requests:
                prompt = "\n".join(str(m.get("content", "")) for m in requests[0].body.get("messages", [])
                                   if m.get("role") == "user")
                numbers = key_numbers(prompt, titles)
            row = score_item(item, answer, wire(answer), numbers, len(requests))
            row.update(ms=round(ms, 1), prompt_numbers=numbers)
            rows.append(row)
    return rows, method


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    docs = [r for r in rows if r["domain"] != "money"]
    money = [r for r in rows if r["domain"] == "money"]
    out: dict[str, Any] = {"items": len(rows), "document_items": len(docs), "money_items": len(money)}
    for name, group in (("documents", docs), ("money", money)):
        sentences = [s for r in group for s in r["sentences"]]
        recall: dict[str, dict[str, int]] = {}
        confusion: dict[str, Counter[str]] = {}
        for s in sentences:
            entry = recall.setdefault(s["label"], {"sentences": 0, "detected": 0, "unmatched": 0, "not_asked": 0})
            entry["sentences"] += 1
            confusion.setdefault(s["label"], Counter())[str(s["first_status"])] += 1
            if s["first_status"] == "not asked":
                entry["not_asked"] += 1
            elif s["first_status"] is None:
                entry["unmatched"] += 1
            elif s["label"] != "supported" and s["first_status"] != "supported":
                entry["detected"] += 1
            elif s["label"] == "supported" and s["first_status"] != "supported":
                entry["detected"] += 1  # for supported sentences: flagged (a false alarm)
        wrong = [s for s in sentences if s["label"] != "supported"]
        out[name] = {
            "sentences": len(sentences), "wrong_sentences": len(wrong),
            "shipped_supported": sum(s["verdict"] == "shipped_supported" for s in sentences),
            "shipped_flagged": sum(s["verdict"] == "shipped_flagged" for s in sentences),
            "corrected_citation": sum(s["verdict"] == "corrected" for s in sentences),
            "wrong_fact_stated": sum(1 for r in group for w in r["wrong_fact_in_answer"] if w["how"] == "stated"),
            "wrong_fact_quoted": sum(1 for r in group for w in r["wrong_fact_in_answer"] if w["how"] == "quoted"),
            "recall": {label: {**v, "rate": round(v["detected"] / max(1, judged(v)), 4)}
                       for label, v in recall.items() if label != "supported"},
            "detected_all": round(sum(recall[k]["detected"] for k in recall if k != "supported")
                                  / max(1, sum(judged(recall[k]) for k in recall if k != "supported")), 4),
            "false_alarms": recall.get("supported", {}).get("detected", 0),
            "supported_sentences": judged(recall.get("supported", {})),
            "confusion": {k: dict(v) for k, v in confusion.items()},
            "got": dict(Counter(r["got"] for r in group)),
        }
    out["target_wrong_shipped"] = (out["documents"]["shipped_supported"] + out["documents"]["wrong_fact_stated"]
                                   + out["money"]["shipped_supported"])
    out["latency_ms"] = {"p50": percentile([r["ms"] for r in docs if "ms" in r], 50),
                         "p95": percentile([r["ms"] for r in docs if "ms" in r], 95)}
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--ids", nargs="*", help="only these items")
    parser.add_argument("--home", type=Path, default=Path("/tmp/ragline-trust-adversarial"))
    parser.add_argument("--out", type=Path, default=OUTPUT, help="results file, without suffix (.json and .md)")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    items = load_items(args.split)
    if args.ids:
        items = [i for i in items if i["id"] in set(args.ids)]
    rows, method = run(items, args.embedder, args.home / args.label)
    summary = summarise(rows)
    print(json.dumps({k: v for k, v in summary.items()}, indent=1, ensure_ascii=False))
    if args.no_save:
        return
    with stored(args.out) as saved:
        saved["adversarial"][f"{args.label}/{args.split}"] = {
            "label": args.label, "split": args.split, "embedder": args.embedder, "ragline": ragline_source(),
            "when": time.strftime("%Y-%m-%d %H:%M"), "money_check": method, "summary": summary, "rows": rows}


if __name__ == "__main__":
    main()
