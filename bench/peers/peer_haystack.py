"""Haystack's row, hybrid: an indexing pipeline (SentenceTransformersDocumentEmbedder
(Haystack 3 ships it in ``sentence-transformers-haystack``) over the local all-MiniLM-L6-v2
folder → DocumentWriter into an InMemoryDocumentStore)
and a query pipeline that joins InMemoryBM25Retriever and InMemoryEmbeddingRetriever
(top 10 each) with DocumentJoiner's reciprocal rank fusion, keeping 10. This is the
hybrid recipe of Haystack's own documentation.
"""

from __future__ import annotations

import time

imports_started = time.perf_counter()

import common  # first: it sets the offline variables before any framework is imported
from haystack import Document, Pipeline
from haystack.components.joiners import DocumentJoiner
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever, InMemoryEmbeddingRetriever
from haystack.components.writers import DocumentWriter
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack_integrations.components.embedders.sentence_transformers import (
    SentenceTransformersDocumentEmbedder,
    SentenceTransformersTextEmbedder,
)


def main() -> None:
    work = common.parse_args()
    queries = common.load_queries(work)
    imports_s = time.perf_counter() - imports_started

    started = time.perf_counter()
    docs = common.load_corpus(work)
    model = common.model_dir()
    store = InMemoryDocumentStore(embedding_similarity_function="cosine")
    indexing = Pipeline()
    indexing.add_component("embedder", SentenceTransformersDocumentEmbedder(model=model, batch_size=32,
                                                                            progress_bar=False, local_files_only=True,
                                                                            normalize_embeddings=True))
    indexing.add_component("writer", DocumentWriter(document_store=store))
    indexing.connect("embedder.documents", "writer.documents")
    indexing.run({"embedder": {"documents": [Document(id=d["id"], content=common.doc_text(d)) for d in docs]}})
    ingested = time.perf_counter()
    ingest_rss = common.peak_rss_mb()

    query = Pipeline()
    query.add_component("text_embedder", SentenceTransformersTextEmbedder(model=model, progress_bar=False,
                                                                          local_files_only=True,
                                                                          normalize_embeddings=True))
    query.add_component("dense", InMemoryEmbeddingRetriever(document_store=store, top_k=common.K))
    query.add_component("bm25", InMemoryBM25Retriever(document_store=store, top_k=common.K))
    query.add_component("joiner", DocumentJoiner(join_mode="reciprocal_rank_fusion", top_k=common.K))
    query.connect("text_embedder.embedding", "dense.query_embedding")
    query.connect("dense.documents", "joiner.documents")
    query.connect("bm25.documents", "joiner.documents")

    def search(text: str) -> list[str]:
        out = query.run({"text_embedder": {"text": text}, "bm25": {"query": text}})
        return [doc.id for doc in out["joiner"]["documents"]]

    latencies, run = common.timed_queries(queries, search, common.load_warmup(work))
    common.write_result(work, system="Haystack", mode="hybrid", started=started, ingested=ingested,
                        imports_s=imports_s, documents=len(docs), vectors=store.count_documents(),
                        ingest_rss_mb=ingest_rss, latencies=latencies, run=run,
                        versions=common.version("haystack-ai", "sentence-transformers-haystack",
                                                "sentence-transformers", "torch"),
                        notes="query embedder warmed up in the query pipeline's first run (untimed warm-up)")


if __name__ == "__main__":
    main()
