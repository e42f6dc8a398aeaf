"""Cold start of the ``ragline`` command (issue 13): how long a fresh ``ragline search``
and ``ragline ask`` (the extractive generator) take from the shell, store already filled.

Ingests ``src/ragline/sample`` into a scratch ``RAGLINE_HOME`` once (or uses ``--home``),
warms the on-disk model cache with one untimed search, then runs each command ``--runs``
times as a new process, alternating them. It reports the median wall time and the median
CPU time (user + sys of the child: the steadier figure on a shared machine), with the
load average, and writes ``bench/cold_start.json`` and ``bench/cold_start.md``.

Bytecode: an installed ragline has its ``.pyc`` files; a checkout run with
``PYTHONDONTWRITEBYTECODE=1`` compiles every ragline module on every start (~0.07 s of
CPU here). ``--bytecode cached`` (the default) gives the children a private
``PYTHONPYCACHEPREFIX`` (nothing is written into the tree), as a user would have;
``--bytecode as-is`` keeps the caller's environment.

    .venv/bin/python bench/cold_start.py --runs 7
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "ragline" / "sample"
COMMANDS = {
    "search": ["search", "overdraft fee", "--json"],
    "ask": ["ask", "What is the fee for an unarranged overdraft?", "--json"],
}
TARGETS = {"search": 0.5, "ask": 0.8}  # seconds of wall time, issue 13


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One cold run: (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ragline", *args], check=False, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"ragline {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    if not json.loads(done.stdout):
        raise SystemExit(f"ragline {' '.join(args)} returned nothing: is the store filled?")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(home: Path, runs: int, pycache: Path | None = None) -> dict:
    env = {**os.environ, "RAGLINE_HOME": str(home)}
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if not (home / "ragline.sqlite").is_file():
        subprocess.run([sys.executable, "-m", "ragline", "ingest", str(SAMPLE), "--json"], env=env, check=True,
                       capture_output=True)
    for args in COMMANDS.values():  # builds the model caches (and bytecode) once: not a cold start's cost
        _run(args, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    load_before = os.getloadavg()
    for _ in range(runs):
        for name, args in COMMANDS.items():
            samples[name].append(_run(args, env))
    load_after = os.getloadavg()
    results = {}
    for name, pairs in samples.items():
        walls, cpus = [w for w, _ in pairs], [c for _, c in pairs]
        results[name] = {"runs": runs, "wall_median_s": round(statistics.median(walls), 3),
                         "wall_min_s": round(min(walls), 3), "cpu_median_s": round(statistics.median(cpus), 3),
                         "target_wall_s": TARGETS[name]}
    return {"commands": {name: " ".join(["ragline", *args]) for name, args in COMMANDS.items()},
            "results": results, "loadavg_1m": [round(load_before[0], 2), round(load_after[0], 2)],
            "bytecode": "cached" if pycache is not None else "as-is", "cpus": os.cpu_count(), "python": sys.version.split()[0], "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                          time.gmtime())}


def to_markdown(report: dict) -> str:
    runs = next(iter(report["results"].values()))["runs"]
    load = report["loadavg_1m"]
    lines = ["# Cold start (`bench/cold_start.py`)", "",
             (f"{report['date']}, {report['cpus']} CPUs, load average (1 min) {load[0]} before, {load[1]} after; "
              f"medians of {runs} runs; bytecode {report['bytecode']}."), "",
             "| command | wall median | wall min | CPU median (user+sys) | target (wall) |",
             "| --- | --- | --- | --- | --- |"]
    for name, r in report["results"].items():
        lines.append(f"| `{report['commands'][name]}` | {r['wall_median_s']:.2f} s | {r['wall_min_s']:.2f} s | "
                     f"{r['cpu_median_s']:.2f} s | ≤ {r['target_wall_s']} s |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--home", type=Path, help="a RAGLINE_HOME to use (default: a scratch one, filled once)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "cold_start")
    parser.add_argument("--bytecode", choices=("cached", "as-is"), default="cached")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    with tempfile.TemporaryDirectory(prefix="ragline-cold-") as scratch:
        pycache = Path(scratch) / "pycache" if args.bytecode == "cached" else None
        report = measure(args.home or Path(scratch) / "home", args.runs, pycache)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(to_markdown(report))
    sys.stdout.write(to_markdown(report))


if __name__ == "__main__":
    main()
