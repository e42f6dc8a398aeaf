"""The page's JavaScript modules, unit-tested inside headless Chromium: the parts the
end-to-end flow cannot steer into their edge cases (how the network splits an
event stream, which bracketed numbers are citations). The modules are served by a
bare FastAPI app with only the page mounted."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from ragline.web import mount

from tests.web_helpers import launch_chromium, require_browser, serve_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page():
    require_browser()
    app = FastAPI()
    mount(app)
    with serve_app(app) as url, launch_chromium() as browser:
        tab = browser.new_page()
        tab.goto(url + "/")
        yield tab


def test_event_stream_parser_handles_any_chunking(page):
    """The SSE reader (fetch + ReadableStream, since EventSource cannot POST) must not
    depend on how the network splits the stream: events cut mid-line, CRLF endings,
    multi-line data, comments."""
    events = page.evaluate("""async () => {
        const { readEvents } = await import("/js/api.js");
        const text = ': keep-alive\\r\\nevent: delta\\r\\ndata: {"text": "Hel"}\\r\\n\\r\\n' +
                     'event: delta\\ndata: {"text": "lo [1]"}\\n\\n' +
                     'event: done\\ndata: {"answer": "Hello [1]",\\ndata:  "abstained": false}\\n\\n';
        const bytes = new TextEncoder().encode(text);
        const out = [];
        for (const size of [1, 2, 7, 1000]) {
            let i = 0;
            const body = new ReadableStream({ pull(c) {
                if (i >= bytes.length) return c.close();
                c.enqueue(bytes.slice(i, i + size)); i += size;
            } });
            const got = [];
            for await (const e of readEvents(body)) got.push([e.event, e.data]);
            out.push(got);
        }
        return out;
    }""")
    expected = [["delta", '{"text": "Hel"}'], ["delta", '{"text": "lo [1]"}'],
                ["done", '{"answer": "Hello [1]",\n "abstained": false}']]
    assert events == [expected] * 4


def test_citation_markers_become_buttons_only_when_cited(page):
    result = page.evaluate("""async () => {
        const { AnswerView } = await import("/js/answer.js");
        const opened = [];
        const view = new AnswerView({ onCite: (c, claims) => opened.push([c.n, claims]) });
        document.body.appendChild(view.el);
        view.finish({
            answer: "Fees rose in [2019]. The fee is 5 EUR a day [1]. It is waived for students [1, 2].",
            citations: [{ n: 1, chunk_id: "c1", doc_id: "d1", source: "fees.pdf", page: 3 },
                        { n: 2, chunk_id: "c2", doc_id: "d2", source: "<img src=x onerror=alert(1)>.md", page: null }],
            abstained: false, context: { kept: [], dropped: [], tokens: 0 }, timings_ms: { total: 5 },
        });
        const buttons = [...view.el.querySelectorAll(".answer-text button.cite")];
        buttons[0].click();
        return { labels: buttons.map((b) => b.getAttribute("aria-label")),
                 text: view.el.querySelector(".answer-text").textContent,
                 images: view.el.querySelectorAll("img").length, opened };
    }""")
    assert result["labels"] == ["Source 1: fees.pdf, page 3", "Source 1: fees.pdf, page 3", "Source 2: <img src=x onerror=alert(1)>.md"]
    assert "[2019]" in result["text"]  # a year in brackets is not a citation
    assert result["images"] == 0  # server text is never parsed as HTML
    assert result["opened"] == [[1, ["The fee is 5 EUR a day", "It is waived for students"]]]


def test_reflow_joins_wrapped_lines_but_keeps_structure(page):
    out = page.evaluate("""async () => {
        const { reflow } = await import("/js/dom.js");
        return reflow("Vacation\\r\\nEvery employee receives 27 vacation days per year. Unused days expire on\\n" +
                      "March 31.\\n\\nSteps to follow when a card is lost:\\n- call the bank\\n- block the card\\n" +
                      "1. first item of a list that is long enough\\n2. second");
    }""")
    assert out == ("Vacation\nEvery employee receives 27 vacation days per year. Unused days expire on March 31.\n\n"
                   "Steps to follow when a card is lost:\n- call the bank\n- block the card\n"
                   "1. first item of a list that is long enough\n2. second")


def test_transaction_links_round_trip_any_id(page):
    """An answer links to `#tx-<id>` and `#transactions?id=…`; ids are the bank's own
    (FITIDs with spaces, slashes, `#`, `%`, accents) and must come back unchanged."""
    result = page.evaluate("""async () => {
        const { transactionHref, transactionsHref, parseTransactionsHash } = await import("/js/links.js");
        const ids = ["gen-5a7aae154699e8bba8826506", "2026 09/03#1", "100%", "café&x=1", "-"];
        return {
            one: ids.map((id) => parseTransactionsHash(transactionHref(id)).id),
            many: parseTransactionsHash(transactionsHref(ids, "spending on Groceries, GBP")),
            others: ["", "#", "#key=abc", "#tx-", "#tx-%E0%A4%A", "#transactions", "#transactions?label=x"]
                .map((h) => parseTransactionsHash(h)),
        };
    }""")
    ids = ["gen-5a7aae154699e8bba8826506", "2026 09/03#1", "100%", "café&x=1", "-"]
    assert result["one"] == ids
    assert result["many"] == {"ids": ids, "label": "spending on Groceries, GBP"}
    assert result["others"] == [None, None, None, None, None, {"all": True}, {"all": True}]


def test_amounts_are_shown_from_the_exact_string(page):
    """Money is the server's decimal string, digits grouped; never a float on the way."""
    result = page.evaluate("""async () => {
        const { formatAmount, monthRange } = await import("/js/transactions.js");
        return {
            amounts: ["-1234567.8901", "2410.55", "0.10", "-0.0001", "12345678901234567.89"].map((a) => formatAmount(a)),
            balance: formatAmount("6363.62", { plus: false }),
            months: ["2024-02", "2026-09", "2026-12", ""].map(monthRange),
        };
    }""")
    assert result["amounts"] == ["-1,234,567.8901", "+2,410.55", "+0.10", "-0.0001", "+12,345,678,901,234,567.89"]
    assert result["balance"] == "6,363.62"
    assert result["months"] == [{"start": "2024-02-01", "end": "2024-02-29"}, {"start": "2026-09-01", "end": "2026-09-30"},
                                {"start": "2026-12-01", "end": "2026-12-31"}, {}]
