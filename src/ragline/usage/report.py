"""A tenant's usage rows summed, with an estimated cost from the price table
(``settings.usage.prices``: a model id → price per million tokens in and out)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..models.usage import ASK, EMBED, UsageRecord
from ..settings import Price, UsageSettings


def cost(record: UsageRecord, prices: Mapping[str, Price]) -> float | None:
    """The record's estimated cost, or None when its model has tokens but no price."""
    price = prices.get(record.model)
    if price is None:
        return None if record.input_tokens or record.output_tokens else 0.0
    return (record.input_tokens * price.input + record.output_tokens * price.output) / 1_000_000


def usage_report(tenant: str, records: Iterable[UsageRecord], settings: UsageSettings,
                 since: str | None = None) -> dict[str, Any]:
    """Totals (texts and tokens embedded, questions, LLM tokens in and out, cost),
    and the same per model and per day. ``unpriced`` lists models with tokens but
    no price, counted as 0 in ``cost``: add them to ``usage.prices``."""
    records = list(records)
    by_model: dict[tuple[str, str], dict[str, Any]] = {}
    by_day: dict[str, dict[str, Any]] = {}
    unpriced: set[str] = set()
    for record in records:
        spent = cost(record, settings.prices)
        if spent is None:
            unpriced.add(record.model)
        row = by_model.setdefault((record.kind, record.model), {
            "kind": record.kind, "model": record.model, "events": 0, "input_tokens": 0, "output_tokens": 0,
            "cost": 0.0})
        day = by_day.setdefault(record.day, _totals() | {"day": record.day})
        for target in (row, day):
            _add(target, record, spent or 0.0)
        row["events"] += record.events
    totals = _totals()
    for record in records:
        _add(totals, record, cost(record, settings.prices) or 0.0)
    return {
        "tenant": tenant, "since": since, "currency": settings.currency, **_rounded(totals),
        "unpriced": sorted(unpriced),
        "by_model": [_rounded(r) for _, r in sorted(by_model.items())],
        "by_day": [_rounded(by_day[d]) for d in sorted(by_day)],
    }


def _totals() -> dict[str, Any]:
    return {"texts_embedded": 0, "tokens_embedded": 0, "questions": 0, "llm_input_tokens": 0,
            "llm_output_tokens": 0, "cost": 0.0}


def _add(target: dict[str, Any], record: UsageRecord, spent: float) -> None:
    if "texts_embedded" in target:
        if record.kind == EMBED:
            target["texts_embedded"] += record.events
            target["tokens_embedded"] += record.input_tokens
        elif record.kind == ASK:
            target["questions"] += record.events
            target["llm_input_tokens"] += record.input_tokens
            target["llm_output_tokens"] += record.output_tokens
    else:
        target["input_tokens"] += record.input_tokens
        target["output_tokens"] += record.output_tokens
    target["cost"] += spent


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "cost": round(row["cost"], 6)}
