"""``ragline import transactions``, ``ragline connect truelayer`` and ``ragline
transactions categorize|reindex|balances``: bank transactions as records of one
owner (``docs/transactions.md``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..records.importers import IMPORTERS, ImportOptions
from .common import AsJson, Tenant, app, err, out
from .common import engine_from_env as _engine
from .common import print_json as _print_json
from .common import scope as _scope
from .console import say

import_app = typer.Typer(help="Import records (bank transactions).", no_args_is_help=True)
connect_app = typer.Typer(help="Import transactions from a bank API.", no_args_is_help=True)
app.add_typer(import_app, name="import")
app.add_typer(connect_app, name="connect")
transactions_app = typer.Typer(help="Correct, rebuild and read an owner's transactions.", no_args_is_help=True)
app.add_typer(transactions_app, name="transactions")

RequiredOwner = Annotated[str, typer.Option("--owner", "-u", help="The user the transactions belong to.")]


def _options(currency: str | None, account: str | None, columns: str | None, decimal: str | None,
             date_order: str | None) -> ImportOptions:
    mapping: dict[str, str] = {}
    if columns:
        try:
            mapping = json.loads(columns)
        except json.JSONDecodeError as exc:
            say("red", "error", f"--columns is not JSON: {exc}")
            raise typer.Exit(2) from exc
        if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
            err.print('[red]error:[/red] --columns must map fields to column names: {"timestamp": "Booking date"}')
            raise typer.Exit(2)
    return ImportOptions(account_id=account, currency=currency, columns=mapping, decimal=decimal,
                         date_order=date_order)


def report(data: dict[str, Any], as_json: bool) -> None:
    """An import's report: JSON or one line on stdout, refused rows and months whose text
    could not be written on stderr; exit 1 if any."""
    text = data["text"]
    if as_json:
        _print_json(data)
    else:
        docs = data["documents"]
        rebuilt = f", rebuilt {len(text['rebuilt'])} months' text" if text["rebuilt"] else ""
        out.print(f"read {data['read']}: added {data['added']}, updated {data['updated']}, unchanged "
                  f"{data['unchanged']}, failed {len(data['failed'])}; months {len(data['months'])}, text "
                  f"chunks embedded {docs.get('embedded', 0)}{rebuilt}")
        for balance in data.get("balances", []):
            out.print(f"balance {balance['account']}: {balance['amount']} {balance['currency']} "
                      f"as of {balance['as_of']}")
    for failure in data["failed"]:
        where = f"line {failure['line']}" if "line" in failure else failure.get("account", "")
        say("yellow", "skipped", f"{data['source']} {where}: {failure['error']}", highlight=False)
    for failure in text["failed"]:
        say("red", "text not written", f"{failure['month']}: {failure['error']} (the transactions are "
                  "stored; the next import or `ragline transactions reindex` rebuilds it)", highlight=False)
    if data["failed"] or text["failed"]:
        raise typer.Exit(1)


def print_table(table: dict[str, Any]) -> None:
    """An exact answer's table (columns and rows), numbers right-aligned."""
    if not table["rows"]:
        return
    shown = Table(show_edge=False, pad_edge=False)
    for i, column in enumerate(table["columns"]):
        numeric = all(isinstance(r[i], int) or str(r[i]).lstrip("+-").replace(".", "", 1).rstrip("%").isdigit()
                      for r in table["rows"] if r[i] != "")
        shown.add_column(column, justify="right" if numeric else "left")
    for row in table["rows"]:
        shown.add_row(*(str(c) for c in row))
    out.print()
    out.print(shown)


@import_app.command("transactions")
def import_transactions(
    file: Annotated[Path, typer.Argument(help="A statement: CSV, JSON / JSON Lines, or OFX / QFX.")],
    owner: RequiredOwner,
    tenant: Tenant = "default",
    format: Annotated[str | None, typer.Option(
        "--format", "-f", help=f"One of: {', '.join(IMPORTERS)} (default: by extension, then content).")] = None,
    currency: Annotated[str | None, typer.Option(help="Currency when the file has no currency column.")] = None,
    account: Annotated[str | None, typer.Option(help="Account id when the file has no account column.")] = None,
    columns: Annotated[str | None, typer.Option(
        help='CSV column names for fields, as JSON: \'{"timestamp": "Booking date", "amount": "Betrag"}\'.')] = None,
    decimal: Annotated[str | None, typer.Option(help="Decimal separator, ',' or '.' (default: detected).")] = None,
    date_order: Annotated[str | None, typer.Option(
        "--date-order", help="Numeric dates: dmy, mdy or ymd (default: detected).")] = None,
    as_json: AsJson = False,
) -> None:
    """Import a bank statement as transactions: new ones added, changed ones updated,
    malformed rows reported with their line and skipped (exit 1)."""
    where = _scope(tenant, None, owner)
    options = _options(currency, account, columns, decimal, date_order)
    with _engine() as engine:
        result = engine.transactions.import_file(file, where, format=format, options=options)
    report(result.to_dict(), as_json)


@connect_app.command("truelayer")
def connect_truelayer(
    owner: RequiredOwner,
    tenant: Tenant = "default",
    code: Annotated[str | None, typer.Option(help="The code TrueLayer's consent page returned (first time).")] = None,
    redirect_uri: Annotated[str | None, typer.Option(help="The redirect URI that consent page used.")] = None,
    refresh_token: Annotated[str | None, typer.Option(
        help="A refresh token the user already has (first time; later runs use the saved one).")] = None,
    as_json: AsJson = False,
) -> None:
    """Import the owner's accounts and last 90 days of transactions from TrueLayer's Data
    API (client id and secret from RAGLINE_RECORDS__TRUELAYER__*); exit 1 if an account failed."""
    where = _scope(tenant, None, owner)
    with _engine() as engine:
        result = engine.transactions.connect_truelayer(where, code=code, redirect_uri=redirect_uri,
                                                       refresh_token=refresh_token)
    report(result.to_dict(), as_json)


@transactions_app.command("categorize")
def categorize(
    target: Annotated[str, typer.Argument(help="A transaction id, or a merchant (e.g. 'Boots').")],
    category: Annotated[str, typer.Argument(help="The category (e.g. personal_care, 'Eating out', or your own).")],
    owner: RequiredOwner,
    tenant: Tenant = "default",
    as_json: AsJson = False,
) -> None:
    """Correct a category: one transaction (and what it teaches about its merchant), or
    every transaction of a merchant; it sticks across re-imports."""
    where = _scope(tenant, None, owner)
    with _engine() as engine:
        result = engine.transactions.categorize(where, target, category)
    if as_json:
        _print_json(result)
    else:
        names = ", ".join(result["merchants"]) or target
        out.print(f"{result['kind']} {names}: {result['category']} ({result['updated']} transactions updated)")
    if result["text"]["failed"]:
        raise typer.Exit(1)


@transactions_app.command("reindex")
def reindex(owner: RequiredOwner, tenant: Tenant = "default", as_json: AsJson = False) -> None:
    """Rebuild the searchable text of every month of the owner's transactions (after an
    import whose text side failed); exit 1 if a month still cannot be written."""
    where = _scope(tenant, None, owner)
    with _engine() as engine:
        result = engine.transactions.reindex(where)
    report(result.to_dict(), as_json)


@transactions_app.command("balances")
def balances(owner: RequiredOwner, tenant: Tenant = "default", as_json: AsJson = False) -> None:
    """The latest balance of each of the owner's accounts, as the bank stated it."""
    where = _scope(tenant, None, owner)
    with _engine() as engine:
        found = [b.to_dict() for b in engine.transactions.balances(where)]
    if as_json:
        _print_json({"balances": found})
        return
    for b in found:
        out.print(f"{b['account']}\t{b['amount']} {b['currency']}\tas of {b['as_of']}\t({b['source']})")
    if not found:
        err.print("no balances: import an OFX file, a CSV with a balance column, or connect a bank")
