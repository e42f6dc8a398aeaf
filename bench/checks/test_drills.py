"""The drills of `make drills` that take longest, end to end at a small size (the
suite keeps the load and write-lock drills: tests/integration/test_drills.py):
checked for correctness, as they were in the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bench.drills import faults, fuzz, tenancy


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
