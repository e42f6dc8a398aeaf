"""``ragline bench``: speed figures on a BEIR corpus (SciFact by default), written
to ``bench/results.json`` and a readable ``bench/results.md``.

- ingest into a fresh home (empty store, empty embedding cache): wall seconds,
  documents/s, chunks/s, embeddings/s, peak RSS; then an unchanged re-ingest,
  which must embed nothing;
- warm query latency per mode over the test queries at the default k, and the
  quality figures of the same collection (the eval runner's);
- embedding throughput of the local model on N chunks of the corpus, beside
  sentence-transformers fp32 on the same texts when a Python that has it is
  given (``--reference-python``) or it is importable here; otherwise the record
  says "not installed";
- the precision presets side by side (``presets``): the exact fp32 encoder and the
  int8 one, each ingesting the corpus in its own process and fresh home (wall
  seconds, peak RSS of that process, hybrid nDCG@10 on the same queries), so the
  fast preset's quality bound is checked by the same command.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import make_embedder
from ..embed.base import CountingEmbedder
from ..engine import Engine
from ..errors import LoaderError
from ..ingest.chunkers import LengthFn, make_chunker
from ..ingest.loaders.structured import JsonLinesLoader
from ..models import index_text
from ..retrieve.search import MODES
from ..settings import Settings
from .beir import load_dataset
from .runner import EvalRunner

Log = Callable[[str], None]

# Run by the reference Python: argv = model dir, texts.json, out.npy; prints JSON.
_REFERENCE_SCRIPT = r"""
import json, sys, time
import numpy as np, torch
from sentence_transformers import SentenceTransformer
model_dir, texts_path, out_path = sys.argv[1:4]
texts = json.load(open(texts_path, encoding="utf-8"))
model = SentenceTransformer(model_dir, device="cpu")
model.encode(texts[:64], batch_size=32, normalize_embeddings=True)
t0 = time.perf_counter()
vectors = model.encode(texts, batch_size=32, normalize_embeddings=True)
seconds = time.perf_counter() - t0
np.save(out_path, np.asarray(vectors, dtype=np.float32))
print(json.dumps({"seconds": seconds, "torch": torch.__version__, "threads": torch.get_num_threads()}))
"""


def _peak_rss_mb(who: int) -> float:
    return round(resource.getrusage(who).ru_maxrss / 1024, 1)  # Linux reports KiB


def _percentiles(values: list[float]) -> dict[str, float]:
    return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2),
            "mean": round(float(np.mean(values)), 2), "queries": len(values)}


def chunk_texts(corpus: Path, settings: Settings, n: int, token_length: LengthFn | None = None) -> list[str]:
    """The first ``n`` index texts (``title\\nchunk``) the pipeline would embed for ``corpus``."""
    chunker = make_chunker(settings.chunking, token_length=token_length)
    texts: list[str] = []
    for document in JsonLinesLoader().load(corpus.read_bytes(), corpus.name):
        if isinstance(document, LoaderError):  # a malformed record: the corpus is broken
            raise document
        for chunk in chunker.chunk(document):
            texts.append(index_text(document.title, chunk.text))
            if len(texts) == n:
                return texts
    return texts


def _reference(texts: list[str], ours: np.ndarray, ours_rate: float, python: Path | None, log: Log) -> dict[str, Any]:
    """sentence-transformers fp32 on the same texts, in the given Python (or this one)."""
    from ..embed.minilm import default_model_dir

    if python is None:
        try:
            import sentence_transformers  # noqa: F401
        except ImportError:
            return {"status": "not installed"}
        python = Path(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        texts_path, out_path = Path(tmp) / "texts.json", Path(tmp) / "out.npy"
        texts_path.write_text(json.dumps(texts), encoding="utf-8")
        log(f"bench: sentence-transformers fp32 on {len(texts)} texts with {python}…")
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        done = subprocess.run([str(python), "-c", _REFERENCE_SCRIPT, str(default_model_dir()), str(texts_path),
                               str(out_path)], capture_output=True, text=True, env=env, timeout=3600, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            return {"status": "failed", "error": tail[0]}
        info = json.loads(done.stdout.strip().splitlines()[-1])
        theirs = np.load(out_path)
    cosine = (ours * theirs).sum(axis=1)
    rate = len(texts) / info["seconds"]
    return {"status": "measured", "runtime": f"torch {info['torch']} fp32, {info['threads']} threads",
            "seconds": round(info["seconds"], 2), "texts_per_s": round(rate, 1),
            "ratio_ragline_over_st": round(ours_rate / rate, 2),
            "cosine_min": round(float(cosine.min()), 6), "cosine_mean": round(float(cosine.mean()), 6)}


# What each measured preset sets in its child (the rest: the caller's environment, less
# any RAGLINE_PRESET, EMBEDDER__PRECISION, OVERFLOW or MAX_TOKENS it holds).
PRESET_RUNS: dict[str, dict[str, str]] = {
    "fp32": {"RAGLINE_EMBEDDER__PRECISION": "fp32"},  # the exact pipeline the others are held to
    "int8": {"RAGLINE_EMBEDDER__PRECISION": "int8"},  # the default
    "fast": {"RAGLINE_EMBEDDER__PRECISION": "int8", "RAGLINE_PRESET": "fast"},  # settings.PRESETS["fast"]
}
_PRESET_VARIABLES = ("RAGLINE_PRESET", "RAGLINE_EMBEDDER__PRECISION", "RAGLINE_EMBEDDER__OVERFLOW",
                     "RAGLINE_EMBEDDER__MAX_TOKENS")


def _preset_run(dataset_dir: Path, preset: str, models: Path, log: Log) -> dict[str, Any]:
    """``ragline eval`` (hybrid) in a child process with the preset's settings
    (``PRESET_RUNS``); its ingest seconds, peak RSS (wait4's, this child only) and nDCG@10."""
    with tempfile.TemporaryDirectory(prefix=f"ragline-bench-{preset}-") as home:
        (Path(home) / "models").symlink_to(models.resolve(), target_is_directory=True)  # built graphs are reused
        env = {k: v for k, v in os.environ.items() if k not in _PRESET_VARIABLES}
        env.update(PRESET_RUNS[preset], RAGLINE_HOME=home)
        log(f"bench: preset {preset}: ingest + hybrid eval in a child process…")
        started = time.perf_counter()
        with tempfile.TemporaryFile("w+") as errors:
            child = subprocess.Popen([sys.executable, "-c", "from ragline.cli import main; main()", "eval",
                                      str(dataset_dir), "--mode", "hybrid", "--json"],
                                     stdout=subprocess.PIPE, stderr=errors, env=env, text=True)
            assert child.stdout is not None  # stdout=PIPE
            with child.stdout:
                stdout = child.stdout.read()
            _, status, usage = os.wait4(child.pid, 0)  # reaped here: Popen.wait would lose the rusage
            child.returncode = os.waitstatus_to_exitcode(status)
            errors.seek(0)
            stderr = errors.read()
        seconds = time.perf_counter() - started
    if child.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
        return {"status": "failed", "error": tail[0]}
    row = json.loads(stdout)
    return {"status": "measured", "ingest_seconds": round(row["ingest_seconds"], 2),
            "process_seconds": round(seconds, 2), "ndcg@10": row["ndcg@10"], "recall@100": row["recall@100"],
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def run_presets(settings: Settings, dataset_dir: Path, log: Log = print) -> dict[str, Any]:
    """fp32 (exact), int8 (the default) and the fast preset side by side; the quality gap
    to the exact pipeline that issue 13 bounds at 0.005."""
    if settings.embedder.name not in ("minilm", "local"):
        return {"status": f"not applicable (embedder {settings.embedder.name})"}
    models = settings.embedder.model_cache()
    models.mkdir(parents=True, exist_ok=True)
    runs: dict[str, Any] = {name: _preset_run(dataset_dir, name, models, log) for name in PRESET_RUNS}
    fp32 = runs["fp32"]
    for name, prefix in (("int8", ""), ("fast", "fast_")):
        if fp32["status"] == runs[name]["status"] == "measured":
            runs[f"{prefix}ndcg_gap"] = round(fp32["ndcg@10"] - runs[name]["ndcg@10"], 4)
            runs[f"{prefix}ingest_speedup"] = round(fp32["ingest_seconds"] / runs[name]["ingest_seconds"], 2)
    return runs


def run_bench(settings: Settings, dataset_dir: Path, *, reference_python: Path | None = None,
              embed_texts: int = 2000, presets: bool = True, log: Log = print) -> dict[str, Any]:
    """Measure everything listed in the module docstring; returns the results.json dict."""
    dataset = load_dataset(dataset_dir, "test")
    results: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    # Other work on the machine skews every timing; the load says how much there was.
                    "load_average_1m_before": round(os.getloadavg()[0], 2)},
        "dataset": dataset.name, "chunking": settings.chunking.model_dump(),
        "search": settings.search.model_dump(),
    }
    with tempfile.TemporaryDirectory(prefix="ragline-bench-") as home:
        bench_settings = settings.model_copy(update={"home": Path(home)})
        # The ONNX graph cache stays in the real home: building it is not what is measured.
        embedder = CountingEmbedder(make_embedder(settings.embedder, cache_dir=settings.embedder.model_cache()))
        engine = Engine(bench_settings, embedder=embedder)
        runner = EvalRunner(bench_settings, dataset, engine=engine)
        try:
            results["embedder"] = embedder.model_id
            log(f"bench: ingesting {dataset.corpus} into an empty store with {embedder.model_id}…")
            first = runner.prepare()
            results["ingest"] = {
                "documents": first.added, "chunks": first.chunks, "embedded": first.embedded,
                "seconds": round(first.seconds, 2),
                "documents_per_s": round(first.added / first.seconds, 1),
                "chunks_per_s": round(first.chunks / first.seconds, 1),
                "embed_seconds": round(embedder.seconds, 2),
                "embeddings_per_s": round(first.embedded / embedder.seconds, 1) if embedder.seconds else None,
                "peak_rss_mb": _peak_rss_mb(resource.RUSAGE_SELF),
                "parser_peak_rss_mb": _peak_rss_mb(resource.RUSAGE_CHILDREN),
            }
            second = runner.prepare()
            results["reingest"] = {"seconds": round(second.seconds, 2), "unchanged": second.unchanged,
                                   "added": second.added, "updated": second.updated, "embedded": second.embedded}
            log("bench: query latency per mode (warm)…")
            k = settings.search.k
            latency: dict[str, Any] = {}
            quality: dict[str, Any] = {}
            for mode in MODES:
                for text in list(dataset.queries.values())[:5]:  # warm-up: model, vector matrix, page cache
                    engine.search(text, runner.scope, mode=mode, k=k)
                times = []
                for text in dataset.queries.values():
                    started = time.perf_counter()
                    engine.search(text, runner.scope, mode=mode, k=k)
                    times.append((time.perf_counter() - started) * 1000)
                latency[mode] = {**_percentiles(times), "k": k}
                quality[mode] = runner.run_mode(mode).to_dict()
            results["query_latency_ms"] = latency
            results["quality"] = quality

            texts = chunk_texts(dataset.corpus, settings, embed_texts, getattr(embedder, "count_tokens", None))
            log(f"bench: embedding throughput on {len(texts)} chunks…")
            embedder.inner.embed_documents(texts[:64])  # warm-up
            started = time.perf_counter()
            ours = embedder.inner.embed_documents(texts)
            seconds = time.perf_counter() - started
            rate = len(texts) / seconds
            embedding: dict[str, Any] = {"texts": len(texts), "model_id": embedder.model_id,
                                         "ragline": {"seconds": round(seconds, 2), "texts_per_s": round(rate, 1)}}
            if settings.embedder.name == "minilm":
                embedding["sentence_transformers"] = _reference(texts, ours, rate, reference_python, log)
            else:
                embedding["sentence_transformers"] = {"status": f"not applicable (embedder {settings.embedder.name})"}
            results["embedding"] = embedding
            if presets:
                results["presets"] = run_presets(settings, dataset_dir, log)
            results["machine"]["load_average_1m_after"] = round(os.getloadavg()[0], 2)
        finally:
            runner.close()
    return results


def render_markdown(results: dict[str, Any]) -> str:
    """results.json as readable tables."""
    ing, re_ing, emb = results["ingest"], results["reingest"], results["embedding"]
    lines = [
        f"# ragline bench — {results['dataset']}, {results['embedder']}",
        "",
        (f"{results['when']} · {results['machine']['cpus']} CPUs · Python {results['machine']['python']} · "
         f"load average {results['machine']['load_average_1m_before']} before, "
         f"{results['machine'].get('load_average_1m_after')} after · "
         f"chunking {results['chunking']['method']} {results['chunking']['size']}/{results['chunking']['overlap']} "
         f"{results['chunking']['unit']}"),
        "",
        "## Ingest (empty store, empty embedding cache)",
        "",
        "| documents | chunks | embedded | wall s | docs/s | chunks/s | embeddings/s | peak RSS MB | parser peak RSS MB |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        (f"| {ing['documents']} | {ing['chunks']} | {ing['embedded']} | {ing['seconds']} | {ing['documents_per_s']} | "
         f"{ing['chunks_per_s']} | {ing['embeddings_per_s']} | {ing['peak_rss_mb']} | {ing['parser_peak_rss_mb']} |"),
        "",
        (f"Unchanged re-ingest: {re_ing['seconds']} s, {re_ing['unchanged']} unchanged, "
         f"{re_ing['embedded']} embedded."),
        "",
        "## Query latency (warm, k = {k})".format(k=next(iter(results["query_latency_ms"].values()))["k"]),
        "",
        "| mode | queries | p50 ms | p95 ms | mean ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for mode, row in results["query_latency_ms"].items():
        lines.append(f"| {mode} | {row['queries']} | {row['p50']} | {row['p95']} | {row['mean']} |")
    lines += ["", "## Quality of the same collection (test split)", "",
              "| mode | nDCG@10 | recall@10 | recall@100 | MRR@10 |", "| --- | ---: | ---: | ---: | ---: |"]
    for mode, row in results["quality"].items():
        lines.append(f"| {mode} | {row['ndcg@10']} | {row['recall@10']} | {row['recall@100']} | {row['mrr@10']} |")
    ref = emb["sentence_transformers"]
    lines += ["", f"## Embedding throughput ({emb['texts']} chunks)", "",
              "| embedder | seconds | texts/s | ratio | cosine min / mean |", "| --- | ---: | ---: | ---: | --- |",
              f"| ragline ({emb['model_id']}) | {emb['ragline']['seconds']} | {emb['ragline']['texts_per_s']} | 1.0 | |"]
    if ref.get("status") == "measured":
        lines.append(f"| sentence-transformers ({ref['runtime']}) | {ref['seconds']} | {ref['texts_per_s']} | "
                     f"ragline ÷ ST = {ref['ratio_ragline_over_st']} | {ref['cosine_min']} / {ref['cosine_mean']} |")
    else:
        lines.append(f"| sentence-transformers | {ref.get('status')} {ref.get('error', '')} | | | |")
    presets = results.get("presets")
    if presets and "fp32" in presets:
        lines += ["", "## Precision presets (each in its own process and fresh home, hybrid, test split)", "",
                  "| preset | ingest s | peak RSS MB | nDCG@10 | recall@100 |", "| --- | ---: | ---: | ---: | ---: |"]
        for name in (n for n in PRESET_RUNS if n in presets):
            row = presets[name]
            if row["status"] == "measured":
                lines.append(f"| {name} | {row['ingest_seconds']} | {row['peak_rss_mb']} | {row['ndcg@10']} | "
                             f"{row['recall@100']} |")
            else:
                lines.append(f"| {name} | {row['status']}: {row.get('error', '')} | | | |")
        if "ndcg_gap" in presets:
            lines += ["", (f"int8 is {presets['ingest_speedup']}× the fp32 ingest speed; nDCG@10 gap "
                           f"(fp32 − int8) {presets['ndcg_gap']} (bound: 0.005).")]
        if "fast_ndcg_gap" in presets:
            lines += ["", (f"The fast preset (RAGLINE_PRESET=fast) is {presets['fast_ingest_speedup']}× the fp32 "
                           f"ingest speed; nDCG@10 gap (fp32 − fast) {presets['fast_ndcg_gap']} (bound: 0.005).")]
    return "\n".join(lines) + "\n"


def write_results(results: dict[str, Any], folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"json": folder / "results.json", "md": folder / "results.md"}
    paths["json"].write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    paths["md"].write_text(render_markdown(results), encoding="utf-8")
    return paths
