"""The REST API's routes as data: each method of ``Routes`` describes one request
(``Call``) and how to read its answer, once. ``Client`` sends a call and returns
the result; ``AsyncClient`` sends it and returns an awaitable of the same result,
so every route is written here only once for both."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .types import Answer, Collection, Conversation, Document, Job, Match, Me, Passage, SearchResult, Usage


@dataclass(frozen=True)
class Call:
    """One request and the function that turns its JSON answer into the result."""

    method: str
    path: str
    params: dict[str, Any] | None = None
    json: Any = None
    data: dict[str, Any] | None = None
    files: list[tuple[str, tuple[str, bytes]]] | None = None
    parse: Callable[[Any], Any] = lambda body: body


def _params(**values: Any) -> dict[str, Any]:
    """Query parameters without the unset ones."""
    return {k: v for k, v in values.items() if v is not None}


def _jobs(body: dict[str, Any]) -> list[Job]:
    return [Job.model_validate(j) for j in body["jobs"]]


def _retrieval(collection: str, collections: Sequence[str] | None, owner: str | None) -> dict[str, Any]:
    return _params(collection=collection, collections=list(collections) if collections else None, owner=owner)


def _file_part(item: str | Path | tuple[str, bytes | BinaryIO]) -> tuple[str, tuple[str, bytes]]:
    """A ``files`` multipart part from a path, or from (file name, bytes or binary file)."""
    if isinstance(item, tuple):
        name, content = item
        return "files", (name, content if isinstance(content, bytes) else content.read())
    path = Path(item)
    return "files", (path.name, path.read_bytes())


class Routes:
    """Every route of the API as a method; ``_run(call)`` is the transport's."""

    def _run(self, call: Call) -> Any:
        raise NotImplementedError

    # -- identity and collections ---------------------------------------------
    def me(self) -> Me:
        """The tenant this key belongs to (and the owner it is bound to, if any)."""
        return self._run(Call("GET", "/v1/me", parse=Me.model_validate))

    def collections(self) -> list[Collection]:
        """The tenant's collections with their document and chunk counts."""
        return self._run(Call("GET", "/v1/collections",
                              parse=lambda b: [Collection.model_validate(c) for c in b["collections"]]))

    def collection(self, name: str) -> Collection:
        return self._run(Call("GET", f"/v1/collections/{name}", parse=Collection.model_validate))

    def create_collection(self, name: str, *, chunking: dict[str, Any] | None = None,
                          language: str | None = None) -> Collection:
        """A new collection; its chunking (``{"size": 500, "overlap": 50}``) is fixed from now on."""
        body = _params(name=name, chunking=chunking, language=language)
        return self._run(Call("POST", "/v1/collections", json=body, parse=Collection.model_validate))

    def delete_collection(self, name: str) -> None:
        return self._run(Call("DELETE", f"/v1/collections/{name}", parse=lambda _: None))

    # -- documents and jobs ---------------------------------------------------
    def _upload_call(self, collection: str, files: Sequence[str | Path | tuple[str, bytes | BinaryIO]],
                     owner: str | None, password: str | None) -> Call:
        return Call("POST", f"/v1/collections/{collection}/documents", files=[_file_part(f) for f in files],
                    data=_params(owner=owner, password=password), parse=_jobs)

    def _texts_call(self, collection: str, documents: Sequence[str | dict[str, Any]], owner: str | None) -> Call:
        docs = [{"text": d} if isinstance(d, str) else d for d in documents]
        return Call("POST", f"/v1/collections/{collection}/documents/text", json=_params(documents=docs, owner=owner),
                    parse=_jobs)

    def documents(self, collection: str, *, owner: str | None = None) -> list[Document]:
        """The collection's documents with their state and latest job."""
        return self._run(Call("GET", f"/v1/collections/{collection}/documents", params=_params(owner=owner),
                              parse=lambda b: [Document.model_validate(d) for d in b["documents"]]))

    def document(self, doc_id: str, *, owner: str | None = None) -> Document:
        return self._run(Call("GET", f"/v1/documents/{doc_id}", params=_params(owner=owner),
                              parse=Document.model_validate))

    def delete_document(self, doc_id: str, *, owner: str | None = None) -> None:
        return self._run(Call("DELETE", f"/v1/documents/{doc_id}", params=_params(owner=owner), parse=lambda _: None))

    def reingest(self, doc_id: str, *, owner: str | None = None) -> Job:
        return self._run(Call("POST", f"/v1/documents/{doc_id}/reingest", params=_params(owner=owner),
                              parse=Job.model_validate))

    def passage(self, doc_id: str, chunk_id: str, *, owner: str | None = None) -> Passage:
        """The stored passage a citation points at (``citation.doc_id``, ``citation.chunk_id``)."""
        return self._run(Call("GET", f"/v1/documents/{doc_id}/chunks/{chunk_id}", params=_params(owner=owner),
                              parse=Passage.model_validate))

    def job(self, job_id: str) -> Job:
        return self._run(Call("GET", f"/v1/jobs/{job_id}", parse=Job.model_validate))

    def jobs(self, *, collection: str | None = None, state: str | None = None, limit: int | None = None,
             owner: str | None = None) -> list[Job]:
        """The tenant's jobs, newest first."""
        return self._run(Call("GET", "/v1/jobs", params=_params(collection=collection, state=state, limit=limit,
                                                               owner=owner), parse=_jobs))

    def retry_job(self, job_id: str) -> Job:
        return self._run(Call("POST", f"/v1/jobs/{job_id}/retry", parse=Job.model_validate))

    # -- retrieval and answers ------------------------------------------------
    def search(self, query: str, *, collection: str = "default", collections: Sequence[str] | None = None,
               mode: str | None = None, k: int | None = None, threshold: float | None = None,
               filters: dict[str, Any] | None = None, owner: str | None = None) -> SearchResult:
        """Hybrid, dense or keyword search; the hits are ``ragline search --json``'s."""
        body = {**_retrieval(collection, collections, owner),
                **_params(query=query, mode=mode, k=k, threshold=threshold, filters=filters)}
        return self._run(Call("POST", "/v1/search", json=body, parse=SearchResult.model_validate))

    def _ask_body(self, question: str, collection: str, collections: Sequence[str] | None, owner: str | None,
                  extra: dict[str, Any], stream: bool) -> dict[str, Any]:
        return {**_retrieval(collection, collections, owner), **_params(question=question, **extra), "stream": stream}

    def ask(self, question: str, *, collection: str = "default", collections: Sequence[str] | None = None,
            owner: str | None = None, mode: str | None = None, filters: dict[str, Any] | None = None,
            generator: str | None = None, conversation_id: str | None = None,
            options: dict[str, Any] | None = None, rag_options: dict[str, Any] | None = None) -> Answer:
        """A grounded answer with numbered citations (or an abstention), as one turn of
        a conversation (``conversation_id`` continues one; the answer names it)."""
        extra = {"mode": mode, "filters": filters, "generator": generator, "conversation_id": conversation_id,
                 "options": options, "rag_options": rag_options}
        body = self._ask_body(question, collection, collections, owner, extra, stream=False)
        return self._run(Call("POST", "/v1/ask", json=body, parse=Answer.model_validate))

    # -- usage ----------------------------------------------------------------
    def usage(self, *, since: str | None = None) -> Usage:
        """The tenant's usage from day ``since`` (``YYYY-MM-DD``) on (a key without an owner)."""
        return self._run(Call("GET", "/v1/usage", params=_params(since=since), parse=Usage.model_validate))

    def matches(self, collection: str = "default", *, level: str = "chunk", order: str = "most",
                limit: int | None = None) -> list[Match]:
        """The collection's most (``order="most"``) or never matched chunks or documents."""
        params = _params(collection=collection, level=level, order=order, limit=limit)
        return self._run(Call("GET", "/v1/usage/matches", params=params,
                              parse=lambda b: [Match.model_validate(m) for m in b["items"]]))

    # -- conversations --------------------------------------------------------
    def conversations(self, *, owner: str | None = None, limit: int | None = None) -> list[Conversation]:
        """The owner's conversations, most recently updated first."""
        return self._run(Call("GET", "/v1/conversations", params=_params(owner=owner, limit=limit),
                              parse=lambda b: [Conversation.model_validate(c) for c in b["conversations"]]))

    def conversation(self, conversation_id: str, *, owner: str | None = None, last: int | None = None) -> Conversation:
        """One conversation with its messages (``history``), oldest first."""
        return self._run(Call("GET", f"/v1/conversations/{conversation_id}", params=_params(owner=owner, last=last),
                              parse=Conversation.model_validate))

    def create_conversation(self, *, title: str | None = None, collections: Sequence[str] | None = None,
                            owner: str | None = None) -> Conversation:
        body = _params(title=title, collections=list(collections) if collections else None, owner=owner)
        return self._run(Call("POST", "/v1/conversations", json=body, parse=Conversation.model_validate))

    def rename_conversation(self, conversation_id: str, title: str, *, owner: str | None = None) -> Conversation:
        return self._run(Call("PATCH", f"/v1/conversations/{conversation_id}", params=_params(owner=owner),
                              json={"title": title}, parse=Conversation.model_validate))

    def delete_conversation(self, conversation_id: str, *, owner: str | None = None) -> None:
        return self._run(Call("DELETE", f"/v1/conversations/{conversation_id}", params=_params(owner=owner),
                              parse=lambda _: None))
