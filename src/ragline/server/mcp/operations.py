"""What the MCP tools and resources do, over the ``Engine``, for one caller.

Every operation takes the caller's ``ApiKeyInfo`` (the key decides the tenant) and
the owner it names; ``server.deps.bound_owner`` turns these into the owner it acts
as, exactly as the REST API does (an owner-bound key stays bound; naming another
owner is refused). Nothing here is MCP-specific: results are plain JSON objects."""

from __future__ import annotations

import re
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
        each citation carries the passage it quotes and the URI to read it again.
        Citations are numbered 1, 2, … in the order the answer first cites them (the
        engine numbers them by the context's sources, so an answer could open with [2])."""
        # Without stream=True, Engine.ask returns a whole Answer.
        result = cast("Answer", self.engine.ask(question, self.scope(who, collections, owner)))
        answer = result.to_dict(details=True)
        sources = {s["n"]: s for s in answer["details"]["sources"]}
        order = renumbering(answer["answer"], [c["n"] for c in answer["citations"]])
        citations = sorted(({**c, "n": order[c["n"]], "title": sources.get(c["n"], {}).get("title"),
                             "text": sources.get(c["n"], {}).get("text"),
                             "uri": passage_uri(c["doc_id"], c["chunk_id"])} for c in answer["citations"]),
                           key=lambda c: c["n"])
        grounding = {**answer["grounding"], "claims": [
            {**claim, "text": renumber(claim["text"], order), "cited": [order.get(n, n) for n in claim["cited"]]}
            for claim in answer["grounding"].get("claims", [])]}
        return {"answer": renumber(answer["answer"], order), "citations": citations, "abstained": answer["abstained"],
                "generator": answer["generator"], "fallback_reason": answer["fallback_reason"],
                "grounding": grounding}

    def resources(self, who: ApiKeyInfo, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """A page of the documents the caller sees in every collection of its tenant
        (shared ones, and an owner-bound key's own), as MCP resources; and whether
        more follow."""
        names = [c.name for c in self.engine.list_collections(who.tenant)]
        if not names:
            return [], False
        documents = self.engine.list_documents(Scope(who.tenant, tuple(names), bound_owner(who.owner, None)))
        page = [{"uri": document_uri(d.id), "name": d.source, "title": d.title or d.source,
                 "description": f"{d.collection}: {d.source}", "mime_type": "text/plain"}
                for d in documents[offset:offset + limit]]
        return page, offset + limit < len(documents)

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


_MARKERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def renumbering(text: str, cited: list[int]) -> dict[int, int]:
    """Old citation number → new: 1, 2, … in the order ``text`` first cites them,
    then any cited only in the list."""
    seen: list[int] = []
    for marker in _MARKERS.finditer(text):
        for number in (int(n) for n in marker.group(1).split(",")):
            if number in cited and number not in seen:
                seen.append(number)
    seen += [n for n in cited if n not in seen]
    return {old: new for new, old in enumerate(seen, 1)}


def renumber(text: str, order: dict[int, int]) -> str:
    """``text`` with its ``[n]`` (and ``[n, m]``) markers renumbered by ``order``."""
    def one(marker: re.Match[str]) -> str:
        numbers = [int(n) for n in marker.group(1).split(",")]
        if not all(n in order for n in numbers):
            return marker.group(0)  # not a citation ("[2020]")
        return "[" + ", ".join(str(order[n]) for n in numbers) + "]"

    return _MARKERS.sub(one, text)
