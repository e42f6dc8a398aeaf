"""What only PostgreSQL adds for transactions: row-level security on the table
(migration 6), the same second wall as every other tenant table."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ragline.errors import StoreError
from ragline.models import Scope
from ragline.models.records import Transaction, TransactionQuery
from ragline.settings import Settings, StoreSettings
from ragline.store import open_store
from ragline.store.postgres.schema import MIGRATIONS

from tests.pg_server import pg_url, server  # noqa: F401  (pg_url is a fixture)


def test_transactions_table_has_the_tenant_wall(tmp_path, pg_url) -> None:  # noqa: F811
    assert [v for v, _ in MIGRATIONS] == sorted(v for v, _ in MIGRATIONS) and 6 in dict(MIGRATIONS)
    store = open_store(Settings(home=tmp_path, store=StoreSettings(url=pg_url, pool_size=2)))
    try:
        pg = store.catalog
        for tenant in ("acme", "other"):
            store.catalog.ensure_tenant(tenant)
            store.records.put_transactions(Scope(tenant, ("t",), "ann"), [Transaction(
                transaction_id="t1", account_id="a", timestamp="2024-01-01", description="x",
                amount=Decimal("-1.00"), currency="GBP")])
        with pg._tx("acme") as cur:  # no WHERE: only the wall filters
            assert {r[0] for r in cur.execute("SELECT tenant FROM transactions").fetchall()} == {"acme"}
        with pg._tx(None) as cur:  # the operator bypass sees both
            assert {r[0] for r in cur.execute("SELECT tenant FROM transactions").fetchall()} == {"acme", "other"}
        with pytest.raises(StoreError, match="row-level security"), pg._tx("acme") as cur:  # nor move a row away
            cur.execute("UPDATE transactions SET tenant = 'other'")
        assert len(store.records.find_transactions(Scope("other", ("t",), "ann"), TransactionQuery())) == 1
    finally:
        store.close()


def test_plans_execute_alike_on_sqlite_and_postgresql(tmp_path, pg_url) -> None:  # noqa: F811
    from datetime import date

    from ragline.engine import Engine
    from ragline.records.exact import PlanExecutor
    from ragline.settings import EmbedderSettings

    from tests.unit.test_query_plan import ANN, ROWS, TODAY, plan

    plans = [plan(filters={"merchants": ("Tesco",)}, periods=("September 2026",)),
             plan(filters={"places": ("Munich",), "currency": "EUR"}),
             plan(metric="compare", filters={"categories": ("Groceries",)}, periods=("September 2026", "August 2026")),
             plan(metric="recurring", filters={"kinds": ("gym",)}), plan(flow="savings"), plan(flow="net"),
             plan(metric="average", per="month", filters={"categories": ("Groceries",)}),
             plan(metric="max", limit=3), plan(group_by="category")]
    answers = []
    for i, store in enumerate((None, StoreSettings(url=pg_url, pool_size=2))):
        settings = Settings(home=tmp_path / f"home{i}", embedder=EmbedderSettings(name="hashing"),
                            **({"store": store} if store else {}))
        engine = Engine(settings)
        try:
            engine.transactions.put(ROWS, ANN)
            executor = PlanExecutor(engine.store.records, ANN, TODAY)
            answers.append([executor.run(p).to_dict() for p in plans])
        finally:
            engine.close()
    assert answers[0] == answers[1]
    assert date.fromisoformat(answers[0][0]["plan"]["periods"][0]["start"]) == date(2026, 9, 1)
