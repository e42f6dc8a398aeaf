"""A LangChain retriever over ragline (``pip install 'ragline[langchain]'``; needs
``langchain-core`` only).

    from ragline.integrations.langchain import RaglineRetriever

    retriever = RaglineRetriever(client=Client(url, key), collections=["handbook"], k=4)
    # or, in process: RaglineRetriever(engine=Engine(settings), scope=Scope("acme", ("handbook",)))
    docs = retriever.invoke("how do I report a lost card?")
    docs[0].metadata["score"], docs[0].metadata["source"], docs[0].metadata["page"]

Each hit is a ``langchain_core.documents.Document`` whose ``id`` is the chunk id."""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # the extra is not installed
    raise ImportError("ragline.integrations.langchain needs langchain-core: pip install 'ragline[langchain]'") from exc
from pydantic import ConfigDict, PrivateAttr

from .common import HitSource, hit_metadata


def _document(hit: Any) -> Document:
    return Document(page_content=hit.text, metadata=hit_metadata(hit), id=hit.chunk_id)


class RaglineRetriever(BaseRetriever):
    """ragline's search as a LangChain retriever: ``engine`` + ``scope`` (the library)
    or ``client`` (a ``ragline.client.Client`` or ``AsyncClient``) with ``collections``
    and ``owner``; ``k``, ``mode`` and ``filters`` as for ``ragline search``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    engine: Any = None
    scope: Any = None
    client: Any = None
    collections: list[str] | None = None
    owner: str | None = None
    k: int = 4
    mode: str | None = None
    filters: dict[str, Any] | None = None
    _source: HitSource = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self._source = HitSource(engine=self.engine, scope=self.scope, client=self.client,
                                 collections=self.collections, owner=self.owner, k=self.k, mode=self.mode,
                                 filters=self.filters)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [_document(hit) for hit in self._source.search(query)]

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        return [_document(hit) for hit in await self._source.asearch(query)]
