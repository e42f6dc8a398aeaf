"""Issue 29, ingestion monopoly: one tenant's slow file held the only job worker (and
the only parser) for the whole parse time limit while another tenant's 30-byte text
waited. Now HTML is refused by structure before it is parsed, and a second lane
(``server.job_idle_tenant_lane``) with a parser of its own (``limits.parse_workers``)
lets another tenant's small job pass a long one."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from ragline.settings import EmbedderSettings, LimitSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

NESTED = ("<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000 + "</body></html>").encode()


def _state(client: httpx.Client, job_id: str) -> str:
    return client.get(f"/v1/jobs/{job_id}").json()["state"]


def test_a_small_job_of_another_tenant_passes_a_long_one(tmp_path: Path) -> None:
    """Tenant A's file takes the parser for its whole 60 s time limit (the structure
    limit is raised so that it is parsed, as every file was before); tenant B's text
    is indexed while A's job is still parsing."""
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1),
                        limits=LimitSettings(parse_timeout_s=60, max_html_depth=1_000_000))
    with LiveServer(settings) as server, server.client(create_tenant(server, "alpha")) as alpha, \
            server.client(create_tenant(server, "beta")) as beta:
        files = [("files", ("nested.html", NESTED, "text/html"))]
        slow = alpha.post("/v1/collections/docs/documents", files=files).json()["jobs"][0]["id"]
        deadline = time.monotonic() + 30
        while _state(alpha, slow) != "parsing":
            assert time.monotonic() < deadline, "tenant A's job never started"
            time.sleep(0.05)
        body = {"documents": [{"text": "The overdraft fee is 5 EUR per day.", "source": "fees.txt"}]}
        small = beta.post("/v1/collections/docs/documents/text", json=body).json()["jobs"][0]["id"]
        assert wait_for_jobs(beta, [small], timeout=40)[0]["state"] == "indexed"
        assert _state(alpha, slow) == "parsing"  # B's job passed A's, which still holds its parser
        hits = beta.post("/v1/search", json={"query": "overdraft fee", "collection": "docs"}).json()
        assert hits["hits"] and "5 EUR" in hits["hits"][0]["text"]


def test_deeply_nested_html_is_refused_by_structure_before_it_is_parsed(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1))
    with LiveServer(settings) as server, server.client(create_tenant(server, "alpha")) as alpha:
        files = [("files", ("nested.html", NESTED, "text/html"))]
        job = alpha.post("/v1/collections/docs/documents", files=files).json()["jobs"][0]["id"]
        # 60 s is far below the 120 s parse time limit the file held the worker for before
        final = wait_for_jobs(alpha, [job], timeout=60)[0]
        assert final["state"] == "failed" and final["tries"] == 1
        assert "HTML elements nested more than 512 deep (limits.max_html_depth)" in final["error"]
