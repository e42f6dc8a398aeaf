"""Tenants and their API keys (admin key), and ``/v1/me`` (tenant key)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Depends, Request, Response

from ..auth import Tenant, key_cache, require_admin
from ..deps import engine
from ..errors import ApiError, not_found, responses
from ..schemas import KeyIn, KeyList, MeOut, NewKeyOut, TenantIn, TenantList, TenantOut

if TYPE_CHECKING:
    from ...store.types import ApiKeyInfo

router = APIRouter(prefix="/v1", tags=["tenants"])
admin = APIRouter(prefix="/v1/tenants", tags=["tenants"], dependencies=[Depends(require_admin)],
                  responses=responses(401, 422, 503))


def _tenant_created(request: Request, name: str) -> float:
    created = engine(request).tenant_created(name)
    if created is None:
        raise not_found(f"tenant {name!r}")
    return created


def _key_out(info: ApiKeyInfo) -> dict:
    return {"id": info.id, "tenant": info.tenant, "label": info.label, "owner": info.owner, "prefix": info.prefix,
            "created": info.created, "last_used": info.last_used}


@admin.post("", status_code=201, response_model=TenantOut, responses=responses(409))
def create_tenant(body: TenantIn, request: Request) -> dict:
    """Create a tenant (the isolation boundary)."""
    if not engine(request).ensure_tenant(body.name):
        raise ApiError(409, "conflict", f"tenant {body.name!r} already exists")
    return {"name": body.name, "created": _tenant_created(request, body.name)}


@admin.get("", response_model=TenantList)
def list_tenants(request: Request) -> dict:
    """Every tenant."""
    return {"tenants": [{"name": n, "created": _tenant_created(request, n)} for n in engine(request).tenants()]}


@admin.post("/{tenant}/keys", status_code=201, response_model=NewKeyOut, responses=responses(404))
def create_key(tenant: str, request: Request, body: KeyIn | None = None) -> dict:
    """A new API key for the tenant; the secret is in this response only. With ``owner``,
    the key is bound to that user: a browser app can hand it to the user, who then sees
    only shared documents and their own."""
    _tenant_created(request, tenant)
    info, secret = engine(request).create_api_key(tenant, body.label if body else None, body.owner if body else None)
    return {**_key_out(info), "key": secret}


@admin.get("/{tenant}/keys", response_model=KeyList, responses=responses(404))
def list_keys(tenant: str, request: Request) -> dict:
    """The tenant's live keys (never the secrets)."""
    _tenant_created(request, tenant)
    return {"keys": [_key_out(k) for k in engine(request).list_api_keys(tenant)]}


@admin.delete("/{tenant}/keys/{key_id}", status_code=204, response_class=Response, responses=responses(404))
def revoke_key(tenant: str, key_id: str, request: Request) -> Response:
    """Revoke a key; requests with it get 401 from now on."""
    if not engine(request).revoke_api_key(tenant, key_id):
        raise not_found(f"key {key_id!r} of tenant {tenant!r}")
    key_cache(request.app).forget()  # not a second more for the revoked key here
    return Response(status_code=204)


@router.get("/me", response_model=MeOut, response_model_exclude_none=True, tags=["tenants"],
            responses=responses(401, 503))
def me(who: Tenant) -> dict:
    """The tenant the presented key belongs to, and the owner it is bound to (only for an
    owner-bound key)."""
    return {"tenant": who.tenant, "key_id": who.key_id, "owner": who.owner}

