"""The TrueLayer Data API connector, as seed 000 uses it: refresh the user's OAuth
token, list their accounts, fetch each account's transactions of the last
``days`` (90) and map them to ``Transaction``.

- Auth: ``POST {auth_url}/connect/token`` (form) with the app's client id and secret
  (settings, never code) and the user's refresh token, or a one-time authorization
  code. TrueLayer rotates refresh tokens, so each new one is saved at once
  (``TokenStore``: one 0600 file per tenant and owner under ``RAGLINE_HOME``).
- Data: ``GET {api_url}/data/v1/accounts`` and ``…/accounts/{id}/transactions?from&to``,
  ``{"results": [...], "status": "Succeeded"}``; pages are followed through
  ``pagination.next_cursor`` (``cursor=``), as TrueLayer paginates large results.
  ``…/accounts/{id}/balance`` gives the account's ``current`` balance as of its
  ``update_timestamp``.
- Failures: a 401 refreshes the token once and retries; 429 and 5xx, connection
  errors and pages that are not the expected JSON are retried with exponential
  backoff (``Retry-After`` honoured, capped) by the shared ``ProviderClient``; then
  ``ConnectorError`` names the call.
  An account that fails is reported and the others are still imported.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx

from ..errors import ConfigError, ConnectorError
from ..models.records import Balance, Transaction, parse_amount, parse_timestamp
from ..providers.client import ProviderClient, Retry
from ..providers.policy import CallPolicy
from ..settings import TrueLayerSettings

MAX_WAIT = 30.0  # seconds: the longest one wait may be, whatever Retry-After says
RETRY_STATUS = frozenset({429, *range(500, 600)})  # rate limits and every server-side failure
MAX_PAGES = 1000  # per account: a server that never stops paging is a bug, not data


@dataclass
class Tokens:
    access_token: str
    refresh_token: str | None
    expires_at: float


class TokenStore:
    """The user's tokens in ``<home>/connectors/truelayer/<tenant>/<owner>.json``,
    readable by this user only, replaced atomically."""

    def __init__(self, home: Path, tenant: str, owner: str) -> None:
        safe = owner.encode("utf-8").hex()  # any owner string makes a safe file name
        self.path = home / "connectors" / "truelayer" / tenant / f"{safe}.json"

    def load(self) -> Tokens | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise ConnectorError(f"cannot read the saved TrueLayer tokens at {self.path}: {exc}") from exc
        return Tokens(data["access_token"], data.get("refresh_token"), float(data.get("expires_at", 0)))

    def save(self, tokens: Tokens) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(vars(tokens), handle)
        os.replace(temporary, self.path)


class TrueLayerClient:
    """One user's connection. ``sleep`` and ``transport`` are for tests (a fake
    server needs neither: they default to real time and real HTTP)."""

    def __init__(self, settings: TrueLayerSettings, tokens: TokenStore, *,
                 sleep: Callable[[float], None] = time.sleep, transport: httpx.BaseTransport | None = None) -> None:
        for name in ("client_id", "client_secret"):
            if not getattr(settings, name):
                raise ConfigError(f"the TrueLayer connector needs RAGLINE_RECORDS__TRUELAYER__{name.upper()} "
                                  "(from TrueLayer's console)")
        self.settings = settings
        self.store = tokens
        self.http = ProviderClient("TrueLayer", error=ConnectorError, describe=_error_text, transport=transport,
                                   sleep=sleep, policy=CallPolicy(timeout=settings.timeout,
                                                                  max_retries=settings.max_retries,
                                                                  backoff=settings.retry_backoff, max_wait=MAX_WAIT,
                                                                  retry_status=RETRY_STATUS))
        self.tokens = tokens.load()

    def close(self) -> None:
        self.http.close()

    # -- auth ---------------------------------------------------------------------------
    def exchange_code(self, code: str, redirect_uri: str) -> None:
        """Turn the code TrueLayer's consent page gave the user into tokens."""
        self._token({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri})

    def use_refresh_token(self, refresh_token: str) -> None:
        """Start from a refresh token the user already has."""
        self._token({"grant_type": "refresh_token", "refresh_token": refresh_token})

    def refresh(self) -> None:
        if self.tokens is None or not self.tokens.refresh_token:
            raise ConnectorError("no TrueLayer refresh token for this owner: connect with --code (after the "
                                 "consent page) or --refresh-token")
        self.use_refresh_token(self.tokens.refresh_token)

    def _token(self, form: dict[str, str]) -> None:
        body = {**form, "client_id": self.settings.client_id or "", "client_secret": self.settings.client_secret or ""}
        response = self.http.send("POST", f"{self.settings.auth_url.rstrip('/')}/connect/token", data=body,
                               what="token")
        if response.status_code in (400, 401):
            detail = _error_text(response)
            raise ConnectorError(f"TrueLayer refused the {form['grant_type'].replace('_', ' ')} ({detail}): "
                                 "check the client id and secret, or connect again with a new --code")
        data = _json(response, "token")
        if not isinstance(data.get("access_token"), str):
            raise ConnectorError("TrueLayer's token response has no access_token")
        self.tokens = Tokens(data["access_token"], data.get("refresh_token") or form.get("refresh_token"),
                             time.time() + float(data.get("expires_in", 3600)))
        self.store.save(self.tokens)

    # -- data ---------------------------------------------------------------------------
    def accounts(self) -> list[dict[str, Any]]:
        return self._results("/data/v1/accounts", {}, "accounts")

    def transactions(self, account_id: str, start: date, end: date) -> list[dict[str, Any]]:
        return self._results(f"/data/v1/accounts/{account_id}/transactions",
                             {"from": start.isoformat(), "to": end.isoformat()}, f"transactions of {account_id}")

    def balance(self, account_id: str) -> list[dict[str, Any]]:
        return self._results(f"/data/v1/accounts/{account_id}/balance", {}, f"balance of {account_id}")

    def _results(self, path: str, params: dict[str, str], what: str) -> list[dict[str, Any]]:
        """Every result of a listing, following ``pagination.next_cursor``."""
        out: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            page = self._get(path, {**params, **({"cursor": cursor} if cursor else {})}, what)
            out += page["results"]
            cursor = (page.get("pagination") or {}).get("next_cursor")
            if not cursor:
                return out
        raise ConnectorError(f"TrueLayer kept paging the {what} after {MAX_PAGES} pages")

    def _get(self, path: str, params: dict[str, str], what: str) -> dict[str, Any]:
        """One page: authenticated (a 401 refreshes once), retried, checked."""
        if self.tokens is None or self.tokens.expires_at <= time.time() + 30:
            self.refresh()
        url = f"{self.settings.api_url.rstrip('/')}{path}"
        refreshed = False
        while True:
            assert self.tokens is not None
            headers = {"Authorization": f"Bearer {self.tokens.access_token}", "tl-enable-pagination": "true"}
            response = self.http.send("GET", url, params=params, headers=headers, what=what, check=_page)
            if response.status_code == 401 and not refreshed:  # expired early or revoked: refresh once
                refreshed = True
                self.refresh()
                continue
            if response.status_code >= 400:
                raise ConnectorError(f"TrueLayer {what}: HTTP {response.status_code}: {_error_text(response)}")
            return response.json()


def _page(response: httpx.Response) -> None:
    try:
        data = response.json()
    except ValueError:
        raise Retry("the page is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise Retry("the page has no results list")


def _json(response: httpx.Response, what: str) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        raise ConnectorError(f"TrueLayer {what}: the response is not JSON") from None
    if not isinstance(data, dict):
        raise ConnectorError(f"TrueLayer {what}: unexpected response")
    return data


def _error_text(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    if isinstance(data, dict):
        parts = [data.get(k) for k in ("error", "error_description", "title", "detail") if data.get(k)]
        if parts:
            return ": ".join(str(p) for p in parts)[:300]
    return str(data)[:200]


def to_transaction(account: dict[str, Any], item: dict[str, Any]) -> Transaction:
    """TrueLayer's transaction → ours. The top level of ``transaction_classification``
    (e.g. "Shopping") is the category; TrueLayer's ``transaction_category`` (PURCHASE,
    DIRECT_DEBIT…) and the rest go to ``extra``."""
    classification = item.get("transaction_classification") or []
    extra = {k: v for k, v in item.items() if k not in {
        "transaction_id", "timestamp", "description", "amount", "currency", "merchant_name"}}
    return Transaction(transaction_id=str(item.get("transaction_id") or ""), account_id=str(account["account_id"]),
                       timestamp=parse_timestamp(item.get("timestamp") or ""),
                       description=str(item.get("description") or ""),
                       amount=parse_amount(item.get("amount") if item.get("amount") is not None else ""),
                       currency=str(item.get("currency") or account.get("currency") or ""),
                       transaction_category=classification[0] if classification else None,
                       merchant_name=item.get("merchant_name") or None, extra=extra)


def to_balance(account: dict[str, Any], item: dict[str, Any], today: date) -> Balance:
    """TrueLayer's balance → ours: the ``current`` balance (``available`` when there is
    none) as of ``update_timestamp`` (today when it says nothing)."""
    amount = item.get("current") if item.get("current") is not None else item.get("available")
    stamp = item.get("update_timestamp")
    return Balance(account=str(account["account_id"]), amount=parse_amount(amount if amount is not None else ""),
                   currency=str(item.get("currency") or account.get("currency") or ""),
                   as_of=parse_timestamp(stamp).date() if stamp else today, source="truelayer")


@dataclass
class FetchResult:
    """What a connection fetched: transactions, balances, accounts read, and what failed
    (per account or item)."""

    transactions: list[Transaction] = field(default_factory=list)
    accounts: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    balances: list[Balance] = field(default_factory=list)


def fetch(client: TrueLayerClient, today: date, days: int) -> FetchResult:
    """Every account's transactions from ``today - days`` to ``today``, and its balance
    (a balance that cannot be fetched is reported; the transactions are kept)."""
    result = FetchResult()
    start = today - timedelta(days=days)
    for account in client.accounts():
        account_id = str(account.get("account_id") or "")
        try:
            items = client.transactions(account_id, start, today)
        except ConnectorError as exc:
            result.failed.append({"account": account_id, "error": str(exc)})
            continue
        result.accounts.append({"account_id": account_id, "display_name": account.get("display_name"),
                                "currency": account.get("currency"), "transactions": len(items)})
        for item in items:
            try:
                result.transactions.append(to_transaction(account, item))
            except ConfigError as exc:
                result.failed.append({"account": account_id, "error": f"transaction "
                                      f"{item.get('transaction_id', '?')}: {exc}"})
        try:
            result.balances += [to_balance(account, item, today) for item in client.balance(account_id)]
        except (ConnectorError, ConfigError) as exc:
            result.failed.append({"account": account_id, "error": f"balance: {exc}"})
    return result
