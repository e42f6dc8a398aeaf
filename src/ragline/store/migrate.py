"""Copy everything of some tenants from one store to another, without re-embedding:
tenants, API keys (their hashes), jobs (with their files kept in the catalog), collections with their model pin,
documents with their chunks and vectors, each owner's transactions, and conversations
with their messages (embeddings kept), and usage (match counters, usage per day). Idempotent: a document already in the
target with the same content hash and chunk count is skipped, and keys and jobs
are inserted only when their id is new, so a second run copies nothing.

An operator's tool: it reaches the roles behind the ``Store`` facade (``catalog``,
``admin``, ``records``, ``conversations``, ``counters``) for what only a copy needs
and no request path may do: every owner's documents, key hashes, job rows and
usage rows of a tenant, exported and written back as they are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..analyzer import analyze
from ..models import Scope, index_text
from ..models.records import TransactionQuery
from .facade import Store
from .types import KEPT_IN_CATALOG


@dataclass
class MigrationReport:
    tenants: int = 0
    collections: int = 0
    documents: int = 0
    documents_unchanged: int = 0
    chunks: int = 0
    keys: int = 0
    jobs: int = 0
    uploads: int = 0
    transactions: int = 0
    conversations: int = 0
    usage_rows: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def migrate(source: Store, target: Store, tenants: list[str] | None = None,
            progress: Callable[[str], None] | None = None) -> MigrationReport:
    """Copy ``tenants`` (default: all) from ``source`` to ``target``."""
    report = MigrationReport()
    for tenant in tenants if tenants is not None else source.catalog.tenants():
        if source.catalog.tenant_created(tenant) is None:
            continue
        target.catalog.ensure_tenant(tenant)
        report.tenants += 1
        report.keys += sum(target.admin.import_key(k) for k in source.admin.export_keys(tenant))
        for info in source.list_collections(tenant):
            scope = Scope(tenant, (info.name,))
            target.ensure_collection(scope, model_id=info.model_id, dimension=info.dimension, config=info.config)
            report.collections += 1
            for stored in source.catalog.export_documents(tenant, info.name):
                owned = Scope(tenant, (info.name,), stored.owner)
                existing = target.get_document(owned, stored.record.id)
                for chunk in stored.chunks:  # the index text, as ingestion builds it
                    chunk.terms = " ".join(analyze(index_text(stored.record.title, chunk.text),
                                                   info.config.get("language")))
                if (existing is not None and existing.content_hash == stored.record.content_hash
                        and existing.chunks == len(stored.chunks) and existing.owner == stored.owner):
                    report.documents_unchanged += 1
                    # The catalog may be shared with the source (SQLite catalog + a new Qdrant
                    # index): an external index still gets the points (idempotent upsert).
                    target.reindex(owned, stored.record, stored.chunks, stored.vectors)
                    continue
                target.put_document(owned, stored.record, stored.chunks, stored.vectors)
                report.documents += 1
                report.chunks += len(stored.chunks)
            if progress:
                progress(f"{tenant}/{info.name}: {report.documents} documents copied so far")
        for owner in source.records.transaction_owners(tenant):  # records ignore the scope's collections
            owned = Scope(tenant, ("records",), owner)
            rows = source.records.find_transactions(owned, TransactionQuery())
            report.transactions += target.records.put_transactions(owned, rows).added
            target.records.put_balances(owned, source.records.find_balances(owned, latest=False))
            target.records.put_category_rules(owned, source.records.category_rules(owned))
            target.records.put_text_states(owned, source.records.text_states(owned))
        for stored_conversation in source.conversations.export_conversations(tenant):  # with their messages
            report.conversations += target.conversations.import_conversation(stored_conversation)
        # Usage as it stands (set, not added): a second run changes nothing.
        target.counters.record_matches(tenant, source.counters.export_matches(tenant), replace=True)
        usage_rows = source.counters.usage_records(tenant)
        target.counters.record_usage(usage_rows, replace=True)
        report.usage_rows += len(usage_rows)
        # Jobs after collections: a job's document may be copied by now.
        jobs = source.admin.export_jobs(tenant)
        report.jobs += sum(target.admin.import_job(j) for j in jobs)
        # Their files kept in the catalog, so a copied job still runs and its document can
        # be ingested again (files kept on local disk stay where they are).
        for job in jobs:
            if not job.path.startswith(KEPT_IN_CATALOG):
                continue
            doc_id, _, name = job.path[len(KEPT_IN_CATALOG):].partition("/")
            owned = Scope(tenant, (job.collection,), job.owner)
            parts = source.read_upload(owned, doc_id, name)
            if parts is not None and target.read_upload(owned, doc_id, name) is None:
                target.put_upload(owned, doc_id, name, parts)
                report.uploads += 1
    return report
