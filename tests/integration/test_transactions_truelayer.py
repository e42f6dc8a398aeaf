"""The TrueLayer connector against a fake TrueLayer on real HTTP: token exchange and
rotation, accounts, 90 days of paged transactions, and the failures a bank API
has (expired tokens, 429 with Retry-After, 5xx, broken pages), survived or
reported clearly; ``ragline connect truelayer`` as users run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.errors import ConfigError, ConnectorError
from ragline.models import Scope
from ragline.records.truelayer import TokenStore, TrueLayerClient, fetch
from ragline.settings import EmbedderSettings, RecordsSettings, Settings, TrueLayerSettings

from tests.fakes.truelayer import CLIENT_ID, CLIENT_SECRET, FakeTrueLayer

TODAY = date.today()


def _items(prefix: str, n: int, currency: str = "GBP") -> list[dict]:
    """``n`` TrueLayer transactions, one a day going back from today (some older than 90 days)."""
    return [{"transaction_id": f"{prefix}-{i}", "timestamp": f"{TODAY - timedelta(days=i)}T09:30:00+00:00",
             "description": f"CARD PAYMENT {i}", "amount": -(1 + i % 7) - 0.25, "currency": currency,
             "transaction_type": "DEBIT", "transaction_category": "PURCHASE",
             "transaction_classification": ["Shopping", "General"], "merchant_name": f"Shop {i % 5}",
             "running_balance": {"amount": 100.5, "currency": currency}, "meta": {"provider_id": f"p{i}"}}
            for i in range(n)]


ACCOUNTS = {
    "acc-1": ({"account_id": "acc-1", "account_type": "TRANSACTION", "display_name": "Current", "currency": "GBP"},
              _items("a", 120)),
    "acc-2": ({"account_id": "acc-2", "account_type": "SAVINGS", "display_name": "Card", "currency": "EUR"},
              _items("b", 30, "EUR")),
}


def _spent(items: list[dict], merchant: str, since: str) -> Decimal:
    return -sum(Decimal(str(t["amount"])) for t in items if t["merchant_name"] == merchant
                and t["timestamp"][:10] >= since)


def _settings(url: str, **overrides) -> TrueLayerSettings:
    return TrueLayerSettings(**{"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "auth_url": url,
                                "api_url": url, "retry_backoff": 0.01, **overrides})


def _client(server: FakeTrueLayer, tmp_path: Path, waits: list[float], **overrides) -> TrueLayerClient:
    return TrueLayerClient(_settings(server.url, **overrides), TokenStore(tmp_path, "bank", "ann"),
                           sleep=waits.append)


def test_accounts_and_ninety_days_of_paged_transactions(tmp_path) -> None:
    waits: list[float] = []
    with FakeTrueLayer(ACCOUNTS, page_size=25) as server:
        client = _client(server, tmp_path, waits)
        client.use_refresh_token("rt-0")
        result = fetch(client, TODAY, 90)
        client.close()
    assert [a["transactions"] for a in result.accounts] == [91, 30] and result.failed == []
    assert len(result.transactions) == 121 and waits == []
    first = result.transactions[0]
    assert (first.transaction_id, first.account_id, first.amount, first.transaction_category) == (
        "a-0", "acc-1", Decimal("-1.25"), "Shopping")
    assert first.extra["transaction_category"] == "PURCHASE" and first.extra["meta"] == {"provider_id": "p0"}
    pages = [q for m, p, q, _ in server.requests if p.endswith("/acc-1/transactions")]
    assert len(pages) == 4 and pages[0]["from"] == [str(TODAY - timedelta(days=90))]
    assert [q.get("cursor") for q in pages] == [None, ["25"], ["50"], ["75"]]
    saved = json.loads((tmp_path / "connectors" / "truelayer" / "bank" / f"{b'ann'.hex()}.json").read_text())
    assert saved["refresh_token"] == "rt-1" == server.refresh_token  # the rotated token is kept
    assert oct(os.stat(TokenStore(tmp_path, "bank", "ann").path).st_mode & 0o777) == "0o600"


def test_expired_token_429_5xx_and_broken_pages_are_survived(tmp_path) -> None:
    waits: list[float] = []
    script = [("/acc-1/transactions", 429, "2"), ("/acc-1/transactions", 503, None),
              ("/acc-1/transactions", "broken", None), ("/acc-2/transactions", 500, None)]
    with FakeTrueLayer(ACCOUNTS, page_size=40, token_ttl=3, script=script) as server:
        client = _client(server, tmp_path, waits)
        client.use_refresh_token("rt-0")
        result = fetch(client, TODAY, 90)
        client.close()
    assert result.failed == [] and len(result.transactions) == 121
    assert waits[0] == 2.0 and len(waits) == 4  # Retry-After honoured, then backoff for the others
    grants = [f["grant_type"][0] for m, p, _, f in server.requests if p == "/connect/token"]
    assert grants.count("refresh_token") >= 2  # the access token expired between pages and was refreshed


def test_what_cannot_be_survived_is_reported(tmp_path) -> None:
    waits: list[float] = []
    script = [("/acc-2/transactions", 503, None)] * 3
    with FakeTrueLayer(ACCOUNTS, script=script) as server:
        client = _client(server, tmp_path, waits, max_retries=2)
        client.use_refresh_token("rt-0")
        result = fetch(client, TODAY, 90)
        client.close()
        assert [a["account_id"] for a in result.accounts] == ["acc-1"] and len(result.transactions) == 91
        assert result.failed == [{"account": "acc-2", "error": "TrueLayer transactions of acc-2: HTTP 503: "
                                  "fake_failure: scripted 503 (after 3 attempts)"}]
        stale = _client(server, tmp_path / "other", waits)
        with pytest.raises(ConnectorError, match="refused the refresh token.*invalid_grant"):
            stale.use_refresh_token("rt-0")  # already rotated away
        stale.close()
    with pytest.raises(ConnectorError, match="no TrueLayer refresh token"):
        _client(server, tmp_path / "nobody", waits).accounts()
    with pytest.raises(ConfigError, match="RAGLINE_RECORDS__TRUELAYER__CLIENT_SECRET"):
        TrueLayerClient(TrueLayerSettings(client_id="x"), TokenStore(tmp_path, "bank", "ann"))


def test_connect_through_the_engine_and_the_cli(tmp_path) -> None:
    with FakeTrueLayer(ACCOUNTS, page_size=50) as server:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            records=RecordsSettings(truelayer=_settings(server.url)))
        engine = Engine(settings)
        try:
            scope = Scope("bank", ("transactions",), "ann")
            report = engine.transactions.connect_truelayer(scope, code="code-0", redirect_uri="http://localhost/cb")
            assert (report.added, report.failed, report.format) == (121, [], "truelayer")
            assert [a["account_id"] for a in report.accounts] == ["acc-1", "acc-2"]
            again = engine.transactions.connect_truelayer(scope)  # the saved, rotated refresh token
            assert (again.added, again.unchanged) == (0, 121)
            answer = engine.ask("How much did I spend at Shop 1 in the last 30 days?", scope).to_dict()
            since = str(TODAY - timedelta(days=29))
            expected = {account["currency"]: f"{_spent(items, 'Shop 1', since):.2f}"
                        for account, items in ACCOUNTS.values()}
            assert answer["route"]["plan"]["filters"]["merchants"] == ["Shop 1"]
            assert {row[0]: row[1] for row in answer["records"]["table"]["rows"]} == expected
        finally:
            engine.close()
        env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "cli"), "RAGLINE_EMBEDDER__NAME": "hashing",
               "RAGLINE_RECORDS__TRUELAYER__CLIENT_ID": CLIENT_ID,
               "RAGLINE_RECORDS__TRUELAYER__CLIENT_SECRET": CLIENT_SECRET,
               "RAGLINE_RECORDS__TRUELAYER__AUTH_URL": server.url, "RAGLINE_RECORDS__TRUELAYER__API_URL": server.url}
        run = subprocess.run([sys.executable, "-m", "ragline", "connect", "truelayer", "--owner", "bob",
                              "--refresh-token", server.refresh_token, "--json"], capture_output=True, text=True, check=False,
                             env=env, timeout=120)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["added"] == 121
        refused = subprocess.run([sys.executable, "-m", "ragline", "connect", "truelayer", "--owner", "carol",
                                  "--refresh-token", "wrong"], capture_output=True, text=True, env=env, timeout=120,
                                 check=False)
        assert refused.returncode == 1 and "invalid_grant" in refused.stderr


def test_balances_from_the_balance_endpoint(tmp_path) -> None:
    """Each account's ``current`` balance as of its ``update_timestamp``; a balance that
    cannot be fetched is reported and the account's transactions are still imported."""
    given = {"acc-1": {"currency": "GBP", "current": 1234.56, "available": 1000.0,
                       "update_timestamp": f"{TODAY}T17:33:30.001222+00:00"}}
    with FakeTrueLayer(ACCOUNTS, balances=given, script=[("/acc-2/balance", 503, None)] * 3) as server:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                            records=RecordsSettings(truelayer=_settings(server.url, max_retries=2)))
        engine = Engine(settings)
        try:
            scope = Scope("bank", ("transactions",), "ann")
            report = engine.transactions.connect_truelayer(scope, refresh_token="rt-0").to_dict()
            assert report["added"] == 121 and report["balances"] == [
                {"account": "acc-1", "amount": "1234.56", "currency": "GBP", "as_of": str(TODAY),
                 "source": "truelayer"}]
            assert report["failed"] == [{"account": "acc-2", "error": "balance: TrueLayer balance of acc-2: HTTP 503: "
                                         "fake_failure: scripted 503 (after 3 attempts)"}]
            engine.transactions.connect_truelayer(scope)  # now acc-2's balance answers: the sum of its items
            expected = sum(Decimal(str(t["amount"])) for t in ACCOUNTS["acc-2"][1])
            assert [(b.account, b.amount, b.currency, b.as_of) for b in engine.transactions.balances(scope)] == [
                ("acc-1", Decimal("1234.56"), "GBP", TODAY), ("acc-2", expected, "EUR", TODAY)]
        finally:
            engine.close()
