"""Liveness, readiness and Prometheus metrics (no authentication)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ..disk import check_free_space
from ..errors import ApiError, responses
from ..metrics import CONTENT_TYPE
from ..schemas import HealthOut, ReadyOut

router = APIRouter(tags=["health"])
# Readiness waits this long for the store's write lock: a server whose every write would
# wait out store.sqlite_busy_timeout_s and fail is not ready.
READY_WRITE_WAIT_S = 0.5


@router.get("/healthz", response_model=HealthOut)
def healthz() -> dict:
    """The process is up."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyOut, responses=responses(503, 507))
def readyz(request: Request) -> dict:
    """The store answers, its write lock is free within ``READY_WRITE_WAIT_S``, the job
    workers run (503 otherwise) and there is space to write (507 otherwise)."""
    try:
        counts = request.app.state.engine.job_counts()
        request.app.state.engine.probe_store_write(READY_WRITE_WAIT_S)
    except Exception as exc:  # any store failure means not ready
        raise ApiError(503, "store_unavailable", f"the store is unavailable: {exc}") from exc
    check_free_space(request.app.state.settings)  # 507 insufficient_storage, naming the path
    runner = request.app.state.runner
    if runner.alive < runner.workers:
        raise ApiError(503, "workers_unavailable", f"{runner.alive} of {runner.workers} job workers running")
    return {"status": "ready", "store": "ok", "workers": runner.alive, "jobs": counts}


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                             "description": "Prometheus text format"}})
def metrics(request: Request) -> Response:
    """Requests and latency per route, stage timings, jobs by state."""
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)
