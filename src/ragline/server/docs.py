"""The interactive API docs (``/docs``: Swagger UI, ``/redoc``: ReDoc) served with
their scripts and styles from the installed package, so they work offline. FastAPI's
own pages load them from a CDN and stay blank on a machine without internet.

The assets come from the ``fastapi-offline`` package (Swagger UI and ReDoc bundles,
MIT licensed); only its files are used, not its app factory."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
# The pages may load nothing from elsewhere: ReDoc's bundle still fetches a decorative
# logo from its CDN (and hides it when that fails); the browser does not even try.
CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'")


def assets_dir() -> Path:
    """Where the Swagger UI and ReDoc bundles are installed."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def _local(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = CSP
    return page


def _file_fields(app: FastAPI) -> None:
    """Mark uploaded files ``format: binary`` in the schema as well: OpenAPI 3.1's
    ``contentMediaType`` alone makes Swagger UI offer a text box filled with random
    bytes instead of a file picker."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = build()

            def mark(node: object) -> None:
                if isinstance(node, dict):
                    if node.get("contentMediaType") == "application/octet-stream" and node.get("type") == "string":
                        node.setdefault("format", "binary")
                    for value in node.values():
                        mark(value)
                elif isinstance(node, list):
                    for value in node:
                        mark(value)

            mark(schema.get("components", {}))
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def install_docs(app: FastAPI) -> None:
    """Serve ``/docs``, ``/redoc`` and their assets from the package. Create the app
    with ``docs_url=None, redoc_url=None`` (FastAPI's CDN pages), and call this before
    mounting anything at ``/``."""
    _file_fields(app)
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")

    def url(request: Request, path: str) -> str:
        return f"{request.scope.get('root_path', '')}{path}"

    @app.get(DOCS_URL, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        # validatorUrl null: Swagger UI would otherwise send the schema to an online validator.
        return _local(get_swagger_ui_html(openapi_url=url(request, app.openapi_url or "/openapi.json"),
                                   title=f"{app.title} API", oauth2_redirect_url=url(request, OAUTH2_REDIRECT_URL),
                                   swagger_js_url=url(request, f"{ASSETS_URL}/swagger-ui-bundle.js"),
                                   swagger_css_url=url(request, f"{ASSETS_URL}/swagger-ui.css"),
                                   swagger_favicon_url=url(request, f"{ASSETS_URL}/favicon.png"),
                                   swagger_ui_parameters={"validatorUrl": None}))

    @app.get(OAUTH2_REDIRECT_URL, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC_URL, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        return _local(get_redoc_html(openapi_url=url(request, app.openapi_url or "/openapi.json"), title=f"{app.title} API",
                              redoc_js_url=url(request, f"{ASSETS_URL}/redoc.standalone.js"),
                              redoc_favicon_url=url(request, f"{ASSETS_URL}/favicon.png"), with_google_fonts=False))
