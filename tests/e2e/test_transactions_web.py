"""The web page shows an exact answer's figures: signed in with a key bound to one
user, "Where am I spending the most money?" answers with the sentence, a bar chart
and the table; its citations highlight their table rows. Headless Chromium against
the real server; screenshots under test-artifacts/screenshots/."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant
from tests.statements import owner_rows, spending_by, write_csv
from tests.web_helpers import ask, launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser
EXPECT_MS = 20_000


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    require_browser()
    settings = Settings(home=tmp_path_factory.mktemp("tx-web") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0))
    today = date.today()
    start = date(today.year - (today.month <= 6), (today.month - 7) % 12 + 1, 1)  # six months back
    rows = owner_rows(11, currency="GBP", start=start, months=7, salary=Decimal("3200.00"), rent=Decimal("1300.00"))
    with LiveServer(settings) as server, launch_chromium() as browser:
        create_tenant(server, "bank")
        with server.client(ADMIN_KEY) as admin:
            key = admin.post("/v1/tenants/bank/keys", json={"owner": "ann"}).json()["key"]
        with server.client(key) as client:
            data = write_csv(rows, "starling")[0]
            response = client.post("/v1/transactions/import", files={"file": ("ann.csv", data, "text/csv")})
            assert response.status_code == 200, response.text
        yield {"server": server, "browser": browser, "key": key, "rows": rows}


def test_an_aggregate_answer_shows_its_chart_and_table(setup) -> None:
    context = setup["browser"].new_context(viewport={"width": 1200, "height": 1000})
    context.set_default_timeout(EXPECT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(setup["server"].url + "/")
    page.get_by_label("Tenant API key").fill(setup["key"])
    page.get_by_role("button", name="Sign in").click()
    page.locator("#app-view").wait_for(state="visible")
    answer = ask(page, "Where am I spending the most money?")
    truth = sorted(spending_by(setup["rows"], "category").items(), key=lambda kv: -kv[1])
    (top, spent) = truth[0][0][0], truth[0][1]
    assert f"Spending by category over all your transactions: {top} {spent:,.2f} GBP" in \
        answer.locator(".answer-text").inner_text()
    assert answer.locator(".records-plan").inner_text() == \
        "Computed: total spending, over all your transactions, by category"
    table = answer.locator(".records-table")
    assert table.locator("tbody tr").count() == 5
    assert table.locator("tbody tr").first.locator("td").nth(2).inner_text() == f"{spent:.2f}"
    bars = answer.locator(".records-chart svg rect.bar")
    assert bars.count() == 5
    widths = [float(bars.nth(i).get_attribute("width")) for i in range(5)]
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]  # longest bar first, to scale
    assert answer.locator(".records-chart figcaption").inner_text() == "Spending by category (GBP)"
    answer.locator(".answer-text button.cite").first.click()
    assert "highlight" in (table.locator("tbody tr").first.get_attribute("class") or "")
    behind = [r.transaction_id for r in setup["rows"] if r.category == top and r.flow in ("spend", "refund")]
    ids = answer.locator(".records-ids").inner_text()  # the transactions behind the figure, every one
    assert ids.startswith(f"[1] spending on {top} over all your transactions, GBP: {len(behind)} transactions — ")
    assert set(ids.split(" — ")[1].split(", ")) == set(behind)
    table.locator("tbody tr").nth(1).click()  # a row shows its own
    assert answer.locator(".records-ids").inner_text().startswith("[2] ")
    assert answer.locator("dialog[open]").count() == 0  # a row, not a passage dialog
    answer.locator(".report summary").click()
    assert "Route: records (money question: top categories" in answer.locator(".report-facts").inner_text()
    shot = screenshot(page, "transactions-top-categories", full_page=True)
    assert shot.exists()
    monthly = ask(page, "How has my spending changed over the last few months?")
    assert monthly.locator(".records-chart svg rect.bar").count() >= 2
    monthly.scroll_into_view_if_needed()
    screenshot(page, "transactions-month-over-month", full_page=True)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
