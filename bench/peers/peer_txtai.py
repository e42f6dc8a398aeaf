"""txtai's row, hybrid: ``Embeddings(hybrid=True, content=True)`` over the local
all-MiniLM-L6-v2 folder with sentence-transformers (dense index: txtai's default,
Faiss; keyword side: its BM25 sparse index; content in its SQLite store, so hits
carry their text as a RAG pipeline needs). Queries are ``search(text, 10)``, which
fuses the dense and keyword scores.
"""

from __future__ import annotations

import time

imports_started = time.perf_counter()

import common  # first: it sets the offline variables before any framework is imported
from txtai import Embeddings


def main() -> None:
    work = common.parse_args()
    queries = common.load_queries(work)
    imports_s = time.perf_counter() - imports_started

    started = time.perf_counter()
    docs = common.load_corpus(work)
    embeddings = Embeddings(path=common.model_dir(), method="sentence-transformers", hybrid=True, content=True,
                            batch=32, encodebatch=32)
    embeddings.index([(d["id"], common.doc_text(d), None) for d in docs])
    ingested = time.perf_counter()
    ingest_rss = common.peak_rss_mb()

    def search(text: str) -> list[str]:
        return [str(hit["id"]) for hit in embeddings.search(text, common.K)]

    latencies, run = common.timed_queries(queries, search, common.load_warmup(work))
    common.write_result(work, system="txtai", mode="hybrid", started=started, ingested=ingested,
                        imports_s=imports_s, documents=len(docs), vectors=embeddings.count(),
                        ingest_rss_mb=ingest_rss, latencies=latencies, run=run,
                        versions=common.version("txtai", "faiss-cpu", "sentence-transformers", "torch"),
                        notes=f"scoring {embeddings.config.get('scoring')}, backend "
                              f"{embeddings.config.get('backend', 'faiss')}")


if __name__ == "__main__":
    main()
