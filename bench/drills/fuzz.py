"""Hostile-input drill: fuzz every loader and the filter grammar with Hypothesis.

Loaders get random bytes behind each format's real header (and mutations of the
real test files: truncated, bit-flipped) through the parser sandbox, as uploads
are parsed; filters get random JSON. The contract: a ``LoaderError`` or
``ConfigError`` naming the problem, or a result — never another exception, a hang
or a crash of the calling process. The API itself is fuzzed from its OpenAPI
schema by tests/integration/test_openapi_schema.py (``RAGLINE_FUZZ_EXAMPLES`` sets its size).

    .venv/bin/python -m bench.drills.fuzz [--examples 200]

Writes bench/drills/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragline.errors import ConfigError, LoaderError
from ragline.ingest.sandbox import ParserSandbox
from ragline.settings import LimitSettings
from ragline.store.filters import parse_filters

from .common import write

HEADERS = {".pdf": b"%PDF-1.7\n", ".docx": b"PK\x03\x04", ".html": b"<!doctype html><html><body>",
           ".md": b"# ", ".txt": b"", ".csv": b"a,b,c\n", ".json": b"[{\"text\": ", ".jsonl": b"{\"text\": \"",
           ".xml": b"<?xml version=\"1.0\"?>"}
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "testdata"


def fuzz_loaders(examples: int, sandbox: ParserSandbox, workdir: Path) -> dict:
    outcomes: Counter[str] = Counter()
    unexpected: list[str] = []

    def check(suffix: str, data: bytes) -> None:
        path = workdir / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            items = sandbox.parse(path, path.name)
        except LoaderError:
            outcomes["loader_error"] += 1
            return
        except Exception as exc:  # noqa: BLE001 — exactly what the drill looks for
            unexpected.append(f"{suffix}: {type(exc).__name__}: {str(exc)[:200]}")
            return
        outcomes["error_items" if any(isinstance(i, LoaderError) for i in items) else "parsed"] += 1

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.sampled_from(sorted(HEADERS)), st.binary(max_size=4096))
    def random_bytes(suffix: str, tail: bytes) -> None:
        check(suffix, HEADERS[suffix] + tail)

    random_bytes()
    rng = random.Random(0)
    real = sorted(SAMPLES.rglob("*.pdf"))[:10] if SAMPLES.exists() else []
    for sample in real:  # mutations of real files: cut short, and bytes flipped
        data = bytearray(sample.read_bytes())
        check(".pdf", bytes(data[: len(data) // 2]))
        for _ in range(5):
            data[rng.randrange(len(data))] ^= 0xFF
        check(".pdf", bytes(data))
    return {"cases": sum(outcomes.values()) + len(unexpected), "outcomes": dict(outcomes),
            "unexpected": unexpected[:20], "unexpected_count": len(unexpected), "real_files_mutated": len(real)}


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
                    max_leaves=20)


OPERATORS = st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$like"])


def fuzz_filters(examples: int) -> dict:
    outcomes: Counter[str] = Counter()
    unexpected: list[str] = []

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.dictionaries(st.text(max_size=12) | st.sampled_from(["$and", "$or", "page", "year"]), JSON, max_size=6)
           | st.dictionaries(st.sampled_from(["page", "year", "lang", "chapter"]),
                             st.integers() | st.text(max_size=8) | st.dictionaries(OPERATORS, JSON, max_size=3),
                             max_size=4))
    def random_filters(value: dict) -> None:
        try:
            parse_filters(value)
            outcomes["parsed"] += 1
        except ConfigError:
            outcomes["config_error"] += 1
        except Exception as exc:  # noqa: BLE001
            unexpected.append(f"{value!r:.200}: {type(exc).__name__}: {exc}")

    random_filters()
    return {"cases": sum(outcomes.values()) + len(unexpected), "outcomes": dict(outcomes),
            "unexpected": unexpected[:20], "unexpected_count": len(unexpected)}


def run(examples: int, output: Path | None = None) -> dict:
    started = time.monotonic()
    sandbox = ParserSandbox(LimitSettings(parse_timeout_s=10))
    try:
        with tempfile.TemporaryDirectory(prefix="ragline-fuzz-") as workdir:
            loaders = fuzz_loaders(examples, sandbox, Path(workdir))
    finally:
        sandbox.close()
    result = {"examples": examples, "loaders": loaders, "filters": fuzz_filters(examples * 5),
              "seconds": round(time.monotonic() - started, 1)}
    write("fuzz", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.examples, args.output)


if __name__ == "__main__":
    main()
