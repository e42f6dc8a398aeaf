"""Transactions (``Engine.transactions``): import (files, bank APIs), list and
filter, keep their searchable text up to date, and answer money questions exactly
(``records.route.RecordsRoute`` puts that in front of the documents).

Transactions are per (tenant, owner), kept by the store's records role; their text
lives in the collection ``settings.records.collection``, each document private to
its owner, written through the ingest side the engine hands in (``TextIndex``).
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from dataclasses import replace as dataclass_replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError, EmbedderError, ModelMismatchError, NotFoundError, RaglineError
from ..models import Document, Scope, document_id
from ..models.records import Aggregate, Balance, Transaction, TransactionQuery, WriteReport, flow_of, key
from .categories import Categorizer, categorise, user_label
from .documents import STATEMENT, SUMMARY, month_query, statement_document, summary_document
from .importers import ImportOptions, ImportResult, import_transactions
from .merchants import merchant_matches

if TYPE_CHECKING:
    from ..answer import Generator
    from ..answer.route import Asked, Decision, Route
    from ..answer.types import AnswerEvents
    from ..embed import Embedder
    from ..settings import Settings
    from ..store.base import Records


log = logging.getLogger(__name__)

DEFAULT_COLLECTION = "default"
"""The collection a question names when its asker names none (the CLI's and the API's default)."""


class Written(Protocol):
    """What writing documents reports (``ingest.pipeline.IngestSummary``)."""

    failed: list[dict[str, str]]

    def to_dict(self) -> dict[str, Any]: ...


class TextIndex(Protocol):
    """The ingest side the transactions' monthly documents are written through (the engine)."""

    def ensure_tenant(self, tenant: str) -> bool: ...

    def add_documents(self, documents: list[Document], scope: Scope) -> Written: ...

    def delete(self, scope: Scope, doc_ids: list[str]) -> int: ...


@dataclass
class ImportReport:
    """What an import did: the rows read and refused, the store's counts, and the
    searchable documents refreshed."""

    source: str
    format: str
    read: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[dict[str, Any]] = field(default_factory=list)
    months: list[str] = field(default_factory=list)
    documents: dict[str, Any] = field(default_factory=dict)
    accounts: list[dict[str, Any]] = field(default_factory=list)  # a bank API's accounts, as fetched
    balances: list[Balance] = field(default_factory=list)  # the account balances the source stated
    text: TextState = field(default_factory=lambda: TextState())

    def to_dict(self) -> dict[str, Any]:
        data = {"source": self.source, "format": self.format, "read": self.read, "added": self.added,
                "updated": self.updated, "unchanged": self.unchanged, "failed": self.failed, "months": self.months,
                "documents": self.documents, "balances": [b.to_dict() for b in self.balances],
                "text": self.text.to_dict()}
        return {**data, "accounts": self.accounts} if self.accounts else data


@dataclass
class TextState:
    """The searchable side of an import: ``ok`` when every month it wrote is written,
    ``failed`` (with each month's error) when some could not be (e.g. the embedder
    was down: the transactions are stored, and the next import or ``ragline
    transactions reindex`` rebuilds those months); ``rebuilt``: months an earlier
    import had left unwritten, written now."""

    failed: dict[str, str] = field(default_factory=dict)
    rebuilt: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        return {"state": "ok" if self.ok else "failed", "rebuilt": self.rebuilt,
                "failed": [{"month": m, "error": e} for m, e in sorted(self.failed.items())]}


class Transactions:
    """One store's transactions: every method takes a scope whose owner is the user."""

    def __init__(self, records: Records, text: TextIndex, settings: Settings, today: date | None = None,
                 embedder: Callable[[], Embedder] | None = None) -> None:
        self.records = records  # the store's records role
        self.text = text
        self.settings = settings
        self.today = today  # None: the real date (tests fix it)
        self.categorizer = Categorizer()
        self._embedder = embedder  # the engine's, loaded when inference first needs it

    def _text_scope(self, scope: Scope) -> Scope:
        if scope.owner is None:
            raise ConfigError("transactions belong to an owner: name one (--owner / owner)")
        return Scope(scope.tenant, (self.settings.records.collection,), scope.owner)

    # -- import -----------------------------------------------------------------------
    def import_file(self, path: Path | str, scope: Scope, *, format: str | None = None,
                    options: ImportOptions | None = None) -> ImportReport:
        """Import a statement file (CSV, JSON, OFX/QFX); malformed rows are reported, the rest stored."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
        return self.import_bytes(data, path.name, scope, format=format, options=options)

    def import_bytes(self, data: bytes, source: str, scope: Scope, *, format: str | None = None,
                     options: ImportOptions | None = None) -> ImportReport:
        self._text_scope(scope)  # an owner first, before any parsing
        options = replace(options or ImportOptions(), default_currency=self.settings.records.currency)
        result: ImportResult = import_transactions(data, source, options, format)
        report = self.put(result.transactions, scope, source=source, format=result.format, balances=result.balances)
        report.failed = [e.to_dict() for e in result.errors]
        return report

    def put(self, transactions: Iterable[Transaction], scope: Scope, *, source: str = "api",
            format: str = "records", balances: Iterable[Balance] = ()) -> ImportReport:
        """Store transactions (new ones added, changed ones updated in place) and the
        account balances the source stated, then refresh the searchable text of the
        months they touched."""
        text_scope = self._text_scope(scope)
        stated = list(balances)
        self.text.ensure_tenant(scope.tenant)
        items = self.categorise(scope, list(transactions))
        written: WriteReport = self.records.put_transactions(scope, items)
        self.records.put_balances(scope, stated)
        # Months whose text an earlier import left unwritten (or, in a store from before
        # text states were kept, never recorded) are rebuilt with this import's.
        states = self.records.text_states(text_scope)
        owed = {m for m, error in states.items() if error is not None}
        owed |= {a.key for a in self.records.aggregate_transactions(text_scope, TransactionQuery(), "month")
                 if a.key and a.key not in states}
        summary, text = self.refresh(text_scope, written.months | owed)
        text.rebuilt = sorted(m for m in owed - written.months if m not in text.failed)
        return ImportReport(source=source, format=format, read=len(items), added=written.added,
                            updated=written.updated, unchanged=written.unchanged, months=sorted(written.months),
                            documents=summary.to_dict() if summary else {}, balances=stated, text=text)

    def categorise(self, scope: Scope, transactions: builtins.list[Transaction]) -> builtins.list[Transaction]:
        """Merchants and categories for transactions about to be stored: the owner's
        corrections, else the bank's, else inferred (``categories``)."""
        if self._embedder is not None and self.categorizer.embedder is None:
            try:
                self.categorizer.embedder = self._embedder()
            except RaglineError as exc:  # no model: the rules alone
                log.warning("category inference without the embedding model: %s", exc)
                self._embedder = None
        return categorise(transactions, self.records.category_rules(scope), self.categorizer)

    def connect_truelayer(self, scope: Scope, *, code: str | None = None, redirect_uri: str | None = None,
                          refresh_token: str | None = None) -> ImportReport:
        """Fetch the owner's accounts and their last ``records.truelayer.days`` of transactions
        from TrueLayer and store them. First time: ``code`` (+ ``redirect_uri``) from the
        consent page, or a ``refresh_token``; later runs use the saved, rotated token."""
        from .truelayer import TokenStore, TrueLayerClient, fetch

        self._text_scope(scope)
        settings = self.settings.records.truelayer
        assert scope.owner is not None
        client = TrueLayerClient(settings, TokenStore(self.settings.home, scope.tenant, scope.owner))
        try:
            if code:
                if not redirect_uri:
                    raise ConfigError("--redirect-uri is needed with --code (the one the consent page used)")
                client.exchange_code(code, redirect_uri)
            elif refresh_token:
                client.use_refresh_token(refresh_token)
            fetched = fetch(client, self._today(), settings.days)
        finally:
            client.close()
        report = self.put(fetched.transactions, scope, source="truelayer", format="truelayer",
                          balances=fetched.balances)
        report.failed, report.accounts = fetched.failed, fetched.accounts
        return report

    def delete(self, scope: Scope, transaction_ids: list[str] | None = None) -> int:
        """Delete the owner's transactions (these ids, or all) and refresh their months' text."""
        written = self.records.delete_transactions(scope, transaction_ids)
        self.refresh(self._text_scope(scope), written.months)
        return written.deleted

    def categorize(self, scope: Scope, target: str, category: str) -> dict[str, Any]:
        """The user's correction: ``target`` is one of the owner's transaction ids (that
        transaction, and what it teaches about its merchant's future transactions) or a
        merchant (every transaction of it, now and in later imports). It sticks across
        re-imports; the months it changes get their text rebuilt."""
        text_scope = self._text_scope(scope)
        label = user_label(category)
        target = " ".join(str(target).split())
        if not target:
            raise ConfigError("name a transaction id or a merchant to categorise")
        rows = self.records.find_transactions(scope, TransactionQuery())
        by_id = [t for t in rows if t.transaction_id == target]
        if by_id:
            kind, rules = "transaction", {("transaction", target): label}
            merchant = key(by_id[0].merchant_name)
            if merchant:
                rules[("learned", merchant)] = label
            changed = by_id
        else:
            merchants = {key(t.merchant_name) for t in rows if t.merchant_name and (
                key(t.merchant_name) == key(target) or merchant_matches(target, t.merchant_name, None))}
            if not merchants:
                merchants = {key(target) or target}
            kind, rules = "merchant", {("merchant", m): label for m in merchants if m}
            changed = [t for t in rows if key(t.merchant_name) in merchants]
        self.records.put_category_rules(scope, rules)
        updated = [replace(t, transaction_category=label, category_source="user",
                           flow="" if t.flow == flow_of(t.amount, t.transaction_category) else t.flow)
                   for t in changed]
        written = self.records.put_transactions(scope, updated)
        _, text = self.refresh(text_scope, written.months)
        names = sorted({t.merchant_name for t in changed if t.merchant_name})
        return {"target": target, "kind": kind, "category": label, "merchants": names,
                "updated": written.updated, "months": sorted(written.months), "text": text.to_dict()}

    def reindex(self, scope: Scope) -> ImportReport:
        """Rebuild the searchable text of every month of the owner's transactions (what
        ``ragline transactions reindex`` runs after a failed import's text side)."""
        text_scope = self._text_scope(scope)
        self.text.ensure_tenant(scope.tenant)
        months = {a.key for a in self.records.aggregate_transactions(text_scope, TransactionQuery(), "month") if a.key}
        months |= set(self.records.text_states(text_scope))  # a month emptied since: its documents go
        summary, text = self.refresh(text_scope, months)
        text.rebuilt = sorted(months - set(text.failed))
        return ImportReport(source="reindex", format="records", months=sorted(months),
                            documents=summary.to_dict() if summary else {}, text=text)

    def refresh(self, scope: Scope, months: Iterable[str]) -> tuple[Written | None, TextState]:
        """Rebuild the statement and summary documents of ``months`` from the store (a
        month left with no transactions loses its documents), and record which months'
        text is written and which failed, and why."""
        records = self.records
        documents, gone, wanted = [], [], sorted(set(months))
        for month in wanted:
            rows = records.find_transactions(scope, month_query(month))
            if not rows:
                gone += [document_id(scope, STATEMENT.format(month=month)),
                         document_id(scope, SUMMARY.format(month=month))]
                continue
            documents.append(statement_document(month, rows))
            aggregates = [records.aggregate_transactions(scope, month_query(month, flows=flows), by)
                          for flows, by in ((("spend", "refund"), "category"), (("spend", "refund"), "merchant"),
                                            (None, "flow"))]
            documents.append(summary_document(month, *aggregates))
        state = TextState()
        summary: Written | None = None
        try:
            if gone:
                self.text.delete(scope, gone)
            summary = self.text.add_documents(documents, scope) if documents else None
        except (EmbedderError, NotFoundError, ModelMismatchError, ConfigError) as exc:
            state.failed = {m: str(exc) for m in wanted}
        for failure in summary.failed if summary is not None else []:
            month = failure.get("path", "").rsplit("/", 1)[-1]
            if month in wanted:
                state.failed.setdefault(month, failure.get("error", "not written"))
        if wanted:
            records.put_text_states(scope, {m: state.failed.get(m) for m in wanted})
        return summary, state

    # -- the owner's text for questions that are not about money ----------------------------
    def answer_scope(self, scope: Scope, collections: Iterable[str]) -> Scope:
        """The scope a question is searched in: as asked, except that when it names only
        the default collection (``DEFAULT_COLLECTION``, what a question without one
        gets), that collection does not exist, and the owner has transactions, their
        transactions' text (monthly statements and summaries) is searched instead — a
        user with only transactions never gets "collection 'default' not found"."""
        existing = set(collections)
        own = self.settings.records.collection
        if (scope.owner is None or scope.collections != (DEFAULT_COLLECTION,) or DEFAULT_COLLECTION in existing
                or own not in existing):
            return scope
        if not self.records.find_transactions(scope, TransactionQuery(limit=1)):
            return scope
        return Scope(scope.tenant, (own,), scope.owner)

    # -- read -----------------------------------------------------------------------------
    def list(self, scope: Scope, query: TransactionQuery | None = None) -> list[Transaction]:
        self._text_scope(scope)
        return self.records.find_transactions(scope, query or TransactionQuery())

    def balances(self, scope: Scope) -> builtins.list[Balance]:
        """The latest balance of each of the owner's accounts (per currency), with the
        day it is as of and where it was read; none when no source stated one."""
        self._text_scope(scope)
        return self.records.find_balances(scope)

    def aggregate(self, scope: Scope, query: TransactionQuery, by: str) -> builtins.list[Aggregate]:
        """Count and exact sum per group (``model.GROUPS``) and currency."""
        self._text_scope(scope)
        return self.records.aggregate_transactions(scope, query, by)

    def _today(self) -> date:
        return self.today or date.today()


class OwnTextRoute:
    """A route (``answer.route.Route``) that asks ``inner`` (the documents route) in the
    scope ``Transactions.answer_scope`` gives: the owner's transactions' text when they
    have nothing else to search."""

    def __init__(self, inner: Route, scope_for: Callable[[Scope], Scope]) -> None:
        self.inner = inner
        self.name = inner.name
        self.scope_for = scope_for

    def _asked(self, asked: Asked) -> Asked:
        scope = self.scope_for(asked.scope)
        return asked if scope == asked.scope else dataclass_replace(asked, scope=scope)

    def decide(self, asked: Asked) -> Decision:
        return self.inner.decide(self._asked(asked))

    def answer(self, asked: Asked, decision: Decision, generator: Generator) -> AnswerEvents:
        return self.inner.answer(self._asked(asked), decision, generator)
