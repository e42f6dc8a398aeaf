"""LlamaIndex's row: ``VectorStoreIndex.from_documents`` with its default in-memory
vector store and node parser (SentenceSplitter, 1,024 tokens: an abstract stays one
node, almost always), embedded by ``HuggingFaceEmbedding`` over the local
all-MiniLM-L6-v2 folder; queries are the default dense retriever at k = 10. The
document id is kept out of the embedded text (``excluded_embed_metadata_keys``).
"""

from __future__ import annotations

import time

imports_started = time.perf_counter()

import common  # first: it sets the offline variables before any framework is imported
from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.embeddings.huggingface import HuggingFaceEmbedding


def main() -> None:
    work = common.parse_args()
    queries = common.load_queries(work)
    imports_s = time.perf_counter() - imports_started

    started = time.perf_counter()
    docs = common.load_corpus(work)
    Settings.llm = None  # retrieval only: no LLM is configured or called
    Settings.embed_model = HuggingFaceEmbedding(model_name=common.model_dir(), device="cpu", embed_batch_size=32,
                                                normalize=True)
    documents = [Document(text=common.doc_text(d), id_=d["id"], metadata={"doc_id": d["id"]},
                          excluded_embed_metadata_keys=["doc_id"], excluded_llm_metadata_keys=["doc_id"])
                 for d in docs]
    index = VectorStoreIndex.from_documents(documents)
    ingested = time.perf_counter()
    ingest_rss = common.peak_rss_mb()
    retriever = index.as_retriever(similarity_top_k=common.K)

    def search(text: str) -> list[str]:
        return [hit.node.metadata["doc_id"] for hit in retriever.retrieve(text)]

    latencies, run = common.timed_queries(queries, search, common.load_warmup(work))
    common.write_result(work, system="LlamaIndex", mode="dense", started=started, ingested=ingested,
                        imports_s=imports_s, documents=len(docs), vectors=len(index.docstore.docs),
                        ingest_rss_mb=ingest_rss, latencies=latencies, run=run,
                        versions=common.version("llama-index-core", "llama-index-embeddings-huggingface",
                                                "sentence-transformers", "torch"))


if __name__ == "__main__":
    main()
