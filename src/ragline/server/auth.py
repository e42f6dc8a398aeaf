"""Authentication: the admin key (from settings) for tenant and key management,
tenant API keys (``Authorization: Bearer …``) for everything else. The key
decides the tenant; a client can never name one."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .errors import ApiError

tenant_bearer = HTTPBearer(auto_error=False, scheme_name="TenantKey",
                           description="A tenant API key (`ragline key create --tenant NAME`)")
admin_bearer = HTTPBearer(auto_error=False, scheme_name="AdminKey",
                          description="The admin key (`RAGLINE_SERVER__ADMIN_KEY`)")

_CHALLENGE = {"WWW-Authenticate": "Bearer"}


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant the key belongs to."""

    tenant: str
    key_id: str


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers=_CHALLENGE)


def tenant_principal(request: Request,
                     credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(tenant_bearer)]) -> Principal:
    """The calling tenant, from its API key (401 when missing or wrong)."""
    if credentials is None or not credentials.credentials:
        raise _unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    info = request.app.state.engine.verify_api_key(credentials.credentials)
    if info is None:
        raise _unauthorized("invalid or revoked API key")
    request.state.tenant = info.tenant
    return Principal(tenant=info.tenant, key_id=info.id)


Tenant = Annotated[Principal, Depends(tenant_principal)]
"""A route parameter: the calling tenant, authenticated by its API key."""


def require_admin(request: Request,
                  credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(admin_bearer)]) -> None:
    """Admin routes: the configured admin key, compared in constant time."""
    admin_key = request.app.state.settings.server.admin_key
    if not admin_key:
        raise _unauthorized("admin routes are disabled: set RAGLINE_SERVER__ADMIN_KEY")
    given = credentials.credentials if credentials is not None else ""
    if not hmac.compare_digest(given.encode("utf-8"), admin_key.encode("utf-8")):
        raise _unauthorized("invalid admin key")
    request.state.tenant = "(admin)"
