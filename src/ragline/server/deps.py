"""Shared helpers for routes: the app's engine, runner and uploads, and
scopes built from the authenticated tenant (never from client input).

The owner of a request is the client's choice, unless its key is bound to an
owner (``ragline key create --owner U``): then that owner is forced on every
request (a request naming none acts as it) and naming another one is a 403, so
a browser app can hand a user a key that sees only that user's and shared
documents. Every owner a route uses passes through ``note_owner`` (directly, via
``scope_for`` or via the ``Owner`` parameter), the one place this is enforced."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Path, Query, Request, Response
from pydantic import BaseModel

from ..engine import Engine
from ..errors import NotFoundError
from ..models import NAME_PATTERN, OWNER_PATTERN, Scope
from .auth import Principal, Tenant
from .errors import ApiError
from .quotas import quotas_of


def request_owner(request: Request, who: Tenant,
                  owner: Annotated[str | None, Query(pattern=OWNER_PATTERN, description=(
                      "A user inside the tenant, for private documents (forced by an owner-bound key)"))] = None,
                  ) -> str | None:
    """The ``owner`` query parameter as the request may use it (see ``note_owner``)."""
    return note_owner(request, owner)


Owner = Annotated[str | None, Depends(request_owner)]
"""A route parameter: the request's owner, already checked against an owner-bound key."""
CollectionPath = Annotated[str, Path(pattern=NAME_PATTERN, description="A collection name")]


def engine(request: Request) -> Engine:
    return request.app.state.engine


def bound_owner(bound: str | None, owner: str | None) -> str | None:
    """The owner a request naming ``owner`` acts as, for a key bound to ``bound`` (or
    to none): the key's owner, whatever was named; 403 if another was named. The
    one rule for every edge (the REST routes here, the MCP tools)."""
    if bound is not None:
        if owner and owner != bound:
            raise ApiError(403, "forbidden", f"this API key is bound to owner {bound!r}; it cannot act as {owner!r}")
        return bound
    return owner or None


def note_owner(request: Request, owner: str | None) -> str | None:
    """The request's owner (None for shared data), noted for the log line; see ``bound_owner``."""
    owner = bound_owner(getattr(request.state, "key_owner", None), owner)
    if owner:
        request.state.owner = owner
    return owner or None


def scope_for(request: Request, who: Principal, collections: str | tuple[str, ...],
              owner: str | None = None) -> Scope:
    """The tenant's scope over these collections, with the request's owner (checked
    against an owner-bound key by ``note_owner``, and noted for the log line)."""
    owner = note_owner(request, owner)
    names = (collections,) if isinstance(collections, str) else collections
    return Scope(who.tenant, names, owner)


def all_collections_scope(request: Request, who: Principal, owner: str | None) -> Scope | None:
    """A scope over every collection of the tenant (None when it has none)."""
    names = tuple(c.name for c in engine(request).list_collections(who.tenant))
    return scope_for(request, who, names, owner) if names else None


def require_collection(request: Request, scope: Scope) -> None:
    """404 unless every collection in the scope exists for the tenant."""
    existing = {c.name for c in engine(request).list_collections(scope.tenant)}
    for name in scope.collections:
        if name not in existing:
            raise NotFoundError(f"collection {name!r} not found")


def check_storage_quota(request: Request, who: Principal, new_documents: int) -> None:
    """429 ``quota_exceeded`` when adding ``new_documents`` would pass the tenant's
    document quota, or its chunks or bytes are at theirs. ``AuthFirst`` already
    refused a tenant at its quota before the body was read; this makes the document
    count exact for a request that adds several."""
    quotas_of(request.app).check_storage(engine(request), who.tenant, new_documents)


def note(request: Request, *, stages: dict[str, float] | None = None, **extra: Any) -> None:
    """Add stage timings and small facts to this request's log line."""
    if stages:
        current = getattr(request.state, "stages", None) or {}
        current.update(stages)
        request.state.stages = current
    if extra:
        current = getattr(request.state, "log_extra", None) or {}
        current.update(extra)
        request.state.log_extra = current


def json_body(model: type[BaseModel], data: dict[str, Any]) -> Response:
    """``data`` checked against the route's response model and serialized now, on the
    sync route's worker thread. A dict returned instead is validated on a second hop to
    a worker thread and serialized on the event loop: two more GIL hand-offs per request,
    and the loop busy with another tenant's 100 hits (bench/drills/tenancy.py)."""
    return Response(model.model_validate(data).model_dump_json(by_alias=True), media_type="application/json")
