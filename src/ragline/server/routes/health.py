"""Liveness, readiness and Prometheus metrics (no authentication)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ..disk import check_free_space
from ..errors import error_body, responses
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
def readyz(request: Request) -> Any:
    """Every dependency this replica needs, checked in turn: the store answers and its
    write lock is free within ``READY_WRITE_WAIT_S``, its schema is this code's (no
    migration missing), there is space to write (507), kept uploads can be written
    where ``server.upload_storage`` keeps them, the embedding model loads and the job
    workers run. Ready: 200, with ``checks`` saying ``ok`` for each. Otherwise the
    status of the first failure in the API's error shape: its code (``store_unavailable``,
    ``schema_behind``, ``insufficient_storage``, ``uploads_unwritable``,
    ``model_unavailable``, ``workers_unavailable``) and a message naming every
    dependency that is missing and why."""
    state = request.app.state
    engine, checks = state.engine, dict.fromkeys(READY_CHECKS, "not checked")
    failures: list[tuple[int, str, str]] = []

    def check(name: str, status: int, code: str, probe: Callable[[], str | None]) -> bool:
        try:
            problem = probe()
        except Exception as exc:  # noqa: BLE001 — any failure of a dependency means not ready
            problem = str(exc) or type(exc).__name__
        checks[name] = problem or "ok"
        if problem:
            failures.append((status, code, f"{name}: {problem}"))
        return not problem

    counts: dict[str, int] = {}

    def store() -> None:
        counts.update(engine.job_counts())
        engine.probe_store_write(READY_WRITE_WAIT_S)

    def model() -> None:
        engine.embedder  # noqa: B018 — built on first use: a missing model raises here

    if check("store", 503, "store_unavailable", store):
        check("schema", 503, "schema_behind", engine.schema_behind)
    check("disk", 507, "insufficient_storage", lambda: check_free_space(state.settings))
    check("uploads", 503, "uploads_unwritable", state.uploads.check_writable)
    check("model", 503, "model_unavailable", model)
    runner = state.runner
    check("workers", 503, "workers_unavailable",
          lambda: None if runner.alive >= runner.workers else f"{runner.alive} of {runner.workers} job workers running")
    if failures:  # the API's one error shape: the first failure's code, every problem in the message
        status, code, _ = failures[0]
        unchecked = [name for name, said in checks.items() if said == "not checked"]
        message = "not ready: " + "; ".join(f[2] for f in failures)
        if unchecked:
            message += f" ({', '.join(unchecked)} not checked without the store)"
        return JSONResponse(error_body(code, message), status_code=status)
    return {"status": "ready", "store": "ok", "workers": runner.alive, "jobs": counts, "checks": checks}


READY_CHECKS = ("store", "schema", "disk", "uploads", "model", "workers")
"""What ``/readyz`` checks, in order (its ``checks`` object has one entry each)."""


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                             "description": "Prometheus text format"}})
def metrics(request: Request) -> Response:
    """Requests and latency per route, stage timings, jobs by state."""
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)
