"""Issue 16: the interactive API docs work offline. ``/docs`` and ``/redoc`` name
only this server's own URLs, and every one of them answers."""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest
from fastapi.testclient import TestClient

from ragline.server import create_app
from ragline.settings import EmbedderSettings, Settings

_URL = re.compile(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']|\burl\s*:\s*["']([^"']+)["']|(https?://[^\s"'<>)]+)""")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("docs") / "home", embedder=EmbedderSettings(name="hashing"))
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_api_docs_pages_use_only_local_assets(client: TestClient, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    urls = [next(g for g in match.groups() if g) for match in _URL.finditer(response.text)]
    assert urls, response.text
    remote = [u for u in urls if re.match(r"(?:https?:)?//", u)]
    assert not remote, f"{page} loads from other hosts: {remote}"
    scripts = [u for u in urls if u.endswith(".js")]
    assert scripts, f"{page} has no script"
    for url in urls:
        fetched = client.get(urljoin(page, url))
        assert fetched.status_code == 200, (url, fetched.status_code)
        assert len(fetched.content) > 0
    assert client.get("/docs/oauth2-redirect").status_code == 200


@pytest.mark.browser
@pytest.mark.parametrize(("page_path", "rendered"), [("/docs", ".opblock-summary-path"), ("/redoc", "[data-section-id]")])
def test_api_docs_render_in_a_browser_with_no_network(tmp_path, page_path: str, rendered: str) -> None:
    """Chromium with every request to another host refused still draws the operations."""
    from tests.server_harness import LiveServer
    from tests.web_helpers import launch_chromium, require_browser, screenshot

    require_browser()
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"))
    with LiveServer(settings) as server, launch_chromium() as browser:
        page = browser.new_page()
        refused: list[str] = []
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        def only_local(route, request) -> None:  # type: ignore[no-untyped-def]
            if request.url.startswith(server.url):
                route.continue_()
            else:
                refused.append(request.url)
                route.abort()

        page.route("**/*", only_local)
        page.goto(server.url + page_path)
        page.wait_for_selector(rendered, timeout=20_000)
        assert page.locator(rendered).count() > 5  # one per API operation
        screenshot(page, f"api-docs{page_path.replace('/', '-')}")
        assert not refused, f"{page_path} tried to reach other hosts: {refused}"
        assert not errors, errors
        page.close()
