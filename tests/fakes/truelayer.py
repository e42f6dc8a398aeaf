"""A fake TrueLayer (auth server and Data API v1) on a real HTTP server in a thread.

- ``POST /connect/token`` (form): ``authorization_code`` and ``refresh_token`` grants
  for the one client id and secret it knows; refresh tokens rotate (an old one is
  ``invalid_grant``); access tokens last ``token_ttl`` requests (then 401), so a
  test can expire one between pages.
- ``GET /data/v1/accounts`` and ``/data/v1/accounts/{id}/transactions?from&to[&cursor]``:
  ``{"results", "status"}``, paged ``page_size`` at a time with ``pagination.next_cursor``.
- ``GET /data/v1/accounts/{id}/balance``: ``{"results": [{"currency", "available",
  "current", "overdraft", "update_timestamp"}]}``; ``balances`` gives an account's,
  otherwise ``current`` is the sum of its transactions as of the latest one.
- ``script``: a list of failures taken in order by data requests whose path
  contains the given text: ``(path_part, status, retry_after)`` answers that status,
  ``(path_part, "broken", None)`` a page that is not JSON.

Every request is recorded as (method, path, query, form).
"""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CLIENT_ID, CLIENT_SECRET = "test-client", "test-secret"


class FakeTrueLayer:
    def __init__(self, accounts: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]], *, page_size: int = 100,
                 token_ttl: int = 1000, refresh_token: str = "rt-0", code: str = "code-0",
                 script: list[tuple[str, int | str, str | None]] | None = None,
                 balances: dict[str, dict[str, Any]] | None = None) -> None:
        self.accounts = accounts  # account_id → (account, transactions)
        self.balances = balances or {}  # account_id → its balance result
        self.page_size = page_size
        self.token_ttl = token_ttl
        self.refresh_token = refresh_token
        self.code = code
        self.script = list(script or [])
        self.requests: list[tuple[str, str, dict[str, list[str]], dict[str, list[str]]]] = []
        self.tokens: dict[str, int] = {}  # access token → requests left
        self.issued = 0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeTrueLayer:  # noqa: PYI034
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- behaviour ---------------------------------------------------------------------
    def grant(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if (form.get("client_id"), form.get("client_secret")) != (CLIENT_ID, CLIENT_SECRET):
            return 401, {"error": "invalid_client"}
        grant = form.get("grant_type")
        if grant == "authorization_code" and form.get("code") == self.code and form.get("redirect_uri"):
            self.code = ""  # a code works once
        elif grant == "refresh_token" and form.get("refresh_token") == self.refresh_token:
            pass
        else:
            return 400, {"error": "invalid_grant", "error_description": f"bad {grant}"}
        self.issued += 1
        access, self.refresh_token = f"at-{self.issued}", f"rt-{self.issued}"
        self.tokens[access] = self.token_ttl
        return 200, {"access_token": access, "expires_in": 3600, "token_type": "Bearer",
                     "refresh_token": self.refresh_token}

    def data(self, path: str, query: dict[str, list[str]], auth: str) -> tuple[int, Any, dict[str, str]]:
        token = auth.removeprefix("Bearer ")
        if self.tokens.get(token, 0) <= 0:
            return 401, {"error": "invalid_token", "error_description": "access token expired"}, {}
        self.tokens[token] -= 1
        for i, (part, status, retry_after) in enumerate(self.script):
            if part in path:
                del self.script[i]
                if status == "broken":
                    return 200, b'{"results": [{"transaction_id": "cut-off', {}
                return int(status), {"error": "fake_failure", "error_description": f"scripted {status}"}, (
                    {"Retry-After": retry_after} if retry_after is not None else {})
        parts = path.strip("/").split("/")  # data v1 accounts [id transactions]
        if parts == ["data", "v1", "accounts"]:
            return 200, {"results": [a for a, _ in self.accounts.values()], "status": "Succeeded"}, {}
        if len(parts) == 5 and parts[4] == "balance" and parts[3] in self.accounts:
            account, items = self.accounts[parts[3]]
            balance = self.balances.get(parts[3]) or {
                "currency": account.get("currency"),
                "current": float(sum(Decimal(str(t["amount"])) for t in items)),
                "update_timestamp": max((t["timestamp"] for t in items), default="2024-01-01T00:00:00+00:00")}
            return 200, {"results": [{"available": balance.get("current"), "overdraft": 0, **balance}],
                         "status": "Succeeded"}, {}
        if len(parts) == 5 and parts[4] == "transactions" and parts[3] in self.accounts:
            start, end = query["from"][0], query["to"][0]
            items = [t for t in self.accounts[parts[3]][1] if start <= t["timestamp"][:10] <= end]
            offset = int(query.get("cursor", ["0"])[0])
            page = items[offset:offset + self.page_size]
            more = offset + self.page_size < len(items)
            return 200, {"results": page, "status": "Succeeded",
                         "pagination": {"next_cursor": str(offset + self.page_size)} if more else {}}, {}
        return 404, {"error": "not_found"}, {}


def _handler(fake: FakeTrueLayer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            form = parse_qs(self.rfile.read(length).decode())
            with fake.lock:
                fake.requests.append(("POST", self.path, {}, form))
                if self.path != "/connect/token":
                    self._reply(404, {"error": "not_found"})
                    return
                status, body = fake.grant({k: v[0] for k, v in form.items()})
            self._reply(status, body)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            with fake.lock:
                fake.requests.append(("GET", url.path, query, {}))
                status, body, headers = fake.data(url.path, query, self.headers.get("Authorization", ""))
            self._reply(status, body, headers)

    return Handler
