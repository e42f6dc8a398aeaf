"""The web page's Usage tab, in headless Chromium against the real server and a fake
LLM on real HTTP: after two questions the signed-in tenant sees them, the LLM's
tokens as the provider reported them, and the cost from the price table."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ragline.settings import (
    AnswerSettings,
    EmbedderSettings,
    GeneratorSettings,
    Price,
    ServerSettings,
    Settings,
    UsageSettings,
)

from tests.fakes import FakeLLMServer
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs
from tests.web_helpers import launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser


def test_usage_tab_shows_the_tenants_usage_and_cost(tmp_path) -> None:
    require_browser()
    with FakeLLMServer("openai") as llm:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            answer=AnswerSettings(relevance_floor=0.0),
                            generator=GeneratorSettings(name="openai", base_url=llm.base_url, api_key="k",
                                                        model="fake-model"),
                            usage=UsageSettings(prices={"fake-model": Price(input=1000.0, output=4000.0)}),
                            server=ServerSettings(admin_key=ADMIN_KEY, job_process=False))
        with LiveServer(settings) as server:
            key = create_tenant(server, "acme")
            with server.client(key) as client:
                text = {"documents": [{"source": "fees.txt", "text": "The wire transfer fee is 5 EUR per transfer."}]}
                jobs = client.post("/v1/collections/default/documents/text", json=text).json()["jobs"]
                wait_for_jobs(client, [j["id"] for j in jobs])
                for _ in range(2):
                    assert client.post("/v1/ask", json={"question": "What is the wire fee?"}).status_code == 200
                expected = client.get("/v1/usage").json()
            with launch_chromium() as chromium:
                page = chromium.new_page()
                page.goto(f"{server.url}/#key={key}")
                page.get_by_role("tab", name="Usage").click()
                totals = page.get_by_role("definition")
                expect(totals.first).to_have_text("2", timeout=20_000)  # questions asked
                expect(page.locator("#usage-cost")).to_have_text(f"{expected['cost']:.4f} USD")
                expect(page.get_by_role("cell", name="fake-model")).to_be_visible()
                screenshot(page, "usage-tab")
                _no_accessibility_violations(page)
    assert expected["questions"] == 2 and expected["cost"] > 0


def _no_accessibility_violations(page) -> None:  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        violations = Axe().run(page).response["violations"]
        assert not [f"{v['id']}: {v['help']}" for v in violations], scheme
