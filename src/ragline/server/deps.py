"""Shared helpers for routes: the app's engine, runner and uploads, and
scopes built from the authenticated tenant (never from client input)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query, Request

from ..engine import Engine
from ..errors import NotFoundError
from ..models import Scope
from .auth import Principal
from .schemas import NAME_PATTERN, OWNER_PATTERN

Owner = Annotated[str | None, Query(pattern=OWNER_PATTERN, description="A user inside the tenant, for private documents")]
CollectionPath = Annotated[str, Path(pattern=NAME_PATTERN, description="A collection name")]


def engine(request: Request) -> Engine:
    return request.app.state.engine


def note_owner(request: Request, owner: str | None) -> str | None:
    """The request's owner (None for shared data), noted for the log line."""
    if owner:
        request.state.owner = owner
    return owner or None


def scope_for(request: Request, who: Principal, collections: str | tuple[str, ...],
              owner: str | None = None) -> Scope:
    """The tenant's scope over these collections; notes the owner for the log line."""
    note_owner(request, owner)
    names = (collections,) if isinstance(collections, str) else collections
    return Scope(who.tenant, names, owner or None)


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
