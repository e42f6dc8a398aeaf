"""The idle-tenant lane of the job runner (issue 29, ingestion monopoly): its claims
take only jobs of tenants with none running, so one tenant's long job, or a queue of
them, never holds another tenant's small one; the other workers claim as before."""

from __future__ import annotations

from pathlib import Path

from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import EmbedderSettings, Settings

ALPHA, BETA = Scope("alpha", ("docs",)), Scope("beta", ("docs",))


def test_the_lane_claims_only_jobs_of_tenants_with_none_running(tmp_path: Path) -> None:
    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing")))
    for n in range(3):
        engine.create_job(ALPHA, doc_id=f"a{n}", source=f"a{n}.html", kind="file", path=f"/x/a{n}")
    running = engine.claim_job("worker")
    assert running is not None and running.tenant == "alpha"
    assert engine.claim_job("lane", idle_tenants_only=True) is None  # alpha has one running: its queue waits
    engine.create_job(BETA, doc_id="b0", source="b0.txt", kind="text", path="/x/b0")
    passed = engine.claim_job("lane", idle_tenants_only=True)
    assert passed is not None and (passed.tenant, passed.doc_id) == ("beta", "b0")
    assert engine.claim_job("lane", idle_tenants_only=True) is None  # both tenants busy now
    second = engine.claim_job("worker")  # the ordinary workers still take alpha's queue
    assert second is not None and second.tenant == "alpha"
    engine.close()
