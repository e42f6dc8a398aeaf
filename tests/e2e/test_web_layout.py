"""Issue 30, the page at 390 and 1280 px with real data (the sample knowledge base,
a user's transactions, usage), in headless Chromium against the real server: no tab
scrolls sideways; an answer's table is stacked on a phone and never breaks a word or
a number; the chart's labels stay readable; the top bar stays on screen in a long
chat; conversations that start alike can be told apart; a new upload shows at the
top with its progress and the list keeps its order after a reload; Retry is offered
only where a retry can succeed.

Screenshots of every tab at both widths go to test-artifacts/screenshots/
(``page-<tab>-<width>.png``; the ones in docs/images/ come from here).
"""

from __future__ import annotations

import re
import threading
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

import ragline
from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.settings import ChunkingSettings, EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs
from tests.statements import owner_rows, write_csv
from tests.web_helpers import ask, launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser

EXPECT_MS = 20_000
SAMPLE = Path(ragline.__file__).parent / "sample"
WIDTHS = (390, 1280)
MONEY = "Where am I spending the most money?"


class SteerableEmbedder(HashingEmbedder):
    """The hashing embedder, steered by the text it embeds: while ``gate`` is closed, a
    text with ``HOLD`` stops after its first batch (its progress stays on screen for as
    long as a test needs); while ``down`` is set, a text with ``FLAKY`` fails as a
    provider that is unreachable does (a transient error)."""

    HOLD = "roadmap"
    FLAKY = "flaky"

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.down = False
        self.held_batches = 0

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        if self.down and any(self.FLAKY in t for t in texts):
            raise RuntimeError("the embedding provider is unreachable")
        if any(self.HOLD in t for t in texts):
            self.held_batches += 1
            if self.held_batches > 1:  # batch 1 is done and reported: progress is visible
                self.gate.wait(timeout=120)
        return super().embed_documents(texts)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory):
    require_browser()
    settings = Settings(home=tmp_path_factory.mktemp("web-layout") / "home",
                        embedder=EmbedderSettings(name="hashing", batch_size=8),
                        chunking=ChunkingSettings(size=300, overlap=30),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1, job_process=False))
    embedder = SteerableEmbedder()
    engine = Engine(settings, embedder=embedder)
    today = date.today()
    start = date(today.year - (today.month <= 6), (today.month - 7) % 12 + 1, 1)  # six months back
    rows = owner_rows(11, currency="GBP", start=start, months=7, salary=Decimal("3200.00"), rent=Decimal("1300.00"))
    try:
        with LiveServer(settings, engine) as server, launch_chromium() as browser:
            tenant_key = create_tenant(server, "layout")
            with server.client(ADMIN_KEY) as admin:
                ann = admin.post("/v1/tenants/layout/keys", json={"owner": "ann"}).json()["key"]
            with server.client(tenant_key) as client:  # the sample knowledge base, shared
                files = [("files", (p.name, p.read_bytes())) for p in sorted(SAMPLE.iterdir())]
                jobs = client.post("/v1/collections/bank/documents", files=files).json()["jobs"]
                wait_for_jobs(client, [j["id"] for j in jobs])
                for question in ("How much is the fee for an unarranged overdraft?", "How do I report a lost card?"):
                    assert client.post("/v1/ask", json={"collection": "bank", "question": question}).status_code == 200
            with server.client(ann) as client:  # ann's own transactions
                data = write_csv(rows, "starling")[0]
                imported = client.post("/v1/transactions/import", files={"file": ("ann.csv", data, "text/csv")})
                assert imported.status_code == 200, imported.text
            yield {"server": server, "browser": browser, "tenant": tenant_key, "ann": ann, "embedder": embedder}
    finally:
        embedder.gate.set()  # never leave a worker waiting at shutdown
        engine.close()


def open_page(setup, key: str, width: int, height: int = 844):  # type: ignore[no-untyped-def]
    """A signed-in page; the test fails on any JavaScript error (checked by ``close``)."""
    phone = width < 640
    context = setup["browser"].new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                                           has_touch=phone, device_scale_factor=2 if phone else 1)
    context.set_default_timeout(EXPECT_MS)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))  # type: ignore[attr-defined]
    page.goto(f"{setup['server'].url}/#key={key}")
    page.locator("#app-view").wait_for(state="visible")
    return page


def close(page) -> None:  # type: ignore[no-untyped-def]
    errors = page.errors
    page.context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def tab(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("tab", name=name).click()
    expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")


def sideways(page) -> int:  # type: ignore[no-untyped-def]
    """How far the document is wider than the screen (0 when it fits). Against the
    device's width: a phone browser widens its layout viewport to the content."""
    return page.evaluate("document.documentElement.scrollWidth") - page.viewport_size["width"]


def doc_row(page, name: str):  # type: ignore[no-untyped-def]
    return page.locator("#documents li.doc").filter(has=page.locator(".doc-name", has_text=name))


def no_accessibility_violations(page, where: str) -> None:  # type: ignore[no-untyped-def]
    """axe-core in the light and the dark palette."""
    from axe_playwright_python.sync_playwright import Axe

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        violations = Axe().run(page).response["violations"]
        assert not [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in violations], \
            f"{where}, {scheme}"
    page.emulate_media(color_scheme="light")


BROKEN_WORDS = """(root) => {
    // A word (or number) the browser broke across lines has client rects on two lines.
    const broken = [];
    for (const cell of root.querySelectorAll("th, td")) {
        if (cell.getBoundingClientRect().width <= 2) continue;  // a header kept for screen readers only
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of node.data.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, m.index);
                range.setEnd(node, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (lines.size > 1) broken.push(m[0]);
            }
        }
    }
    return broken;
}"""

VISIBLE_TEXT = """links => links.map((link) => [...link.querySelectorAll("span")]
    .filter((s) => s.getClientRects().length).map((s) => {
        // only what is on screen: of a span cut by an ellipsis, the part that fits
        const clipped = getComputedStyle(s).textOverflow === "ellipsis" && s.scrollWidth > s.clientWidth + 1;
        return clipped ? s.textContent.slice(0, Math.floor(s.textContent.length * s.clientWidth / s.scrollWidth) - 1)
                       : s.textContent;
    }).join(" | "))"""

LABEL_SIZES = """(svg) => {
    // The font size a reader sees: the computed size times the SVG's scale on screen.
    const box = svg.viewBox.baseVal;
    const scale = box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
    return [...svg.querySelectorAll("text")].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
}"""


# -- every tab fits, at both widths (and the screenshots) ----------------------
@pytest.mark.parametrize("width", WIDTHS)
def test_no_tab_scrolls_sideways(setup, width: int) -> None:
    height = 844 if width < 640 else 900
    page = open_page(setup, setup["ann"], width, height)
    answer = ask(page, MONEY)
    answer.locator(".records-table").wait_for()
    assert sideways(page) <= 0, "Ask"
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"page-ask-{width}")
    answer.scroll_into_view_if_needed()
    screenshot(page, f"page-ask-answer-{width}")
    tab(page, "Documents")
    expect(page.locator("#documents li.doc")).to_have_count(len(list(SAMPLE.iterdir())))
    assert sideways(page) <= 0, "Documents"
    screenshot(page, f"page-documents-{width}")
    tab(page, "Transactions")
    page.locator("#tx-rows tr").first.wait_for()
    assert sideways(page) <= 0, "Transactions"
    assert page.locator("#tx-table").evaluate(BROKEN_WORDS) == [], "words or numbers broken across lines"
    screenshot(page, f"page-transactions-{width}")
    close(page)

    page = open_page(setup, setup["tenant"], width, height)  # usage is shown to the whole tenant's keys
    tab(page, "Usage")
    page.locator(".usage-table tbody tr").first.wait_for()
    assert sideways(page) <= 0, f"Usage is {sideways(page)} px wider than the {width} px screen"
    assert page.locator(".usage-table").evaluate(BROKEN_WORDS) == [], "words or numbers broken across lines"
    screenshot(page, f"page-usage-{width}")
    no_accessibility_violations(page, f"Usage at {width} px")
    page.get_by_role("button", name="Sign out").click()
    page.locator("#signin-view").wait_for(state="visible")
    screenshot(page, f"page-signin-{width}")
    close(page)


# -- an answer's table and chart ---------------------------------------------
def test_an_answers_table_is_stacked_on_a_phone_and_breaks_no_word(setup) -> None:
    page = open_page(setup, setup["ann"], 390)
    table = ask(page, MONEY).locator(".records-table")
    table.wait_for()
    assert table.evaluate(BROKEN_WORDS) == [], "words or numbers broken across lines"
    columns = table.locator("thead th").all_text_contents()
    first = table.locator("tbody tr").first
    assert first.evaluate("tr => getComputedStyle(tr).display") != "table-row"  # a card, not a row
    assert first.locator("td").evaluate_all("tds => tds.map((td) => td.dataset.label)") == columns
    label = first.locator("td").first.evaluate("td => getComputedStyle(td, '::before').content")
    assert label.strip('"') == columns[0]  # each value says what it is
    numbers = table.locator("td.num")
    assert numbers.count() > 0
    assert set(numbers.evaluate_all("tds => tds.map((td) => getComputedStyle(td).whiteSpace)")) == {"nowrap"}
    no_accessibility_violations(page, "an answer's cards")
    close(page)

    page = open_page(setup, setup["ann"], 1280, 900)  # a table as a table on a wide screen
    table = ask(page, MONEY).locator(".records-table")
    table.wait_for()
    assert table.locator("tbody tr").first.evaluate("tr => getComputedStyle(tr).display") == "table-row"
    assert table.evaluate(BROKEN_WORDS) == []
    close(page)


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_labels_stay_readable(setup, width: int) -> None:
    page = open_page(setup, setup["ann"], width, 900)
    answer = ask(page, MONEY)
    svg = answer.locator(".records-chart svg").first
    svg.wait_for()
    sizes = svg.evaluate(LABEL_SIZES)
    assert sizes and min(sizes) >= 11, f"chart labels at {width} px: {sorted(sizes)[:3]} px"
    assert svg.bounding_box()["x"] + svg.bounding_box()["width"] <= width
    page.set_viewport_size({"width": 1280 if width < 640 else 390, "height": 900})  # turned, resized: still readable
    # (the chart is drawn again at its new width: ask the page for the SVG now there)
    page.wait_for_function(f"() => ({LABEL_SIZES})(document.querySelector('.records-chart svg'))"
                           ".every((s) => s >= 11)")
    assert svg.bounding_box()["x"] + svg.bounding_box()["width"] <= page.viewport_size["width"]
    close(page)


# -- the top bar in a long chat ------------------------------------------------
def test_the_top_bar_stays_on_screen_in_a_long_chat(setup) -> None:
    page = open_page(setup, setup["tenant"], 1280, 800)
    for i in range(8):
        ask(page, f"How much is the fee for an unarranged overdraft? ({i + 1})")
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.locator(".msg-answer").last.scroll_into_view_if_needed()
    for part in ("#collection-select", "#signout-button", "#tab-documents"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, (part, box)
    expect(page.get_by_label("Your question")).to_be_in_viewport()
    screenshot(page, "page-ask-long-chat-1280")
    close(page)


# -- conversation titles ----------------------------------------------------------
def test_conversations_that_start_alike_can_be_told_apart(setup) -> None:
    stem = "How much is the fee for an unarranged overdraft on my current account"
    assert len(stem) > 60
    with setup["server"].client(ADMIN_KEY) as admin:  # a user of their own: no other conversations
        carol = admin.post("/v1/tenants/layout/keys", json={"owner": "carol"}).json()["key"]
    page = open_page(setup, carol, 1280, 900)
    ask(page, f"{stem} per day?")
    page.get_by_role("button", name="New chat").click()
    ask(page, f"{stem} per month?")
    titles = page.locator("#conversation-list .conversation-link")
    expect(titles).to_have_count(2)
    deadline = time.monotonic() + EXPECT_MS / 1000
    while (shown := titles.evaluate_all(VISIBLE_TEXT))[0] == shown[1] and time.monotonic() < deadline:
        time.sleep(0.1)  # the list is drawn again once the page has read what tells them apart
    assert shown[0] != shown[1], shown
    assert any("month" in s for s in shown) and any("day" in s for s in shown), shown
    close(page)


# -- uploads: where they land, their progress, the order ----------------------------
def test_a_new_upload_shows_at_the_top_with_its_progress(setup) -> None:
    with setup["server"].client(setup["tenant"]) as client:  # a collection longer than the screen
        documents = [{"source": f"minutes-{i:02d}.txt", "text": f"Minutes of meeting {i}: the budget was approved."}
                     for i in range(16)]
        jobs = client.post("/v1/collections/archive/documents/text", json={"documents": documents}).json()["jobs"]
        wait_for_jobs(client, [j["id"] for j in jobs])
    # The list is newest first to the second, then by name (a batch reads alphabetically):
    # an upload in the same second as the archive's documents would sort among them.
    time.sleep(1.1)
    page = open_page(setup, setup["tenant"], 1280, 820)
    page.locator("#collection-select").select_option("archive")
    tab(page, "Documents")
    expect(page.locator("#documents li.doc")).to_have_count(16)
    embedder = setup["embedder"]
    embedder.held_batches = 0
    embedder.gate.clear()  # hold the upload after its first batch
    try:
        notes = "\n\n".join(f"Item {i} of the roadmap was reviewed by the team, owners were assigned for milestone "
                            f"{i % 7}, and the notes were filed for the next planning meeting." for i in range(120))
        page.locator("#file-input").set_input_files([{"name": "zz-roadmap.txt", "mimeType": "text/plain",
                                                      "buffer": notes.encode()}])
        row = doc_row(page, "zz-roadmap.txt")
        expect(row.locator(".state")).to_have_text("Embedding")
        # Where the user is looking, not below the fold. Not ratio=1: the card grows as its
        # progress arrives, and CI once saw 99.87 % of it in view (a fraction of a pixel out).
        expect(row).to_be_in_viewport(ratio=0.99)
        expect(row.locator("progress")).to_be_in_viewport()
        expect(row.locator(".doc-detail")).to_have_text(re.compile(r"[1-9]\d* / \d+ chunks · \d+ %"))
        assert page.locator("#documents li.doc").first.evaluate("li => li.dataset.key") == \
            row.evaluate("li => li.dataset.key")
        screenshot(page, "page-documents-uploading-1280")
    finally:
        embedder.gate.set()
    expect(row).to_have_attribute("data-state", "indexed")
    close(page)


def test_the_document_list_keeps_its_order_after_a_reload(setup) -> None:
    with setup["server"].client(setup["tenant"]) as client:
        for i in range(4):  # one after another
            jobs = client.post("/v1/collections/minutes/documents/text", json={"documents": [
                {"source": f"minutes-{i}.txt", "text": f"Minutes of meeting {i}: the budget was approved."}]})
            wait_for_jobs(client, [j["id"] for j in jobs.json()["jobs"]])
    page = open_page(setup, setup["tenant"], 1280, 900)
    page.locator("#collection-select").select_option("minutes")
    tab(page, "Documents")
    expect(page.locator("#documents li.doc")).to_have_count(4)
    page.locator("#file-input").set_input_files([{"name": "agenda.txt", "mimeType": "text/plain",
                                                  "buffer": b"Agenda: the budget, then the roadmap."}])
    expect(doc_row(page, "agenda.txt")).to_have_attribute("data-state", "indexed")
    before = page.locator("#documents .doc-name").all_text_contents()
    page.reload()
    page.locator("#app-view").wait_for(state="visible")
    page.locator("#collection-select").select_option("minutes")
    tab(page, "Documents")
    expect(page.locator("#documents li.doc")).to_have_count(5)
    assert page.locator("#documents .doc-name").all_text_contents() == before
    assert before[0] == "agenda.txt"  # the newest (and first by name, should they share a second)
    close(page)


# -- retry where it can succeed ---------------------------------------------------
def test_retry_is_offered_only_where_a_retry_can_succeed(setup) -> None:
    embedder = setup["embedder"]
    page = open_page(setup, setup["tenant"], 1280, 900)
    page.locator("#collection-select").select_option("bank")
    tab(page, "Documents")
    embedder.down = True
    try:
        page.locator("#file-input").set_input_files([
            {"name": "scan.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 this is not really a PDF"},
            {"name": "flaky-notes.txt", "mimeType": "text/plain",
             "buffer": b"These flaky notes need the embedding provider, which is down for now."}])
        scan = doc_row(page, "scan.pdf")
        expect(scan).to_have_attribute("data-state", "failed")
        expect(scan.locator(".doc-error")).to_contain_text("PDF")  # the reason, where Retry would be
        expect(scan.get_by_role("button", name="Retry scan.pdf")).to_be_hidden()
        expect(scan.get_by_role("button", name="Delete scan.pdf")).to_be_visible()
        flaky = doc_row(page, "flaky-notes.txt")  # fails after its 3 tries (2 s and 4 s apart)
        expect(flaky).to_have_attribute("data-state", "failed", timeout=60_000)
        expect(flaky.locator(".doc-error")).to_contain_text("unreachable")
        retry = flaky.get_by_role("button", name="Retry flaky-notes.txt")
        expect(retry).to_be_visible()
        screenshot(page, "page-documents-failed-1280")
    finally:
        embedder.down = False
    retry.click()
    expect(flaky).to_have_attribute("data-state", "indexed")
    expect(retry).to_be_hidden()
    close(page)
