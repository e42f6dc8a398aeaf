"""Fusion compared on every evaluation set: keyword, dense, and hybrid by each fusion
method and weight, on train and test, with the choice made on train only.

For each dataset the corpus is ingested through ``ragline eval``'s runner (one
RAGLINE home per dataset, so the embedding cache and the collection are reused),
each judged query's dense and keyword chunk lists are fetched once at the hybrid
depth (``search.overfetch``) and kept in the home, and every fusion is then applied
to the same lists, chunk hits mapped to documents by their best chunk, and scored
as ``ragline eval`` scores them.

Choice rule (issue 15): among the fusions at least as good as the better of dense
and keyword on every train split, the best mean train nDCG@10; ties go to the
current default. The test split is reported, never used to choose.

    .venv/bin/python bench/quality.py                 # → bench/quality.json, bench/quality.md
    .venv/bin/python bench/quality.py --embedder hashing --homes /tmp/q-hashing   # quick, while developing
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path

from ragline.eval.beir import load_dataset
from ragline.eval.metrics import evaluate
from ragline.eval.runner import EvalRunner, to_documents
from ragline.retrieve.fusion import fuse
from ragline.settings import EmbedderSettings, SearchSettings, Settings

HERE = Path(__file__).resolve().parent
DATASETS = {
    "scifact": HERE.parent.parent / "shared" / "datasets" / "scifact",
    "debian-packages": HERE / "datasets" / "debian-packages",
    "python-docs": HERE / "datasets" / "python-docs",
    "sample-kb": HERE / "datasets" / "sample-kb",
}
SPLITS = ("train", "test")
DEFAULT = ("weighted", 0.5)
VARIANTS = [("rrf", w) for w in (0.5,)] + [(m, w) for m in ("weighted", "dbsf", "adaptive")
                                           for w in (0.3, 0.4, 0.5, 0.6, 0.7)]
Lists = dict[str, tuple[list[tuple[str, float]], list[tuple[str, float]]]]


def collect(runner: EvalRunner, depth: int, cache: Path) -> tuple[Lists, dict[str, str]]:
    """query id → (dense, keyword) chunk lists, and chunk id → BEIR document id."""
    if cache.exists():
        saved = json.loads(gzip.decompress(cache.read_bytes()))
        return {q: (d, k) for q, (d, k) in saved["lists"].items()}, saved["docs"]
    runner.prepare()
    lists: Lists = {}
    docs: dict[str, str] = {}
    for qid, text in runner.dataset.queries.items():
        pair = []
        for mode in ("dense", "keyword"):
            hits = runner.engine.search(text, runner.scope, mode=mode, k=depth).hits
            docs.update({hit.chunk_id: str(hit.metadata.get("record_id")) for hit in hits})
            pair.append([(hit.chunk_id, hit.score) for hit in hits])
        lists[qid] = (pair[0], pair[1])
    cache.write_bytes(gzip.compress(json.dumps({"lists": lists, "docs": docs}).encode()))
    return lists, docs


def score(lists: Lists, docs: dict[str, str], qrels, method: str, weight: float) -> tuple[float, float]:
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
        run[qid] = [doc for doc, _ in to_documents(_as_hits(ranked, docs))]
    return evaluate(run, qrels, ("ndcg@10",))["ndcg@10"], spent * 1000 / max(1, len(lists))


class _DocHit:
    """Just what ``to_documents`` reads from a hit."""
    __slots__ = ("metadata", "score", "source")

    def __init__(self, doc: str, score: float) -> None:
        self.metadata, self.score, self.source = {"record_id": doc}, score, ""


def _as_hits(ranked, docs):
    return [_DocHit(docs[chunk], s) for chunk, s in ranked]


def measure(names: list[str], homes: Path, embedder: str) -> dict:
    results: dict = {}
    for name in names:
        for split in SPLITS:
            settings = Settings(home=homes / name, embedder=EmbedderSettings(name=embedder))
            dataset = load_dataset(DATASETS[name], split)
            runner = EvalRunner(settings, dataset)
            try:
                cache = settings.home / f"quality-lists-{runner.collection_name()}-{split}.json.gz"
                lists, docs = collect(runner, SearchSettings().overfetch, cache)
            finally:
                runner.close()
            row = {}
            for method, weight in [("keyword", 0), ("dense", 0)] + VARIANTS:
                ndcg, ms = score(lists, docs, dataset.qrels, method, weight)
                row[label(method, weight)] = {"ndcg@10": round(ndcg, 4), "fuse_ms": round(ms, 3)}
            results.setdefault(name, {})[split] = {"queries": len(lists), "scores": row}
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


def markdown(results: dict, chosen: str, command: str) -> str:
    names = list(results)
    keys = ["keyword", "dense"] + [label(m, w) for m, w in VARIANTS]
    title = (f"# Fusion on every set (nDCG@10)\n\n`{command}`\n\nChosen on train: **{chosen}** "
             f"(current default {label(*DEFAULT)}).\n")
    lines = [title]
    for split in SPLITS:
        header = " | ".join(f"{n} ({results[n][split]['queries']})" for n in names)
        lines += [f"\n## {split}\n", f"| method | {header} | mean | fuse ms/query |",
                  "| --- |" + " ---: |" * (len(names) + 2)]
        for key in keys:
            scores = [results[n][split]["scores"][key] for n in names]
            mean = statistics.mean(s["ndcg@10"] for s in scores)
            ms = statistics.mean(s["fuse_ms"] for s in scores)
            mark = "**" if key == chosen else ""
            cells = " | ".join(f"{s['ndcg@10']:.4f}" for s in scores)
            lines.append(f"| {mark}{key}{mark} | {cells} | {mean:.4f} | {ms:.2f} |")
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
    args.out.with_suffix(".json").write_text(json.dumps({"chosen": chosen, "embedder": args.embedder,
                                                         "results": results}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(results, chosen, command))
    print(markdown(results, chosen, command))


if __name__ == "__main__":
    main()
