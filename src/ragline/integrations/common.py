"""What the framework adapters share: where hits come from (an ``Engine`` with a
``Scope``, or a REST ``Client`` / ``AsyncClient``) and the metadata each hit carries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError


@dataclass(frozen=True)
class HitSource:
    """Search arguments for one retriever: the library (``engine`` + ``scope``) or a
    server (``client``, with ``collections`` and ``owner``; the key decides the tenant)."""

    engine: Any = None
    scope: Any = None
    client: Any = None
    collections: Sequence[str] | None = None
    owner: str | None = None
    k: int = 4
    mode: str | None = None
    filters: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.engine is None) == (self.client is None):
            raise ConfigError("give either engine= (with scope=) or client=, not both or neither")
        if self.engine is not None and self.scope is None:
            raise ConfigError("engine= needs scope=Scope(tenant, collections, owner)")

    @property
    def is_async(self) -> bool:
        from ..client import AsyncClient

        return isinstance(self.client, AsyncClient)

    def _client_args(self) -> dict[str, Any]:
        return {"collections": list(self.collections or ["default"]), "owner": self.owner, "k": self.k,
                "mode": self.mode, "filters": self.filters}

    def search(self, query: str) -> list[Any]:
        """The hits for ``query`` (``ragline.Hit`` or ``ragline.client.Hit``: the same fields)."""
        if self.engine is not None:
            return self.engine.search(query, self.scope, k=self.k, mode=self.mode, filters=self.filters).hits
        if self.is_async:
            raise ConfigError("an AsyncClient is searched with the retriever's async methods")
        return self.client.search(query, **self._client_args()).hits

    async def asearch(self, query: str) -> list[Any]:
        """``search`` for async code: awaits an ``AsyncClient``, else runs ``search`` in a thread."""
        if self.is_async:
            return (await self.client.search(query, **self._client_args())).hits
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.search, query)


def hit_metadata(hit: Any) -> dict[str, Any]:
    """ragline's facts about a hit, as framework metadata."""
    return {"score": float(hit.score), "source": hit.source, "page": hit.page, "title": hit.title,
            "section": hit.section, "doc_id": hit.doc_id, "chunk_id": hit.chunk_id, "collection": hit.collection,
            "owner": hit.owner, "document_metadata": dict(hit.metadata)}
