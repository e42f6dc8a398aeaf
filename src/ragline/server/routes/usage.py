"""Usage: the tenant's tokens, questions and estimated cost (``GET /v1/usage``), and
its most and never matched chunks and documents (``GET /v1/usage/matches``)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from ... import wire
from ...models import NAME_PATTERN
from ..auth import Tenant
from ..deps import Owner, engine, scope_for
from ..errors import ApiError, responses

router = APIRouter(prefix="/v1/usage", tags=["usage"], responses=responses(401, 422, 503))


class UsageTotals(BaseModel):
    texts_embedded: int
    tokens_embedded: int
    questions: int
    llm_input_tokens: int
    llm_output_tokens: int
    cost: float


class UsageByModel(BaseModel):
    kind: str
    model: str
    events: int
    input_tokens: int
    output_tokens: int
    cost: float


class UsageByDay(UsageTotals):
    day: str


class UsageOut(UsageTotals):
    tenant: str
    since: str | None
    currency: str
    unpriced: list[str]
    by_model: list[UsageByModel]
    by_day: list[UsageByDay]


class MatchOut(wire.Match):
    pass


class MatchesOut(BaseModel):
    items: list[MatchOut]


def _tenant_wide(who: Tenant) -> None:
    if who.owner is not None:
        raise ApiError(403, "forbidden", "this API key is bound to one owner; the tenant's usage is for keys "
                       "without an owner")


@router.get("", response_model=UsageOut, responses=responses(403))
def usage(request: Request, who: Tenant,
          since: Annotated[date | None, Query(description="From this day on (UTC)")] = None) -> dict:
    """Tokens embedded, questions asked, LLM tokens in and out (as the providers
    reported them) and an estimated cost from the server's price table."""
    _tenant_wide(who)
    return engine(request).usage_report(who.tenant, since.isoformat() if since else None)


@router.get("/matches", response_model=MatchesOut, responses=responses(403, 404))
def matches(request: Request, who: Tenant, owner: Owner = None,
            collection: Annotated[str, Query(pattern=NAME_PATTERN)] = "default",
            level: Literal["chunk", "document"] = "chunk", order: Literal["most", "never"] = "most",
            limit: Annotated[int, Query(ge=1, le=1000)] = 20) -> dict:
    """The collection's most (or never) matched chunks or documents, as the request's
    owner sees them: what a knowledge-base owner looks at to find gaps. Naming another
    owner than an owner-bound key's is 403, as on every route."""
    scope = scope_for(request, who, collection, owner)
    items = engine(request).match_stats(scope, level=level, order=order, limit=limit)
    return {"items": [item.to_dict() for item in items]}
