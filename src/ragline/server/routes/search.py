"""Search: the same hits as ``ragline search --json``, plus mode and timings."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ...pause import pause_point
from ..auth import Tenant
from ..deps import engine, json_body, note, scope_for
from ..errors import responses
from ..schemas import SearchIn, SearchOut

router = APIRouter(prefix="/v1", tags=["search"], responses=responses(401, 422, 503))


@router.post("/search", response_model=SearchOut, responses=responses(400, 404, 409))
def search(body: SearchIn, request: Request, who: Tenant) -> Response:
    """Hybrid, dense or keyword search over the tenant's collections."""
    scope = scope_for(request, who, body.collection_names(), body.owner)
    result = engine(request).search(body.query, scope, mode=body.mode, k=body.k, threshold=body.threshold,
                                    filters=body.filters, sort=body.sort, min_matches=body.min_matches,
                                    max_matches=body.max_matches)
    note(request, stages=result.timings_ms, hits=len(result.hits), mode=result.mode)
    pause_point()  # before building the response (up to k hits of text)
    return json_body(SearchOut, {"hits": [hit.to_dict() for hit in result.hits], "mode": result.mode,
                                 "degraded": result.degraded,
                                 "timings_ms": {k: round(v, 3) for k, v in result.timings_ms.items()}})
