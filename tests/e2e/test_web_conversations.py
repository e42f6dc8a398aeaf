"""The web page's conversations in Debian's headless Chromium: the list (new, switch,
rename, delete), follow-ups answered from the conversation, and the chat-page fixes
(the end of a new answer above the question box, source chips with their section,
markdown tables as tables, a focus ring that is not the error colour). Screenshots
at desktop and phone widths go to test-artifacts/screenshots/ (10-… to 14-…)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ragline.settings import AnswerSettings, ChunkingSettings, EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs
from tests.web_helpers import ask, launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser

FEES = """# Fees

## Card fees

| Service | Fee |
| --- | --- |
| Replacement card | 7 EUR |
| Express delivery | 12 EUR |

A replacement card arrives within 3 to 5 business days.

## Transfer fees

A SWIFT transfer costs 15 EUR. A SWIFT transfer takes 1 to 4 business days to arrive.
"""
POLICY = """# Overdraft policy

## Unarranged overdrafts

An unarranged overdraft costs 5 EUR per day, capped at 30 EUR per month.

## Arranged overdrafts

An arranged overdraft has interest of 15.9 percent EAR. The first 50 EUR of it is interest-free.
"""


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("web-conv") / "home", embedder=EmbedderSettings(name="hashing"),
                        chunking=ChunkingSettings(size=400, overlap=0),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1),
                        answer=AnswerSettings(relevance_floor=0.15))
    with LiveServer(settings) as live:
        key = create_tenant(live, "webconv")
        with live.client(key) as client:
            jobs = client.post("/v1/collections/bank/documents", files=[
                ("files", ("fees.md", FEES.encode())), ("files", ("overdraft-policy.md", POLICY.encode()))])
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
        live.key = key  # type: ignore[attr-defined]
        yield live


def open_page(browser, server, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + "/")
    return context, page, errors


def sign_in(page, key: str) -> None:
    page.get_by_label("Tenant API key").fill(key)
    page.get_by_role("button", name="Sign in").click()
    page.locator("#app-view").wait_for(state="visible")
    expect(page.locator("#conversations")).to_be_visible()


def test_focus_ring_is_not_the_error_colour(browser, server) -> None:
    context, page, errors = open_page(browser, server, 1200, 820)
    field = page.get_by_label("Tenant API key")
    field.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # keyboard focus: :focus-visible applies
    ring = field.evaluate("el => getComputedStyle(el).outlineColor")
    danger = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--danger').trim()")
    assert ring.replace(" ", "") != "rgb(179,32,46)" and danger == "#b3202e"
    screenshot(page, "10-sign-in-focus")
    context.close()
    assert not errors


def test_conversation_list_follow_ups_and_chat_fixes(browser, server) -> None:
    context, page, errors = open_page(browser, server, 1200, 820)
    sign_in(page, server.key)
    first = ask(page, "How much does an unarranged overdraft cost?")
    expect(first.locator(".answer-text")).to_contain_text("5 EUR per day")
    item = page.locator("#conversation-list .conversation").first
    expect(item).to_contain_text("How much does an unarranged overdraft cost?")
    expect(item).to_have_class("conversation current")
    second = ask(page, "And what interest is charged on it?")
    expect(second.locator(".answer-text")).to_contain_text("15.9 percent")
    # The end of the new answer (its sources) is above the question box, not behind it.
    form_top = page.locator("#ask-form").bounding_box()["y"]
    sources = second.locator(".sources")
    expect(sources).to_be_visible()
    box = sources.bounding_box()
    assert box["y"] + box["height"] <= form_top + 1, (box, form_top)
    # Source chips name their section, so two passages of one file read differently.
    expect(second.locator(".source-link").first).to_contain_text("›")
    second.locator("summary").click()
    expect(second.locator(".report-facts")).to_contain_text("Searched as:")
    screenshot(page, "11-conversation-follow-up")

    # The extractive answer quotes a table's rows as sentences, not as pipes.
    page.locator("#new-conversation-button").click()
    expect(page.locator(".msg-answer")).to_have_count(0)
    rows = ask(page, "What are the card fees for a replacement card and express delivery?")
    expect(rows.locator(".answer-text")).to_contain_text("Replacement card: fee 7 EUR")
    assert "|" not in rows.locator(".answer-text").inner_text()
    # A markdown table in an answer (a model's) is rendered as a table by the page's own module.
    cells = page.evaluate("""async () => {
        const { renderWithTables } = await import('/js/markdown.js');
        const h = (tag, attrs, ...kids) => { const e = document.createElement(tag);
            for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
            for (const kid of kids.flat(Infinity)) e.append(kid); return e; };
        const box = document.createElement('div');
        box.append(...renderWithTables(h, 'Fees:\\n| Service | Fee |\\n| --- | --- |\\n| Replacement card | 7 EUR [1] |',
                                       (t) => [t]));
        return [...box.querySelectorAll('table.answer-table th, table.answer-table td')].map((c) => c.textContent);
    }""")
    assert cells == ["Service", "Fee", "Replacement card", "7 EUR [1]"], cells
    expect(page.locator("#conversation-list .conversation")).to_have_count(2)
    screenshot(page, "12-second-conversation")

    # Switch back: the earlier exchange is shown again, and a follow-up continues it.
    page.locator("#conversation-list .conversation-link", has_text="unarranged overdraft").click()
    expect(page.locator(".msg-question")).to_have_count(2)
    third = ask(page, "Is any part of it interest-free?")
    expect(third.locator(".answer-text")).to_contain_text("50 EUR")
    expect(page.locator("#conversation-list .conversation").first).to_contain_text("unarranged overdraft")

    # Rename and delete.
    page.once("dialog", lambda d: d.accept("Overdraft questions"))
    page.locator("#conversation-list .conversation").first.get_by_role("button", name="Rename").click()
    expect(page.locator("#conversation-list")).to_contain_text("Overdraft questions")
    page.once("dialog", lambda d: d.accept())
    page.locator("#conversation-list .conversation", has_text="Overdraft questions").get_by_role(
        "button", name="Delete").click()
    expect(page.locator("#conversation-list .conversation")).to_have_count(1)
    expect(page.locator(".msg-answer")).to_have_count(0)  # the open conversation was the deleted one
    context.close()
    assert not errors


def test_phone_width(browser, server) -> None:
    context, page, errors = open_page(browser, server, 390, 844)
    sign_in(page, server.key)
    answer = ask(page, "How long does a SWIFT transfer take?")
    expect(answer.locator(".answer-text")).to_contain_text("1 to 4 business days")
    follow = ask(page, "And what does it cost?")
    expect(follow.locator(".answer-text")).to_contain_text("15 EUR")
    form_top = page.locator("#ask-form").bounding_box()["y"]
    box = follow.locator(".sources").bounding_box()
    assert box["y"] + box["height"] <= form_top + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    screenshot(page, "13-phone-conversation")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "14-phone-conversation-list")
    context.close()
    assert not errors


def test_markdown_tables_split_from_answer_text(browser, server) -> None:
    """Pipe tables, whole or with their line breaks lost (an extractive answer quotes a
    table as one sentence), become tables; other pipes stay text."""
    context, page, errors = open_page(browser, server, 800, 600)
    parts = page.evaluate("""async () => {
        const { splitTables } = await import("/js/markdown.js");
        return [
            splitTables("Fees: | Service | Fee | | --- | --- | | Card | 7 EUR | | Express | 12 EUR | [1]"),
            splitTables("Intro\\n| A | B |\\n| :-- | --: |\\n| 1 | 2 [1] |\\nAfter"),
            splitTables("a | b is not a table"),
        ];
    }""")
    assert [p["type"] for p in parts[0]] == ["text", "table", "text"]
    assert parts[0][1]["header"] == ["Service", "Fee"] and parts[0][1]["rows"] == [["Card", "7 EUR"], ["Express", "12 EUR"]]
    assert parts[1][1] == {"type": "table", "header": ["A", "B"], "rows": [["1", "2 [1]"]]}
    assert parts[2] == [{"type": "text", "text": "a | b is not a table"}]
    context.close()
    assert not errors
