"""Many processes, one queue: ``ragline worker`` processes share a job table; one is
SIGKILLed mid-job; another takes the job again when its lease expires, and the
collection ends with exactly the chunks of a clean ingest.

Used by tests (a small run on each backend) and by ``make bench`` style drills."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragline.engine import Engine
from ragline.models import Scope
from ragline.server.uploads import Uploads
from ragline.settings import EmbedderSettings, Settings, StoreSettings
from ragline.store.types import EMBEDDING, INDEXED

TENANT = "acme"
SCOPE = Scope(TENANT, ("docs",))


@dataclass
class DrillResult:
    jobs: int
    workers: int
    killed_job: str
    killed_worker: str
    finished_by: str
    tries: int
    seconds: float
    chunks: int
    reference_chunks: int
    duplicates: int
    log: list[str] = field(default_factory=list)


def _documents(n: int, words: int) -> list[tuple[str, str]]:
    rng = random.Random(11)
    vocabulary = [f"term{i}" for i in range(3000)]
    return [(f"report{i}.txt", "\n\n".join(" ".join(rng.choices(vocabulary, k=60)) for _ in range(words // 60)))
            for i in range(n)]


def _settings(home: Path, url: str | None) -> Settings:
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"), store=StoreSettings(url=url))


def run_drill(home: Path, url: str | None, *, jobs: int = 6, words: int = 120_000, workers: int = 3,
              lease_s: float = 4.0, timeout: float = 240.0) -> DrillResult:
    """Queue ``jobs`` text documents, start ``workers`` worker processes, SIGKILL the one
    holding the first job caught mid-embedding, and wait for every job to be indexed."""
    settings = _settings(home, url)
    engine = Engine(settings)
    docs = _documents(jobs, words)
    uploads = Uploads(home)
    engine.ensure_tenant(TENANT)
    engine.collection(SCOPE)
    job_ids = []
    for source, text in docs:
        doc_id, source, path = uploads.save_text(SCOPE, text, source, None, {})
        job_ids.append(engine.create_job(SCOPE, doc_id=doc_id, source=source, kind="text", path=str(path)).id)
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing",
           "RAGLINE_SERVER__JOB_LEASE_S": str(lease_s)}
    if url:
        env["RAGLINE_STORE__URL"] = url
    logs = [home / f"worker{n}.log" for n in range(workers)]
    procs = [subprocess.Popen([sys.executable, "-m", "ragline", "worker"], env=env, stdout=log.open("wb"),
                              stderr=subprocess.STDOUT, start_new_session=True) for log in logs]
    started = time.monotonic()
    try:
        victim_job, victim_pid = _catch_running(engine, job_ids, timeout)
        victim = next(p for p in procs if p.pid == victim_pid)
        os.killpg(victim.pid, signal.SIGKILL)  # the worker and its parser sandbox
        victim.wait(10)
        final = _wait_indexed(engine, job_ids, started + timeout)
        seconds = time.monotonic() - started
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
    redone = next(j for j in final if j.id == victim_job.id)
    stored = [cid for d in engine.list_documents(SCOPE) for cid in engine.store.document_chunk_ids(SCOPE, d.id)]
    engine.close()
    clean = Engine(_settings(home / "clean", None))
    from ragline.models import Block, Document

    summary = clean.add_documents([Document(source=s, blocks=[Block(t)]) for s, t in docs], SCOPE)
    reference = [cid for d in clean.list_documents(SCOPE) for cid in clean.store.document_chunk_ids(SCOPE, d.id)]
    clean.close()
    assert summary.chunks == len(reference)
    return DrillResult(jobs=jobs, workers=workers, killed_job=victim_job.id, killed_worker=victim_job.worker or "",
                       finished_by=redone.worker or "", tries=redone.tries, seconds=round(seconds, 1),
                       chunks=len(stored), reference_chunks=len(reference),
                       duplicates=len(stored) - len(set(stored)),
                       log=[line for log in logs for line in log.read_text(errors="replace").splitlines()
                            if "job_resumed" in line])


def _catch_running(engine: Engine, job_ids: list[str], timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for job_id in job_ids:
            job = engine.get_job(TENANT, job_id)
            if job is not None and job.state == EMBEDDING and job.worker and job.done < job.total:
                return job, int(job.worker.split(":")[1])
        time.sleep(0.01)
    raise AssertionError("no job was caught mid-embedding")


def _wait_indexed(engine: Engine, job_ids: list[str], deadline: float):
    while time.monotonic() < deadline:
        jobs = [engine.get_job(TENANT, j) for j in job_ids]
        if all(j is not None and j.state == INDEXED for j in jobs):
            return jobs
        time.sleep(0.2)
    raise AssertionError(f"jobs not indexed in time: {[(j.id, j.state, j.error) for j in jobs if j]}")
