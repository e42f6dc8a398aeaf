"""Fusion compared on every evaluation set: keyword, dense, and hybrid by each fusion
method and weight, on train and test, with the choice made on train only.

For each dataset the corpus is ingested through ``ragline eval``'s runner (one
RAGLINE home per dataset, so the embedding cache and the collection are reused),
each judged query's dense and keyword chunk lists are fetched once at the hybrid
depth (``search.overfetch``) and kept in the home, and every fusion is then applied
to the same lists, chunk hits mapped to documents by their best chunk, and scored
as ``ragline eval`` scores them.

Then bench/quality_feedback.py runs each second-pass option (keyword and dense
pseudo-relevance feedback, the cosine re-sort) from the default hybrid's first pass,
and every stage is timed; the report gives nDCG@10 and search ms per query.

Choice rule (issue 15): among the fusions at least as good as the better of dense
and keyword on every train split, the best mean train nDCG@10; ties go to the
current default. The test split is reported, never used to choose.

    .venv/bin/python bench/quality.py                 # → bench/quality.json, bench/quality.md
    .venv/bin/python bench/quality.py --embedder hashing --homes /tmp/q-hashing   # quick, while developing
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
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
DEFAULT = (Settings().search.fusion, Settings().search.dense_weight)  # environment included, as the second pass
VARIANTS = [("rrf", w) for w in (0.5,)] + [(m, w) for m in ("weighted", "dbsf", "adaptive")
                                           for w in (0.3, 0.4, 0.5, 0.6, 0.7)]
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


def score(lists: Lists, docs: dict[str, str], qrels, method: str, weight: float,
          aggregate: str = "max") -> tuple[float, float]:
    """(nDCG@10, mean fusion ms per query) for one method on one split."""
    run, spent = {}, 0.0
    for qid, (dense, keyword) in lists.items():
        started = time.perf_counter()
        if method == "dense":
            ranked = dense
        elif method == "keyword":
            ranked = keyword
        else:
            ranked = fuse(method, dense, keyword, dense_weight=weight)
        spent += time.perf_counter() - started
        run[qid] = [doc for doc, _ in to_documents(_as_hits(ranked, docs), aggregate)]
    return evaluate(run, qrels, ("ndcg@10",))["ndcg@10"], spent * 1000 / max(1, len(lists))


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


def measure(names: list[str], homes: Path, embedder: str) -> dict:
    results: dict = {}
    for name in names:
        for split in SPLITS:
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
                tag = settings_key(search)
                cache = settings.home / f"quality-second-{runner.collection_name()}-{shape}-{split}-{tag}.json.gz"
                runs, stage_ms = second_pass(runner, lists, docs, search, cache)
                info = runner.engine.get_collection(runner.scope)
                collection = {"model": info.model_id, "documents": info.documents, "chunks": info.chunks,
                              "config": info.config}
            finally:
                runner.close()
            row = {}
            for method, weight in [("keyword", 0), ("dense", 0)] + VARIANTS:
                ndcg, ms = score(lists, docs, dataset.qrels, method, weight)
                row[label(method, weight)] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            ndcg, ms = score(lists, docs, dataset.qrels, *DEFAULT, aggregate="sum")
            row["default, document = sum of chunks"] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            for variant in SECOND_PASS:
                row[f"default + {variant}"] = {"ndcg@10": round(score_runs(runs[variant], docs, dataset.qrels), 4),
                                               "fuse_ms": stage_ms["fuse"]}
            latencies(row, stage_ms)
            timed_at_load[f"{name} {split}"] = stage_ms.get("load_average")
            results.setdefault(name, {})[split] = {"queries": len(lists), "scores": row, "collection": collection}
            print(f"{name} {split}: keyword {row['keyword']['ndcg@10']}, dense {row['dense']['ndcg@10']}, "
                  f"default {row[label(*DEFAULT)]['ndcg@10']}", flush=True)
    return results


def label(method: str, weight: float) -> str:
    return method if method in ("keyword", "dense") else f"{method} w={weight}"


def choose(results: dict) -> str:
    """The train-split choice (see the module docstring)."""
    names = list(results)
    safe = []
    for method, weight in VARIANTS:
        key = label(method, weight)
        train = [results[n]["train"]["scores"] for n in names]
        if all(s[key]["ndcg@10"] >= max(s["dense"]["ndcg@10"], s["keyword"]["ndcg@10"]) for s in train):
            safe.append((statistics.mean(s[key]["ndcg@10"] for s in train), key == label(*DEFAULT), key))
    return max(safe)[2] if safe else label(*DEFAULT)


def markdown(results: dict, chosen: str, command: str, context: str = "") -> str:
    names = list(results)
    keys = list(results[names[0]][SPLITS[0]]["scores"])
    title = (f"# Retrieval quality on every set (nDCG@10)\n\n`{command}`{context}\n\nChosen on train: **{chosen}** "
             f"(current default {label(*DEFAULT)}; rows \"default …\" start from the current default).\n")
    lines = [title]
    for split in SPLITS:
        header = " | ".join(f"{n} ({results[n][split]['queries']})" for n in names)
        lines += [f"\n## {split}: nDCG@10\n", f"| method | {header} | mean | search ms/query (mean of sets) |",
                  "| --- |" + " ---: |" * (len(names) + 2)]
        for key in keys:
            scores = [results[n][split]["scores"][key] for n in names]
            mean = statistics.mean(s["ndcg@10"] for s in scores)
            ms = statistics.mean(s.get("ms", s["fuse_ms"]) for s in scores)
            mark = "**" if key == chosen else ""
            cells = " | ".join(f"{s['ndcg@10']:.4f}" for s in scores)
            lines.append(f"| {mark}{key}{mark} | {cells} | {mean:.4f} | {ms:.1f} |")
    split = SPLITS[-1]
    lines += [f"\n## {split}: search ms per query, each set\n",
              "| method | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for key in keys:
        cells = " | ".join(f"{results[n][split]['scores'][key].get('ms', 0.0):.1f}" for n in names)
        lines.append(f"| {key} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated names")
    parser.add_argument("--homes", type=Path, default=Path("/tmp/ragline-quality"), help="one RAGLINE home per dataset below this")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--out", type=Path, default=HERE / "quality")
    args = parser.parse_args()
    results = measure(args.datasets.split(","), args.homes, args.embedder)
    chosen = choose(results)
    command = "python bench/quality.py" + (f" --embedder {args.embedder}" if args.embedder != "minilm" else "")
    search = Settings().search
    loads = [v for v in timed_at_load.values() if v is not None]
    load = f"{min(loads)}–{max(loads)}" if loads else "not recorded"
    context = (f"\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · load average while timing {load} · "
               f"overfetch {search.overfetch} · feedback: {search.feedback_docs} chunks, {search.feedback_terms} "
               f"terms, λ {search.feedback_keyword_weight}, β {search.feedback_dense_weight} · cosine re-sort of "
               f"the top {search.rerank_depth} · chunking and embedder: each collection's config in bench/quality.json")
    args.out.with_suffix(".json").write_text(json.dumps({"chosen": chosen, "embedder": args.embedder,
                                                         "load_average_while_timing": timed_at_load,
                                                         "results": results}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(results, chosen, command, context))
    print(markdown(results, chosen, command, context))


if __name__ == "__main__":
    main()
