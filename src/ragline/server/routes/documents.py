"""Documents: upload files or JSON text (→ 202 with jobs), list with state and
job progress, get, delete, re-ingest, and fetch one cited chunk."""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, Response, UploadFile

from ...ingest.loaders import supported_extensions
from ...models import OWNER_PATTERN, Scope
from ...store.types import DocumentInfo, JobInfo
from ...store.visibility import changeable_owners, may_see
from ..auth import Principal, Tenant
from ..deps import (
    CollectionPath,
    Owner,
    all_collections_scope,
    check_storage_quota,
    engine,
    note,
    note_owner,
    require_collection,
    scope_for,
)
from ..errors import ApiError, not_found, responses
from ..jobs import job_to_dict
from ..schemas import ChunkOut, DocumentList, DocumentOut, JobList, JobOut, TextDocumentsIn
from ..uploads import MAX_NAME_BYTES, PASSWORD_FILE, clean_filename

router = APIRouter(prefix="/v1", tags=["documents"], responses=responses(401, 422, 503))


def _job(request: Request, job: JobInfo) -> dict:
    return job_to_dict(job, request.app.state.runner.live(job.id))


def _document(request: Request, doc: DocumentInfo | None, job: JobInfo | None) -> dict:
    if doc is None:
        assert job is not None
        queued = _job(request, job)
        return {"id": job.doc_id, "collection": job.collection, "source": job.source, "title": None,
                "media_type": None, "owner": job.owner, "state": queued["state"], "error": job.error, "chunks": 0,
                "metadata": {}, "created": job.created, "updated": job.updated, "job": queued}
    job_out = _job(request, job) if job is not None else None
    state = job_out["state"] if job_out and job_out["state"] != "indexed" else doc.state
    return {"id": doc.id, "collection": doc.collection, "source": doc.source, "title": doc.title,
            "media_type": doc.media_type, "owner": doc.owner, "state": state,
            "error": job.error if job is not None and state == "failed" else doc.error, "chunks": doc.chunks,
            "metadata": doc.metadata, "created": doc.created, "updated": doc.updated, "job": job_out}


def _find(request: Request, who: Principal, doc_id: str, owner: str | None) -> tuple[DocumentInfo | None, JobInfo | None]:
    """The document (from the store, or only its job while it is first ingested); 404 if neither."""
    scope = all_collections_scope(request, who, owner)
    doc = engine(request).get_document(scope, doc_id) if scope is not None else None
    jobs = [j for j in engine(request).list_jobs(who.tenant, doc_id=doc_id, limit=20) if may_see(j.owner, owner)]
    if doc is not None:
        jobs = [j for j in jobs if j.collection == doc.collection]
    job = jobs[0] if jobs else None
    if doc is None and job is None:
        raise not_found(f"document {doc_id!r}")
    return doc, job


def _queued(request: Request, jobs: list[JobInfo]) -> dict:
    request.app.state.runner.notify()
    note(request, jobs=len(jobs))
    return {"jobs": [_job(request, j) for j in jobs]}


@router.post("/collections/{name}/documents", status_code=202, response_model=JobList,
             responses=responses(400, 409, 413, 415))
def upload_documents(request: Request, name: CollectionPath,
                     files: Annotated[list[UploadFile], File(description="One or more files")], who: Tenant,
                     owner: Annotated[str | None, Form(pattern=OWNER_PATTERN, examples=["alice"])] = None,
                     password: Annotated[str | None, Form(
                         max_length=1024, json_schema_extra={"format": "password"},
                         description="Password of encrypted PDFs in this upload; kept only until their jobs "
                                     "finish, never in job records or logs")] = None) -> dict:
    """Upload files; each becomes a background job (202 at once). Creates the collection if needed.
    Every file is checked (name, type, size) before any is kept or queued."""
    checked = _check_files(files, request.app.state.settings.server.max_upload_file_mb * 1024 * 1024)
    check_storage_quota(request, who, len(checked))
    scope = scope_for(request, who, name, owner)
    engine(request).collection(scope)
    uploads = request.app.state.uploads
    # Keep every file before queuing any job, so a request that fails half way queues nothing.
    kept = [(filename, *uploads.save_file(scope, filename, upload.file, password)) for filename, upload in checked]
    jobs = [engine(request).create_job(scope, doc_id=doc_id, source=filename, kind="file", path=str(path))
            for filename, doc_id, path in kept]
    return _queued(request, jobs)


def _check_files(files: list[UploadFile], limit: float) -> list[tuple[str, UploadFile]]:
    """Each upload's clean file name, or the request's first problem as an error."""
    extensions = set(supported_extensions())
    checked: list[tuple[str, UploadFile]] = []
    for upload in files:
        filename = clean_filename(upload.filename)
        if filename is None:
            shown = (upload.filename or "")[:100]
            raise ApiError(400, "bad_request", f"invalid file name {shown!r}: use a base name of 1–{MAX_NAME_BYTES} "
                                               f"bytes in UTF-8 (not {PASSWORD_FILE} or .upload-…)")
        if PurePath(filename).suffix.lower() not in extensions:
            raise ApiError(415, "unsupported_media_type",
                           f"{filename}: unsupported file type; supported: {', '.join(sorted(extensions))}")
        if upload.size is not None and upload.size > limit:
            raise ApiError(413, "payload_too_large",
                           f"{filename} is {upload.size / 1e6:.1f} MB, over the {limit / 1e6:.1f} MB per-file limit")
        if any(filename == seen for seen, _ in checked):
            raise ApiError(400, "bad_request", f"{filename} appears twice in this upload")
        checked.append((filename, upload))
    return checked


@router.post("/collections/{name}/documents/text", status_code=202, response_model=JobList,
             responses=responses(400, 409, 413))
def add_text_documents(body: TextDocumentsIn, request: Request, name: CollectionPath, who: Tenant) -> dict:
    """Add documents given as text; each becomes a background job (202 at once)."""
    check_storage_quota(request, who, len(body.documents))
    scope = scope_for(request, who, name, body.owner)
    engine(request).collection(scope)
    uploads, jobs = request.app.state.uploads, []
    for doc in body.documents:
        doc_id, source, path = uploads.save_text(scope, doc.text, doc.source, doc.title, doc.metadata)
        jobs.append(engine(request).create_job(scope, doc_id=doc_id, source=source, kind="text", path=str(path)))
    return _queued(request, jobs)


@router.get("/collections/{name}/documents", response_model=DocumentList, responses=responses(404))
def list_documents(request: Request, name: CollectionPath, who: Tenant, owner: Owner = None) -> dict:
    """The collection's documents with their state, chunk counts and latest job."""
    scope = scope_for(request, who, name, owner)
    require_collection(request, scope)
    docs = engine(request).list_documents(scope)
    jobs = {j.doc_id: j for j in engine(request).list_jobs(who.tenant, collection=name, latest_per_document=True)
            if may_see(j.owner, scope.owner)}
    out = [_document(request, d, jobs.pop(d.id, None)) for d in docs]
    # Documents still on their first ingestion (or whose first ingestion failed) exist only as jobs.
    out += [_document(request, None, j) for j in jobs.values() if j.state != "indexed"]
    return {"documents": sorted(out, key=lambda d: d["source"])}


@router.get("/documents/{doc_id}", response_model=DocumentOut, responses=responses(404))
def get_document(doc_id: str, request: Request, who: Tenant, owner: Owner = None) -> dict:
    """One document with its state and latest job."""
    doc, job = _find(request, who, doc_id, note_owner(request, owner))
    return _document(request, doc, job)


@router.delete("/documents/{doc_id}", status_code=204, response_class=Response, responses=responses(404))
def delete_document(doc_id: str, request: Request, who: Tenant, owner: Owner = None) -> Response:
    """Delete a document, its chunks, its jobs and its kept upload."""
    doc, job = _find(request, who, doc_id, note_owner(request, owner))
    found = doc if doc is not None else job
    assert found is not None  # _find raises 404 when neither exists
    collection, doc_owner = found.collection, found.owner
    if doc_owner != (owner or None):  # deletes touch exactly the caller's owner (see docs/api.md)
        raise not_found(f"document {doc_id!r}")
    scope = Scope(who.tenant, (collection,), doc_owner)
    uploads = request.app.state.uploads
    # Records files (JSON Lines) yield several documents from one upload: all go.
    from_upload = [d.id for prefix in uploads.origin_prefixes(scope, doc_id)
                   for d in engine(request).list_documents(scope, origin_prefix=prefix)]
    engine(request).delete_jobs(who.tenant, collection=collection, doc_id=doc_id)
    engine(request).delete(scope, list(dict.fromkeys([doc_id, *from_upload])))
    uploads.remove_document(scope, doc_id)
    return Response(status_code=204)


@router.post("/documents/{doc_id}/reingest", status_code=202, response_model=JobOut,
             responses=responses(403, 404, 409))
def reingest_document(doc_id: str, request: Request, who: Tenant, owner: Owner = None) -> dict:
    """Ingest the document's kept upload again (the way to retry a failed document)."""
    owner = note_owner(request, owner)
    _, job = _find(request, who, doc_id, owner)
    if job is None:
        raise ApiError(409, "conflict", f"document {doc_id!r} was not uploaded through the API; upload it again")
    if who.owner is not None and job.owner not in changeable_owners(owner):
        raise ApiError(403, "forbidden", f"this API key is bound to owner {who.owner!r}; document {doc_id!r} is "
                       "shared by the tenant, and only a key without an owner may ingest it again")
    if job.state in ("indexed", "failed"):
        engine(request).requeue_job(who.tenant, job.id)
        request.app.state.runner.notify()
    fresh = engine(request).get_job(who.tenant, job.id)
    if fresh is None:
        raise not_found(f"document {doc_id!r}")
    return _job(request, fresh)


@router.get("/documents/{doc_id}/chunks/{chunk_id}", response_model=ChunkOut, responses=responses(404))
def get_chunk(doc_id: str, chunk_id: str, request: Request, who: Tenant, owner: Owner = None) -> dict:
    """One stored passage of a document, with its text, page and title (for citations)."""
    scope = all_collections_scope(request, who, owner)
    hit = engine(request).passage(scope, chunk_id) if scope is not None else None
    if hit is None or hit.doc_id != doc_id:
        raise not_found(f"chunk {chunk_id!r} of document {doc_id!r}")
    return {"id": hit.chunk_id, "doc_id": hit.doc_id, "collection": hit.collection, "source": hit.source,
            "title": hit.title, "text": hit.text, "page": hit.page, "section": hit.section,
            "position": hit.position, "start": hit.start, "end": hit.end}
