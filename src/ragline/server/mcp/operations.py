"""What the MCP tools and resources do, over the ``Engine``, for one caller.

Every operation takes the caller's ``ApiKeyInfo`` (the key decides the tenant) and
the owner it names; ``server.deps.bound_owner`` turns these into the owner it acts
as, exactly as the REST API does (an owner-bound key stays bound; naming another
owner is refused). Nothing here is MCP-specific: results are plain JSON objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ...engine import Engine
from ...errors import NotFoundError
from ...models import Hit, Scope
from ...store.types import ApiKeyInfo
from ..deps import bound_owner

if TYPE_CHECKING:
    from ...answer import Answer

URI_SCHEME = "ragline"


def document_uri(doc_id: str) -> str:
    return f"{URI_SCHEME}://documents/{doc_id}"


def passage_uri(doc_id: str, chunk_id: str) -> str:
    return f"{URI_SCHEME}://documents/{doc_id}/passages/{chunk_id}"


class Operations:
    """Read-only operations of one engine, each scoped by the caller's key."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def scope(self, who: ApiKeyInfo, collections: list[str] | None, owner: str | None) -> Scope:
        """The caller's scope over the named collections (default: all of the tenant's);
        a name the tenant does not have is ``NotFoundError``, as over REST."""
        existing = [c.name for c in self.engine.collections_seen_by(who.tenant, who.owner)]
        names = list(dict.fromkeys(collections)) if collections else existing
        for name in names:
            if name not in existing:
                raise NotFoundError(f"collection {name!r} not found")
        if not names:
            raise NotFoundError(f"tenant {who.tenant!r} has no collections yet")
        return Scope(who.tenant, tuple(names), bound_owner(who.owner, owner))

    def list_collections(self, who: ApiKeyInfo) -> list[dict[str, Any]]:
        return [{"name": c.name, "documents": c.documents, "chunks": c.chunks, "model": c.model_id,
                 "language": c.config.get("language")} for c in self.engine.collections_seen_by(who.tenant, who.owner)]

    def list_documents(self, who: ApiKeyInfo, collection: str, owner: str | None) -> list[dict[str, Any]]:
        scope = self.scope(who, [collection], owner)
        return [{"id": d.id, "uri": document_uri(d.id), "source": d.source, "title": d.title,
                 "media_type": d.media_type, "owner": d.owner, "chunks": d.chunks, "metadata": d.metadata}
                for d in self.engine.list_documents(scope)]

    def search(self, who: ApiKeyInfo, query: str, collections: list[str] | None, owner: str | None,
               k: int, mode: str | None) -> dict[str, Any]:
        result = self.engine.search(query, self.scope(who, collections, owner), k=k, mode=mode)
        return {"hits": [{**hit.to_dict(), "uri": passage_uri(hit.doc_id, hit.chunk_id)} for hit in result.hits],
                "mode": result.mode, "degraded": result.degraded}

    def ask(self, who: ApiKeyInfo, question: str, collections: list[str] | None, owner: str | None) -> dict[str, Any]:
        """The server's configured generator answers (a client cannot pick another);
        each citation carries the passage it quotes and the URI to read it again."""
        # Without stream=True, Engine.ask returns a whole Answer.
        result = cast("Answer", self.engine.ask(question, self.scope(who, collections, owner)))
        answer = result.to_dict(details=True)
        sources = {s["n"]: s for s in answer["details"]["sources"]}
        citations = [{**c, "title": sources.get(c["n"], {}).get("title"), "text": sources.get(c["n"], {}).get("text"),
                      "uri": passage_uri(c["doc_id"], c["chunk_id"])} for c in answer["citations"]]
        return {"answer": answer["answer"], "citations": citations, "abstained": answer["abstained"],
                "generator": answer["generator"], "fallback_reason": answer["fallback_reason"],
                "grounding": answer["grounding"]}

    def passage(self, who: ApiKeyInfo, doc_id: str, chunk_id: str, owner: str | None) -> dict[str, Any]:
        hit = self._passage(who, doc_id, chunk_id, owner)
        return {"doc_id": hit.doc_id, "chunk_id": hit.chunk_id, "collection": hit.collection, "source": hit.source,
                "title": hit.title, "page": hit.page, "section": hit.section, "text": hit.text,
                "uri": passage_uri(hit.doc_id, hit.chunk_id)}

    def _passage(self, who: ApiKeyInfo, doc_id: str, chunk_id: str, owner: str | None) -> Hit:
        hit = self.engine.passage(self.scope(who, None, owner), chunk_id)
        if hit is None or hit.doc_id != doc_id:
            raise NotFoundError(f"passage {chunk_id!r} of document {doc_id!r} not found")
        return hit

    def document_text(self, who: ApiKeyInfo, doc_id: str, owner: str | None) -> str:
        """A document's stored text: its chunks in order, overlaps removed (what was
        indexed, not the original file)."""
        scope = self.scope(who, None, owner)
        if self.engine.get_document(scope, doc_id) is None:
            raise NotFoundError(f"document {doc_id!r} not found")
        parts, covered = [], 0
        for hit in self.engine.passages(scope, doc_id):
            if hit.end > covered:  # chunks overlap: keep only what the previous ones did not cover
                parts.append(hit.text[max(0, covered - hit.start):])
                covered = hit.end
        return "".join(parts)
