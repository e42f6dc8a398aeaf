"""``Usage`` on the relational backends (SQLite and PostgreSQL, and so the catalog a
Qdrant index pairs with): two tables, the same SQL on both but for the placeholder
and the name of ``greatest``.

- ``chunk_matches``: per (tenant, chunk id), how often the chunk was returned and
  when last. Keyed by the chunk id, not a column of ``chunks``: a document written
  again keeps the counts of its unchanged chunks (their ids are content hashes), and
  counting never writes the chunk rows search reads. Rows of deleted chunks are
  never shown (every listing joins ``chunks``).
- ``usage_daily``: per (tenant, UTC day, kind, model), events and tokens in and out.

``UsageTables`` is built on the backend's ``Database`` (its connections, shared with
the other roles) and the catalog's ``resolve``. Every statement names the tenant.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...errors import ConfigError
from ...models import Scope
from ...models.usage import MatchStat, UsageRecord
from ..base import MatchCounts
from ..types import CollectionRef
from .common import Database, owner_visibility, row_id

COUNTED = "LEFT JOIN chunk_matches u ON u.tenant = c.tenant AND u.chunk_id = c.id"
"""A query of ``chunks c`` joined to its chunks' counters, ``u`` (none: NULL)."""
HIT_COUNTERS = "coalesce(u.match_count, 0), u.last_matched_at"
"""A hit's counters as ``COUNTED`` gives them: read with the hit (``get_hits``), not after it."""

SCHEMA_USAGE = """
CREATE TABLE IF NOT EXISTS chunk_matches (
    tenant TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    match_count BIGINT NOT NULL DEFAULT 0,
    last_matched_at DOUBLE PRECISION,
    PRIMARY KEY (tenant, chunk_id)
);
CREATE TABLE IF NOT EXISTS usage_daily (
    tenant TEXT NOT NULL,
    day TEXT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    events BIGINT NOT NULL DEFAULT 0,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, day, kind, model)
);
"""
"""The tables, valid SQL for both backends (PostgreSQL adds its row-level security)."""

USAGE_TABLES = ("chunk_matches", "usage_daily")
_BATCH = 500
_PREVIEW_CHARS = 160
MAX_LIMIT = 1000


class UsageTables:
    """The ``Usage`` protocol over ``chunk_matches`` and ``usage_daily``."""

    def __init__(self, db: Database, resolve: Callable[[Scope], list[CollectionRef]]) -> None:
        self.db = db
        self.resolve = resolve  # the catalog's: a scope's collections

    # -- match counters -----------------------------------------------------------
    def record_matches(self, tenant: str, matches: Mapping[str, tuple[int, float | None]], *, replace: bool = False) -> None:
        m, g = self.db.mark, self.db.greatest
        if replace:  # a copy (ragline migrate): the values as they are, so a second run changes nothing
            update = "match_count = excluded.match_count, last_matched_at = excluded.last_matched_at"
        else:
            update = (f"match_count = chunk_matches.match_count + excluded.match_count, last_matched_at = "
                      f"{g}(coalesce(chunk_matches.last_matched_at, 0), coalesce(excluded.last_matched_at, 0))")
        sql = (f"INSERT INTO chunk_matches (tenant, chunk_id, match_count, last_matched_at) VALUES ({m}, {m}, {m}, {m}) "
               f"ON CONFLICT (tenant, chunk_id) DO UPDATE SET {update}")
        rows = [(tenant, chunk_id, int(count), at) for chunk_id, (count, at) in sorted(matches.items())]
        if not rows:
            return
        with self.db.transaction(tenant) as cur:
            cur.executemany(sql, rows)

    def chunk_matches(self, scope: Scope, chunk_ids: list[str]) -> MatchCounts:
        out: MatchCounts = {}
        for start in range(0, len(chunk_ids), _BATCH):
            among, params = self.db.one_of("chunk_id", chunk_ids[start:start + _BATCH])
            out.update((r[0], (int(r[1]), r[2])) for r in self.db.rows(
                scope.tenant, f"SELECT chunk_id, match_count, last_matched_at FROM chunk_matches "
                              f"WHERE tenant = {self.db.mark} AND {among}", [scope.tenant, *params]))
        return out

    def export_matches(self, tenant: str) -> MatchCounts:
        rows = self.db.rows(tenant, f"SELECT chunk_id, match_count, last_matched_at FROM chunk_matches "
                                        f"WHERE tenant = {self.db.mark} ORDER BY chunk_id", [tenant])
        return {r[0]: (int(r[1]), r[2]) for r in rows}

    def match_stats(self, scope: Scope, *, level: str = "chunk", order: str = "most",
                    limit: int = 20) -> list[MatchStat]:
        if level not in ("chunk", "document") or order not in ("most", "never"):
            raise ConfigError(f"match stats: level must be chunk or document and order most or never, "
                              f"got {level!r}/{order!r}")
        if not 1 <= limit <= MAX_LIMIT:
            raise ConfigError(f"match stats: limit must be 1–{MAX_LIMIT}, got {limit}")
        m = self.db.mark
        ids = [row_id(ref) for ref in self.resolve(scope)]
        visible, owner_params = owner_visibility(scope, "c", m)
        count, last = "coalesce(u.match_count, 0)", "u.last_matched_at"
        if level == "document":
            select = (f"SELECT c.doc_id, c.doc_id, d.source, d.title, NULL, '', sum({count}), max({last}) ")
            group, having = " GROUP BY c.doc_id, d.source, d.title", (
                f" HAVING sum({count}) > 0" if order == "most" else f" HAVING sum({count}) = 0")
            ordering = (f" ORDER BY sum({count}) DESC, d.source" if order == "most" else " ORDER BY d.source")
        else:
            select = (f"SELECT c.id, c.doc_id, d.source, d.title, c.page, substr(c.text, 1, {_PREVIEW_CHARS}), "
                      f"{count}, {last} ")
            group, having = "", ""
            where_count = f" AND {count} > 0" if order == "most" else f" AND {count} = 0"
            visible += where_count
            ordering = (f" ORDER BY {count} DESC, d.source, c.position" if order == "most"
                        else " ORDER BY d.source, c.position")
        sql = (select + "FROM chunks c JOIN documents d ON d.id = c.doc_id "
               f"{COUNTED} "
               f"WHERE c.tenant = {m} AND c.collection_id IN ({','.join([m] * len(ids))})"
               + visible + group + having + ordering + f" LIMIT {m}")
        rows = self.db.rows(scope.tenant, sql, [scope.tenant, *ids, *owner_params, limit])
        return [MatchStat(level, r[0], r[1], r[2], r[3], r[4], r[5] or "", int(r[6] or 0), r[7]) for r in rows]

    # -- usage per day --------------------------------------------------------------
    def record_usage(self, records: Iterable[UsageRecord], *, replace: bool = False) -> None:
        m = self.db.mark
        if replace:
            update = ("events = excluded.events, input_tokens = excluded.input_tokens, "
                      "output_tokens = excluded.output_tokens")
        else:
            update = ("events = usage_daily.events + excluded.events, "
                      "input_tokens = usage_daily.input_tokens + excluded.input_tokens, "
                      "output_tokens = usage_daily.output_tokens + excluded.output_tokens")
        sql = (f"INSERT INTO usage_daily (tenant, day, kind, model, events, input_tokens, output_tokens) "
               f"VALUES ({m}, {m}, {m}, {m}, {m}, {m}, {m}) "
               f"ON CONFLICT (tenant, day, kind, model) DO UPDATE SET {update}")
        by_tenant: dict[str, list[tuple]] = {}
        for r in records:
            by_tenant.setdefault(r.tenant, []).append(
                (r.tenant, r.day, r.kind, r.model, r.events, r.input_tokens, r.output_tokens))
        for tenant, rows in sorted(by_tenant.items()):
            with self.db.transaction(tenant) as cur:
                cur.executemany(sql, sorted(rows))

    def usage_records(self, tenant: str, *, since: str | None = None) -> list[UsageRecord]:
        m = self.db.mark
        sql = ("SELECT tenant, day, kind, model, events, input_tokens, output_tokens FROM usage_daily "
               f"WHERE tenant = {m}")
        params: list[Any] = [tenant]
        if since is not None:
            sql += f" AND day >= {m}"
            params.append(since)
        rows = self.db.rows(tenant, sql + " ORDER BY day, kind, model", params)
        return [UsageRecord(r[0], r[1], r[2], r[3], int(r[4]), int(r[5]), int(r[6])) for r in rows]

