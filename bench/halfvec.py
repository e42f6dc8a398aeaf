"""pgvector HNSW over half-precision copies of the vectors against float32, as
ragline's PostgreSQL store builds them (a float32 ``vector`` column; an index on
``embedding::halfvec(D)`` or ``embedding::vector(D)``, m 16, ef_construction 64;
queries with ef_search 200 and iterative scans): recall@10 against exact search and
p50/p95 per query, unfiltered and with half the rows filtered out, index size and
build time. Clustered 384-d vectors (``eval.backends.clustered_vectors``), 100 probes.

    .venv/bin/python bench/halfvec.py --n 100000     # → bench/halfvec.json

docs/scaling.md (PostgreSQL at scale, Dense search) quotes the figures."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import psycopg

from ragline.eval.backends import clustered_vectors

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.pg_server: the embedded PostgreSQL

DIM = 384
FORMS = {"halfvec": (f"(v::halfvec({DIM}))", "halfvec_cosine_ops", "halfvec"),
         "float32": (f"(v::vector({DIM}))", "vector_cosine_ops", "vector")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--output", type=Path, default=Path(__file__).with_name("halfvec.json"))
    args = parser.parse_args()
    from tests.pg_server import fresh_database

    n, probes_n = args.n, 100
    vectors = clustered_vectors(n + probes_n, DIM, max(10, n // 1000))
    probes, vectors = vectors[n:], vectors[:n]
    shared = np.arange(n) % 2 == 0
    out: dict = {"n": n, "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "load_average": os.getloadavg()[0]}
    with psycopg.connect(fresh_database(), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, shared bool, v vector)")
        with conn.cursor().copy("COPY t (id, shared, v) FROM STDIN") as copy:
            for i in range(n):
                copy.write_row((i, bool(shared[i]), "[" + ",".join(f"{x:.6f}" for x in vectors[i]) + "]"))
        conn.execute("SET maintenance_work_mem = '1GB'")
        for name, (expr, ops, _) in FORMS.items():
            started = time.perf_counter()
            conn.execute(f"CREATE INDEX t_{name} ON t USING hnsw ({expr} {ops}) WITH (m = 16, ef_construction = 64)")
            out[f"{name}_build_s"] = round(time.perf_counter() - started, 1)
            out[f"{name}_index_mb"] = round(conn.execute(f"SELECT pg_relation_size('t_{name}')").fetchone()[0] / 2**20, 1)
        conn.execute("VACUUM ANALYZE t")
        conn.execute("SET hnsw.ef_search = 200")
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        for label, mask, where in (("all rows", np.ones(n, bool), ""), ("half the rows", shared, "WHERE shared")):
            rows = np.flatnonzero(mask)
            truth = [set(rows[np.argsort(-(vectors[mask] @ p))[:10]]) for p in probes]
            for name, (expr, _, cast) in FORMS.items():
                times, recall = [], []
                for probe, true in zip(probes, truth, strict=True):
                    text = "[" + ",".join(f"{x:.6f}" for x in probe) + "]"
                    started = time.perf_counter()
                    found = conn.execute(f"SELECT id FROM t {where} ORDER BY {expr} <=> %s::{cast}({DIM}) LIMIT 10",
                                         (text,)).fetchall()
                    times.append((time.perf_counter() - started) * 1000)
                    recall.append(len({r[0] for r in found} & true) / 10)
                out[f"{label}, {name}"] = {"recall@10": round(float(np.mean(recall)), 3),
                                           "p50_ms": round(float(np.percentile(times, 50)), 2),
                                           "p95_ms": round(float(np.percentile(times, 95)), 2)}
    args.output.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
