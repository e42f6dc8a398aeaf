"""ragline's row: ingest the prepared corpus into an empty store and search it hybrid,
through the library, in its own process run by /work/main/.venv's Python.

Settings come from the defaults plus the ``RAGLINE_*`` variables runner.py passes
for the variant measured (e.g. a fast embedder preset); the store and the embedding
cache live in a fresh home under the work folder, so nothing is reused from an
earlier run. The built model cache (``<default home>/models``) is kept, as
``ragline bench`` does: the peers also load a model already on disk.

The timed search asks for k = 10 chunks (what a caller asks for). ragline ranks
chunks, so the scored run comes from a second, untimed search deep enough to fill
10 distinct documents (chunk hits → documents by their best chunk, as
``ragline eval`` does).
"""

from __future__ import annotations

import time

imports_started = time.perf_counter()

import common  # first: it sets the offline variables before any framework is imported

from ragline.embed import make_embedder
from ragline.engine import Engine
from ragline.eval.runner import to_documents
from ragline.models import Scope
from ragline.settings import Settings

RANK_DEPTH = 40  # chunks fetched for the scored ranking: about 2 per abstract, so ≥ 10 documents


def main() -> None:
    work = common.parse_args()
    queries = common.load_queries(work)
    defaults = Settings()
    settings = defaults.model_copy(update={"home": work / "ragline-home"})
    scope = Scope("bench", ("scifact",))
    imports_s = time.perf_counter() - imports_started

    started = time.perf_counter()
    embedder = make_embedder(settings.embedder, cache_dir=defaults.embedder.model_cache())
    engine = Engine(settings, embedder=embedder)
    summary = engine.ingest([work / "corpus.jsonl"], scope)
    if summary.failed:
        raise SystemExit(f"ragline: {len(summary.failed)} records failed to load: {summary.failed[0]}")
    ingested = time.perf_counter()
    ingest_rss = common.peak_rss_mb()
    info = engine.get_collection(scope)

    def search(text: str) -> list[str]:
        return [hit.chunk_id for hit in engine.search(text, scope, mode="hybrid", k=common.K).hits]

    def rank(text: str) -> list[str]:
        hits = engine.search(text, scope, mode="hybrid", k=RANK_DEPTH).hits
        return [doc for doc, _ in to_documents(hits, settings.search.doc_aggregate)]

    latencies, run = common.timed_queries(queries, search, common.load_warmup(work), rank)
    engine.close()
    remote_only = {"api_key", "base_url", "model", "path", "dimensions", "timeout", "max_retries", "retry_backoff",
                   "retry_max_wait"}
    preset = {"preset": settings.preset, "embedder": settings.embedder.model_dump(exclude=remote_only),
              "chunking": settings.chunking.model_dump()}
    common.write_result(work, system="ragline", mode="hybrid", started=started, ingested=ingested,
                        imports_s=imports_s, documents=info.documents, vectors=info.chunks, ingest_rss_mb=ingest_rss,
                        latencies=latencies, run=run, versions=common.version("ragline", "onnxruntime", "numpy"),
                        notes=f"settings {preset}")


if __name__ == "__main__":
    main()
