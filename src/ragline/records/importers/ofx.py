"""OFX and QFX statements (SGML 1.x and XML 2.x), read with ofxtools: bank and
credit card statements, one account each, the statement's currency unless a
transaction names its own, and each statement's ledger balance (``LEDGERBAL``:
``BALAMT`` as of ``DTASOF``). Each ``<STMTTRN>`` is converted on its own, so one bad
transaction is reported with its line and the others are imported."""

from __future__ import annotations

import io
import re

from ...errors import ConfigError, LoaderError
from ...models.records import Balance, Transaction
from .common import ImportOptions, ImportResult, RowError, decode

_OPENING = re.compile(r"<STMTTRN>", re.IGNORECASE)
_LEDGER = re.compile(r"<LEDGERBAL>", re.IGNORECASE)


def import_ofx(data: bytes, source: str, options: ImportOptions) -> ImportResult:
    from ofxtools.models.base import Aggregate
    from ofxtools.Parser import OFXTree

    tree = OFXTree()
    try:
        tree.parse(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 — ofxtools raises its own and parser errors of several kinds
        raise LoaderError(source, f"not a readable OFX file: {exc}") from None
    text = decode(data, source)
    lines = [text.count("\n", 0, m.start()) + 1 for m in _OPENING.finditer(text)]
    ledger_lines = [text.count("\n", 0, m.start()) + 1 for m in _LEDGER.finditer(text)]
    result = ImportResult(format="ofx")
    seen = ledgers = 0
    root = tree.getroot()
    if root is None:
        raise LoaderError(source, "not a readable OFX file: no document")
    statements = [*root.iter("STMTRS"), *root.iter("CCSTMTRS")]
    if not statements:
        raise LoaderError(source, "no bank or credit card statement (STMTRS / CCSTMTRS) in the OFX file")
    for statement in statements:
        currency = statement.findtext("CURDEF") or options.currency or ""
        account = statement.findtext(".//ACCTID") or options.account_id or "default"
        ledger = statement.find("LEDGERBAL")
        if ledger is not None:
            ledger_line = ledger_lines[ledgers] if ledgers < len(ledger_lines) else 0
            ledgers += 1
            try:
                held = Aggregate.from_etree(ledger)
                result.balances.append(Balance(account=account, amount=held.balamt, currency=currency,
                                               as_of=held.dtasof, source="ofx"))
            except Exception as exc:  # noqa: BLE001 — ofxtools' spec errors of several kinds, and ours
                result.errors.append(RowError(ledger_line, f"ledger balance of account {account}: "
                                                 f"{str(exc).splitlines()[0][:300]}"))
        for element in statement.iter("STMTTRN"):
            line = lines[seen] if seen < len(lines) else 0
            seen += 1
            try:
                item = Aggregate.from_etree(element)
                own = getattr(item, "currency", None) or getattr(item, "origcurrency", None)
                name = item.name or (item.payee.name if getattr(item, "payee", None) is not None else None)
                result.transactions.append(Transaction(
                    transaction_id=item.fitid, account_id=account, timestamp=item.dtposted,
                    description=" ".join(filter(None, (name, item.memo))), amount=item.trnamt,
                    currency=own.cursym if own is not None else currency,
                    extra={k: v for k, v in (("trntype", item.trntype), ("checknum", item.checknum),
                                             ("refnum", item.refnum)) if v}))
            except ConfigError as exc:
                result.errors.append(RowError(line, str(exc)))
            except Exception as exc:  # noqa: BLE001 — ofxtools' spec errors of several kinds: one bad transaction
                result.errors.append(RowError(line, str(exc).splitlines()[0][:300]))
    return result
