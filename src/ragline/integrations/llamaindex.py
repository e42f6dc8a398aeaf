"""A LlamaIndex retriever over ragline (``pip install 'ragline[llamaindex]'``; needs
``llama-index-core`` only).

    from ragline.integrations.llamaindex import RaglineRetriever

    retriever = RaglineRetriever(client=Client(url, key), collections=["handbook"], k=4)
    # or, in process: RaglineRetriever(engine=Engine(settings), scope=Scope("acme", ("handbook",)))
    nodes = retriever.retrieve("how do I report a lost card?")
    nodes[0].score, nodes[0].node.metadata["source"], nodes[0].node.metadata["page"]

Each hit is a ``NodeWithScore`` over a ``TextNode`` whose id is the chunk id and
whose source relationship names the ragline document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
except ImportError as exc:  # the extra is not installed
    raise ImportError("ragline.integrations.llamaindex needs llama-index-core: pip install 'ragline[llamaindex]'") from exc

from .common import HitSource, hit_metadata


def _node(hit: Any) -> NodeWithScore:
    node = TextNode(id_=hit.chunk_id, text=hit.text, metadata=hit_metadata(hit),
                    relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=hit.doc_id)})
    return NodeWithScore(node=node, score=float(hit.score))


class RaglineRetriever(BaseRetriever):
    """ragline's search as a LlamaIndex retriever: ``engine`` + ``scope`` (the library)
    or ``client`` (a ``ragline.client.Client`` or ``AsyncClient``) with ``collections``
    and ``owner``; ``k``, ``mode`` and ``filters`` as for ``ragline search``."""

    def __init__(self, *, engine: Any = None, scope: Any = None, client: Any = None,
                 collections: Sequence[str] | None = None, owner: str | None = None, k: int = 4,
                 mode: str | None = None, filters: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self._source = HitSource(engine=engine, scope=scope, client=client, collections=collections, owner=owner,
                                 k=k, mode=mode, filters=filters)
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [_node(hit) for hit in self._source.search(query_bundle.query_str)]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [_node(hit) for hit in await self._source.asearch(query_bundle.query_str)]
