"""Measure the abstain floor and the grounding floors on SciFact TRAIN.

Abstain floor: for every SciFact train claim (in-corpus) and every hand-written
off-topic question (scripts/offtopic_questions.txt), run the answer pipeline's
own retrieval (hybrid search, k = answer.candidates) and take the best
cosine(question, chunk) among the hits — the signal ``Answerer`` abstains on.
Sweep the floor and keep the middle of the range that best separates the two
sets (max Youden J = answered-rate(in) + abstained-rate(off) - 1). The top fused
score is reported beside it: RRF is rank-based and min-max weighted fusion puts
every top hit near 1, so neither can be the signal.

Grounding floors: each claim against (a) the chunk of its relevant abstract that
best matches it and (b) the best chunk of the top-ranked *non*-relevant abstract
(a hard negative: same topic, wrong source) and (c) a random abstract (an
unrelated source). Sweep lexical and semantic floors for "supported if
lexical ≥ L or semantic ≥ S", maximising supported(a) - (supported(b) + supported(c)) / 2.

    RAGLINE_HOME=/work/answer-home .venv/bin/python scripts/measure_abstain_floor.py --ingest
    RAGLINE_HOME=/work/answer-home-hashing .venv/bin/python scripts/measure_abstain_floor.py --embedder hashing --ingest

Writes docs/measurements/abstain_floor_<embedder>.json and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from ragline.answer.context import ContextBuilder
from ragline.answer.grounding import GroundingChecker
from ragline.answer.service import MemoEmbedder
from ragline.answer.text import AnswerSentence
from ragline.engine import Engine
from ragline.errors import NotFoundError
from ragline.models import Hit, Scope
from ragline.retrieve.search import Searcher
from ragline.settings import EmbedderSettings, Settings

SCIFACT = ROOT.parent / "shared" / "datasets" / "scifact"


def load_claims(limit: int | None) -> list[tuple[str, str, set[str]]]:
    queries = {}
    with open(SCIFACT / "queries.jsonl") as f:
        for line in f:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    relevant: dict[str, set[str]] = {}
    with open(SCIFACT / "qrels" / "train.tsv") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            relevant.setdefault(row["query-id"], set()).add(row["corpus-id"])
    claims = [(qid, queries[qid], docs) for qid, docs in relevant.items()]
    return claims[:limit] if limit else claims


def off_topic() -> list[str]:
    lines = (ROOT / "scripts" / "offtopic_questions.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def record_id(hit: Hit) -> str:
    return hit.source.rsplit("#", 1)[-1]


def auc(pos: list[float], neg: list[float]) -> float:
    """P(score of a random positive > a random negative), ties counted half."""
    p, n = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((p > n).sum() + 0.5 * (p == n).sum()) / (p.size * n.size))


def sweep(pos: list[float], neg: list[float], floors: np.ndarray) -> list[dict]:
    rows = []
    for floor in floors:
        answered = float(np.mean(np.asarray(pos) >= floor))
        abstained = float(np.mean(np.asarray(neg) < floor))
        rows.append({"floor": round(float(floor), 4), "answered_in_corpus": answered,
                     "abstained_off_topic": abstained, "j": answered + abstained - 1})
    return rows


def best_floor(rows: list[dict]) -> float:
    top = max(r["j"] for r in rows)
    plateau = [r["floor"] for r in rows if r["j"] >= top - 1e-9]
    return round((min(plateau) + max(plateau)) / 2, 2)


def retrieve(engine: Engine, scope: Scope, question: str) -> tuple[list[Hit], dict[str, float]]:
    memo = MemoEmbedder(engine.embedder)
    searcher = Searcher(engine.store, memo, engine.settings.search)
    result = searcher.search(question, scope, k=engine.settings.answer.candidates)
    return result.hits, engine.answerer.relevance(scope, result.hits, memo.query_vector, memo)


def measure_abstain(engine: Engine, scope: Scope, claims, offs) -> dict:
    started = time.perf_counter()
    in_best, in_fused, off_best, off_fused, claim_hits = [], [], [], [], []
    for _, text, docs in claims:
        hits, rel = retrieve(engine, scope, text)
        in_best.append(max(rel.values(), default=-1.0))
        in_fused.append(hits[0].score if hits else 0.0)
        claim_hits.append((hits, rel, docs))
    for text in offs:
        hits, rel = retrieve(engine, scope, text)
        off_best.append(max(rel.values(), default=-1.0))
        off_fused.append(hits[0].score if hits else 0.0)
    rows = sweep(in_best, off_best, np.round(np.arange(0.0, 0.801, 0.01), 2))
    floor = best_floor(rows)

    def evidence_kept(floor_value: float | None) -> float:
        builder = ContextBuilder(max_tokens=engine.settings.answer.max_tokens,
                                 max_sources=engine.settings.answer.max_sources, floor=floor_value)
        found = 0
        for hits, rel, docs in claim_hits:
            ctx = builder.build(hits, rel)
            found += any(record_id(s.hit) in docs for s in ctx.sources)
        return found / len(claim_hits)

    def pct(values: list[float], q: float) -> float:
        return round(float(np.percentile(values, q)), 4)

    return {
        "claims": len(claims), "off_topic": len(offs), "seconds": round(time.perf_counter() - started, 1),
        "chosen_floor": floor, "auc_best_cosine": round(auc(in_best, off_best), 4),
        "auc_top_fused_score": round(auc(in_fused, off_fused), 4),
        "best_cosine": {"in_corpus": {"min": pct(in_best, 0), "p5": pct(in_best, 5), "median": pct(in_best, 50)},
                        "off_topic": {"median": pct(off_best, 50), "p95": pct(off_best, 95), "max": pct(off_best, 100)}},
        "at_floor": sweep(in_best, off_best, np.array([floor]))[0],
        "relevant_doc_in_context": {"no_floor": round(evidence_kept(None), 4), "with_floor": round(evidence_kept(floor), 4)},
        "sweep": rows,
        "worst_off_topic": sorted(zip(off_best, offs), reverse=True)[:5],
        "weakest_claims": sorted(zip(in_best, [c[1] for c in claims]))[:5],
    }


def measure_grounding(engine: Engine, scope: Scope, claims, sample: int, seed: int = 7) -> dict:
    started = time.perf_counter()
    docs = {record_id(Hit("", d.id, d.source, 0.0, "")): d.id for d in engine.store.list_documents(scope)}
    rng = random.Random(seed)
    chosen = rng.sample(claims, min(sample, len(claims)))
    memo = MemoEmbedder(engine.embedder)
    checker = GroundingChecker(memo)
    pos, neg, rand = [], [], []
    all_ids = sorted(docs.values())
    for _, text, relevant in chosen:
        rel_id = next((docs[r] for r in sorted(relevant) if r in docs), None)
        if rel_id is None:
            continue
        hits, _ = retrieve(engine, scope, text)
        negative = next((h for h in hits if record_id(h) not in relevant), None)
        ids = [(cid, 0.0) for cid, _ in engine.store.chunk_vectors(scope, rel_id).values()]
        positives = engine.store.get_hits(scope, ids)
        other = rng.choice(all_ids)
        randoms = engine.store.get_hits(scope, [(cid, 0.0) for cid, _ in engine.store.chunk_vectors(scope, other).values()])
        if negative is None or not positives or not randoms or other in (rel_id, negative.doc_id):
            continue
        ctx = ContextBuilder(max_tokens=4000, max_sources=10).build(positives + [negative, randoms[0]])
        if len(ctx.sources) != len(positives) + 2:
            continue
        matrix = checker.support_matrix([AnswerSentence(text, [1])], ctx)[0]
        best_pos = max(matrix[: len(positives)], key=lambda s: s.strength())
        pos.append((best_pos.lexical, best_pos.semantic))
        neg.append((matrix[-2].lexical, matrix[-2].semantic))
        rand.append((matrix[-1].lexical, matrix[-1].semantic))
    grid = []
    for lexical_floor in np.round(np.arange(0.3, 1.001, 0.05), 2):
        for semantic_floor in np.round(np.arange(0.3, 0.951, 0.025), 3):
            def rate(pairs: list[tuple[float, float]], lo: float = lexical_floor, so: float = semantic_floor) -> float:
                return float(np.mean([lx >= lo or se >= so for lx, se in pairs]))

            tpr, hard, unrelated = rate(pos), rate(neg), rate(rand)
            # A wrong source is either a same-topic one (hard) or an unrelated one: weigh both.
            grid.append({"lexical": float(lexical_floor), "semantic": float(semantic_floor),
                         "supported_true_source": tpr, "supported_wrong_source": hard,
                         "supported_random_source": unrelated, "j": tpr - (hard + unrelated) / 2})
    best = max(grid, key=lambda r: (round(r["j"], 9), r["lexical"], r["semantic"]))

    def beats(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return max(a) > max(b)

    shown = [r for r in grid if r["lexical"] in (0.4, 0.5, 0.6, 0.7, 0.8) and r["semantic"] in (0.4, 0.5, 0.6, 0.7, 0.8)
             and r["lexical"] == r["semantic"]]
    return {"pairs": len(pos), "seconds": round(time.perf_counter() - started, 1), "best": best, "grid": shown,
            "true_source_beats_hard_negative": round(float(np.mean([beats(p, n) for p, n in zip(pos, neg)])), 4),
            "true_source_beats_random": round(float(np.mean([beats(p, r) for p, r in zip(pos, rand)])), 4),
            "median_random": [round(float(np.median([r[i] for r in rand])), 3) for i in (0, 1)],
            "auc_lexical": round(auc([p[0] for p in pos], [n[0] for n in neg]), 4),
            "auc_semantic": round(auc([p[1] for p in pos], [n[1] for n in neg]), 4),
            "median_true": [round(float(np.median([p[i] for p in pos])), 3) for i in (0, 1)],
            "median_wrong": [round(float(np.median([n[i] for n in neg])), 3) for i in (0, 1)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--tenant", default="scifact")
    parser.add_argument("--collection", default="scifact")
    parser.add_argument("--ingest", action="store_true", help="ingest SciFact first (no work if already there)")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N train claims")
    parser.add_argument("--grounding-sample", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    settings = Settings(embedder=EmbedderSettings(name=args.embedder))
    engine = Engine(settings)
    scope = Scope(args.tenant, (args.collection,))
    if args.ingest:
        summary = engine.ingest([SCIFACT / "corpus.jsonl"], scope)
        print(f"ingest: added {summary.added}, unchanged {summary.unchanged} in {summary.seconds:.0f} s", file=sys.stderr)
    try:
        engine.store.get_collection(scope)
    except NotFoundError:
        sys.exit(f"no collection {scope.tenant}/{scope.collection} in {settings.home}: run with --ingest")
    claims, offs = load_claims(args.limit), off_topic()
    abstain = measure_abstain(engine, scope, claims, offs)
    grounding = measure_grounding(engine, scope, claims, args.grounding_sample)
    result = {"embedder": engine.embedder.model_id, "search": settings.search.model_dump(),
              "candidates": settings.answer.candidates, "abstain": abstain, "grounding": grounding}
    out = args.out or ROOT / "docs" / "measurements" / f"abstain_floor_{args.embedder}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"model {result['embedder']}; {abstain['claims']} train claims, {abstain['off_topic']} off-topic questions")
    print(f"AUC best cosine {abstain['auc_best_cosine']}, AUC top fused score {abstain['auc_top_fused_score']}")
    print("\n| floor | answered (in-corpus) | abstained (off-topic) | J |\n|---|---|---|---|")
    chosen = abstain["chosen_floor"]
    for row in abstain["sweep"]:
        if abs(row["floor"] * 100 % 5) < 1e-6 or abs(row["floor"] - chosen) < 1e-9:
            mark = " **chosen**" if abs(row["floor"] - chosen) < 1e-9 else ""
            print(f"| {row['floor']:.2f}{mark} | {row['answered_in_corpus']:.3f} | {row['abstained_off_topic']:.3f} "
                  f"| {row['j']:.3f} |")
    print(f"\nchosen floor {chosen}; at it: {abstain['at_floor']}")
    print(f"relevant abstract in the context: {abstain['relevant_doc_in_context']}")
    print(f"best cosine: {abstain['best_cosine']}")
    print(f"grounding ({grounding['pairs']} claim/source pairs): best {grounding['best']}; "
          f"AUC lexical {grounding['auc_lexical']}, semantic {grounding['auc_semantic']}; "
          f"median (lexical, semantic) true {grounding['median_true']}, hard negative {grounding['median_wrong']}, "
          f"random {grounding['median_random']}; true source beats hard negative "
          f"{grounding['true_source_beats_hard_negative']}, random {grounding['true_source_beats_random']}")
    print("\n| lexical ≥ | or semantic ≥ | true source | same-topic wrong source | unrelated source |\n|---|---|---|---|---|")
    for row in grounding["grid"] + [grounding["best"]]:
        print(f"| {row['lexical']:.2f} | {row['semantic']:.2f} | {row['supported_true_source']:.3f} "
              f"| {row['supported_wrong_source']:.3f} | {row['supported_random_source']:.3f} |")
    print(f"wrote {out}")
    engine.close()


if __name__ == "__main__":
    main()
