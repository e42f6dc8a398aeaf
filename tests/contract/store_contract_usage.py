"""The usage half of the store contract (``store.base.Usage``): match counters per
chunk (added in batches, kept across a rewrite of an unchanged chunk, listed most
and never matched per chunk and per document, owner- and tenant-walled) and
per-day usage rows. Mixed into each backend's test class."""

from __future__ import annotations

import pytest

from ragline.errors import ConfigError
from ragline.models import Scope
from ragline.models.usage import ASK, EMBED, UsageRecord
from ragline.store import Store

from tests.contract_helpers import _Base, collection, put

ACME = Scope("acme", ("kb",))
ANN = Scope("acme", ("kb",), "ann")
OTHER = Scope("other", ("kb",))


class UsageContract(_Base):
    @pytest.fixture
    def kb(self, store: Store) -> dict[str, list[str]]:
        """Two shared documents, one of ann's, and another tenant's: chunk ids per source."""
        for scope in (ACME, OTHER):
            collection(store, scope)
        put(store, ACME, "fees.txt", ["Wire fee is 5 EUR.", "Cash fee is 2 EUR."])
        put(store, ACME, "cards.txt", ["Lost cards are blocked at once."])
        put(store, ANN, "ann.txt", ["Ann's private note."])
        put(store, OTHER, "fees.txt", ["Other tenant's fee."])
        return {scope.tenant + "/" + d.source: store.document_chunk_ids(scope, d.id)
                for scope in (ACME, ANN, OTHER) for d in store.list_documents(scope)}

    def test_matches_add_up_and_keep_the_latest_time(self, store: Store, kb: dict[str, list[str]]) -> None:
        wire, cash = kb["acme/fees.txt"]
        store.record_matches("acme", {wire: (2, 100.0), cash: (1, 50.0)})
        store.record_matches("acme", {wire: (3, 90.0)})
        assert store.chunk_matches(ACME, [wire, cash, "missing"]) == {wire: (5, 100.0), cash: (1, 50.0)}

    def test_a_hit_is_read_with_its_counters(self, store: Store, kb: dict[str, list[str]]) -> None:
        """get_hits fills each hit's counters from the same read: one never counted has 0,
        and another tenant's counters of the same chunk id are not this tenant's."""
        wire, cash = kb["acme/fees.txt"]
        (theirs,) = kb["other/fees.txt"]
        store.record_matches("acme", {wire: (3, 100.0)})
        store.record_matches("other", {cash: (9, 500.0), theirs: (4, 60.0)})
        hits = store.get_hits(ACME, [(cash, 0.5), (wire, 0.9), (theirs, 0.1)])
        assert [(h.chunk_id, h.match_count, h.last_matched_at) for h in hits] == [(cash, 0, None), (wire, 3, 100.0)]
        (hit,) = store.get_hits(OTHER, [(theirs, 1.0)])
        assert (hit.match_count, hit.last_matched_at) == (4, 60.0)

    def test_counters_are_walled_by_tenant(self, store: Store, kb: dict[str, list[str]]) -> None:
        (theirs,) = kb["other/fees.txt"]
        wire = kb["acme/fees.txt"][0]
        store.record_matches("other", {theirs: (7, 10.0)})
        store.record_matches("acme", {wire: (1, 10.0)})
        assert store.chunk_matches(ACME, [theirs, wire]) == {wire: (1, 10.0)}
        assert [s.id for s in store.match_stats(ACME)] == [wire]
        assert store.chunk_matches(OTHER, [theirs, wire]) == {theirs: (7, 10.0)}

    def test_most_and_never_matched_chunks_and_documents(self, store: Store, kb: dict[str, list[str]]) -> None:
        wire, cash = kb["acme/fees.txt"]
        (lost,) = kb["acme/cards.txt"]
        (note,) = kb["acme/ann.txt"]
        store.record_matches("acme", {cash: (4, 20.0), wire: (1, 30.0), note: (9, 40.0)})
        most = store.match_stats(ACME, level="chunk", order="most")
        assert [(s.id, s.match_count, s.last_matched_at) for s in most] == [(cash, 4, 20.0), (wire, 1, 30.0)]
        assert (most[0].source, most[0].preview) == ("fees.txt", "Cash fee is 2 EUR.")
        assert [s.id for s in store.match_stats(ACME, order="never")] == [lost]
        docs = store.match_stats(ACME, level="document")
        assert [(d.source, d.match_count, d.last_matched_at) for d in docs] == [("fees.txt", 5, 30.0)]
        assert [d.source for d in store.match_stats(ACME, level="document", order="never")] == ["cards.txt"]
        # An owner sees shared documents plus their own.
        assert [s.id for s in store.match_stats(ANN, limit=1)] == [note]

    def test_counts_survive_rewriting_an_unchanged_chunk(self, store: Store, kb: dict[str, list[str]]) -> None:
        wire, cash = kb["acme/fees.txt"]
        store.record_matches("acme", {wire: (3, 10.0), cash: (2, 10.0)})
        did = put(store, ACME, "fees.txt", ["Wire fee is 5 EUR.", "Cash fee is now 3 EUR."], version="2")
        (changed,) = [c for c in store.document_chunk_ids(ACME, did) if c != wire]
        assert store.chunk_matches(ACME, [wire, changed]) == {wire: (3, 10.0)}
        assert [s.id for s in store.match_stats(ACME)] == [wire]  # the deleted chunk's row is never shown

    def test_bad_stats_requests_are_refused(self, store: Store, kb: dict[str, list[str]]) -> None:
        for kwargs in ({"level": "page"}, {"order": "least"}, {"limit": 0}):
            with pytest.raises(ConfigError):
                store.match_stats(ACME, **kwargs)

    def test_usage_rows_add_up_per_day_kind_and_model(self, store: Store, kb: dict[str, list[str]]) -> None:
        store.record_usage([UsageRecord("acme", "2026-11-01", EMBED, "minilm", 10, 500),
                            UsageRecord("acme", "2026-11-02", ASK, "gpt-x", 1, 300, 40),
                            UsageRecord("other", "2026-11-02", ASK, "gpt-x", 1, 1, 1)])
        store.record_usage([UsageRecord("acme", "2026-11-02", ASK, "gpt-x", 2, 600, 80)])
        assert store.usage_records("acme") == [UsageRecord("acme", "2026-11-01", EMBED, "minilm", 10, 500, 0),
                                               UsageRecord("acme", "2026-11-02", ASK, "gpt-x", 3, 900, 120)]
        assert [r.day for r in store.usage_records("acme", since="2026-11-02")] == ["2026-11-02"]
        assert store.usage_records("nobody") == []
