"""Transactions over real HTTP and the real CLI: import a statement file and JSON
records, list and filter, sums by group, the exact route of /v1/ask, owners
(owner-bound keys) and clear 422s; ``ragline import transactions`` as users run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant
from tests.statements import owner_rows, spending_by, write_csv


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    settings = Settings(home=tmp_path_factory.mktemp("tx-server") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0))
    rows = owner_rows(7, currency="GBP", start=date(2024, 1, 1), months=6, salary=Decimal("3000.00"),
                      rent=Decimal("1100.00"))
    with LiveServer(settings) as server:
        key = create_tenant(server, "bank")
        with server.client(ADMIN_KEY) as admin:
            bound = admin.post("/v1/tenants/bank/keys", json={"owner": "bob"}).json()["key"]
        yield {"server": server, "key": key, "bob_key": bound, "rows": rows}


def test_import_list_filter_and_sum(live) -> None:
    data, bad = write_csv(live["rows"], "starling", broken_every=200)
    with live["server"].client(live["key"]) as client:
        missing = client.post("/v1/transactions/import", files={"file": ("ann.csv", data, "text/csv")})
        assert missing.status_code == 422 and "owner" in missing.json()["error"]["message"]
        response = client.post("/v1/transactions/import", files={"file": ("ann.csv", data, "text/csv")},
                               data={"owner": "ann"})
        assert response.status_code == 200, response.text
        report = response.json()
        assert (report["added"], [f["line"] for f in report["failed"]]) == (len(live["rows"]), bad)
        assert report["months"] == [f"2024-0{m}" for m in range(1, 7)] and report["documents"]["added"] == 12
        params = {"owner": "ann", "category": "groceries", "start": "2024-03-01", "end": "2024-03-31",
                  "flow": ["spend", "refund"], "limit": 1000}
        listed = client.get("/v1/transactions", params=params).json()["transactions"]
        truth = [r for r in live["rows"] if r.category == "Groceries" and r.day.month == 3]
        assert {t["transaction_id"] for t in listed} == {r.transaction_id for r in truth}
        assert all(isinstance(t["amount"], str) for t in listed)
        groups = client.get("/v1/transactions/aggregate", params={"owner": "ann", "by": "category",
                                                                   "flow": ["spend", "refund"]}).json()["groups"]
        expected = spending_by(live["rows"], "category")
        assert {(g["key"], g["currency"]): -Decimal(g["total"]) for g in groups} == expected
        bad_group = client.get("/v1/transactions/aggregate", params={"owner": "ann", "by": "description"})
        assert bad_group.status_code == 422
        # The ids an answer cites, as the web page asks for them: only those, only the owner's.
        wanted = [t["transaction_id"] for t in listed[:3]]
        by_id = client.get("/v1/transactions", params={"owner": "ann", "id": [*wanted, "no-such-id"]}).json()
        assert sorted(t["transaction_id"] for t in by_id["transactions"]) == sorted(wanted)
        assert client.get("/v1/transactions", params={"owner": "bob", "id": wanted}).json() == {"transactions": []}
        too_many = client.get("/v1/transactions", params={"owner": "ann", "id": [str(i) for i in range(201)]})
        assert too_many.status_code == 422
        taxonomy = client.get("/v1/transactions/categories").json()["categories"]
        assert {"id": "eating_out", "label": "Eating out"} in taxonomy and len(taxonomy) == 18


def test_json_records_owner_bound_keys_and_ask(live) -> None:
    server = live["server"]
    body = {"transactions": [
        {"transaction_id": "b1", "account_id": "cur", "timestamp": "2024-05-02", "amount": "-12.40",
         "currency": "EUR", "transaction_category": "Groceries", "merchant_name": "Lidl"},
        {"transaction_id": "b2", "account_id": "cur", "timestamp": "2024-05-03T09:00:00+02:00", "amount": -0.1,
         "currency": "EUR", "transaction_category": "Groceries", "merchant_name": "Lidl"},
    ]}
    with server.client(live["bob_key"]) as bob:
        wrong = bob.post("/v1/transactions", json={**body, "owner": "ann"})
        assert wrong.status_code == 403  # a key bound to bob cannot write as ann
        # A batch is taken row by row: bad rows are listed, the good ones stored (as a file's are).
        batch = {"transactions": [{**body["transactions"][0], "amount": "1.2.3"}, body["transactions"][0],
                                  {"transaction_id": "b9", "account_id": "cur", "timestamp": "2024-05-04"},
                                  {**body["transactions"][1], "colour": "red"}]}
        partial = bob.post("/v1/transactions", json=batch)
        assert partial.status_code == 200, partial.text
        failed = partial.json()["failed"]
        assert [f["item"] for f in failed] == [0, 2, 3] and partial.json()["added"] == 1
        assert "amount" in failed[0]["error"] and "amount" in failed[1]["error"] and "colour" in failed[2]["error"]
        stored = bob.post("/v1/transactions", json=body)
        assert stored.status_code == 200 and (stored.json()["added"], stored.json()["unchanged"]) == (1, 1)
        assert bob.get("/v1/transactions", params={"owner": "ann"}).status_code == 403
        mine = bob.get("/v1/transactions").json()["transactions"]
        assert [(t["transaction_id"], t["amount"]) for t in mine] == [("b2", "-0.10"), ("b1", "-12.40")]
        answer = bob.post("/v1/ask", json={"collection": "transactions",
                                           "question": "How much did I spend on groceries in May 2024?"}).json()
        assert answer["route"]["name"] == "records" and answer["records"]["table"]["rows"] == [["EUR", "12.50", 2,
                                                                                                  "0.00"]]
        assert answer["answer"].startswith("Spending on Groceries in May 2024: 12.50 EUR") and \
            answer["citations"][0]["n"] == 1
        assert sorted(answer["citations"][0]["transaction_ids"]) == ["b1", "b2"]
        fix = bob.post("/v1/transactions/categorize", json={"target": "lidl", "category": "eating_out"})
        assert fix.status_code == 200, fix.text
        assert (fix.json()["kind"], fix.json()["category"], fix.json()["updated"]) == ("merchant", "Eating out", 2)
        assert {(t["transaction_category"], t["category_source"])
                for t in bob.get("/v1/transactions").json()["transactions"]} == {("Eating out", "user")}
        assert bob.post("/v1/transactions/categorize", json={"owner": "ann", "target": "x",
                                                             "category": "y"}).status_code == 403
        assert bob.get("/v1/transactions/balances").json() == {"balances": []}
        assert bob.post("/v1/transactions/reindex").json()["text"]["state"] == "ok"
    with server.client(live["key"]) as client:
        ann = client.post("/v1/ask", json={"collection": "transactions", "owner": "ann",
                                           "question": "Where am I spending the most money?"}).json()
        assert ann["records"]["plan"]["group_by"] == "category" and "Lidl" not in json.dumps(ann)
        top = max(spending_by(live["rows"], "category").items(), key=lambda kv: kv[1])
        assert ann["records"]["table"]["rows"][0][:3] == [top[0][0], "GBP", f"{top[1]:.2f}"]


def test_cli_import_and_ask(tmp_path: Path) -> None:
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_EMBEDDER__NAME": "hashing"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", *args], capture_output=True, text=True, env=env, check=False,
                              timeout=120, cwd=tmp_path)

    rows = owner_rows(3, currency="EUR", start=date(2024, 1, 1), months=3, salary=Decimal(2000),
                      rent=Decimal(800))
    (tmp_path / "konto.csv").write_bytes(write_csv(rows, "sparkasse")[0])
    result = run("import", "transactions", "konto.csv", "--owner", "cho", "--columns",
                 '{"transaction_id": "Kundenreferenz"}', "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["added"] == len(rows)
    again = run("import", "transactions", "konto.csv", "--owner", "cho", "--columns",
                '{"transaction_id": "Kundenreferenz"}')
    assert again.returncode == 0 and f"unchanged {len(rows)}" in again.stdout
    (tmp_path / "bad.csv").write_text("Date,Amount,Currency\n2024-01-01,-1,EUR\n2024-01-02,x,EUR\n")
    bad = run("import", "transactions", "bad.csv", "--owner", "cho")
    assert bad.returncode == 1 and "line 3" in bad.stderr
    assert run("import", "transactions", "bad.csv").returncode == 2  # --owner is required
    asked = run("ask", "Which categories do I spend the most on?", "--owner", "cho", "--verbose")
    assert asked.returncode == 0, asked.stderr
    top = max(spending_by(rows, "category").items(), key=lambda kv: kv[1])
    assert f"{top[1]:,.2f} EUR" in asked.stdout and "category" in asked.stdout  # the sentence and the table
    assert "route: records" in asked.stderr
