"""LangChain + Chroma's row: the abstracts embedded with sentence-transformers
(LangChain's HuggingFaceEmbeddings over the local all-MiniLM-L6-v2 folder) and
written to a persistent Chroma collection (HNSW, cosine); queries are dense
``similarity_search`` at k = 10. Chroma has no keyword retriever of its own in
LangChain's integration, so this row is dense only.
"""

from __future__ import annotations

import time

imports_started = time.perf_counter()

import common  # first: it sets the offline variables before any framework is imported
from langchain_chroma import Chroma
from langchain_huggingface import HuggingFaceEmbeddings

BATCH = 1000  # documents per add_texts call (Chroma caps a batch at ~5,000)


def main() -> None:
    work = common.parse_args()
    queries = common.load_queries(work)
    imports_s = time.perf_counter() - imports_started

    started = time.perf_counter()
    docs = common.load_corpus(work)
    embeddings = HuggingFaceEmbeddings(model_name=common.model_dir(), model_kwargs={"device": "cpu"},
                                       encode_kwargs={"normalize_embeddings": True, "batch_size": 32})
    store = Chroma(collection_name="scifact", embedding_function=embeddings,
                   persist_directory=str(work / "chroma"), collection_metadata={"hnsw:space": "cosine"})
    for at in range(0, len(docs), BATCH):
        batch = docs[at:at + BATCH]
        store.add_texts([common.doc_text(d) for d in batch], metadatas=[{"doc_id": d["id"]} for d in batch],
                        ids=[d["id"] for d in batch])
    ingested = time.perf_counter()
    ingest_rss = common.peak_rss_mb()

    def search(text: str) -> list[str]:
        return [doc.metadata["doc_id"] for doc in store.similarity_search(text, k=common.K)]

    latencies, run = common.timed_queries(queries, search, common.load_warmup(work))
    common.write_result(work, system="LangChain + Chroma", mode="dense", started=started, ingested=ingested,
                        imports_s=imports_s, documents=len(docs), vectors=store._collection.count(),
                        ingest_rss_mb=ingest_rss, latencies=latencies, run=run,
                        versions=common.version("langchain-chroma", "chromadb", "langchain-huggingface",
                                                "sentence-transformers", "torch"))


if __name__ == "__main__":
    main()
