"""Ingestion jobs: list, get (state, progress, ETA, error, tries), retry."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from ...models import NAME_PATTERN
from ...store.types import JobInfo
from ..auth import Principal, Tenant
from ..deps import Owner, engine, note_owner
from ..errors import ApiError, not_found, responses
from ..jobs import job_to_dict
from ..schemas import JobList, JobOut, JobState

router = APIRouter(prefix="/v1/jobs", tags=["jobs"], responses=responses(401, 422, 503))


@router.get("", response_model=JobList)
def list_jobs(request: Request, who: Tenant,
              collection: Annotated[str | None, Query(pattern=NAME_PATTERN)] = None,
              state: JobState | None = None,
              limit: Annotated[int, Query(ge=1, le=1000)] = 100, owner: Owner = None) -> dict:
    """The tenant's jobs, newest first: shared documents' jobs, plus the owner's own."""
    runner = request.app.state.runner
    jobs = engine(request).list_jobs(who.tenant, collection=collection, state=state, limit=limit,
                                    all_owners=False, owner=note_owner(request, owner))
    return {"jobs": [job_to_dict(j, runner.live(j.id)) for j in jobs]}


def _visible_job(request: Request, who: Principal, job_id: str) -> JobInfo:
    """The tenant's job, unless an owner-bound key asks for another owner's: 404 either way."""
    job = engine(request).get_job(who.tenant, job_id)
    if job is None or (who.owner is not None and job.owner not in (None, who.owner)):
        raise not_found(f"job {job_id!r}")
    return job


@router.get("/{job_id}", response_model=JobOut, responses=responses(404))
def get_job(job_id: str, request: Request, who: Tenant) -> dict:
    """One job: state, progress (done/total chunks), ETA, error and tries."""
    job = _visible_job(request, who, job_id)
    return job_to_dict(job, request.app.state.runner.live(job.id))


@router.post("/{job_id}/retry", status_code=202, response_model=JobOut, responses=responses(404, 409))
def retry_job(job_id: str, request: Request, who: Tenant) -> dict:
    """Queue a failed job again."""
    job = _visible_job(request, who, job_id)
    if job.state != "failed" or not engine(request).requeue_job(who.tenant, job_id):
        raise ApiError(409, "conflict", f"job {job_id!r} is {job.state}; only a failed job can be retried")
    request.app.state.runner.notify()
    fresh = engine(request).get_job(who.tenant, job_id)
    if fresh is None:
        raise not_found(f"job {job_id!r}")
    return job_to_dict(fresh)
