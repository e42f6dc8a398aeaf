"""The fast subset of `make drills` that CI runs so the drills do not rot: each one
end to end at a small size, checked for correctness (no errors, the expected
outcomes), never for wall-clock figures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench.drills import faults, fuzz, load, tenancy, write_lock


def test_load_drill_runs_without_errors(tmp_path: Path) -> None:
    result = load.run(4, 3, tmp_path / "load.json")
    assert result["errors"] == 0 and result["requests"] > 0
    assert set(result["latency"]) == {"search", "ask", "upload"}
    assert (tmp_path / "load.json").exists()


def test_faults_drill_survives_provider_failures_and_disk_full(tmp_path: Path) -> None:
    only = ["provider"] + (["disk_full"] if os.geteuid() == 0 else [])
    results = faults.run(only, quick=True, output=tmp_path / "faults.json")
    for case in ("timeout", "http_500"):
        outcome = results["provider"][case]
        assert outcome["status"] == 200 and outcome["answered"], outcome
        assert outcome["generator"] == "extractive" and outcome["fallback_reason"], outcome
    assert results["provider"]["timeout"]["seconds"] < 60  # bounded by the provider timeout and retries
    if "disk_full" in results:
        disk = results["disk_full"]
        assert disk["during"] == {"readyz": 507, "search": 200, "upload": 507}, disk
        assert disk["job_final"] == "indexed", disk


def test_fuzz_drill_finds_no_unexpected_exception(tmp_path: Path) -> None:
    result = fuzz.run(15, tmp_path / "fuzz.json")
    assert result["loaders"]["unexpected_count"] == 0, result["loaders"]["unexpected"]
    assert result["filters"]["unexpected_count"] == 0, result["filters"]["unexpected"]
    assert result["loaders"]["cases"] >= 15 and result["filters"]["cases"] >= 75


@pytest.mark.timeout(300)
def test_tenancy_drill_runs_and_the_victim_gets_no_errors(tmp_path: Path) -> None:
    result = tenancy.run(3, 3, tmp_path / "tenancy.json")
    assert result["victim_errors"] == 0
    assert result["victim_alone"]["requests"] > 0 and result["victim_with_hostile"]["requests"] > 0
    assert set(result["hostile_responses"]) <= {"200", "202", "429"}, result["hostile_responses"]


def test_write_lock_drill_measures_the_transaction_and_the_other_tenant(tmp_path: Path) -> None:
    result = write_lock.run(300, tmp_path / "write_lock.json")
    assert result["chunks"] >= 300 and result["other_tenant_writes"] > 0
    assert result["write_transaction_s"] > 0
