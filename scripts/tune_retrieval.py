"""Reproducible retrieval tuning on a BEIR split (SciFact *train* by default).

Rebuilds, in memory, exactly what ragline indexes — the JSONL loader's
documents, the configured chunker, ``title\\nchunk`` index text, analyzer
terms in an SQLite FTS5 table ranked by bm25(), and dense vectors taken from
ragline's embedding cache (embedding only chunk texts never seen before) — then
scores many variants on the same candidate lists:

- analyzers (stemming, stopwords, tokenisation) for the keyword half,
- chunk → document aggregation (max / sum),
- fusion method (RRF k, weighted min-max) and weights, and fusion depth.

    RAGLINE_HOME=/work/tune-home .venv/bin/python scripts/tune_retrieval.py \\
        --chunking recursive:1000:200 --study all > tuning.md

Never point it at the test split for choosing anything; ``--split test`` exists
only to report the final, already-chosen configuration.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import Stemmer  # noqa: E402

from ragline import analyzer as ragline_analyzer  # noqa: E402
from ragline.embed import make_embedder  # noqa: E402
from ragline.embed.base import EmbeddingCache  # noqa: E402
from ragline.eval.beir import load_dataset  # noqa: E402
from ragline.eval.metrics import evaluate  # noqa: E402
from ragline.ingest.chunkers import make_chunker  # noqa: E402
from ragline.ingest.loaders.structured import JsonLinesLoader  # noqa: E402
from ragline.models import content_hash  # noqa: E402
from ragline.retrieve.fusion import reciprocal_rank_fusion, weighted_fusion  # noqa: E402
from ragline.settings import ChunkingSettings, Settings  # noqa: E402

DATASET = ROOT.parent / "shared" / "datasets" / "scifact"
DEPTH = 1000  # candidates kept per list; every variant below truncates from here
Ranked = list[tuple[str, float]]

# -- analyzer variants (keyword half) -------------------------------------------
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _variant(stem: str | None, stop: frozenset[str], token: re.Pattern[str] = _WORD) -> Callable[[str], list[str]]:
    stemmer = Stemmer.Stemmer(stem) if stem else None

    def analyze(text: str) -> list[str]:
        words = [w for w in token.findall(text.lower()) if w not in stop]
        return stemmer.stemWords(words) if stemmer else words

    return analyze


ANALYZERS: dict[str, Callable[[str], list[str]]] = {
    "ragline (current)": ragline_analyzer.analyze,
    "snowball, no stopwords": _variant("english", frozenset()),
    "no stemming, stopwords": _variant(None, ragline_analyzer.STOPWORDS),
    "porter, stopwords": _variant("porter", ragline_analyzer.STOPWORDS),
}


# -- building the candidate lists -----------------------------------------------
def build_chunks(corpus: Path, chunking: ChunkingSettings, token_length,
                 title: str = "prefix") -> tuple[list[str], list[str], list[str]]:
    """(chunk BEIR doc ids, index texts, content hashes) as the ingest pipeline builds them
    (``title="prefix"``: ``title\nchunk``), or with the title left out (``"none"``) or
    written twice (``"twice"``, a keyword-side boost)."""
    documents = JsonLinesLoader().load(corpus.read_bytes(), corpus.name)
    chunker = make_chunker(chunking, token_length=token_length)
    docs, texts = [], []
    for document in documents:
        for chunk in chunker.chunk(document):
            docs.append(document.metadata["record_id"])
            if not document.title or title == "none":
                texts.append(chunk.text)
            else:
                texts.append(f"{document.title}\n{document.title}\n{chunk.text}" if title == "twice"
                             else f"{document.title}\n{chunk.text}")
    return docs, texts, [content_hash(t) for t in texts]


def chunk_vectors(texts: list[str], hashes: list[str], embedder, cache: EmbeddingCache) -> np.ndarray:
    known = cache.get_many(embedder.model_id, hashes)
    todo = list(dict.fromkeys(h for h in hashes if h not in known))
    if todo:
        by_hash = dict(zip(hashes, texts))
        print(f"embedding {len(todo)} new chunk texts…", file=sys.stderr)
        for i in range(0, len(todo), 512):
            batch = todo[i:i + 512]
            fresh = dict(zip(batch, embedder.embed_documents([by_hash[h] for h in batch])))
            cache.put_many(embedder.model_id, fresh)
            known.update(fresh)
    return np.stack([known[h] for h in hashes])


def query_vectors(queries: dict[str, str], embedder, home: Path) -> np.ndarray:
    path = home / f"tune-queries-{content_hash(embedder.model_id + json.dumps(queries, sort_keys=True))[:12]}.npy"
    if path.exists():
        return np.load(path)
    vectors = np.stack([embedder.embed_query(text) for text in queries.values()])
    np.save(path, vectors)
    return vectors


def dense_lists(matrix: np.ndarray, qvecs: np.ndarray, depth: int) -> list[Ranked]:
    scores = qvecs @ matrix.T
    out = []
    for row in scores:
        top = np.argpartition(-row, depth - 1)[:depth]
        top = top[np.argsort(-row[top])]
        out.append([(str(i), float(row[i])) for i in top])
    return out


def keyword_lists(texts: list[str], queries: list[str], analyze, depth: int) -> list[Ranked]:
    """The store's keyword search, in memory: FTS5 over analyzer terms, OR of distinct query terms, bm25()."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(terms, tokenize='unicode61')")
    conn.executemany("INSERT INTO fts (rowid, terms) VALUES (?, ?)", ((i, " ".join(analyze(t))) for i, t in enumerate(texts)))
    out = []
    for query in queries:
        terms = list(dict.fromkeys(analyze(query)))
        if not terms:
            out.append([])
            continue
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = conn.execute("SELECT rowid, -bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
                            (match, depth)).fetchall()
        out.append([(str(r), float(s)) for r, s in rows])
    return out


# -- scoring ------------------------------------------------------------------------
def to_docs(ranked: Ranked, chunk_docs: list[str], how: str, depth: int = 100) -> list[str]:
    scores: dict[str, float] = {}
    for item, score in ranked:
        doc = chunk_docs[int(item)]
        scores[doc] = scores.get(doc, 0.0) + score if how == "sum" else scores.get(doc, score)
    pairs = list(scores.items())
    if how == "sum":
        pairs.sort(key=lambda p: -p[1])
    return [d for d, _ in pairs[:depth]]


def score(runs: list[list[str]], qids: list[str], qrels) -> dict[str, float]:
    return evaluate(dict(zip(qids, runs)), qrels)


def row(name: str, m: dict[str, float]) -> str:
    return f"| {name} | {m['ndcg@10']:.4f} | {m['recall@10']:.4f} | {m['recall@100']:.4f} | {m['mrr@10']:.4f} |"


HEADER = "| variant | nDCG@10 | recall@10 | recall@100 | MRR@10 |\n| --- | ---: | ---: | ---: | ---: |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=DATASET)
    ap.add_argument("--split", default="train")
    ap.add_argument("--chunking", default="recursive:1000:200", help="method:size:overlap[:unit]")
    ap.add_argument("--title", default="prefix", choices=["prefix", "none", "twice"],
                    help="title handling in the index text (the pipeline prefixes it)")
    ap.add_argument("--study", default="all", choices=["all", "analyzer", "fusion", "short", "single", "bm25", "depth"])
    args = ap.parse_args()

    settings = Settings()
    method, size, overlap, *unit = args.chunking.split(":")
    chunking = ChunkingSettings(method=method, size=int(size), overlap=int(overlap), unit=(unit or ["chars"])[0])
    dataset = load_dataset(args.dataset, args.split)
    qids, qtexts = list(dataset.queries), list(dataset.queries.values())
    embedder = make_embedder(settings.embedder, cache_dir=settings.home / "models")
    cache = EmbeddingCache(settings.home / "embedding-cache.sqlite")

    started = time.perf_counter()
    chunk_docs, texts, hashes = build_chunks(dataset.corpus, chunking, getattr(embedder, "count_tokens", None),
                                             args.title)
    matrix = chunk_vectors(texts, hashes, embedder, cache)
    dense = dense_lists(matrix, query_vectors(dataset.queries, embedder, settings.home), DEPTH)
    print(f"<!-- {args.dataset.name} {args.split}: {len(qids)} queries, {len(texts)} chunks "
          f"({args.chunking}), model {embedder.model_id}; lists built in {time.perf_counter() - started:.0f} s -->")
    print(f"\n#### {args.split} · chunking {args.chunking} · title {args.title} · {len(texts)} chunks\n")
    print(HEADER)
    keyword = {}
    for name, analyze in (ANALYZERS.items() if args.study in ("all", "analyzer") else
                          [("ragline (current)", ragline_analyzer.analyze)]):
        keyword[name] = keyword_lists(texts, qtexts, analyze, DEPTH)
        for how in ("max", "sum"):
            print(row(f"keyword · {name} · {how}", score([to_docs(r, chunk_docs, how) for r in keyword[name]], qids, dataset.qrels)))
    for how in ("max", "sum"):
        print(row(f"dense · {how}", score([to_docs(r, chunk_docs, how) for r in dense], qids, dataset.qrels)))
    if args.study == "single":
        return
    if args.study == "depth":
        for depth in (100, 200, 300, 500, 1000):
            fused = [weighted_fusion([d[:depth], k[:depth]], [0.5, 0.5]) for d, k in zip(dense, keyword["ragline (current)"])]
            print(row(f"weighted min-max dense_weight=0.5 depth={depth} · max",
                      score([to_docs(r, chunk_docs, "max") for r in fused], qids, dataset.qrels)))
        return
    if args.study == "bm25":
        bm25_study(texts, qtexts, qids, chunk_docs, dense, dataset.qrels)
        return
    kw = keyword["ragline (current)"]
    short = args.study == "short"
    for name, fuse in fusion_variants(short):
        for depth in (100, 1000):
            fused = [fuse(d[:depth], k[:depth]) for d, k in zip(dense, kw)]
            for how in ("max", "sum"):
                print(row(f"{name} depth={depth} · {how}",
                          score([to_docs(r, chunk_docs, how) for r in fused], qids, dataset.qrels)))
    # Documents first, then fusion: each list is reduced to its documents' best chunk before fusing.
    for name, fuse in fusion_variants(short):
        fused = [fuse(doc_list(d, chunk_docs), doc_list(k, chunk_docs)) for d, k in zip(dense, kw)]
        print(row(f"doc-level {name} depth=1000", score([[i for i, _ in r[:100]] for r in fused], qids, dataset.qrels)))


def bm25_lists(texts: list[str], queries: list[str], k1: float, b: float, depth: int) -> list[Ranked]:
    """BM25 with free k1 and b, scored exactly as FTS5's bm25() (idf = ln((N-n+0.5)/(n+0.5)), floored at 1e-6)."""
    from scipy import sparse

    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        counts: dict[int, int] = {}
        for term in ragline_analyzer.analyze(text):
            j = vocab.setdefault(term, len(vocab))
            counts[j] = counts.get(j, 0) + 1
        rows += [i] * len(counts)
        cols += list(counts)
        vals += list(counts.values())
    tf = sparse.csr_matrix((np.array(vals, dtype=np.float64), (rows, cols)), shape=(len(texts), len(vocab)))
    length = np.asarray(tf.sum(axis=1)).ravel()
    n = np.asarray((tf > 0).sum(axis=0)).ravel()
    idf = np.maximum(np.log((len(texts) - n + 0.5) / (n + 0.5)), 1e-6)
    norm = k1 * (1 - b + b * length / length.mean())
    weights = tf.copy()
    weights.data = weights.data * (k1 + 1) / (weights.data + np.repeat(norm, np.diff(tf.indptr)))
    weights = (weights @ sparse.diags(idf)).tocsc()
    out = []
    for query in queries:
        terms = [vocab[t] for t in dict.fromkeys(ragline_analyzer.analyze(query)) if t in vocab]
        if not terms:
            out.append([])
            continue
        scores = np.asarray(weights[:, terms].sum(axis=1)).ravel()
        hits = np.flatnonzero(scores)
        top = hits[np.argsort(-scores[hits], kind="stable")[:depth]]
        out.append([(str(i), float(scores[i])) for i in top])
    return out


def bm25_study(texts, qtexts, qids, chunk_docs, dense, qrels) -> None:
    """Would free BM25 parameters beat FTS5's fixed k1=1.2, b=0.75? Keyword alone and fused."""
    for k1 in (0.6, 0.9, 1.2, 1.5):
        for b in (0.3, 0.5, 0.75, 0.9):
            lists = bm25_lists(texts, qtexts, k1, b, DEPTH)
            print(row(f"keyword · bm25 k1={k1} b={b} · max", score([to_docs(r, chunk_docs, "max") for r in lists], qids, qrels)))
            fused = [weighted_fusion([d, k], [0.5, 0.5]) for d, k in zip(dense, lists)]
            print(row(f"weighted min-max dense_weight=0.5 depth=1000, bm25 k1={k1} b={b} · max",
                      score([to_docs(r, chunk_docs, "max") for r in fused], qids, qrels)))


def doc_list(ranked: Ranked, chunk_docs: list[str]) -> Ranked:
    seen: dict[str, float] = {}
    for item, s in ranked:
        seen.setdefault(chunk_docs[int(item)], s)
    return list(seen.items())


def zscore(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    scores = np.array([s for _, s in ranked])
    std = scores.std() or 1.0
    return {item: (s - scores.mean()) / std for item, s in ranked}


def normalised_fusion(normalise, lists: list[Ranked], weights: list[float]) -> Ranked:
    """Weighted sum of normalised scores; an item absent from a list gets that list's lowest value."""
    fused: dict[str, float] = {}
    tables = [normalise(r) for r in lists]
    floors = [min(t.values()) if t else 0.0 for t in tables]
    items = set().union(*tables)
    for item in items:
        fused[item] = sum(w * t.get(item, f) for t, w, f in zip(tables, weights, floors))
    return sorted(fused.items(), key=lambda p: -p[1])


def fusion_variants(short: bool = False):
    """RRF over k and weights, and convex combinations of min-max / z-score normalised scores."""
    for rrf_k in ((10, 60) if short else (10, 30, 60, 100)):
        for w in ((0.5,) if short else (0.3, 0.4, 0.5, 0.6, 0.7)):
            yield (f"rrf k={rrf_k} dense_weight={w}",
                   lambda d, k, rrf_k=rrf_k, w=w: reciprocal_rank_fusion([d, k], k=rrf_k, weights=[2 * w, 2 * (1 - w)]))
    for w in ((0.4, 0.5, 0.6) if short else (0.3, 0.4, 0.5, 0.6, 0.7)):
        yield f"weighted min-max dense_weight={w}", lambda d, k, w=w: weighted_fusion([d, k], [w, 1 - w])
        yield f"z-score dense_weight={w}", lambda d, k, w=w: normalised_fusion(zscore, [d, k], [w, 1 - w])


if __name__ == "__main__":
    main()
