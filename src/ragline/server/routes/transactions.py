"""Transactions: one owner's bank transactions as records. Import a statement file
or JSON records (stored at once: new ones added, changed ones updated, malformed
file rows reported with their line), list and filter them, sum them by group.

Every route needs an owner (``?owner=`` / form field / body, or an owner-bound
key): transactions are never shared. Money is exact decimal strings on the wire.
"""

from __future__ import annotations

import json
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, File, Form, Query, Request, UploadFile
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from ...errors import ConfigError
from ...models import OWNER_PATTERN, Scope
from ...models.records import FLOWS, GROUPS, Aggregate, Transaction, TransactionQuery, plain
from ...records.categories import TAXONOMY
from ...records.importers import IMPORTERS, ImportOptions
from ..auth import Principal, Tenant
from ..deps import Owner, check_storage_quota, engine, note, note_owner
from ..errors import ApiError, responses

router = APIRouter(prefix="/v1", tags=["transactions"], responses=responses(401, 422, 503))

# Literals built from the tuples at run time, so the API validates and documents each
# value; a type checker cannot read a Literal of a variable, and sees plain strings.
if TYPE_CHECKING:
    Flow = str
    ImportFormat = str
    Group = str
else:
    Flow = Literal[FLOWS]
    ImportFormat = Literal[tuple(IMPORTERS)]
    Group = Literal[GROUPS]


class TransactionIn(BaseModel):
    """A transaction: seed 000's and TrueLayer's field names; ``amount`` as a decimal
    string (or a JSON number), negative for money out."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    transaction_id: str = Field(min_length=1, max_length=256)
    account_id: str = Field(min_length=1, max_length=256)
    timestamp: str = Field(min_length=4, max_length=64, description="ISO 8601 date or date-time")
    description: str = Field(default="", max_length=2000)
    amount: str | int | float
    currency: str = Field(pattern=r"^[A-Za-z]{3}$")
    transaction_category: str | None = Field(default=None, max_length=200)
    merchant_name: str | None = Field(default=None, max_length=200)
    flow: Flow | None = Field(default=None, description="spend, refund, income or transfer (default: inferred)")
    extra: dict[str, Any] = Field(default_factory=dict)


class TransactionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"owner": "alice", "transactions": [
        {"transaction_id": "tx-2026-09-03-1", "account_id": "current", "timestamp": "2026-09-03T08:15:00Z",
         "description": "CARD PAYMENT TO PUREGYM LTD", "amount": -24.99, "currency": "GBP"}]}]})
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)
    transactions: list[dict[str, Any]] = Field(
        min_length=1, max_length=10_000,
        description="Transactions, each as `TransactionIn`; checked one by one: a bad one is listed in the "
                    "report's `failed` as {item, error} and the others are stored")


class CategorizeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"owner": "alice", "target": "PureGym", "category": "Personal care"}]})
    owner: str | None = Field(default=None, pattern=OWNER_PATTERN)
    target: str = Field(min_length=1, max_length=256, description="A transaction id, or a merchant")
    category: str = Field(min_length=1, max_length=200,
                          description="A category of Monzo's taxonomy (id or label), or the user's own")


class CategorizeOut(BaseModel):
    target: str
    kind: Literal["transaction", "merchant"]
    category: str = Field(description="The category as stored (a taxonomy id becomes its label)")
    merchants: list[str] = Field(description="The merchants corrected")
    updated: int
    months: list[str]
    text: dict[str, Any]


class CategoryOut(BaseModel):
    id: str
    label: str = Field(description="The category as stored and shown")


class CategoryList(BaseModel):
    categories: list[CategoryOut] = Field(description="The taxonomy inferred categories come from (Monzo's)")


class BalanceOut(BaseModel):
    account: str
    amount: str = Field(description="Exact decimal string, as the bank stated it")
    currency: str
    as_of: str = Field(description="The day (YYYY-MM-DD) the balance is as of")
    source: str = Field(description="Where it was read: ofx, csv, json, truelayer or api")


class BalanceList(BaseModel):
    balances: list[BalanceOut]


class ImportOut(BaseModel):
    source: str
    format: str
    read: int
    added: int
    updated: int
    unchanged: int
    failed: list[dict[str, Any]] = Field(description="Rows skipped: {line, error}")
    months: list[str] = Field(description="Months (YYYY-MM) whose transactions changed")
    documents: dict[str, Any] = Field(description="The searchable text refreshed (the ingest summary)")
    balances: list[BalanceOut] = Field(default_factory=list, description="Account balances the source stated")
    text: dict[str, Any] = Field(default_factory=dict, description=(
        'The searchable text: {"state": "ok" | "failed", "rebuilt": [months], "failed": [{month, error}]}'))


class TransactionOut(BaseModel):
    transaction_id: str
    account_id: str
    timestamp: str
    description: str
    amount: str
    currency: str
    transaction_category: str | None
    merchant_name: str | None
    flow: Flow
    extra: dict[str, Any]
    category_source: Literal["bank", "inferred", "user"] | None = Field(
        description="Where the category came from (None: no category)")


class TransactionList(BaseModel):
    transactions: list[TransactionOut]


class GroupOut(BaseModel):
    key: str | None
    currency: str
    count: int
    total: str = Field(description="Exact sum of the amounts (negative: money out)")
    first: str
    last: str


class GroupList(BaseModel):
    by: str
    groups: list[GroupOut]


def _scope(request: Request, who: Principal, owner: str | None) -> Scope:
    owner = note_owner(request, owner)
    if owner is None:
        raise ApiError(422, "invalid_request", "owner: transactions belong to an owner; name one "
                                               "(owner=…) or use a key bound to one")
    return Scope(who.tenant, (engine(request).settings.records.collection,), owner)


@router.post("/transactions", response_model=ImportOut, responses=responses(400, 413, 429))
def put_transactions(body: TransactionsIn, request: Request, who: Tenant) -> dict:
    """Store transactions given as JSON: new ones added, changed ones updated in place;
    a malformed one is skipped and listed in ``failed`` ({item, error}), as a file's rows are."""
    scope = _scope(request, who, body.owner)
    items, failed = [], []
    for i, raw in enumerate(body.transactions):
        try:
            item = TransactionIn.model_validate(raw)
            items.append(Transaction(**{**item.model_dump(exclude={"flow"}), "flow": item.flow or ""}))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            failed.append({"item": i, "error": f"{where}: {first.get('msg')}" if where else first.get("msg")})
        except ConfigError as exc:
            failed.append({"item": i, "error": str(exc)})
    check_storage_quota(request, who, 0)
    report = engine(request).transactions.put(items, scope, source="api", format="json").to_dict()
    report["failed"] = failed
    note(request, transactions=len(items), failed_rows=len(failed))
    return report


@router.post("/transactions/categorize", response_model=CategorizeOut)
def categorize_transactions(body: CategorizeIn, request: Request, who: Tenant) -> dict:
    """Correct a category: one transaction (by id), or every transaction of a merchant;
    it sticks across re-imports and teaches the inference of that merchant's later ones."""
    scope = _scope(request, who, body.owner)
    return engine(request).transactions.categorize(scope, body.target, body.category)


@router.post("/transactions/reindex", response_model=ImportOut)
def reindex_transactions(request: Request, who: Tenant, owner: Owner = None) -> dict:
    """Rebuild the searchable text of every month of the owner's transactions."""
    scope = _scope(request, who, owner)
    return engine(request).transactions.reindex(scope).to_dict()


@router.post("/transactions/import", response_model=ImportOut, responses=responses(400, 413, 429))
def import_transactions(
    request: Request, who: Tenant,
    file: Annotated[UploadFile, File(description="A statement: CSV, JSON / JSON Lines, OFX / QFX")],
    owner: Annotated[str | None, Form(pattern=OWNER_PATTERN, examples=["alice"])] = None,
    format: Annotated[ImportFormat | None, Form()] = None,
    currency: Annotated[str | None, Form(pattern=r"^[A-Za-z]{3}$", examples=["GBP"])] = None,
    account_id: Annotated[str | None, Form(max_length=256, examples=["current"])] = None,
    columns: Annotated[str | None, Form(description='CSV column names by field, as JSON: {"timestamp": "Date"}')]
    = None,
    decimal: Annotated[Literal[",", "."] | None, Form()] = None,
    date_order: Annotated[Literal["dmy", "mdy", "ymd"] | None, Form()] = None,
) -> dict:
    """Import a statement file now; malformed rows are skipped and listed in ``failed``."""
    scope = _scope(request, who, owner)
    limit = request.app.state.settings.server.max_upload_file_mb * 1024 * 1024
    if file.size is not None and file.size > limit:
        raise ApiError(413, "payload_too_large", f"the file is over the {limit / 1e6:.1f} MB limit")
    try:
        mapping = json.loads(columns) if columns else {}
    except json.JSONDecodeError as exc:
        raise ApiError(422, "invalid_request", f"columns: not JSON ({exc.msg})") from None
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise ApiError(422, "invalid_request", "columns: a JSON object of field → column name")
    check_storage_quota(request, who, 0)
    options = ImportOptions(account_id=account_id, currency=currency, columns=mapping, decimal=decimal,
                            date_order=date_order)
    report = engine(request).transactions.import_bytes(file.file.read(), file.filename or "upload", scope,
                                                       format=format, options=options).to_dict()
    note(request, transactions=report["read"], failed_rows=len(report["failed"]))
    return report


def _query(start: date | None, end: date | None, category: str | None, merchant: str | None, text: str | None,
           flow: list[str] | None, currency: str | None, account_id: str | None, ids: list[str] | None = None,
           **page: Any) -> TransactionQuery:
    return TransactionQuery(start=start, end=end, category=category, merchant=merchant, text=text,
                            flows=tuple(flow) if flow else None, currency=currency, account_id=account_id,
                            ids=tuple(ids) if ids else None, **page)


Start = Annotated[date | None, Query(description="First day (inclusive)")]
End = Annotated[date | None, Query(description="Last day (inclusive)")]
Text = Annotated[str | None, Query(max_length=200)]
Flows = Annotated[list[Flow] | None, Query(description="Keep these flows (repeat the parameter)")]
Currency = Annotated[str | None, Query(pattern=r"^[A-Za-z]{3}$")]
Ids = Annotated[list[Annotated[str, StringConstraints(min_length=1, max_length=256)]] | None, Query(
    alias="id", max_length=200,
    description="Only these transaction ids (repeat the parameter; at most 200): the `transaction_ids` an "
                "answer's records sources cite")]


@router.get("/transactions", response_model=TransactionList)
def list_transactions(request: Request, who: Tenant, owner: Owner = None, start: Start = None, end: End = None,
                      category: Text = None, merchant: Text = None, text: Text = None, flow: Flows = None,
                      currency: Currency = None, account_id: Text = None, ids: Ids = None,
                      order: Annotated[Literal["time", "amount"], Query()] = "time",
                      limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                      offset: Annotated[int, Query(ge=0)] = 0) -> dict:
    """The owner's transactions, newest first (``order=amount``: largest spends first), filtered."""
    scope = _scope(request, who, owner)
    query = _query(start, end, category, merchant, text, flow, currency, account_id, ids, order=order, limit=limit,
                   offset=offset)
    return {"transactions": [t.to_dict() for t in engine(request).transactions.list(scope, query)]}


@router.get("/transactions/categories", response_model=CategoryList)
def list_categories(who: Tenant) -> dict:
    """The category taxonomy (what inference assigns and a correction may name; a
    correction may also be the user's own words)."""
    return {"categories": [{"id": ident, "label": label} for ident, label in TAXONOMY.items()]}


@router.get("/transactions/balances", response_model=BalanceList)
def list_balances(request: Request, who: Tenant, owner: Owner = None) -> dict:
    """The latest balance of each of the owner's accounts (per currency), with the day it is as of."""
    scope = _scope(request, who, owner)
    return {"balances": [b.to_dict() for b in engine(request).transactions.balances(scope)]}


@router.get("/transactions/aggregate", response_model=GroupList)
def aggregate_transactions(request: Request, who: Tenant,
                           by: Annotated[Group, Query()] = "category",
                           owner: Owner = None, start: Start = None, end: End = None, category: Text = None,
                           merchant: Text = None, text: Text = None, flow: Flows = None, currency: Currency = None,
                           account_id: Text = None) -> dict:
    """Count and exact sum of the owner's matching transactions per group and currency."""
    scope = _scope(request, who, owner)
    query = _query(start, end, category, merchant, text, flow, currency, account_id)
    groups: list[Aggregate] = engine(request).transactions.aggregate(scope, query, by)
    return {"by": by, "groups": [{"key": g.key, "currency": g.currency, "count": g.count,
                                  "total": plain(g.total, g.currency), "first": g.first, "last": g.last}
                                 for g in groups]}
