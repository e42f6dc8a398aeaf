"""The fast subset of `make drills` that CI runs so the drills do not rot: the two
shortest end to end at a small size, and the provider drill's huge and dripping
answers, and the ingestion-lane drill, checked for correctness (no errors, the
expected outcomes), never for wall-clock figures; and the deployment drill (the
documented Procfile over one PostgreSQL) at a small size. The faults, fuzz and tenancy
drills at small size are in bench/checks/test_drills.py (``make bench-checks``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.drills import deployment, ingest_lanes, load, owners, providers, write_lock


def test_load_drill_runs_without_errors(tmp_path: Path) -> None:
    result = load.run(4, 3, tmp_path / "load.json")
    assert result["errors"] == 0 and result["requests"] > 0
    assert set(result["latency"]) == {"search", "ask", "upload"}
    assert (tmp_path / "load.json").exists()


def test_write_lock_drill_measures_the_transaction_and_the_other_tenant(tmp_path: Path) -> None:
    result = write_lock.run(300, tmp_path / "write_lock.json")
    assert result["chunks"] >= 300 and result["other_tenant_writes"] > 0
    assert result["write_transaction_s"] > 0


@pytest.mark.timeout(300)
def test_providers_drill_ends_each_ask_by_its_deadline_with_bounded_memory(tmp_path: Path) -> None:
    result = providers.run(True, tmp_path / "providers.json")
    assert set(result["cases"]) == {"huge_streamed", "dripping"}
    for name, case in result["cases"].items():
        assert case["status"] == 200 and case["answered"] and case["extractive_fallback"], (name, case)
        assert case["fallback_reason"] and "RAGLINE_GENERATOR__" in case["fallback_reason"], (name, case)
        assert case["seconds"] < 3 * case["deadline_s"], (name, case)  # a hang guard, not a speed check
        assert case["provider_wrote_mb"] < 20, (name, case)  # of 60 MB: read to the cap, then hung up


@pytest.mark.timeout(300)
def test_ingest_lanes_drill_refuses_by_structure_and_lets_the_small_job_pass(tmp_path: Path) -> None:
    result = ingest_lanes.run(True, tmp_path / "ingest_lanes.json")
    assert result["refused"]["state"] == "failed" and "limits.max_html_depth" in result["refused"]["error"]
    assert result["slow_file"]["small_job_state"] == "indexed"
    assert result["slow_file"]["long_job_state_then"] == "parsing"  # it passed the long job, not waited for it


@pytest.mark.timeout(300)
def test_owners_drill_finds_nothing_of_another_owners_private_documents(tmp_path: Path) -> None:
    result = owners.run(["sqlite"], tmp_path / "owners.json")
    run = result["runs"][0]
    assert run["scores_before"]["keyword: zebra"]  # ann found the shared handbook
    assert run["bob_hits_of_his_own"] > 0  # bob's documents were stored and are his to find
    assert result["met"], run


@pytest.mark.postgres
@pytest.mark.timeout(300)
def test_deployment_drill_loses_nothing_when_a_replica_and_a_worker_die(tmp_path: Path) -> None:
    """deploy/Procfile as written (honcho: two replicas, two workers) on one PostgreSQL;
    one replica and the worker running a job are SIGKILLed mid-ingest."""
    result = deployment.run(2, 15_000, 8, tmp_path / "deployment.json", rpm=20)
    assert result["events"]["replica_killed_pids"] != "[]" and result["events"].get("worker_killed_job")
    assert result["survivor_failed_requests"] == 0, result["replicas"]["web2"]
    assert result["jobs"]["lost"] == 0 and result["jobs"]["acknowledged"] >= 4, result["jobs"]
    chunks = result["chunks"]
    assert chunks["clean"] > 0 and chunks["lost"] == chunks["extra"] == chunks["duplicated"] == 0, chunks
    assert result["quota"]["holds"] and result["quota"]["refused"] > 0, result["quota"]
    assert result["uploads_on_local_disk"] == 0  # kept in PostgreSQL: no shared disk needed
    assert result["passed"]
