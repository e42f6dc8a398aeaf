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
