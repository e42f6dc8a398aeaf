"""The web page shows what the claim check caught: a model that states a wrong
rate is asked again, the corrected answer streams in, and the report panel lists
the wrong figure as not shipped, with the problem in words (answer.claims)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import AnswerSettings, EmbedderSettings, GeneratorSettings, ServerSettings, Settings
from tests.e2e.test_web_browser import ask, sign_in
from tests.fakes import FakeLLMServer, Reply
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant
from tests.web_helpers import launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser

DEPOSITS = ("Fixed deposit rates. A 1-year fixed deposit earns 6.50% a year. A 3-year fixed deposit earns 7.00% "
            "a year. Senior citizens receive an extra 0.50%.")


def cite(prompt: str) -> str:
    for n, body in re.findall(r'^\[(\d+)\] <source [^\n]*\n(.*?)\n</source', prompt, re.DOTALL | re.MULTILINE):
        if "7.00%" in body:
            return n
    return "9"


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with launch_chromium() as chromium:
        yield chromium


def test_the_report_lists_a_corrected_figure(browser, tmp_path) -> None:
    wrong = Reply(lambda p: f"A 3-year deposit earns 8.4% [{cite(p)}].", chunks=2)
    right = Reply(lambda p: f"A 3-year fixed deposit earns 7.00% a year [{cite(p)}].", chunks=2)
    with FakeLLMServer("openai", script=[wrong, right]) as llm:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            server=ServerSettings(admin_key=ADMIN_KEY), answer=AnswerSettings(relevance_floor=0.0),
                            generator=GeneratorSettings(name="openai", base_url=llm.base_url, model="m", api_key="k",
                                                        max_retries=0))
        engine = Engine(settings)
        with LiveServer(settings, engine) as server:
            key = create_tenant(server, "bank")
            engine.add_documents([Document(source="deposits.md", blocks=[Block(DEPOSITS)])], Scope("bank", ("kb",)))
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            try:
                sign_in(page, server, key)
                expect(page.locator("#collection-select")).to_have_value("kb")
                answer = ask(page, "What does a 3-year fixed deposit earn?")
                expect(answer).to_contain_text("7.00% a year")
                shown = answer.inner_text().split("Sources")[0]  # the answer, not its report
                assert "7.00% a year" in shown and "8.4" not in shown
                answer.locator(".report summary").click()
                claims = answer.locator(".claims")
                expect(claims).to_contain_text("wrong figure (not shipped)")
                expect(claims).to_contain_text("not 8.4%")
                expect(answer.locator(".report")).to_contain_text("Done: regenerated")
                expect(answer.locator(".report")).to_contain_text("1 of 1 sentence supported by the cited sources, 1 caught")
                screenshot(page, "answer-claims-checked", full_page=True)
            finally:
                context.close()
        engine.close()
