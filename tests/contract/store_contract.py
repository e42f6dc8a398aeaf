"""The store contract: behaviour every backend must show, as mixins in the style of
haystack's ``DocumentStoreBaseTests``. A backend's test module subclasses
``StoreContract`` and provides one fixture, ``make_store``: a callable that opens a
new ``Store`` over the same, initially empty, data (as another process would).

Vectors are small and hand-made, so scores can be checked exactly; text goes
through ragline's real analyzer, so keyword behaviour is the product's.
"""

from __future__ import annotations

import random
import threading
from typing import ClassVar

import numpy as np
import pytest

from ragline.analyzer import query_terms
from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.errors import ConfigError, ModelMismatchError, NotFoundError, StoreError
from ragline.models import Scope, content_hash
from ragline.settings import EmbedderSettings, Settings
from ragline.store import Store
from ragline.store.types import (
    INDEXED,
    ChunkRecord,
    DocumentRecord,
    TenantUsage,
)

from tests.contract_helpers import DIM, MODEL, A, _Base, collection, doc_id, put, unit
from tests.contract.store_contract_admin import JobContract, KeyContract
from tests.contract.store_contract_conversations import ConversationContract
from tests.contract.store_contract_shared import SharedContract


# -- catalog ----------------------------------------------------------------------
class CatalogContract(_Base):
    def test_tenants_and_collections(self, store: Store) -> None:
        assert store.catalog.tenants() == [] and store.list_collections("acme") == []
        store.catalog.ensure_tenant("zeta")
        collection(store, A)
        collection(store, Scope("acme", ("hr",)))
        assert store.catalog.tenants() == ["acme", "zeta"]
        assert [c.name for c in store.list_collections("acme")] == ["hr", "kb"]
        assert store.catalog.tenant_created("zeta") > 0 and store.catalog.tenant_created("nope") is None
        info = store.get_collection(A)
        assert (info.model_id, info.dimension, info.documents, info.chunks) == (MODEL, DIM, 0, 0)

    def test_model_guard(self, store: Store) -> None:
        collection(store, A)
        store.ensure_collection(A, model_id=MODEL, dimension=DIM)  # same model: fine
        with pytest.raises(ModelMismatchError, match="test/model.*other/model"):
            store.ensure_collection(A, model_id="other/model", dimension=DIM)
        with pytest.raises(ModelMismatchError):
            store.ensure_collection(A, model_id=MODEL, dimension=DIM + 1)

    def test_missing_collection_is_not_found(self, store: Store) -> None:
        collection(store, A)
        for call in (lambda: store.get_collection(Scope("acme", ("nope",))),
                     lambda: store.dense_search(Scope("acme", ("kb", "nope")), unit(1), 5),
                     lambda: store.keyword_search(Scope("other", ("kb",)), ["x"], 5),
                     lambda: store.list_documents(Scope("acme", ("nope",)))):
            with pytest.raises(NotFoundError, match="nope|kb"):
                call()

    def test_put_get_list(self, store: Store) -> None:
        collection(store, A)
        did = put(store, A, "a.txt", ["first chunk", "second chunk"], title="Title", metadata={"year": 2020},
                  pages=[1, 2], origin="/data/a.txt")
        doc = store.get_document(A, did)
        assert (doc.source, doc.title, doc.chunks, doc.metadata, doc.state, doc.origin, doc.collection) == \
            ("a.txt", "Title", 2, {"year": 2020}, INDEXED, "/data/a.txt", "kb")
        assert [d.id for d in store.list_documents(A)] == [did]
        info = store.get_collection(A)
        assert (info.documents, info.chunks) == (1, 2)
        ids = store.document_chunk_ids(A, did)
        assert len(ids) == 2
        hits = store.get_hits(A, [(ids[1], 0.5), (ids[0], 0.25)])
        assert [(h.text, h.score, h.page, h.section, h.position, h.title, h.collection, h.doc_id) for h in hits] == [
            ("second chunk", 0.5, 2, "§1", 1, "Title", "kb", did), ("first chunk", 0.25, 1, "§0", 0, "Title", "kb", did)]
        assert hits[1].start == 0 and hits[1].end == len("first chunk") and hits[0].metadata == {"year": 2020}

    def test_user_metadata_never_overwrites_fields(self, store: Store) -> None:
        collection(store, A)
        did = put(store, A, "m.txt", ["text"], pages=[3], metadata={"page": "cover", "title": "user", "owner": "x"})
        hit = store.get_hits(A, [(store.document_chunk_ids(A, did)[0], 1.0)])[0]
        assert (hit.page, hit.title, hit.owner) == (3, None, None)
        assert hit.metadata == {"page": "cover", "title": "user", "owner": "x"}

    def test_upsert_is_idempotent_and_replaces(self, store: Store) -> None:
        collection(store, A)
        did = put(store, A, "a.txt", ["one", "two", "three"])
        put(store, A, "a.txt", ["one", "two", "three"])
        assert store.get_collection(A).chunks == 3 and len(store.list_documents(A)) == 1
        put(store, A, "a.txt", ["one", "changed"], version="2")
        assert [h.text for h in store.get_hits(A, [(c, 0.0) for c in store.document_chunk_ids(A, did)])] == \
            ["one", "changed"]
        assert store.get_collection(A).chunks == 2
        assert store.keyword_search(A, ["three"], 5) == [] and store.keyword_search(A, ["chang"], 5)

    def test_vectors_are_kept_exactly(self, store: Store) -> None:
        collection(store, A)
        vectors = [unit(1, 2, 3), unit(3, 2, 1)]
        did = put(store, A, "a.txt", ["alpha", "beta"], vectors)
        stored = store.chunk_vectors(A, did)
        assert set(stored) == {content_hash("alpha"), content_hash("beta")}
        np.testing.assert_allclose(stored[content_hash("alpha")][1], vectors[0], rtol=1e-6)
        ids = store.document_chunk_ids(A, did)
        got = store.vectors(A, ids + ["missing"])
        assert set(got) == set(ids)

    def test_failed_write_keeps_previous_version(self, store: Store) -> None:
        collection(store, A)
        did = put(store, A, "a.txt", ["old text"])
        record = DocumentRecord(id=did, source="a.txt", origin=None, title=None, media_type="text/plain",
                                content_hash="h2")
        clash = [ChunkRecord(id="dup", position=0, text="new", content_hash="y", start=0, end=3, terms="new"),
                 ChunkRecord(id="dup", position=1, text="dup", content_hash="z", start=4, end=7, terms="dup")]
        with pytest.raises(StoreError):
            store.put_document(A, record, clash, np.stack([unit(1), unit(0, 1)]))
        with pytest.raises(StoreError, match="vectors"):
            store.put_document(A, record, clash[:1], np.stack([unit(1), unit(0, 1)]))
        assert store.get_document(A, did).content_hash != "h2"
        assert [h.text for h in store.get_hits(A, [(c, 0.0) for c in store.document_chunk_ids(A, did)])] == ["old text"]
        assert store.keyword_search(A, ["old"], 5) and not store.keyword_search(A, ["dup"], 5)
        assert [cid for cid, _ in store.dense_search(A, unit(1), 5)] == store.document_chunk_ids(A, did)

    def test_document_id_of_another_scope_is_refused(self, store: Store) -> None:
        collection(store, A)
        collection(store, Scope("other", ("kb",)))
        did = put(store, A, "a.txt", ["mine"])
        record = DocumentRecord(id=did, source="a.txt", origin=None, title=None, media_type="text/plain",
                                content_hash="x")
        chunk = ChunkRecord(id="c-other", position=0, text="theirs", content_hash="t", start=0, end=6, terms="their")
        for scope in (Scope("other", ("kb",)), Scope("acme", ("kb",), "ann")):
            with pytest.raises(StoreError, match="another scope"):
                store.put_document(scope, record, [chunk], np.stack([unit(1)]))
            # Nothing of the refused write is searchable, not even before hydration.
            assert store.keyword_search(scope, ["their"], 5) == []
        assert store.get_document(A, did).content_hash != "x"
        assert store.keyword_search(A, ["mine"], 5) and store.keyword_search(A, ["their"], 5) == []

    def test_delete_documents_and_purge(self, store: Store) -> None:
        collection(store, A)
        keep = put(store, A, "keep.txt", ["keep this"])
        gone = put(store, A, "gone.txt", ["remove this"])
        assert store.delete_documents(A, [gone, "unknown"]) == 1
        assert store.delete_documents(A, [gone]) == 0
        assert [d.id for d in store.list_documents(A)] == [keep]
        assert store.keyword_search(A, ["remov"], 5) == [] and store.document_chunk_ids(A, gone) == []
        assert all(cid in store.document_chunk_ids(A, keep) for cid, _ in store.dense_search(A, unit(1), 10))
        assert store.get_collection(A).chunks == 1

    def test_origin_prefix_is_literal(self, store: Store) -> None:
        collection(store, A)
        put(store, A, "1", ["x"], origin="/d/a_b/1.txt")
        put(store, A, "2", ["y"], origin="/d/axb/2.txt")
        put(store, A, "3", ["z"], origin="/d/a%/3.txt")
        assert [d.source for d in store.list_documents(A, origin_prefix="/d/a_b/")] == ["1"]
        assert [d.source for d in store.list_documents(A, origin_prefix="/d/a%")] == ["3"]

    def test_delete_collection(self, store: Store) -> None:
        collection(store, A)
        put(store, A, "a.txt", ["gone soon"])
        store.delete_collection(A)
        assert store.list_collections("acme") == []
        collection(store, A)  # re-created: empty, whatever the backend reuses internally
        assert store.dense_search(A, unit(1), 5) == [] and store.keyword_search(A, ["gone"], 5) == []
        assert store.get_collection(A).chunks == 0

    def test_export_documents(self, store: Store) -> None:
        collection(store, A)
        put(store, A, "a.txt", ["shared one", "shared two"], title="T", metadata={"k": 1})
        put(store, Scope("acme", ("kb",), "ann"), "b.txt", ["private"])
        exported = {d.record.source: d for d in store.catalog.export_documents("acme", "kb", batch=1)}
        assert set(exported) == {"a.txt", "b.txt"}
        a = exported["a.txt"]
        assert (a.owner, a.record.title, a.record.metadata, [c.text for c in a.chunks]) == \
            (None, "T", {"k": 1}, ["shared one", "shared two"])
        assert a.vectors.shape == (2, DIM) and exported["b.txt"].owner == "ann"

    def test_usage_counts_what_a_tenant_stores(self, store: Store) -> None:
        def size(*texts: str) -> int:  # chunk text as UTF-8 + one float32 vector per chunk
            return sum(len(t.encode()) + 4 * DIM for t in texts)

        assert store.catalog.usage("acme") == TenantUsage(0, 0, 0)
        collection(store, A)
        collection(store, Scope("acme", ("hr",)))
        collection(store, Scope("other", ("kb",)))
        put(store, A, "a.txt", ["één", "two"])
        put(store, Scope("acme", ("hr",), "ann"), "b.txt", ["private words"])
        put(store, Scope("other", ("kb",)), "c.txt", ["not acme's", "at", "all"])
        assert store.catalog.usage("acme") == TenantUsage(2, 3, size("één", "two", "private words"))
        put(store, A, "a.txt", ["replaced"], version="2")  # a replacement counts once, at its new size
        assert store.catalog.usage("acme") == TenantUsage(2, 2, size("replaced", "private words"))
        store.delete_documents(Scope("acme", ("hr",), "ann"), [doc_id(Scope("acme", ("hr",), "ann"), "b.txt")])
        assert store.catalog.usage("acme") == TenantUsage(1, 1, size("replaced"))
        store.delete_collection(A)
        assert store.catalog.usage("acme") == TenantUsage(0, 0, 0)
        assert store.catalog.usage("other") == TenantUsage(1, 3, size("not acme's", "at", "all"))


# -- search -------------------------------------------------------------------------
class SearchContract(_Base):
    def test_dense_scores_are_cosines_best_first(self, store: Store) -> None:
        collection(store, A)
        vectors = [unit(1, 0), unit(1, 1), unit(0, 1), unit(-1, 0)]
        did = put(store, A, "a.txt", ["a", "b", "c", "d"], vectors)
        ids = store.document_chunk_ids(A, did)
        found = store.dense_search(A, unit(1, 0), 3)
        assert [cid for cid, _ in found] == ids[:3]
        np.testing.assert_allclose([s for _, s in found], [1.0, 2 ** -0.5, 0.0], atol=1e-5)
        assert len(store.dense_search(A, unit(1, 0), 10)) == 4

    def test_dense_wrong_dimension(self, store: Store) -> None:
        collection(store, A)
        put(store, A, "a.txt", ["a"])
        with pytest.raises((ModelMismatchError, StoreError)):
            store.dense_search(A, np.ones(DIM + 3, np.float32), 3)

    def test_keyword_bm25_order(self, store: Store) -> None:
        collection(store, A)
        texts = ["the cat sat on the mat", "a dog chased the cat around the cat tree", "quantum chromodynamics",
                 "dogs and more dogs", "an unrelated sentence about weather"]
        did = put(store, A, "a.txt", texts)
        ids = store.document_chunk_ids(A, did)
        found = store.keyword_search(A, query_terms("cat"), 10)
        assert [cid for cid, _ in found] == [ids[1], ids[0]]  # tf 2 beats tf 1
        assert found[0][1] > found[1][1] > 0
        rare = store.keyword_search(A, query_terms("dog chromodynamics"), 10)
        assert rare[0][0] == ids[2]  # the rare term outweighs the common one
        assert store.keyword_search(A, [], 5) == [] and store.keyword_search(A, ["zzz"], 5) == []
        assert len(store.keyword_search(A, query_terms("cat dog"), 1)) == 1

    def test_keyword_statistics_stay_in_their_collection(self, store: Store) -> None:
        other = Scope("other", ("kb",))
        collection(store, A)
        collection(store, other)
        put(store, A, "a.txt", ["apple banana", "cherry date", "elder fig"])
        before = dict(store.keyword_search(A, ["appl", "cherri"], 5))
        put(store, other, "b.txt", [f"apple word{i}" for i in range(30)])
        assert dict(store.keyword_search(A, ["appl", "cherri"], 5)) == pytest.approx(before)

    def test_an_owners_keyword_scores_are_computable_from_what_it_may_read(self, store: Store) -> None:
        """Issue 29: with whole-collection statistics a shared chunk's score fell from
        1.376 to 0.472 once another owner stored three private chunks with the word, so
        an owner could tell what others' private documents contain."""
        ann, bob = Scope("acme", ("kb",), "ann"), Scope("acme", ("kb",), "bob")
        collection(store, A)
        put(store, A, "shared.txt", ["zebra stripes in the savanna", "cherry date orchard", "elder fig tree",
                                     "plain words about nothing", "a cherry and a zebra"])
        put(store, ann, "ann.txt", ["ann writes about cherries and zebras", "ann's garden"])
        query = query_terms("zebra cherry")
        before = dict(store.keyword_search(ann, query, 10))  # nobody else's private rows yet
        assert len(before) == 4
        put(store, bob, "bob.txt", [f"zebra secret number {i}" for i in range(3)] + ["zebra zebra zebra"])
        put(store, bob, "bob2.txt", [f"filler text {i} about other things" for i in range(20)])
        assert dict(store.keyword_search(ann, query, 10)) == pytest.approx(before)
        assert dict(store.keyword_search(ann, query, 2)) == pytest.approx(
            dict(sorted(before.items(), key=lambda pair: -pair[1])[:2]))
        filtered = Scope("acme", ("kb",), "ann")
        assert set(dict(store.keyword_search(filtered, query_terms("zebra"), 10))) <= set(before)
        assert len(store.keyword_search(bob, query_terms("zebra"), 10)) == 6  # bob reads its own too

    def test_hostile_query_terms_are_inert(self, store: Store) -> None:
        collection(store, A)
        put(store, A, "a.txt", ["normal text here"])
        for terms in (['"', "OR", "*", "NEAR(", "'); DROP TABLE chunks; --"], ["a" * 500], ["text:*"]):
            store.keyword_search(A, terms, 5)
        assert store.keyword_search(A, ["text"], 5)

    def test_multi_collection_search(self, store: Store) -> None:
        hr = Scope("acme", ("hr",))
        collection(store, A)
        collection(store, hr)
        put(store, A, "kb.txt", ["kb words"], [unit(1)])
        put(store, hr, "hr.txt", ["hr words"], [unit(1, 0.1)])
        both = Scope("acme", ("kb", "hr"))
        assert {h.collection for h in store.get_hits(both, store.dense_search(both, unit(1), 5))} == {"kb", "hr"}
        assert {h.collection for h in store.get_hits(both, store.keyword_search(both, ["word"], 5))} == {"kb", "hr"}


class EngineContract(_Base):
    """Hybrid search and thresholds, through the real Engine on this store."""

    @pytest.fixture
    def engine(self, store: Store, tmp_path):
        eng = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing")), store=store)
        yield eng

    def test_hybrid_and_threshold(self, engine: Engine) -> None:
        from ragline.models import Block, Document

        topics = ["interest rates on savings accounts", "how to block a lost card", "wire transfer fees abroad",
                  "mortgage early repayment penalty"]
        engine.add_documents([Document(source=f"d{i}.txt", blocks=[Block(f"{t}. Item {i}.")])
                              for i, t in enumerate(topics * 3)], A)
        for mode in ("dense", "keyword", "hybrid"):
            hits = engine.search("lost card block", A, mode=mode, k=3).hits
            assert hits and "lost card" in hits[0].text, mode
        dense = engine.search("lost card block", A, mode="dense", k=12).hits
        cut = dense[2].score
        kept = engine.search("lost card block", A, mode="dense", k=12, threshold=cut).hits
        assert kept and all(h.score >= cut for h in kept) and len(kept) < len(dense)
        assert HashingEmbedder().model_id == engine.get_collection(A).model_id


# -- filters ------------------------------------------------------------------------
class FilterContract(_Base):
    @pytest.fixture
    def corpus(self, store: Store) -> dict[str, str]:
        collection(store, A)
        docs = {
            "n1": ({"year": 2019, "lang": "en", "draft": True, "score": 1.5}, 1),
            "n2": ({"year": 2020, "lang": "de", "draft": False, "score": 2}, 2),
            "n3": ({"year": 2021, "lang": "en", "score": None}, 2),
            "n4": ({"year": "2020", "lang": "fr"}, None),
            "n5": ({}, 3),
        }
        for source, (meta, page) in docs.items():
            put(store, A, source, [f"common words {source}"], [unit(1, random.Random(source).random())],
                metadata=meta, pages=[page], title=f"Title {source}" if source != "n5" else None)
        return {s: doc_id(A, s) for s in docs}

    CASES: ClassVar[list] = [
        ({"year": 2020}, {"n2"}),
        ({"year": "2020"}, {"n4"}),
        ({"year": 2020.0}, {"n2"}),
        ({"year": {"eq": 2020}}, {"n2"}),
        ({"year": {"ne": 2020}}, {"n1", "n3", "n4", "n5"}),
        ({"year": {"gt": 2019}}, {"n2", "n3"}),
        ({"year": {"gte": 2019, "lt": 2021}}, {"n1", "n2"}),
        ({"year": {"lte": 2019}}, {"n1"}),
        ({"year": [2019, 2021]}, {"n1", "n3"}),
        ({"year": {"in": [2019, "2020"]}}, {"n1", "n4"}),
        ({"lang": "en"}, {"n1", "n3"}),
        ({"lang": ["de", "fr"]}, {"n2", "n4"}),
        ({"draft": True}, {"n1"}),
        ({"draft": False}, {"n2"}),
        ({"draft": None}, {"n3", "n4", "n5"}),
        ({"draft": {"ne": None}}, {"n1", "n2"}),
        ({"score": None}, {"n3", "n4", "n5"}),
        ({"score": {"gte": 1.5}}, {"n1", "n2"}),
        ({"score": 1.5}, {"n1"}),
        ({"missing": None}, {"n1", "n2", "n3", "n4", "n5"}),
        ({"missing": "x"}, set()),
        ({"page": 2}, {"n2", "n3"}),
        ({"page": {"gte": 2}}, {"n2", "n3", "n5"}),
        ({"page": None}, {"n4"}),
        ({"page": {"ne": 2}}, {"n1", "n4", "n5"}),
        ({"source": "n1"}, {"n1"}),
        ({"source": {"ne": "n1"}}, {"n2", "n3", "n4", "n5"}),
        ({"source": ["n1", "n5"]}, {"n1", "n5"}),
        ({"title": None}, {"n5"}),
        ({"title": "Title n2"}, {"n2"}),
        ({"media_type": "text/plain"}, {"n1", "n2", "n3", "n4", "n5"}),
        ({"section": "§0"}, {"n1", "n2", "n3", "n4", "n5"}),
        ({"owner": None}, {"n1", "n2", "n3", "n4", "n5"}),
        ({"lang": "en", "year": {"gt": 2019}}, {"n3"}),
    ]

    @pytest.mark.parametrize("search", ["dense", "keyword"])
    @pytest.mark.parametrize(("filters", "expected"), CASES, ids=[str(c[0]) for c in CASES])
    def test_operator(self, store: Store, corpus: dict[str, str], search: str, filters: dict,
                      expected: set[str]) -> None:
        if search == "dense":
            found = store.dense_search(A, unit(1), 10, filters)
        else:
            found = store.keyword_search(A, ["common"], 10, filters)
        sources = {h.source for h in store.get_hits(A, found)}
        assert sources == expected

    def test_doc_id_filter(self, store: Store, corpus: dict[str, str]) -> None:
        found = store.dense_search(A, unit(1), 10, {"doc_id": corpus["n3"]})
        assert {h.source for h in store.get_hits(A, found)} == {"n3"}

    BAD: ClassVar[list] = [
        ({"year": {"between": 1}}, "unknown filter operator"),
        ({"year'; DROP TABLE chunks; --": 1}, "invalid filter key"),
        ({"a.b": 1}, "invalid filter key"),
        ({"year": {"gt": "2020"}}, "needs a number"),
        ({"page": "two"}, "takes a number"),
        ({"source": 5}, "takes a string"),
        ({"year": {"in": []}}, "non-empty list"),
        ({"year": []}, "non-empty list"),
        ({"year": {}}, "no operator"),
        ({"year": {"eq": {"nested": 1}}}, "values must be"),
        ({"year": 10 ** 30}, "out of range"),
        ({"year": float("nan")}, "finite"),
        ({f"k{i}": 1 for i in range(65)}, "too many"),
        ("not a dict", "must be an object"),
    ]

    @pytest.mark.parametrize(("filters", "message"), BAD, ids=[m for _, m in BAD])
    def test_bad_filters_are_config_errors(self, store: Store, corpus: dict[str, str], filters, message: str) -> None:
        for call in (lambda: store.dense_search(A, unit(1), 5, filters),
                     lambda: store.keyword_search(A, ["common"], 5, filters)):
            with pytest.raises(ConfigError, match=message):
                call()


# -- owners and isolation -------------------------------------------------------------
class IsolationContract(_Base):
    def test_owner_visibility(self, store: Store) -> None:
        ann, bob = Scope("acme", ("kb",), "ann"), Scope("acme", ("kb",), "bob")
        collection(store, A)
        shared = put(store, A, "shared.txt", ["common text shared"], [unit(1)])
        mine = put(store, ann, "ann.txt", ["common text ann"], [unit(1, 0.1)])
        put(store, bob, "bob.txt", ["common text bob"], [unit(1, 0.2)])
        for scope, expected in ((A, {"shared.txt"}), (ann, {"shared.txt", "ann.txt"}), (bob, {"shared.txt", "bob.txt"})):
            assert {d.source for d in store.list_documents(scope)} == expected
            for found in (store.dense_search(scope, unit(1), 10), store.keyword_search(scope, ["common"], 10)):
                assert {h.source for h in store.get_hits(scope, found)} == expected
        ann_chunk = store.document_chunk_ids(ann, mine)[0]
        assert store.get_hits(bob, [(ann_chunk, 1.0)]) == [] and store.get_hits(A, [(ann_chunk, 1.0)]) == []
        assert store.get_hits(ann, [(ann_chunk, 1.0)])[0].owner == "ann"
        assert store.vectors(bob, [ann_chunk]) == {} and store.chunk_vectors(bob, mine) == {}
        assert store.get_document(bob, mine) is None and store.document_chunk_ids(bob, mine) == []
        # Writes touch exactly the scope's owner: bob cannot delete ann's or shared documents.
        assert store.delete_documents(bob, [mine, shared]) == 0
        assert store.delete_documents(ann, [shared]) == 0
        assert store.delete_documents(ann, [mine]) == 1
        assert store.dense_search(ann, unit(1), 10) and store.get_document(A, shared) is not None

    def test_tenants_never_see_each_other(self, store: Store) -> None:
        other = Scope("other", ("kb",))
        collection(store, A)
        collection(store, other)
        theirs = put(store, other, "t.txt", ["secret words"], [unit(1)])
        put(store, A, "a.txt", ["secret words"], [unit(1)])
        chunk = store.document_chunk_ids(other, theirs)[0]
        assert store.get_document(A, theirs) is None and store.get_hits(A, [(chunk, 1.0)]) == []
        assert store.delete_documents(A, [theirs]) == 0 and store.get_document(other, theirs) is not None
        for found in (store.dense_search(A, unit(1), 10), store.keyword_search(A, ["secret"], 10)):
            assert {h.source for h in store.get_hits(A, found)} == {"a.txt"}
        assert store.dense_search(A, unit(1), 10, {"doc_id": theirs}) == []

    @pytest.mark.parametrize("seed", [1, 2])
    def test_randomized_isolation(self, store: Store, seed: int) -> None:
        rng = random.Random(seed)
        words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
        truth: dict[tuple[str, str, str | None], set[str]] = {}
        for tenant in ("t1", "t2", "t3"):
            for name in ("kb", "hr"):
                collection(store, Scope(tenant, (name,)))
                for owner in (None, "ann", "bob"):
                    scope = Scope(tenant, (name,), owner)
                    sources = set()
                    for i in range(rng.randint(1, 3)):
                        source = f"{tenant}|{name}|{owner}|{i}"
                        put(store, scope, source, [" ".join(rng.choices(words, k=12)) for _ in range(2)])
                        sources.add(source)
                    truth[(tenant, name, owner)] = sources
        for _ in range(40):
            scope = Scope(rng.choice(["t1", "t2", "t3"]), tuple(rng.sample(["kb", "hr"], rng.randint(1, 2))),
                          rng.choice([None, "ann", "bob"]))
            allowed = set().union(*(truth[(scope.tenant, c, None)] | (truth[(scope.tenant, c, scope.owner)]
                                    if scope.owner else set()) for c in scope.collections))
            vector = unit(*(rng.random() for _ in range(DIM)))
            for found in (store.dense_search(scope, vector, 200), store.keyword_search(scope, rng.sample(words, 3), 200)):
                hits = store.get_hits(scope, found)
                assert {h.source for h in hits} <= allowed and len(hits) == len(found)
            assert {d.source for d in store.list_documents(scope)} == allowed


# -- concurrency ----------------------------------------------------------------------
class ConcurrencyContract(_Base):
    def test_parallel_writers_and_readers(self, store: Store, make_store) -> None:
        collection(store, A)
        errors: list[BaseException] = []
        stop = threading.Event()

        def writer(n: int) -> None:
            own = make_store()
            try:
                for i in range(6):
                    # Every version of a document has exactly 3 chunks; readers must never see another count.
                    put(own, A, f"w{n}-{i % 3}.txt", [f"writer {n} doc {i} part {p} lorem" for p in range(3)],
                        version=str(i))
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                own.close()

        def reader() -> None:
            own = make_store()
            try:
                while not stop.is_set():
                    hits = own.get_hits(A, own.keyword_search(A, ["lorem"], 500))
                    per_doc: dict[str, int] = {}
                    for h in hits:
                        per_doc[h.doc_id] = per_doc.get(h.doc_id, 0) + 1
                    assert all(n == 3 for n in per_doc.values()), per_doc
                    for d in own.list_documents(A):
                        assert d.chunks == 3
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)
            finally:
                own.close()

        readers = [threading.Thread(target=reader) for _ in range(2)]
        writers = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
        for t in readers + writers:
            t.start()
        for t in writers:
            t.join()
        stop.set()
        for t in readers:
            t.join()
        assert not errors, errors[0]
        assert store.get_collection(A).documents == 9 and store.get_collection(A).chunks == 27


class StoreContract(CatalogContract, SearchContract, EngineContract, FilterContract, IsolationContract,
                    KeyContract, JobContract, ConcurrencyContract, ConversationContract, SharedContract):
    """Everything a backend must pass."""
