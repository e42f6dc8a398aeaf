"""Background ingestion: worker threads take jobs from the store's job table.

``server.job_workers`` threads take any job (fair across tenants); one more, the
idle-tenant lane (``server.job_idle_tenant_lane``), takes only jobs of tenants with
none running, so another tenant's small upload passes one tenant's long job.

States: queued → parsing → embedding → indexed, or failed. A job is one kept
upload; re-running one is idempotent (deterministic ids, one transaction per
document). Claims are leased and renewed by a heartbeat while the job runs: when
a process dies, its jobs' leases expire and any worker of any process (``ragline
serve`` replicas, ``ragline worker``) takes them again, with no duplicate or
missing chunks. Tries count across restarts (``MAX_JOB_TRIES``). Files that
cannot be parsed fail at once; other failures are retried with backoff.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from ..engine import Engine
from ..engine_admin import MAX_JOB_TRIES
from ..errors import ConfigError, LoaderError, ModelMismatchError, NotFoundError
from ..models import Scope
from ..store.types import FAILED, INDEXED, PARSING, QUEUED, RUNNING, JobInfo
from ..tracing import traced
from .uploads import Uploads

log = logging.getLogger("ragline.server")

POLL_S = 0.5
PERSIST_EVERY_S = 0.5
# Bad input or configuration fails the same way every time: retrying only delays the
# answer (a plain ValueError means bad configuration, e.g. token chunking without a tokenizer).
_PERMANENT = (LoaderError, ConfigError, ModelMismatchError, NotFoundError, ValueError)
# A job's error is stored, listed and sent with every job poll: keep it small whatever
# the file held (one bad JSON Lines file could otherwise make megabytes of it).
ERROR_MAX_CHARS = 4000
ERROR_MAX_FAILURES = 10
_FAILURE_MAX_CHARS = 300


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def error_text(failed: list[dict[str, str]]) -> str | None:
    """A job's error from its failed files or records: the first few, each clipped,
    and how many more there were; at most ``ERROR_MAX_CHARS`` characters."""
    if not failed:
        return None
    shown = [_clip(f"{f['path']}: {f['error']}", _FAILURE_MAX_CHARS) for f in failed[:ERROR_MAX_FAILURES]]
    more = len(failed) - len(shown)
    text = "; ".join(shown) + (f"; … and {more:,} more failures ({len(failed):,} in all)" if more else "")
    return _clip(text, ERROR_MAX_CHARS)


@dataclass
class _Live:
    """Progress of a running job, fresher than the throttled copy in the store."""

    state: str
    done: int = 0
    total: int = 0
    persisted: float = 0.0


class _LeaseLost(Exception):
    """This worker's lease on a job expired and another worker holds the job now."""


def job_to_dict(job: JobInfo, live: _Live | None = None, now: float | None = None) -> dict[str, Any]:
    """The API's Job object, with an ETA from the rate so far."""
    state, done, total = job.state, job.done, job.total
    if live is not None and job.state in RUNNING:
        state, done, total = live.state, live.done, live.total
    eta = None
    if state in RUNNING and job.started and 0 < done < total:
        elapsed = (now or time.time()) - job.started
        eta = round(elapsed * (total - done) / done, 1)
    elif state == INDEXED:
        eta = 0.0
    return {"id": job.id, "collection": job.collection, "document_id": job.doc_id, "source": job.source,
            "owner": job.owner, "kind": job.kind, "state": state, "progress": {"done": done, "total": total},
            "eta_s": eta, "error": job.error, "tries": job.tries, "retryable": retryable(job),
            "created": job.created, "updated": job.updated, "started": job.started, "finished": job.finished}


def retryable(job: JobInfo) -> bool:
    """Whether retrying a failed job can succeed. A permanent failure (a file that cannot
    be parsed, bad configuration, nothing stored) fails at once, before ``MAX_JOB_TRIES``;
    a job fails after every try only when its errors were transient (a provider down, a
    worker that died), which a later retry can outlast."""
    return job.state == FAILED and job.tries >= MAX_JOB_TRIES


class JobRunner:
    """Worker threads that ingest queued jobs for every tenant."""

    def __init__(self, engine: Engine, uploads: Uploads, workers: int = 1, metrics: Any = None) -> None:
        self.engine = engine
        self.uploads = uploads
        self.workers = workers
        self.metrics = metrics
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._beat: threading.Thread | None = None
        self._lost: set[str] = set()  # jobs whose lease this process lost
        self._live: dict[str, _Live] = {}
        self._running: dict[str, tuple[JobInfo, str]] = {}  # job id → (job, worker holding its lease)
        self._lock = threading.Lock()
        self.name = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        """Start the workers and the heartbeat that renews their leases."""
        self._stop.clear()
        if self.workers == 0:
            return
        lanes = [False] * self.workers + ([True] if self.engine.settings.server.job_idle_tenant_lane else [])
        for n, idle_only in enumerate(lanes):
            thread = threading.Thread(target=self._loop, args=(f"{self.name}:{n}", idle_only),
                                      name=f"ragline-job-{n}" + ("-lane" if idle_only else ""), daemon=True)
            thread.start()
            self._threads.append(thread)
        self._beat = threading.Thread(target=self._heartbeat, name="ragline-job-lease", daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        interval = max(0.2, self.engine.settings.server.job_lease_s / 3)
        while not self._stop.wait(interval):
            with self._lock:
                running = list(self._running.values())
            for job, worker in running:
                try:
                    if not self.engine.renew_lease(job, worker):
                        self._lost.add(job.id)  # another worker took it over: stop at the next progress step
                except Exception as exc:  # noqa: BLE001 — store down: the next beat tries again
                    log.warning(json.dumps({"event": "lease_renewal_failed", "job_id": job.id, "error": str(exc)}))

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        for thread in [*self._threads, *([self._beat] if self._beat else [])]:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads.clear()
        self._beat = None

    def notify(self) -> None:
        """Wake idle workers: a job was queued."""
        self._wake.set()

    @property
    def alive(self) -> int:
        return sum(t.is_alive() for t in self._threads)

    def live(self, job_id: str) -> _Live | None:
        with self._lock:
            return self._live.get(job_id)

    # -- work ----------------------------------------------------------------
    def _loop(self, worker: str, idle_tenants_only: bool = False) -> None:
        """Claim and run jobs until stopped; ``idle_tenants_only``: the lane that takes
        only jobs of tenants with none running, so one tenant's long job (or a queue
        of them) never holds every other tenant's."""
        while not self._stop.is_set():
            try:
                job = self.engine.claim_job(worker, idle_tenants_only=idle_tenants_only)
            except Exception as exc:  # noqa: BLE001 — store down: keep the worker alive and try again
                log.warning(json.dumps({"event": "jobs_unavailable", "error": str(exc)}))
                self._stop.wait(2.0)
                continue
            if job is None:
                self._wake.wait(POLL_S)
                self._wake.clear()
                continue
            if job.tries > 1:
                log.info(json.dumps({"event": "job_resumed", "job_id": job.id, "tenant": job.tenant,
                                     "tries": job.tries}))
            try:
                self.run(job, worker)
            except Exception:  # recording the outcome failed (store down); the lease expires and it runs again
                log.exception("job %s: cannot record its outcome", job.id)

    @traced("job")
    def run(self, job: JobInfo, worker: str = "") -> str:
        """Ingest one claimed job and record its outcome; returns the final state."""
        scope = Scope(job.tenant, (job.collection,), job.owner)
        live = _Live(state=PARSING)
        with self._lock:
            self._live[job.id] = live
            self._running[job.id] = (job, worker)
        started = time.perf_counter()

        def progress(stage: str, done: int, total: int) -> None:
            if job.id in self._lost:
                raise _LeaseLost(job.id)
            changed = stage != live.state
            live.state, live.done, live.total = stage, done, total
            now = time.monotonic()
            if changed or now - live.persisted >= PERSIST_EVERY_S:
                live.persisted = now
                self.engine.update_job(job.tenant, job.id, state=stage, done=done, total=total)

        try:
            if job.kind == "text":
                documents = [self.uploads.load_text(scope, job.path)]
                progress(PARSING, 0, 0)
                summary = self.engine.ingest_documents(documents, scope, origin=self.uploads.origin(job.path),
                                                         progress=progress)
            else:
                with self.uploads.open(scope, job.path) as path:  # a local copy while it is parsed
                    summary = self.engine.ingest_file(path, scope, source=job.source, progress=progress,
                                                      password=self.uploads.password(scope, job.path),
                                                      origin=self.uploads.origin(job.path))
        except _LeaseLost:
            state = "lost"
        except Exception as exc:  # noqa: BLE001 — every failure is recorded on the job
            state = self._failed(job, exc)
        else:
            state = "lost" if job.id in self._lost else self._finished(job, scope, summary.to_dict(), live.total)
        finally:
            with self._lock:
                self._live.pop(job.id, None)
                self._running.pop(job.id, None)
                self._lost.discard(job.id)
        if state in (INDEXED, FAILED) and job.kind == "file":
            self.uploads.forget_password(scope, job.path)  # needed only until the job is done
        seconds = time.perf_counter() - started
        if self.metrics is not None:
            self.metrics.job_finished(state, seconds)
        log.info(json.dumps({"event": "job", "job_id": job.id, "tenant": job.tenant, "collection": job.collection,
                             "source": job.source, "state": state, "tries": job.tries,
                             "ms": round(seconds * 1000, 1)}))
        return state

    def _finished(self, job: JobInfo, scope: Scope, summary: dict[str, Any], total: int) -> str:
        stored = summary["added"] + summary["updated"] + summary["unchanged"]
        errors = error_text(summary["failed"])
        state = INDEXED if stored else FAILED
        if not stored and errors is None:
            errors = "the file holds no documents"
        kept = self.engine.update_job(job.tenant, job.id, state=state, done=total if stored else 0, total=total,
                                      error=errors, finished=time.time())
        if not kept:  # deleted while running: do not leave the document behind
            self.engine.delete(scope, [job.doc_id])
        return state

    def _failed(self, job: JobInfo, exc: Exception) -> str:
        permanent = isinstance(exc, _PERMANENT)
        message = _clip(str(exc) or type(exc).__name__, ERROR_MAX_CHARS)
        if not permanent:
            log.warning(json.dumps({"event": "job_error", "job_id": job.id, "tenant": job.tenant,
                                    "error": message, "tries": job.tries}), exc_info=exc)
        if permanent or job.tries >= MAX_JOB_TRIES:
            self.engine.update_job(job.tenant, job.id, state=FAILED, error=message, finished=time.time())
            return FAILED
        backoff = 2.0 ** job.tries  # 2 s, 4 s, … before the next try
        self.engine.update_job(job.tenant, job.id, state=QUEUED, error=message, not_before=time.time() + backoff)
        return QUEUED
