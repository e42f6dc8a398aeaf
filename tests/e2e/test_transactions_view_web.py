"""The web page's Transactions tab, in headless Chromium against the real server: a
user imports their bank's CSV export as banks give it (Date, Description, Amount,
Balance: no merchant, no category) through the page, sees merchants normalised and
categories inferred with their marker, the account's balance, filters by month,
category and text, corrects a category for every transaction of a merchant, reloads
and finds it kept; a money answer's sources link to the rows they cite. At 1280 and
390 px (stacked rows, nothing wider than the phone); screenshots in the test's tmp
dir (and test-artifacts/screenshots/)."""

from __future__ import annotations

import csv
import io
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant
from tests.web_helpers import ask, launch_chromium, require_browser, screenshot

pytestmark = pytest.mark.browser
EXPECT_MS = 20_000
OPENING = Decimal("1204.37")

# One current account, July to September 2026, as the bank's export lists it (newest
# first, UK dates, thousands separators, the running balance after each row).
STATEMENT = [
    ("01/07/2026", "NORTHWIND TRADERS SALARY", "2410.55"),
    ("02/07/2026", "DIRECT DEBIT THAMES WATER", "-38.20"),
    ("03/07/2026", "CARD PAYMENT TO PUREGYM LTD ON 03 JUL", "-24.99"),
    ("05/07/2026", "TESCO STORES 3021", "-47.62"),
    ("08/07/2026", "BOOTS UK 1234 LEEDS", "-12.40"),
    ("11/07/2026", "CARD PAYMENT TO THE FLYING PIG ON 10 JUL", "-18.50"),
    ("15/07/2026", "NETFLIX.COM", "-10.99"),
    ("19/07/2026", "CASH WITHDRAWAL LINK ATM LEEDS", "-40.00"),
    ("24/07/2026", "SAINSBURYS S/MKTS 0456", "-33.18"),
    ("28/07/2026", "TRANSFER TO SAVINGS ACCOUNT", "-500.00"),
    ("01/08/2026", "NORTHWIND TRADERS SALARY", "2410.55"),
    ("02/08/2026", "DIRECT DEBIT THAMES WATER", "-38.20"),
    ("03/08/2026", "CARD PAYMENT TO PUREGYM LTD ON 03 AUG", "-24.99"),
    ("06/08/2026", "TESCO STORES 3021", "-52.10"),
    ("09/08/2026", "CARD PAYMENT TO TFL TRAVEL CH ON 08 AUG", "-2.80"),
    ("12/08/2026", "AMAZON.CO.UK*2K4RT5", "-23.99"),
    ("15/08/2026", "NETFLIX.COM", "-10.99"),
    ("16/08/2026", "CARD PAYMENT TO THE FLYING PIG ON 15 AUG", "-22.00"),
    ("21/08/2026", "BOOTS 0567 MANCHESTER", "-8.75"),
    ("27/08/2026", "STARBUCKS 12 LONDON GBR", "-3.95"),
    ("01/09/2026", "NORTHWIND TRADERS SALARY", "2410.55"),
    ("02/09/2026", "DIRECT DEBIT THAMES WATER", "-38.20"),
    ("03/09/2026", "CARD PAYMENT TO PUREGYM LTD ON 03 SEP", "-24.99"),
    ("04/09/2026", "TESCO STORES 3021", "-47.62"),
    ("06/09/2026", "BOOTS UK 1234 LEEDS", "-12.40"),
    ("12/09/2026", "STARBUCKS 12 LONDON GBR", "-3.95"),
    ("15/09/2026", "NETFLIX.COM", "-10.99"),
    ("20/09/2026", "CARD PAYMENT TO THE FLYING PIG ON 19 SEP", "-16.25"),
    ("26/09/2026", "TRANSFER TO SAVINGS ACCOUNT", "-1000.00"),
    ("29/09/2026", "CARD PAYMENT TO PRET A MANGER ON 29 SEP", "-4.35"),
]
CLOSING = OPENING + sum(Decimal(a) for _, _, a in STATEMENT)


def bank_export() -> bytes:
    """The statement as the bank's CSV: newest first, money as the bank writes it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Date", "Description", "Amount", "Balance"])
    balance, rows = OPENING, []
    for day, description, amount in STATEMENT:
        balance += Decimal(amount)
        rows.append([day, description, f"{Decimal(amount):,.2f}", f"{balance:,.2f}"])
    writer.writerows(reversed(rows))
    return out.getvalue().encode()


def in_september(day: str) -> bool:
    return day.endswith("/09/2026")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("tx-view") / "home"
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0))
    with LiveServer(settings) as server, launch_chromium() as browser:
        create_tenant(server, "bank")
        with server.client(ADMIN_KEY) as admin:
            key = admin.post("/v1/tenants/bank/keys", json={"owner": "ann"}).json()["key"]
            other = admin.post("/v1/tenants/bank/keys", json={"owner": "bob"}).json()["key"]
        yield {"server": server, "browser": browser, "key": key, "bob": other}


def open_page(setup, width: int, height: int, *, phone: bool = False):  # type: ignore[no-untyped-def]
    options = {"viewport": {"width": width, "height": height}}
    if phone:
        options.update(is_mobile=True, has_touch=True, device_scale_factor=2)
    context = setup["browser"].new_context(**options)
    context.set_default_timeout(EXPECT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(setup["server"].url + "/")
    page.get_by_label("Tenant API key").fill(setup["key"])
    page.get_by_role("button", name="Sign in").click()
    page.locator("#app-view").wait_for(state="visible")
    return context, page, errors


def row(page, description: str):  # type: ignore[no-untyped-def]
    """The row whose raw description this is (the first, newest, when several)."""
    return page.locator("#tx-rows tr").filter(has=page.locator(".tx-raw", has_text=description)).first


def shoot(page, tmp_path: Path, name: str) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    shutil.copy(screenshot(page, name, full_page=True), path)  # kept by CI as well
    return path


def no_overflow(page) -> None:  # type: ignore[no-untyped-def]
    width = page.evaluate("document.documentElement.clientWidth")
    wider = page.evaluate("""(w) => [...document.querySelectorAll('body *')]
        .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > w + 0.5)
        .map((el) => `${el.tagName}#${el.id}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)""", width)
    assert not wider, f"wider than the screen ({width} px): {wider[:8]}"
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"


def test_import_see_inferred_categories_correct_one_and_keep_it(setup, tmp_path) -> None:
    context, page, errors = open_page(setup, 1280, 900)
    page.get_by_role("tab", name="Transactions").click()
    expect(page.locator("#tx-empty")).to_contain_text("No transactions yet")
    page.get_by_label("Currency").fill("GBP")  # the export, like most, never says
    page.locator("#tx-file").set_input_files([{"name": "statement.csv", "mimeType": "text/csv",
                                               "buffer": bank_export()}])
    expect(page.locator("#tx-import-status")).to_have_text(
        f"statement.csv: {len(STATEMENT)} added, 0 updated, 0 unchanged.")
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))

    # Merchants from the raw descriptions, kept a click away; categories inferred and marked so.
    boots = row(page, "BOOTS UK 1234 LEEDS")
    expect(boots.locator(".tx-merchant-name")).to_have_text("Boots")
    expect(boots.locator(".tx-raw")).to_be_hidden()
    assert boots.locator("summary").get_attribute("title") == "BOOTS UK 1234 LEEDS"  # on hover
    boots.locator("summary").click()
    expect(boots.locator(".tx-raw")).to_be_visible()
    expected = {"BOOTS UK 1234 LEEDS": ("Boots", "Personal care"),
                "CARD PAYMENT TO PUREGYM LTD ON 03 SEP": ("PureGym", "Personal care"),
                "TESCO STORES 3021": ("Tesco", "Groceries"),
                "DIRECT DEBIT THAMES WATER": ("Thames Water", "Bills"),
                "NORTHWIND TRADERS SALARY": (None, "Income"),
                "TRANSFER TO SAVINGS ACCOUNT": (None, "Savings")}
    for description, (merchant, category) in expected.items():
        line = row(page, description) if merchant else page.locator("#tx-rows tr", has_text=description).first
        if merchant:
            expect(line.locator(".tx-merchant-name")).to_have_text(merchant)
        expect(line.locator(".tx-category-label")).to_have_text(category)
        expect(line.locator(".tx-source")).to_have_attribute("data-source", "inferred")
    sources = page.locator("#tx-rows .tx-source").evaluate_all("els => els.map((e) => e.dataset.source)")
    assert set(sources) == {"inferred"} and len(sources) == len(STATEMENT)

    # Amount with currency, account, a visible id that is the row's own anchor.
    expect(boots.locator(".tx-amount")).to_have_text("-12.40 GBP")
    expect(boots.locator(".tx-account")).to_have_text("default")
    tx_id = boots.get_attribute("data-id")
    assert tx_id and boots.get_attribute("id") == f"tx-{tx_id}"
    expect(boots.locator("a.tx-id")).to_have_text(tx_id)
    assert boots.locator("a.tx-id").get_attribute("href") == f"#tx-{tx_id}"

    # The balance the export's running column states, as of its last day.
    balance = page.locator("#tx-balances li")
    expect(balance).to_have_count(1)
    expect(balance.locator(".balance-amount")).to_have_text(f"{CLOSING:,.2f} GBP")
    expect(balance.locator("time")).to_have_attribute("datetime", "2026-09-29")

    # Filters: a month, a category, text.
    page.get_by_label("Month", exact=True).select_option("2026-09")
    expect(page.locator("#tx-rows tr")).to_have_count(sum(in_september(d) for d, _, _ in STATEMENT))
    page.get_by_label("Category", exact=True).select_option("Personal care")
    expect(page.locator("#tx-rows tr")).to_have_count(2)  # Boots and PureGym in September
    page.get_by_label("Month", exact=True).select_option("")
    page.get_by_label("Category", exact=True).select_option("")
    page.get_by_label("Search").fill("boots")
    expect(page.locator("#tx-rows tr")).to_have_count(3)
    page.get_by_label("Search").fill("")
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))

    # The Flying Pig, a pub no rule knows: correct it for every one of its transactions.
    pig = row(page, "CARD PAYMENT TO THE FLYING PIG ON 19 SEP")
    expect(pig.locator(".tx-merchant-name")).to_have_text("Flying Pig")
    expect(pig.locator(".tx-category-label")).to_have_text("General")  # nothing closer than the fallback
    shoot(page, tmp_path, "transactions-view-1280-imported")
    page.get_by_label("Category", exact=True).select_option("General")  # corrected from the filtered list
    expect(page.locator("#tx-rows tr")).to_have_count(3)
    pig.get_by_role("button", name=re.compile("^Change the category of Flying Pig")).click()
    pig.get_by_role("combobox").select_option("Eating out")
    expect(pig.get_by_role("checkbox")).to_be_checked()  # every Flying Pig transaction
    shoot(page, tmp_path, "transactions-view-1280-editing")
    pig.get_by_role("button", name="Save").click()
    # General has no row left: the filter goes back to every category instead of an empty list.
    expect(page.get_by_label("Category", exact=True)).to_have_value("")
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))
    pigs = page.locator("#tx-rows tr").filter(has=page.locator(".tx-merchant-name", has_text="Flying Pig"))
    expect(pigs).to_have_count(3)
    for i in range(3):
        expect(pigs.nth(i).locator(".tx-category-label")).to_have_text("Eating out")
        expect(pigs.nth(i).locator(".tx-source")).to_have_attribute("data-source", "user")
        expect(pigs.nth(i)).to_have_class(re.compile("just-changed"))
    expect(page.locator(".toast")).to_contain_text("Flying Pig: Eating out (3 transactions changed")
    expect(row(page, "BOOTS UK 1234 LEEDS").locator(".tx-source")).to_have_attribute("data-source", "inferred")

    # A single transaction's correction changes that row alone.
    tesco = row(page, "TESCO STORES 3021")
    tesco.get_by_role("button", name=re.compile("^Change the category")).click()
    tesco.get_by_role("checkbox").uncheck()
    tesco.get_by_role("combobox").select_option("Shopping")
    tesco.get_by_role("button", name="Save").click()
    expect(row(page, "TESCO STORES 3021").locator(".tx-category-label")).to_have_text("Shopping")
    tescos = page.locator("#tx-rows tr").filter(has=page.locator(".tx-merchant-name", has_text="Tesco"))
    expect(tescos.locator(".tx-category-label", has_text="Groceries")).to_have_count(2)

    # Kept: a reload asks the server again.
    page.reload()
    page.locator("#app-view").wait_for(state="visible")
    page.get_by_role("tab", name="Transactions").click()
    pigs = page.locator("#tx-rows tr").filter(has=page.locator(".tx-merchant-name", has_text="Flying Pig"))
    expect(pigs).to_have_count(3)
    assert pigs.locator(".tx-category-label").all_inner_texts() == ["Eating out"] * 3
    assert set(pigs.locator(".tx-source").evaluate_all("els => els.map((e) => e.dataset.source)")) == {"user"}
    expect(row(page, "TESCO STORES 3021").locator(".tx-category-label")).to_have_text("Shopping")
    row(page, "CARD PAYMENT TO THE FLYING PIG ON 19 SEP").locator("summary").click()  # its raw description
    shot = shoot(page, tmp_path, "transactions-view-1280")
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(tmp_path / "transactions-view-1280-dark.png"))
    page.emulate_media(color_scheme="light")
    no_overflow(page)
    _no_accessibility_violations(page)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert shot.stat().st_size > 10_000
    with setup["server"].client(setup["bob"]) as bob:  # another owner sees none of it
        assert bob.get("/v1/transactions").json() == {"transactions": []}


def test_answer_sources_link_to_their_rows(setup, tmp_path) -> None:
    _imported(setup)
    context, page, errors = open_page(setup, 1280, 900)
    answer = ask(page, "What were my 3 largest purchases?")
    link = answer.locator(".sources a.source-tx").first
    shoot(page, tmp_path, "answer-sources-1280")
    _no_accessibility_violations(page)
    expect(link).to_have_text("see it in Transactions")
    target = link.get_attribute("href").removeprefix("#tx-")
    assert target.startswith("gen-") and target in answer.locator(".sources").inner_text()  # the id the source names
    link.click()
    expect(page.get_by_role("tab", name="Transactions")).to_have_attribute("aria-selected", "true")
    cited = page.locator(f"#tx-rows tr[data-id='{target}']")
    expect(cited).to_have_class(re.compile("target"))
    expect(cited).to_be_focused()
    expect(cited.locator(".tx-amount")).to_have_text("-52.10 GBP")  # Tesco in August (a transfer is no purchase)
    expect(page.get_by_label("Month", exact=True)).to_have_value("2026-08")  # shown among its month's rows
    page.screenshot(path=str(tmp_path / "transactions-revealed-1280.png"))

    page.get_by_role("tab", name="Ask").click()
    page.get_by_role("button", name="New chat").click()  # not a follow-up of the last question
    answer = ask(page, "Where am I spending the most money?")
    many = answer.locator(".sources a.source-tx").first
    expect(many).to_have_text(re.compile(r"^its \d+ "))
    many.click()
    expect(page.locator("#tx-focus")).to_be_visible()
    expect(page.get_by_label("Month", exact=True)).to_have_value("")  # the cited rows, not a month's
    expect(page.locator("#tx-focus-text")).to_contain_text("behind “spending on")
    count = page.locator("#tx-rows tr").count()
    assert count >= 1 and f"Showing the {count} transaction" in page.locator("#tx-focus-text").inner_text()
    shoot(page, tmp_path, "transactions-cited-1280")
    _no_accessibility_violations(page)
    page.get_by_role("button", name="Show all transactions").click()
    expect(page.locator("#tx-focus")).to_be_hidden()
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_phone_width_stacks_the_rows(setup, tmp_path) -> None:
    _imported(setup)
    context, page, errors = open_page(setup, 390, 844, phone=True)
    page.get_by_role("tab", name="Transactions").click()
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))
    no_overflow(page)
    first = page.locator("#tx-rows tr").first
    merchant, amount = first.locator(".tx-merchant").bounding_box(), first.locator(".tx-amount").bounding_box()
    assert abs(merchant["y"] - amount["y"]) < 4 and amount["x"] > merchant["x"]  # a card: merchant, amount beside
    assert page.locator("#tx-table thead").bounding_box()["height"] <= 1  # the header row is for screen readers
    pig = row(page, "CARD PAYMENT TO THE FLYING PIG ON 19 SEP")
    pig.locator("summary").click()
    pig.get_by_role("button", name=re.compile("^Change the category")).click()
    no_overflow(page)  # the open editor fits too
    pig.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "transactions-view-390-editing.png"))
    pig.get_by_role("button", name="Cancel").click()
    page.screenshot(path=str(tmp_path / "transactions-view-390-all.png"), full_page=True)
    page.get_by_label("Search").fill("flying pig")  # one merchant's cards, its raw description open
    expect(page.locator("#tx-rows tr")).to_have_count(3)
    row(page, "CARD PAYMENT TO THE FLYING PIG ON 19 SEP").locator("summary").click()
    no_overflow(page)
    page.evaluate("window.scrollTo(0, 0)")
    shoot(page, tmp_path, "transactions-view-390")
    _no_accessibility_violations(page)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_a_tenant_key_names_the_owner(setup) -> None:
    """A key of the whole tenant (an adviser's, an admin's) sees no one's transactions
    until it names whose; an owner-bound key never sees that form."""
    _imported(setup)
    tenant_key = create_tenant(setup["server"], "advice")
    with setup["server"].client(tenant_key) as client:
        statement = {"file": ("statement.csv", bank_export(), "text/csv")}
        assert client.post("/v1/transactions/import", files=statement,
                           data={"owner": "carol", "currency": "EUR"}).status_code == 200
    context = setup["browser"].new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(EXPECT_MS)
    page = context.new_page()
    page.goto(f"{setup['server'].url}/#key={tenant_key}")
    page.get_by_role("tab", name="Transactions").click()
    expect(page.locator("#tx-owner-form")).to_be_visible()
    expect(page.locator("#tx-content")).to_be_hidden()
    page.get_by_label("Owner").fill("carol")
    page.get_by_role("button", name="Show", exact=True).click()
    expect(page.locator("#tx-rows tr")).to_have_count(len(STATEMENT))
    expect(page.locator("#tx-rows tr").first.locator(".tx-amount")).to_have_text("-4.35 EUR")
    expect(page.locator("#tx-who")).to_have_text("carol's accounts")
    page.get_by_label("Owner").fill("ann")  # another tenant's owner of the same name: nothing of theirs
    page.get_by_role("button", name="Show", exact=True).click()
    expect(page.locator("#tx-empty")).to_contain_text("No transactions yet")
    context.close()


def _imported(setup) -> None:  # type: ignore[no-untyped-def]
    """The statement imported (again: unchanged rows are no-ops), whatever ran before."""
    with setup["server"].client(setup["key"]) as client:
        response = client.post("/v1/transactions/import", files={"file": ("statement.csv", bank_export(), "text/csv")},
                               data={"currency": "GBP"})
        assert response.status_code == 200, response.text


def _no_accessibility_violations(page) -> None:  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        violations = Axe().run(page).response["violations"]
        assert not [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in violations], scheme
    page.emulate_media(color_scheme="light")

