"""``Records`` on the relational backends (SQLite and PostgreSQL, and so the catalog
a Qdrant index pairs with): one ``transactions`` table, the same SQL on both with
the placeholder as the only difference.

``RecordsTables`` is built on the backend's ``Database`` (its connections, shared
with the other roles over the same tables). Rows are keyed by (tenant, owner, transaction id); every
query names both tenant and owner, and an owner-less scope has no transactions.
Amounts are integers of 1/``AMOUNT_SCALE`` of the currency unit, so ``SUM`` is exact.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ...errors import ConfigError
from ...models import Scope
from ...models.records import (
    Aggregate,
    Balance,
    Transaction,
    TransactionQuery,
    WriteReport,
    key,
    scaled,
    unscaled,
)
from .common import Database

SCHEMA_RECORDS = """
CREATE TABLE IF NOT EXISTS transactions (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    day TEXT NOT NULL,
    month TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    description TEXT NOT NULL,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    transaction_category TEXT,
    merchant_name TEXT,
    category_key TEXT,
    merchant_key TEXT,
    text_key TEXT NOT NULL,
    flow TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tenant, owner, transaction_id)
);
CREATE INDEX IF NOT EXISTS transactions_day ON transactions (tenant, owner, day);
"""
"""The table, valid SQL for both backends (PostgreSQL adds its row-level security)."""

SCHEMA_BALANCES = """
CREATE TABLE IF NOT EXISTS balances (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    account_id TEXT NOT NULL,
    currency TEXT NOT NULL,
    as_of TEXT NOT NULL,
    amount BIGINT NOT NULL,
    source TEXT NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tenant, owner, account_id, currency, as_of)
);
"""
"""Account balances as the bank gave them, one row per (owner, account, currency, day)."""

SCHEMA_CATEGORIES = """
CREATE TABLE IF NOT EXISTS category_rules (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    category TEXT NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tenant, owner, kind, target)
);
CREATE TABLE IF NOT EXISTS transaction_text (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    month TEXT NOT NULL,
    error TEXT,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tenant, owner, month)
);
"""
"""A user's category corrections (``kind``: ``RULE_KINDS``), and the state of each month's searchable text (``error`` NULL: written)."""

RULE_KINDS = ("merchant", "transaction", "learned")
"""A correction of every transaction of a merchant (its key), of one transaction (its
id), or what correcting one transaction taught about its merchant (its key)."""

CATEGORY_SOURCE_COLUMN = "ALTER TABLE transactions ADD COLUMN category_source TEXT"
"""Where each category came from (``models.records.CATEGORY_SOURCES``); added to stores made before it."""

_DATA = ("account_id", "day", "month", "timestamp", "description", "amount", "currency", "transaction_category",
         "merchant_name", "category_key", "merchant_key", "text_key", "flow", "extra", "hash", "category_source")
_COLUMNS = ("tenant", "owner", "transaction_id", *_DATA[:-1], "created", "updated", "category_source")
_SELECT = ("transaction_id, account_id, timestamp, description, amount, currency, transaction_category, "
           "merchant_name, flow, extra, category_source")
GROUP_EXPRESSIONS = {  # group → (GROUP BY expression, the label shown for the group)
    "category": ("category_key", "min(transaction_category)"),
    "merchant": ("merchant_key", "min(merchant_name)"),
    "month": ("month", "month"),
    "account": ("account_id", "account_id"),
    "flow": ("flow", "flow"),
    "currency": ("currency", "currency"),
}
_BATCH = 500  # ids per IN (…) when looking up existing rows


def _owner(scope: Scope) -> str:
    if scope.owner is None:
        raise ConfigError("transactions belong to an owner: name one (--owner / owner)")
    return scope.owner


def _values(tenant: str, owner: str, tx: Transaction, now: float) -> tuple[Any, ...]:
    text = key(" ".join(filter(None, (tx.description, tx.merchant_name)))) or ""
    return (tenant, owner, tx.transaction_id, tx.account_id, tx.day, tx.month, tx.timestamp.isoformat(),
            tx.description, scaled(tx.amount), tx.currency, tx.transaction_category, tx.merchant_name,
            key(tx.transaction_category), key(tx.merchant_name), text, tx.flow,
            json.dumps(tx.extra, sort_keys=True, ensure_ascii=False, default=str), tx.hash, now, now,
            tx.category_source)


def _transaction(row: tuple) -> Transaction:
    tid, account, timestamp, description, amount, currency, category, merchant, flow, extra, source = row
    return Transaction(transaction_id=tid, account_id=account, timestamp=timestamp, description=description,
                       amount=unscaled(amount), currency=currency, transaction_category=category,
                       merchant_name=merchant, flow=flow, extra=json.loads(extra), category_source=source)


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def conditions(scope: Scope, query: TransactionQuery, mark: str) -> tuple[str, list[Any]]:
    """The WHERE (without the keyword) of a query over the scope's owner."""
    where, params = [f"tenant = {mark}", f"owner = {mark}"], [scope.tenant, scope.owner]
    simple = (("day >=", query.start.isoformat() if query.start else None),
              ("day <=", query.end.isoformat() if query.end else None),
              ("account_id =", query.account_id), ("currency =", query.currency.upper() if query.currency else None),
              ("category_key =", key(query.category)), ("merchant_key =", key(query.merchant)))
    for test, value in simple:
        if value is not None:
            where.append(f"{test} {mark}")
            params.append(value)
    if query.flows is not None:
        where.append(f"flow IN ({', '.join([mark] * len(query.flows))})" if query.flows else "1 = 0")
        params += list(query.flows)
    if query.text:
        where.append(f"text_key LIKE {mark} ESCAPE '\\'")
        params.append(_like(key(query.text) or ""))
    return " AND ".join(where), params


class RecordsTables:
    """``Records`` over the ``transactions`` table (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def put_transactions(self, scope: Scope, transactions: Iterable[Transaction]) -> WriteReport:
        owner, m = _owner(scope), self.db.mark
        latest = {tx.transaction_id: tx for tx in transactions}  # a file listing one id twice: the last wins
        report = WriteReport()
        ids = list(latest)
        now = time.time()
        upsert = (f"INSERT INTO transactions ({', '.join(_COLUMNS)}) VALUES ({', '.join([m] * len(_COLUMNS))}) "
                  "ON CONFLICT (tenant, owner, transaction_id) DO UPDATE SET "
                  + ", ".join(f"{c} = excluded.{c}" for c in (*_DATA, "updated")))
        with self.db.transaction(scope.tenant) as cur:
            existing: dict[str, tuple[str, str]] = {}
            for i in range(0, len(ids), _BATCH):
                part = ids[i:i + _BATCH]
                rows = cur.execute(f"SELECT transaction_id, hash, month FROM transactions WHERE tenant = {m} AND "
                                   f"owner = {m} AND transaction_id IN ({', '.join([m] * len(part))})",
                                   [scope.tenant, owner, *part]).fetchall()
                existing.update((r[0], (r[1], r[2])) for r in rows)
            rows = []
            for tid, tx in latest.items():
                old = existing.get(tid)
                if old is not None and old[0] == tx.hash:
                    report.unchanged += 1
                    continue
                if old is None:
                    report.added += 1
                else:
                    report.updated += 1
                    report.months.add(old[1])
                report.months.add(tx.month)
                rows.append(_values(scope.tenant, owner, tx, now))
            if rows:
                cur.executemany(upsert, rows)
        return report

    def find_transactions(self, scope: Scope, query: TransactionQuery) -> list[Transaction]:
        if scope.owner is None:
            return []
        where, params = conditions(scope, query, self.db.mark)
        order = "amount ASC, day DESC" if query.order == "amount" else "day DESC, timestamp DESC"
        sql = f"SELECT {_SELECT} FROM transactions WHERE {where} ORDER BY {order}, transaction_id"
        if query.limit is not None or query.offset:
            sql += f" LIMIT {int(query.limit if query.limit is not None else 2**62)} OFFSET {int(query.offset)}"
        return [_transaction(r) for r in self.db.rows(scope.tenant, sql, params)]

    def aggregate_transactions(self, scope: Scope, query: TransactionQuery, by: str) -> list[Aggregate]:
        if by not in GROUP_EXPRESSIONS:
            raise ConfigError(f"cannot group transactions by {by!r}; use one of: {', '.join(GROUP_EXPRESSIONS)}")
        if scope.owner is None:
            return []
        where, params = conditions(scope, query, self.db.mark)
        group, label = GROUP_EXPRESSIONS[by]
        groups = group if by == "currency" else f"{group}, currency"
        sql = (f"SELECT {label}, currency, count(*), sum(amount), min(day), max(day) FROM transactions "
               f"WHERE {where} GROUP BY {groups} ORDER BY {groups}")
        return [Aggregate(key=r[0], currency=r[1], count=int(r[2]), total=unscaled(r[3]), first=r[4], last=r[5])
                for r in self.db.rows(scope.tenant, sql, params)]

    def transaction_owners(self, tenant: str) -> list[str]:
        m = self.db.mark
        sql = (f"SELECT owner FROM transactions WHERE tenant = {m} UNION "
               f"SELECT owner FROM balances WHERE tenant = {m} ORDER BY owner")
        return [r[0] for r in self.db.rows(tenant, sql, [tenant, tenant])]

    def put_balances(self, scope: Scope, balances: Iterable[Balance]) -> int:
        owner, m = _owner(scope), self.db.mark
        latest = {(b.account, b.currency, b.as_of): b for b in balances}  # the same day twice: the last wins
        if not latest:
            return 0
        now = time.time()
        with self.db.transaction(scope.tenant) as cur:
            cur.executemany(
                f"INSERT INTO balances VALUES ({', '.join([m] * 8)}) "
                "ON CONFLICT (tenant, owner, account_id, currency, as_of) DO UPDATE SET "
                "amount = excluded.amount, source = excluded.source, updated = excluded.updated",
                [(scope.tenant, owner, b.account, b.currency, b.as_of.isoformat(), scaled(b.amount), b.source, now)
                 for b in latest.values()])
        return len(latest)

    def find_balances(self, scope: Scope, *, latest: bool = True) -> list[Balance]:
        if scope.owner is None:
            return []
        m = self.db.mark
        sql = f"SELECT account_id, amount, currency, as_of, source FROM balances b WHERE tenant = {m} AND owner = {m}"
        if latest:
            sql += (" AND as_of = (SELECT max(as_of) FROM balances c WHERE c.tenant = b.tenant AND "
                    "c.owner = b.owner AND c.account_id = b.account_id AND c.currency = b.currency)")
        sql += " ORDER BY account_id, currency, as_of"
        return [Balance(account=r[0], amount=unscaled(r[1]), currency=r[2], as_of=r[3], source=r[4])
                for r in self.db.rows(scope.tenant, sql, [scope.tenant, scope.owner])]

    def delete_transactions(self, scope: Scope, transaction_ids: list[str] | None = None) -> WriteReport:
        owner, m = _owner(scope), self.db.mark
        where, params = f"tenant = {m} AND owner = {m}", [scope.tenant, owner]
        report = WriteReport()
        with self.db.transaction(scope.tenant) as cur:
            for i in range(0, max(1, len(transaction_ids or [])), _BATCH):
                extra, more = "", []
                if transaction_ids is not None:
                    more = transaction_ids[i:i + _BATCH]
                    if not more:
                        break
                    extra = f" AND transaction_id IN ({', '.join([m] * len(more))})"
                months = cur.execute(f"SELECT DISTINCT month FROM transactions WHERE {where}{extra}",
                                     [*params, *more]).fetchall()
                report.months.update(r[0] for r in months)
                deleted = cur.execute(f"DELETE FROM transactions WHERE {where}{extra}", [*params, *more])
                report.deleted += max(deleted.rowcount, 0)
            if transaction_ids is None:  # everything of the owner's money: balances, corrections, text states
                for table in ("balances", "category_rules", "transaction_text"):
                    cur.execute(f"DELETE FROM {table} WHERE {where}", params)
        return report

    def put_category_rules(self, scope: Scope, rules: Mapping[tuple[str, str], str | None]) -> None:
        owner, m = _owner(scope), self.db.mark
        now = time.time()
        with self.db.transaction(scope.tenant) as cur:
            for (kind, target), category in rules.items():
                if kind not in RULE_KINDS:
                    raise ConfigError(f"a category rule is for one of {', '.join(RULE_KINDS)}, not {kind!r}")
                if category is None:
                    cur.execute(f"DELETE FROM category_rules WHERE tenant = {m} AND owner = {m} AND kind = {m} "
                                f"AND target = {m}", [scope.tenant, owner, kind, target])
                else:
                    cur.execute(f"INSERT INTO category_rules VALUES ({m}, {m}, {m}, {m}, {m}, {m}) "
                                "ON CONFLICT (tenant, owner, kind, target) DO UPDATE SET "
                                "category = excluded.category, updated = excluded.updated",
                                [scope.tenant, owner, kind, target, category, now])

    def category_rules(self, scope: Scope) -> dict[tuple[str, str], str]:
        if scope.owner is None:
            return {}
        m = self.db.mark
        rows = self.db.rows(scope.tenant, f"SELECT kind, target, category FROM category_rules WHERE tenant = {m} "
                            f"AND owner = {m} ORDER BY kind, target", [scope.tenant, scope.owner])
        return {(r[0], r[1]): r[2] for r in rows}

    def put_text_states(self, scope: Scope, states: Mapping[str, str | None]) -> None:
        owner, m = _owner(scope), self.db.mark
        if not states:
            return
        now = time.time()
        with self.db.transaction(scope.tenant) as cur:
            cur.executemany(f"INSERT INTO transaction_text VALUES ({m}, {m}, {m}, {m}, {m}) "
                            "ON CONFLICT (tenant, owner, month) DO UPDATE SET error = excluded.error, "
                            "updated = excluded.updated",
                            [(scope.tenant, owner, month, error, now) for month, error in states.items()])

    def text_states(self, scope: Scope) -> dict[str, str | None]:
        if scope.owner is None:
            return {}
        m = self.db.mark
        rows = self.db.rows(scope.tenant, f"SELECT month, error FROM transaction_text WHERE tenant = {m} AND "
                            f"owner = {m} ORDER BY month", [scope.tenant, scope.owner])
        return {r[0]: r[1] for r in rows}
