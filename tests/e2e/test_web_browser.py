"""The web page end to end, in headless Chromium against the real server: sign in
with a tenant key, create a collection, drag and drop files, watch live job
progress, a failed document with its reason (no Retry for a file that cannot be
parsed) deleted, ask, read the streamed answer,
open a citation's passage; abstain; phone width; accessibility (axe-core).

Screenshots of the main views go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import base64
import re
import threading
import time

import pytest
from playwright.sync_api import expect

from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.settings import AnswerSettings, ChunkingSettings, EmbedderSettings, ServerSettings, Settings
from ragline.web import CSP

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant
from tests.web_helpers import launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser

EXPECT_MS = 20_000  # generous: CI machines are slow, and nothing here waits on a clock

HANDBOOK_PAGES = [
    ("Working hours", ("The office opens at 8 am and closes at 6 pm on weekdays. "
                       "Core hours, when everyone is reachable, are from 10 am to 3 pm.")),
    ("Vacation", ("Every employee receives 27 vacation days per year. "
                  "Unused vacation days expire on March 31 of the following year.")),
    ("Expenses", ("Travel expenses are reimbursed within 14 days once the receipt is uploaded. "
                  "Markup such as <em>receipt</em> in a document is plain text, never HTML.")),
]


class GatedEmbedder(HashingEmbedder):
    """The hashing embedder, except that it can hold a document mid-way: while the
    gate is closed, embedding texts that contain ``HOLD`` stops after the first
    batch. The page's live progress ("8 / 45 chunks") is then on screen for as
    long as the test needs, with no timing guesses."""

    HOLD = "roadmap"

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()
        self.held_batches = 0

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        if any(self.HOLD in t for t in texts):
            self.held_batches += 1
            if self.held_batches > 1:  # batch 1 is done and reported: progress is visible
                self.gate.wait(timeout=120)
        return super().embed_documents(texts)


# -- fixtures -----------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    require_browser()
    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("web-home")
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing", batch_size=8),
                        chunking=ChunkingSettings(size=300, overlap=30),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1),
                        # The hashing embedder has no measured abstain floor; set one so an
                        # off-topic question abstains (cosine 0.12 here vs ≥ 0.45 on topic).
                        answer=AnswerSettings(relevance_floor=0.25))
    embedder = GatedEmbedder()
    engine = Engine(settings, embedder=embedder)
    with LiveServer(settings, engine) as live:
        live.embedder = embedder  # type: ignore[attr-defined]
        try:
            yield live
        finally:
            embedder.gate.set()  # never leave a worker waiting at shutdown
    engine.close()


@pytest.fixture(scope="module")
def handbook_pdf(browser) -> bytes:
    """A real three-page PDF with a title, printed by Chromium itself."""
    page = browser.new_page()
    sections = "".join(f'<section style="break-after: page"><h1>{title}</h1><p>{text.replace("<", "&lt;")}</p></section>'
                       for title, text in HANDBOOK_PAGES)
    page.set_content(f"<html><head><title>Acme employee handbook</title></head><body>{sections}</body></html>")
    pdf = page.pdf(format="A5")
    page.close()
    return pdf


@pytest.fixture
def page(browser, server):
    """A fresh browser context (empty sessionStorage) that fails the test on any JS error
    or anything the page's Content-Security-Policy refused."""
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    context.set_default_timeout(EXPECT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda message: errors.append(message.text)
           if "Content Security Policy" in message.text else None)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def sign_in(page, server, key: str) -> None:
    page.goto(server.url + "/")
    page.get_by_label("Tenant API key").fill(key)
    page.get_by_role("button", name="Sign in").click()
    page.locator("#app-view").wait_for(state="visible")


def create_collection(page, name: str) -> None:
    page.locator("#new-collection-button:visible, #first-collection-button:visible").first.click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Create").click()
    expect(page.locator("#collection-select")).to_have_value(name)


def drop_files(page, files: list[tuple[str, str, bytes]]) -> None:
    """Drag and drop files onto the drop zone, as a user's file manager would."""
    payload = [{"name": n, "type": t, "b64": base64.b64encode(b).decode()} for n, t, b in files]
    transfer = page.evaluate_handle("""(files) => {
        const dt = new DataTransfer();
        for (const f of files) {
            const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
            dt.items.add(new File([bytes], f.name, { type: f.type }));
        }
        return dt;
    }""", payload)
    page.dispatch_event("#dropzone", "dragenter", {"dataTransfer": transfer})
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def doc_row(page, name: str):
    return page.locator("#documents li.doc").filter(has=page.locator(".doc-name", has_text=name))


def long_notes() -> bytes:
    paragraphs = [f"Meeting {i}: the team reviewed item {i} of the roadmap and agreed on next steps for "
                  f"milestone {i % 7}. Action owners were assigned and the notes were filed." for i in range(90)]
    return "\n\n".join(paragraphs).encode()


def ask(page, question: str):
    """Ask and wait for the answer to finish streaming; returns the answer element."""
    count = page.locator(".msg-answer").count()
    page.get_by_label("Your question").fill(question)
    with page.expect_response(lambda r: r.url.endswith("/v1/ask")) as response:
        page.keyboard.press("Enter")
    assert "text/event-stream" in response.value.headers["content-type"]
    answer = page.locator(".msg-answer").nth(count)
    answer.and_(page.locator("[aria-busy=false]")).wait_for()
    return answer


# -- tests --------------------------------------------------------------------
def test_sign_in_with_a_tenant_key(page, server):
    key = create_tenant(server, "signin")
    page.goto(server.url + "/")
    screenshot(page, "01-sign-in")
    page.get_by_label("Tenant API key").fill("rl-not-a-real-key")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("That key was not accepted").wait_for()
    assert page.locator("#app-view").is_hidden()

    sign_in(page, server, key)
    page.get_by_role("heading", name="Create your first collection").wait_for()
    # The key lives in the tab's session: a reload stays signed in, without asking again.
    page.reload()
    page.locator("#app-view").wait_for(state="visible")
    assert page.evaluate("localStorage.length") == 0

    page.get_by_role("button", name="Sign out").click()
    page.locator("#signin-view").wait_for(state="visible")
    assert page.evaluate("sessionStorage.getItem('ragline.key')") is None

    # A sign-in link carries the key in the fragment (never sent to the server) and drops it at once.
    page.goto(f"{server.url}/#key={key}")
    page.locator("#app-view").wait_for(state="visible")
    assert page.evaluate("window.location.hash") == ""


def test_a_revoked_key_returns_to_sign_in(page, server):
    key = create_tenant(server, "revoked")
    sign_in(page, server, key)
    with server.client(ADMIN_KEY) as admin:
        key_id = admin.get("/v1/tenants/revoked/keys").json()["keys"][0]["id"]
        assert admin.delete(f"/v1/tenants/revoked/keys/{key_id}").status_code == 204
    create_collection_button = page.locator("#first-collection-button")
    create_collection_button.click()
    page.get_by_label("Name", exact=True).fill("anything")
    page.get_by_role("button", name="Create").click()
    page.get_by_text("Your key is no longer accepted").wait_for()
    assert page.locator("#signin-view").is_visible()


def test_upload_progress_failure_retry_delete_then_ask_and_open_a_citation(page, server, handbook_pdf):
    key = create_tenant(server, "acme")
    sign_in(page, server, key)
    create_collection(page, "handbook")
    page.get_by_role("tab", name="Documents").click()

    server.embedder.gate.clear()  # hold meeting-notes.txt after its first batch
    drop_files(page, [
        ("handbook.pdf", "application/pdf", handbook_pdf),
        ("meeting-notes.txt", "text/plain", long_notes()),
        ("scan.pdf", "application/pdf", b"%PDF-1.4 this is not really a PDF"),
    ])
    # Live progress: the long file shows "n / total chunks" while it is embedded.
    notes = doc_row(page, "meeting-notes.txt")
    notes.locator(".doc-detail", has_text=re.compile(r"[1-9]\d* / \d+ chunks")).wait_for()
    assert notes.locator("progress").is_visible()
    assert notes.locator(".state").inner_text() == "Embedding"
    assert page.locator("#docs-badge").is_visible()
    screenshot(page, "02-documents-progress")
    server.embedder.gate.set()

    for name in ("handbook.pdf", "meeting-notes.txt"):
        doc_row(page, name).and_(page.locator("[data-state=indexed]")).wait_for()
    failed = doc_row(page, "scan.pdf").and_(page.locator("[data-state=failed]"))
    failed.wait_for()
    reason = failed.locator(".doc-error").inner_text()
    assert "scan.pdf" in reason or "PDF" in reason, reason
    assert page.locator("#docs-badge").is_hidden()
    screenshot(page, "03-documents-failed")

    # A file that cannot be parsed fails the same way again: no Retry, the reason instead
    # (Retry where it can succeed: test_web_layout.py).
    assert failed.get_by_role("button", name="Retry scan.pdf").is_hidden()

    # Delete asks for confirmation inline, then the row and the document are gone.
    failed.get_by_role("button", name="Delete scan.pdf").click()
    failed.get_by_role("button", name="Confirm delete scan.pdf").click()
    doc_row(page, "scan.pdf").wait_for(state="detached")
    with server.client(key) as api:
        sources = [d["source"] for d in api.get("/v1/collections/handbook/documents").json()["documents"]]
    assert sorted(sources) == ["handbook.pdf", "meeting-notes.txt"]

    # Ask: the answer streams in (SSE), cites the handbook, and [n] opens the passage.
    page.get_by_role("tab", name="Ask").click()
    answer = ask(page, "How many vacation days does every employee receive per year?")
    assert not answer.evaluate("el => el.classList.contains('abstained')")
    assert "27" in answer.locator(".answer-text").inner_text()
    cite = answer.locator(".answer-text button.cite").first
    cite.wait_for()
    answer.locator(".report summary").click()
    assert answer.locator(".report .timings dt").count() > 0
    assert answer.locator(".report").get_by_text("Kept in context").is_visible()
    screenshot(page, "04-answer-with-citations")

    cite.click()
    dialog = page.get_by_role("dialog")
    dialog.locator("blockquote.passage-text").wait_for()
    assert "handbook" in dialog.locator("#passage-title").inner_text().lower()
    assert "Page 2" in dialog.locator("#passage-meta").inner_text()
    passage = dialog.locator("blockquote.passage-text")
    assert "27 vacation days" in passage.inner_text()
    assert passage.locator("mark").count() > 0
    screenshot(page, "05-citation-passage")
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.classList.contains('cite')")  # focus went back

    # Text from documents is shown as text: the markup in the handbook stays literal.
    answer = ask(page, "When are travel expenses reimbursed after the receipt is uploaded?")
    answer.locator(".sources button").first.wait_for()
    for source in answer.locator(".sources button").all():
        source.click()
        dialog.locator("blockquote.passage-text").wait_for()
        text = dialog.locator("blockquote.passage-text").inner_text()
        page.keyboard.press("Escape")
        if "<em>receipt</em>" in text:
            break
    else:
        pytest.fail("the expenses passage was not among the sources")
    assert page.locator(".passage-text em, .answer-text em").count() == 0


def test_abstain_is_said_plainly(page, server):
    key = create_tenant(server, "abstain")
    with server.client(key) as api:
        api.post("/v1/collections", json={"name": "kb"}).raise_for_status()
        jobs = api.post("/v1/collections/kb/documents/text", json={"documents": [
            {"text": "The cafeteria serves lunch from noon to two.", "source": "cafeteria.txt"}]}).json()["jobs"]
        deadline = time.monotonic() + EXPECT_MS / 1000
        while api.get(f"/v1/jobs/{jobs[0]['id']}").json()["state"] != "indexed":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    sign_in(page, server, key)
    answer = ask(page, "What is the airspeed velocity of an unladen swallow?")
    assert answer.evaluate("el => el.classList.contains('abstained')")
    assert "Not found in your documents" in answer.inner_text()
    screenshot(page, "06-abstained", full_page=True)


def test_phone_width(browser, server):
    key = create_tenant(server, "phone")
    with server.client(key) as api:
        api.post("/v1/collections", json={"name": "notes"}).raise_for_status()
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True)
    context.set_default_timeout(EXPECT_MS)
    page = context.new_page()
    try:
        sign_in(page, server, key)
        overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        assert page.evaluate(overflow) <= 0, "the page scrolls sideways at phone width"
        page.get_by_label("Your question").wait_for()
        screenshot(page, "07-phone-ask")
        page.get_by_role("tab", name="Documents").click()
        # The file chooser path (the drop zone's label opens it).
        page.locator("#file-input").set_input_files([{"name": "todo.md", "mimeType": "text/markdown",
                                                      "buffer": b"# Todo\n\nBuy oat milk and call the bank on Friday."}])
        doc_row(page, "todo.md").and_(page.locator("[data-state=indexed]")).wait_for()
        assert page.evaluate(overflow) <= 0
        screenshot(page, "08-phone-documents")
        page.get_by_role("tab", name="Ask").click()
        answer = ask(page, "What milk should I buy on Friday?")
        answer.locator("button.cite").first.click()
        page.locator("blockquote.passage-text", has_text="oat milk").wait_for()
        assert page.evaluate(overflow) <= 0
        screenshot(page, "09-phone-passage")
    finally:
        context.close()


def test_keyboard_only(page, server):
    """Sign in, switch tabs with arrow keys and ask, using the keyboard alone."""
    key = create_tenant(server, "keyboard")
    with server.client(key) as api:
        api.post("/v1/collections", json={"name": "kb"}).raise_for_status()
    page.goto(server.url + "/")
    page.keyboard.type(key)  # the key field has focus on load
    page.keyboard.press("Enter")
    page.locator("#app-view").wait_for(state="visible")
    assert page.evaluate("document.activeElement.id") == "question"
    page.locator("#tab-ask").focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.id") == "tab-documents"
    assert page.locator("#documents-view").is_visible()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#ask-view").is_visible()


def test_no_accessibility_violations(page, server, handbook_pdf):
    """axe-core (bundled by axe-playwright-python) on each main view."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()

    def check(view: str) -> None:
        results = axe.run(page)
        problems = [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                    for v in results.response["violations"]]
        assert not problems, f"{view}: {problems}"

    key = create_tenant(server, "a11y")
    page.goto(server.url + "/")
    check("sign in")
    sign_in(page, server, key)
    check("no collection yet")
    create_collection(page, "kb")
    page.get_by_role("tab", name="Documents").click()
    page.locator("#file-input").set_input_files(
        [{"name": "handbook.pdf", "mimeType": "application/pdf", "buffer": handbook_pdf},
         {"name": "broken.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 broken"}])
    doc_row(page, "handbook.pdf").and_(page.locator("[data-state=indexed]")).wait_for()
    doc_row(page, "broken.pdf").and_(page.locator("[data-state=failed]")).wait_for()
    check("documents")
    page.get_by_role("tab", name="Ask").click()
    answer = ask(page, "How many vacation days does every employee receive?")
    answer.locator(".report summary").click()
    check("answer")
    answer.locator("button.cite, .sources button").first.click()
    page.locator("blockquote.passage-text").wait_for()
    check("passage dialog")
    page.emulate_media(color_scheme="dark")  # the dark palette must keep its contrast too
    check("passage dialog, dark")
    page.keyboard.press("Escape")
    page.get_by_role("tab", name="Documents").click()
    check("documents, dark")


def test_static_files_and_api_share_the_app(server):
    """The page is served at / and the API routes keep working beside it."""
    with server.client() as client:
        index = client.get("/")
        assert index.status_code == 200 and "text/html" in index.headers["content-type"]
        assert "<title>ragline</title>" in index.text
        for path in ("/", "/index.html", "/style.css", "/js/app.js"):  # the page's files, not the API's
            headers = client.get(path).headers
            assert headers["content-security-policy"] == CSP and "frame-ancestors 'none'" in CSP, path
            assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff", path
        assert client.get("/js/app.js").headers["content-type"].split(";")[0] in (
            "text/javascript", "application/javascript")
        assert client.get("/healthz").json() == {"status": "ok"}
        assert "/v1/ask" in client.get("/openapi.json").json()["paths"]
        assert client.get("/v1/collections").status_code == 401
        missing = client.get("/no-such-file.js")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"



def test_an_encrypted_pdf_asks_for_its_password_and_opens_with_it(page, server):
    from tests.paths import PDF_SAMPLES, need

    encrypted = need(PDF_SAMPLES / "005-libreoffice-writer-password" / "libreoffice-writer-password.pdf").read_bytes()
    sign_in(page, server, create_tenant(server, "locked"))
    create_collection(page, "vault")
    page.get_by_role("tab", name="Documents").click()
    drop_files(page, [("locked.pdf", "application/pdf", encrypted)])
    failed = doc_row(page, "locked.pdf").and_(page.locator("[data-state=failed]"))
    failed.wait_for()
    assert "password" in failed.locator(".doc-error").inner_text().lower()
    failed.get_by_role("button", name="Enter the password for locked.pdf").click()
    field = page.get_by_role("textbox", name="Password for locked.pdf")
    expect(field).to_be_focused()
    field.fill("openpassword")
    screenshot(page, "08-documents-password")
    field.press("Enter")
    doc_row(page, "locked.pdf").and_(page.locator("[data-state=indexed]")).wait_for()
    expect(doc_row(page, "locked.pdf").locator(".doc-error")).to_be_hidden()
