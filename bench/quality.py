"""Fusion compared on every evaluation set: keyword, dense, and hybrid by each fusion
method and weight, on train and test, with the choice made on train only.

For each dataset the corpus is ingested through ``ragline eval``'s runner (one
RAGLINE home per dataset, so the embedding cache and the collection are reused),
each judged query's dense and keyword chunk lists are fetched once at the hybrid
depth (``search.overfetch``) and kept in the home, and every fusion is then applied
to the same lists (cut to 100 for the "@100" rows: what a search at that depth
returns), chunk hits mapped to documents by their best chunk (or, for two rows, by
the sum of all or of the best two), and scored as ``ragline eval`` scores them.

Then bench/quality_feedback.py runs each second-pass option (keyword and dense
pseudo-relevance feedback, the cosine re-sort) from the default hybrid's first pass,
and every stage is timed; the report gives nDCG@10 and search ms per query.

Choice rule (issue 32): the fusion whose worst train split is furthest above (or least
below) that set's better single list, a shortfall within 0.002 counting as none; ties
to the best mean margin, then to the current default. Leave one set out: for each set,
the rule applied to the other sets' train splits, scored on this set's train split,
beside the current default's margin there; a new default only where that supports it
(docs/quality.md). The test split is reported, never used to choose: run ``--splits
train`` while choosing, the test split once the choice is made. The latency row is
the default hybrid through an in-process ``Engine.search`` at k = 10, question
embedding included, on SciFact's collection.

    .venv/bin/python bench/quality.py                 # → bench/quality.json, bench/quality.md
    .venv/bin/python bench/quality.py --embedder hashing --homes /tmp/q-hashing   # quick, while developing
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import statistics
import time
from pathlib import Path

from quality_feedback import VARIANTS as SECOND_PASS
from quality_feedback import second_pass, settings_key

from ragline.eval.beir import load_dataset
from ragline.eval.metrics import evaluate
from ragline.eval.runner import EvalRunner, document_id, to_documents
from ragline.retrieve.fusion import fuse
from ragline.retrieve.search import Searcher
from ragline.settings import EmbedderSettings, SearchSettings, Settings

HERE = Path(__file__).resolve().parent
DATASETS = {
    "scifact": HERE.parent.parent / "shared" / "datasets" / "scifact",
    "debian-packages": HERE / "datasets" / "debian-packages",
    "python-docs": HERE / "datasets" / "python-docs",
    "sample-kb": HERE / "datasets" / "sample-kb",
    "spanish": HERE / "datasets" / "spanish-beir",
    "bank-in": HERE / "datasets" / "bank-in-beir",
    "shop-es": HERE / "datasets" / "shop-es-beir",
    "pypi-readmes": HERE / "datasets" / "pypi-readmes",
    "entity-records": HERE / "datasets" / "entity-records",
}
SPLITS = ("train", "test")
_SEARCH = Settings().search  # environment included, as the second pass
_ADAPTS = _SEARCH.fusion == "confidence"
DEFAULT = (_SEARCH.fusion, _SEARCH.dense_weight, _SEARCH.confidence_slope if _ADAPTS else 0,
           _SEARCH.confidence_depth if _ADAPTS else 0, _SEARCH.overfetch)
# fusion, dense weight, confidence slope, confidence depth, candidates per list (the cached
# 500-deep lists cut to their first ``overfetch``: what a search at that depth returns)
Variant = tuple[str, float, float, int, int]
VARIANTS: list[Variant] = (
    [("rrf", 0.5, 0, 0, 500), ("adaptive", 0.6, 0, 0, 500)]
    + [(m, w, 0, 0, fetch) for fetch in (100, 500) for m in ("weighted", "dbsf") for w in (0.4, 0.5, 0.6, 0.7)]
    + [("confidence", w, slope, depth, fetch) for fetch in (100, 500) for depth in (10, 20)
       for w in (0.5, 0.6, 0.7) for slope in (0.25, 0.5, 1.0)])
TOLERANCE = 0.002  # "at least the better single list" allows this much below it (issue 32)
AGGREGATES = {"sum": "documents by the sum of their chunks", "top2": "documents by their best two chunks' sum"}
RUNTIME_ONLY = {"api_key", "base_url", "batch_size", "threads", "timeout", "max_retries", "retry_backoff",
                "retry_max_wait", "query_cache_size"}  # embedder settings that do not change a vector
Lists = dict[str, tuple[list[tuple[str, float]], list[tuple[str, float]]]]


def collect(runner: EvalRunner, depth: int, cache: Path) -> tuple[Lists, dict[str, str]]:
    """query id → (dense, keyword) chunk lists, and chunk id → BEIR document id."""
    if cache.exists():
        saved = json.loads(gzip.decompress(cache.read_bytes()))
        return {q: (d, k) for q, (d, k) in saved["lists"].items()}, saved["docs"]
    runner.prepare()
    # The engine's own searcher, without Engine.search's match counters (a write per hit).
    engine = runner.engine
    searcher = Searcher(engine.store, engine.embedder, engine.settings.search)
    lists: Lists = {}
    docs: dict[str, str] = {}
    for qid, text in runner.dataset.queries.items():
        pair = []
        for mode in ("dense", "keyword"):
            hits = searcher.search(text, runner.scope, mode=mode, k=depth).hits
            docs.update({hit.chunk_id: document_id(hit) for hit in hits})
            pair.append([(hit.chunk_id, hit.score) for hit in hits])
        lists[qid] = (pair[0], pair[1])
    cache.write_bytes(gzip.compress(json.dumps({"lists": lists, "docs": docs}).encode()))
    return lists, docs


def score(lists: Lists, docs: dict[str, str], qrels, variant: Variant | str,
          aggregate: str = "max") -> tuple[float, float]:
    """(nDCG@10, mean fusion ms per query) for one variant (or "dense", "keyword") on one split."""
    run, spent = {}, 0.0
    for qid, (dense, keyword) in lists.items():
        started = time.perf_counter()
        if variant == "dense":
            ranked = dense
        elif variant == "keyword":
            ranked = keyword
        else:
            method, weight, slope, depth, fetch = variant
            ranked = fuse(method, dense[:fetch], keyword[:fetch], dense_weight=weight, slope=slope, depth=depth or 20)
        spent += time.perf_counter() - started
        run[qid] = documents(ranked, docs, aggregate)
    return evaluate(run, qrels, ("ndcg@10",))["ndcg@10"], spent * 1000 / max(1, len(lists))


def documents(ranked: list[tuple[str, float]], docs: dict[str, str], aggregate: str = "max") -> list[str]:
    """Document ids, best first: by the best chunk (``max``), all chunks' sum (``sum``),
    or the sum of the best two (``top2``)."""
    if aggregate != "top2":
        return [doc for doc, _ in to_documents(_as_hits(ranked, docs), aggregate)]
    best: dict[str, list[float]] = {}
    for chunk, value in ranked:
        kept = best.setdefault(docs[chunk], [])
        if len(kept) < 2:
            kept.append(value)
    return sorted(best, key=lambda doc: -sum(best[doc]))[:100]


def score_runs(runs: dict[str, list], docs: dict[str, str], qrels) -> float:
    """nDCG@10 of ranked chunk lists (query id → [(chunk, score)]) over documents."""
    run = {qid: [doc for doc, _ in to_documents(_as_hits(ranked, docs))] for qid, ranked in runs.items()}
    return evaluate(run, qrels, ("ndcg@10",))["ndcg@10"]


def latencies(row: dict, ms: dict[str, float]) -> None:
    """Each row's search cost per query (ms): its lists' searches, embedding the
    question, the fusion, and any second pass, as measured in this run."""
    hybrid = ms["embed"] + ms["dense"] + ms["keyword"]
    for key, cell in row.items():
        if key == "keyword":
            cell["ms"] = ms["keyword"]
        elif key == "dense":
            cell["ms"] = ms["embed"] + ms["dense"]
        elif key.startswith("default + "):
            cell["ms"] = hybrid + ms["fuse"] + ms[key.removeprefix("default + ")]
        else:
            cell["ms"] = hybrid + cell["fuse_ms"]
        cell["ms"] = round(cell["ms"], 2)


class _DocHit:
    """Just what ``to_documents`` reads from a hit."""
    __slots__ = ("metadata", "score", "source")

    def __init__(self, doc: str, score: float) -> None:
        self.metadata, self.score, self.source = {"record_id": doc}, score, ""


def _as_hits(ranked, docs):
    return [_DocHit(docs[chunk], s) for chunk, s in ranked]


timed_at_load: dict[str, float | None] = {}  # set and split → load average when its searches were timed


def measure(names: list[str], homes: Path, embedder: str, splits: tuple[str, ...],
            second: tuple[str, ...]) -> dict:
    results: dict = {}
    for name in names:
        for split in splits:
            settings = Settings(home=homes / name, embedder=EmbedderSettings(name=embedder))
            search = settings.search  # the second pass's settings (environment included)
            # The first pass is the plain lists, whatever the environment asks of searches.
            settings.search = search.model_copy(update={"feedback": "none", "rerank": "none"})
            dataset = load_dataset(DATASETS[name], split)
            runner = EvalRunner(settings, dataset)
            try:
                # The collection name covers corpus, model and chunking; the embedder's own
                # settings (precision, overflow) also change the vectors and chunks.
                shape = hashlib.sha256(json.dumps(settings.embedder.model_dump(mode="json", exclude=RUNTIME_ONLY),
                                                  sort_keys=True).encode()).hexdigest()[:8]
                cache = settings.home / f"quality-lists-{runner.collection_name()}-{shape}-{split}.json.gz"
                lists, docs = collect(runner, SearchSettings().overfetch, cache)
                tag = settings_key(search) + "-" + hashlib.sha256(",".join(second).encode()).hexdigest()[:6]
                cache = settings.home / f"quality-second-{runner.collection_name()}-{shape}-{split}-{tag}.json.gz"
                runs, stage_ms = second_pass(runner, lists, docs, search, cache, second)
                info = runner.engine.get_collection(runner.scope)
                collection = {"model": info.model_id, "documents": info.documents, "chunks": info.chunks,
                              "config": info.config}
            finally:
                runner.close()
            row = {}
            for variant in ["keyword", "dense", *VARIANTS]:
                ndcg, ms = score(lists, docs, dataset.qrels, variant)
                row[label(variant)] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            if DEFAULT not in VARIANTS:
                ndcg, ms = score(lists, docs, dataset.qrels, DEFAULT)
                row[label(DEFAULT)] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            for aggregate, title in AGGREGATES.items():
                ndcg, ms = score(lists, docs, dataset.qrels, DEFAULT, aggregate=aggregate)
                row[f"default, {title}"] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            for variant in runs:
                row[f"default + {variant}"] = {"ndcg@10": round(score_runs(runs[variant], docs, dataset.qrels), 4),
                                               "fuse_ms": stage_ms["fuse"]}
            latencies(row, stage_ms)
            timed_at_load[f"{name} {split}"] = stage_ms.get("load_average")
            results.setdefault(name, {})[split] = {"queries": len(lists), "scores": row, "collection": collection}
            print(f"{name} {split}: keyword {row['keyword']['ndcg@10']}, dense {row['dense']['ndcg@10']}, "
                  f"default {row[label(DEFAULT)]['ndcg@10']}", flush=True)
    return results


def label(variant: Variant | str) -> str:
    if isinstance(variant, str):
        return variant
    method, weight, slope, depth, fetch = variant
    name = f"confidence w={weight} s={slope} n={depth}" if method == "confidence" else f"{method} w={weight}"
    return name if fetch == 500 else f"{name} @{fetch}"


def margins(results: dict, names: list[str], key: str, split: str = "train") -> list[float]:
    """Each set's nDCG@10 for ``key`` minus the better of its dense and keyword lists."""
    out = []
    for name in names:
        scores = results[name][split]["scores"]
        out.append(scores[key]["ndcg@10"] - max(scores["dense"]["ndcg@10"], scores["keyword"]["ndcg@10"]))
    return out


def choose(results: dict, names: list[str] | None = None) -> str:
    """The train-split choice among ``VARIANTS`` over ``names`` (every set by default):
    the fusion whose worst set is furthest above (or least below) that set's better
    single list, a shortfall within ``TOLERANCE`` counting as none; ties go to the
    best mean margin, then to the current default."""
    names = names or list(results)

    def rank(variant: Variant) -> tuple[float, float, bool]:
        found = margins(results, names, label(variant))
        return min(0.0, min(found) + TOLERANCE), statistics.mean(found), variant == DEFAULT

    return label(max(VARIANTS, key=rank))


def leave_one_out(results: dict) -> list[dict]:
    """For each set: the fusion ``choose`` picks on the other sets' train splits, and what
    it scores on this set's train split against its better single list and the default."""
    names = list(results)
    rows = []
    for held in names:
        key = choose(results, [n for n in names if n != held])
        scores = results[held]["train"]["scores"]
        better = max(scores["dense"]["ndcg@10"], scores["keyword"]["ndcg@10"])
        rows.append({"held_out": held, "chosen": key, "ndcg@10": scores[key]["ndcg@10"], "better_list": better,
                     "margin": round(scores[key]["ndcg@10"] - better, 4),
                     "default_margin": round(scores[label(DEFAULT)]["ndcg@10"] - better, 4)})
    return rows


def markdown(results: dict, chosen: str, loso: list[dict], latency: dict | None, command: str,
             context: str = "") -> str:
    names = list(results)
    splits = [s for s in SPLITS if all(s in results[n] for n in names)]
    keys = list(results[names[0]][splits[0]]["scores"])
    title = (f"# Retrieval quality on every set (nDCG@10)\n\n`{command}`{context}\n\nChosen on train: **{chosen}** "
             f"(current default {label(DEFAULT)}; rows \"default …\" start from the current default). "
             f"\"margin\" columns: the row's nDCG@10 minus the better of dense and keyword, worst set and mean.\n")
    lines = [title]
    for split in splits:
        header = " | ".join(f"{n} ({results[n][split]['queries']})" for n in names)
        lines += [f"\n## {split}: nDCG@10\n",
                  f"| method | {header} | mean | worst margin | mean margin | search ms/query (mean of sets) |",
                  "| --- |" + " ---: |" * (len(names) + 4)]
        for key in keys:
            scores = [results[n][split]["scores"][key] for n in names]
            mean = statistics.mean(s["ndcg@10"] for s in scores)
            found = margins(results, names, key, split)
            ms = statistics.mean(s.get("ms", s["fuse_ms"]) for s in scores)
            mark = "**" if key in (chosen, label(DEFAULT)) else ""
            cells = " | ".join(f"{s['ndcg@10']:.4f}" for s in scores)
            lines.append(f"| {mark}{key}{mark} | {cells} | {mean:.4f} | {min(found):+.4f} | "
                         f"{statistics.mean(found):+.4f} | {ms:.1f} |")
    lines += ["\n## Leave one set out (train splits)\n",
              "Each set held out in turn: the rule above chooses a fusion on the other sets' train splits; "
              "the held-out set's train split scores it.\n",
              "| held out | chosen on the others | nDCG@10 | better single list | margin | default's margin |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    for row in loso:
        lines.append(f"| {row['held_out']} | {row['chosen']} | {row['ndcg@10']:.4f} | {row['better_list']:.4f} | "
                     f"{row['margin']:+.4f} | {row['default_margin']:+.4f} |")
    lines.append(f"| mean | | | | {statistics.mean(r['margin'] for r in loso):+.4f} | "
                 f"{statistics.mean(r['default_margin'] for r in loso):+.4f} |")
    rule = (statistics.mean(r["margin"] for r in loso), min(r["margin"] for r in loso))
    kept = (statistics.mean(r["default_margin"] for r in loso), min(r["default_margin"] for r in loso))
    verdict = "supports" if rule[0] > kept[0] and rule[1] >= kept[1] else "does not support"
    lines.append(f"\nOn sets it did not see, choosing by the rule {verdict} a change of default: mean margin "
                 f"{rule[0]:+.4f} against the default's {kept[0]:+.4f}, worst {rule[1]:+.4f} against {kept[1]:+.4f}.")
    if latency:
        lines += ["\n## Latency of the default hybrid (in-process `Engine.search`, k = 10)\n",
                  "| set | chunks | queries | p50 ms | p95 ms | mean ms by stage | load average before / after |",
                  "| --- | ---: | ---: | ---: | ---: | --- | --- |",
                  f"| {latency['set']} | {latency['chunks']} | {latency['queries']} | {latency['p50']:.1f} | "
                  f"{latency['p95']:.1f} | {latency['stages']} | {latency['load_before']} / {latency['load_after']} |"]
    split = splits[-1]
    lines += [f"\n## {split}: search ms per query, each set\n",
              "| method | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for key in keys:
        cells = " | ".join(f"{results[n][split]['scores'][key].get('ms', 0.0):.1f}" for n in names)
        lines.append(f"| {key} | {cells} |")
    return "\n".join(lines) + "\n"


def measure_latency(name: str, homes: Path, embedder: str, queries: int) -> dict:
    """p50/p95 of the default hybrid through an in-process ``Engine.search`` (question
    embedded in the call, k = 10) over the set's first ``queries`` test questions,
    after one warm-up search; the collection is the one the quality run ingested."""
    settings = Settings(home=homes / name, embedder=EmbedderSettings(name=embedder))
    runner = EvalRunner(settings, load_dataset(DATASETS[name], "test"))
    try:
        runner.prepare()
        texts = list(runner.dataset.queries.values())[:queries]
        engine, scope = runner.engine, runner.scope
        engine.search(texts[0], scope, k=10)
        load_before = round(os.getloadavg()[0], 1)
        spent, stages = [], {}
        for text in texts:
            started = time.perf_counter()
            result = engine.search(text, scope, k=10)
            spent.append((time.perf_counter() - started) * 1000)
            for stage, ms in result.timings_ms.items():
                stages[stage] = stages.get(stage, 0.0) + ms
        info = engine.get_collection(scope)
    finally:
        runner.close()
    spent.sort()
    return {"set": name, "chunks": info.chunks, "queries": len(spent), "fusion": label(DEFAULT),
            "p50": round(statistics.median(spent), 2), "p95": round(spent[int(0.95 * (len(spent) - 1))], 2),
            "stages": ", ".join(f"{k} {v / len(spent):.1f}" for k, v in stages.items()),
            "load_before": load_before, "load_after": round(os.getloadavg()[0], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated names")
    parser.add_argument("--homes", type=Path, default=Path("/tmp/ragline-quality"), help="one RAGLINE home per dataset below this")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--splits", default=",".join(SPLITS),
                        help="train alone while choosing; test only once the choice is made")
    parser.add_argument("--second-pass", default=",".join(SECOND_PASS), help="second-pass options to run")
    parser.add_argument("--latency", default="scifact", help="the set whose size the latency is measured at ('' for none)")
    parser.add_argument("--latency-queries", type=int, default=300)
    parser.add_argument("--out", type=Path, default=HERE / "quality")
    args = parser.parse_args()
    second = tuple(v for v in args.second_pass.split(",") if v)
    results = measure(args.datasets.split(","), args.homes, args.embedder, tuple(args.splits.split(",")), second)
    chosen = choose(results)
    loso = leave_one_out(results)
    latency = measure_latency(args.latency, args.homes, args.embedder, args.latency_queries) if args.latency else None
    command = "python bench/quality.py" + (f" --embedder {args.embedder}" if args.embedder != "minilm" else "")
    if args.second_pass != ",".join(SECOND_PASS):
        command += f" --second-pass '{args.second_pass}'"
    search = Settings().search
    loads = [v for v in timed_at_load.values() if v is not None]
    load = f"{min(loads)}–{max(loads)}" if loads else "not recorded"
    context = (f"\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · load average while timing {load} · "
               f"overfetch {search.overfetch} · feedback: {search.feedback_docs} chunks, {search.feedback_terms} "
               f"terms, λ {search.feedback_keyword_weight}, β {search.feedback_dense_weight} · cosine re-sort of "
               f"the top {search.rerank_depth} · chunking and embedder: each collection's config in bench/quality.json")
    args.out.with_suffix(".json").write_text(json.dumps({"chosen": chosen, "embedder": args.embedder,
                                                         "leave_one_out": loso, "latency": latency,
                                                         "load_average_while_timing": timed_at_load,
                                                         "results": results}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(results, chosen, loso, latency, command, context))
    print(markdown(results, chosen, loso, latency, command, context))


if __name__ == "__main__":
    main()
