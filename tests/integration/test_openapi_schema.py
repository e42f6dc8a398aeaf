"""Property-based tests from the OpenAPI schema (schemathesis) against a real
server: no 5xx, and every response conforms to the documented status codes,
content types and schemas. Example counts are kept small to bound the run time."""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

EXAMPLES = int(os.environ.get("RAGLINE_FUZZ_EXAMPLES", "30"))  # `make drills` runs many more
# Cross-field rules (chunk overlap below size, known filter operators) cannot be written
# in JSON Schema, so a schema-valid body can rightly get a 400: that check is left out.
EXCLUDED = [positive_data_acceptance]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    settings_ = Settings(home=tmp_path_factory.mktemp("schema") / "home", embedder=EmbedderSettings(name="hashing"),
                         server=ServerSettings(admin_key=ADMIN_KEY, max_file_mb=1, max_request_mb=2))
    with LiveServer(settings_) as server:
        key = create_tenant(server, "fuzz")
        with server.client(key) as client:
            jobs = client.post("/v1/collections/default/documents",
                               files=[("files", ("fees.md", b"# Fees\n\nThe overdraft fee is 5 EUR a day.\n"))])
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
        server.key = key  # type: ignore[attr-defined]
        yield server


def _property_test(operation, key: str):  # type: ignore[no-untyped-def]
    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
              database=None)
    def run(case) -> None:  # type: ignore[no-untyped-def]
        case.call_and_validate(headers={"Authorization": f"Bearer {key}"}, excluded_checks=EXCLUDED)

    return run


def test_api_conforms_to_its_schema(live: LiveServer) -> None:
    # One Hypothesis run per operation, inside one test: schemathesis' pytest plugin
    # (from_fixture) does not support this pytest version.
    api = schemathesis.openapi.from_url(live.url + "/openapi.json")
    failures: list[str] = []
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 20
    for operation in operations:
        key = ADMIN_KEY if operation.path.startswith("/v1/tenants") else live.key  # type: ignore[attr-defined]
        run = _property_test(operation, key)
        try:
            run()
        except Exception as exc:  # noqa: BLE001 — collect every operation's failure, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)
