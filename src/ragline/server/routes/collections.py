"""Collections: create (with chunking settings), list, get, delete."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import ValidationError

from ...errors import ConfigError
from ...settings import ChunkingSettings
from ...store.types import CollectionInfo
from ..auth import Tenant
from ..deps import CollectionPath, engine, scope_for
from ..errors import ApiError, responses
from ..schemas import CollectionIn, CollectionList, CollectionOut

router = APIRouter(prefix="/v1/collections", tags=["collections"], responses=responses(401, 422, 503))


def collection_out(info: CollectionInfo) -> dict:
    return {"name": info.name, "model": info.model_id, "dimension": info.dimension,
            "chunking": info.config.get("chunking") or {}, "language": info.config.get("language"),
            "documents": info.documents, "chunks": info.chunks,
            "created": info.created}


@router.post("", status_code=201, response_model=CollectionOut, responses=responses(400, 403, 409))
def create_collection(body: CollectionIn, request: Request, who: Tenant) -> dict:
    """Create a collection; its chunking and embedding model are fixed from now on."""
    eng = engine(request)
    scope = scope_for(request, who, body.name)
    if body.model is not None and body.model != eng.embedder.model_id:
        raise ConfigError(f"model {body.model!r} is not available; this server embeds with {eng.embedder.model_id!r}")
    if any(c.name == body.name for c in engine(request).list_collections(who.tenant)):
        raise ApiError(409, "conflict", f"collection {body.name!r} already exists")
    overrides = body.chunking.model_dump(exclude_none=True) if body.chunking else {}
    try:
        chunking = ChunkingSettings(**{**eng.settings.chunking.model_dump(), **overrides})
    except ValidationError as exc:
        raise ConfigError(f"invalid chunking: {exc.errors()[0]['msg']}") from exc
    return collection_out(eng.collection(scope, chunking, language=body.language))


@router.get("", response_model=CollectionList)
def list_collections(request: Request, who: Tenant) -> dict:
    """The tenant's collections with document and chunk counts (for an owner-bound key,
    of the documents it may read: shared ones and its owner's)."""
    return {"collections": [collection_out(c) for c in engine(request).collections_seen_by(who.tenant, who.owner)]}


@router.get("/{name}", response_model=CollectionOut, responses=responses(404))
def get_collection(request: Request, name: CollectionPath, who: Tenant) -> dict:
    """One collection (counted as in the list)."""
    engine(request).get_collection(scope_for(request, who, name))  # 404 when there is none
    return collection_out(engine(request).collections_seen_by(who.tenant, who.owner, (name,))[0])


@router.delete("/{name}", status_code=204, response_class=Response, responses=responses(404))
def delete_collection(request: Request, name: CollectionPath, who: Tenant) -> Response:
    """Delete a collection with its documents, chunks, jobs and kept uploads."""
    engine(request).delete_collection(scope_for(request, who, name))
    request.app.state.uploads.remove_collection(who.tenant, name)
    return Response(status_code=204)
