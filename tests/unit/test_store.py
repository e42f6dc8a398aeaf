"""Storage through the Engine on the embedded default, and what is SQLite-specific
(its in-process vector index). Backend behaviour itself is the store contract
(tests/contract/store_contract.py), which every backend passes."""

from __future__ import annotations

import numpy as np
import pytest

from ragline.embed.hashing import HashingEmbedder
from ragline.errors import ConfigError, ModelMismatchError, NotFoundError
from ragline.models import Block, Document, Scope
from ragline.settings import Settings
from ragline.store import open_store
from ragline.store.types import ChunkRecord, DocumentRecord

S = Scope("acme", ("kb",))


def docs(n: int) -> list[Document]:
    topics = ["interest rates on savings", "lost card blocking", "wire transfer fees", "mortgage early repayment"]
    return [Document(source=f"doc{i}.txt", title=f"Doc {i}", blocks=[Block(f"This page explains {topics[i % 4]}. Item {i}.", page=i % 3 + 1)],
                     metadata={"year": 2000 + i, "lang": "en" if i % 2 else "de"}) for i in range(n)]


def test_collection_remembers_model(engine) -> None:
    engine.add_documents(docs(2), S)
    info = engine.get_collection(S)
    assert (info.model_id, info.dimension, info.documents) == ("ragline/hashing-v1", 256, 2)
    with pytest.raises(ModelMismatchError, match="hashing-v1"):
        engine.store.ensure_collection(S, model_id="other/model", dimension=384)


def test_missing_collection_is_not_found(engine) -> None:
    with pytest.raises(NotFoundError, match="'nope'"):
        engine.search("anything", Scope("acme", ("nope",)))


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_filters(engine, mode: str) -> None:
    engine.add_documents(docs(12), S)
    q = "card blocking"
    by_page = engine.search(q, S, mode=mode, k=20, filters={"page": 2}).hits
    assert by_page and all(h.page == 2 for h in by_page)
    by_range = engine.search(q, S, mode=mode, k=20, filters={"year": {"gte": 2005, "lt": 2009}}).hits
    assert by_range and all(2005 <= h.metadata["year"] < 2009 for h in by_range)
    by_list = engine.search(q, S, mode=mode, k=20, filters={"source": ["doc1.txt", "doc5.txt"]}).hits
    assert {h.source for h in by_list} <= {"doc1.txt", "doc5.txt"} and by_list
    assert engine.search(q, S, mode=mode, k=20, filters={"lang": "fr"}).hits == []


def test_bad_filters_are_config_errors(engine) -> None:
    engine.add_documents(docs(2), S)
    with pytest.raises(ConfigError, match="unknown filter operator"):
        engine.search("x", S, filters={"year": {"between": 1}})
    with pytest.raises(ConfigError, match="invalid filter key"):
        engine.search("x", S, filters={"year'; DROP TABLE chunks; --": 1})


def test_search_modes_find_the_topic(engine) -> None:
    engine.add_documents(docs(8), S)
    for mode in ("dense", "keyword", "hybrid"):
        hits = engine.search("wire transfer fees", S, mode=mode, k=2).hits
        assert "wire transfer fees" in hits[0].text, mode
        assert set(hits[0].to_dict()) == {"chunk_id", "doc_id", "source", "score", "text", "collection", "title",
                                          "page", "section", "position", "start", "end", "owner", "metadata",
                                          "match_count", "last_matched_at"}


def test_threshold_and_k(engine) -> None:
    engine.add_documents(docs(8), S)
    assert len(engine.search("fees", S, mode="dense", k=3).hits) == 3
    assert engine.search("fees", S, mode="dense", k=3, threshold=1.01).hits == []
    with pytest.raises(ConfigError, match="unknown search mode"):
        engine.search("fees", S, mode="fuzzy")


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_threshold_is_a_cosine_in_every_mode(engine, mode: str) -> None:
    """Hybrid's fused scores put the top hit at about 1.0 and BM25 scores are unbounded:
    neither is compared with a threshold; every mode keeps the hits whose chunk's
    cosine to the query reaches it, as dense search scores them."""
    engine.add_documents(docs(8), S)
    cosine = {h.chunk_id: h.score for h in engine.search("wire transfer fees", S, mode="dense", k=8).hits}
    cut = sorted(cosine.values(), reverse=True)[2]
    kept = engine.search("wire transfer fees", S, mode=mode, k=8, threshold=cut).hits
    assert kept and all(cosine[h.chunk_id] >= cut for h in kept)
    assert {h.chunk_id for h in kept} <= {c for c, score in cosine.items() if score >= cut}
    assert engine.search("wire transfer fees", S, mode=mode, k=8, threshold=1.01).hits == []


def test_vector_index_rebuilds_after_writes(engine) -> None:
    engine.add_documents(docs(4), S)
    assert len(engine.search("mortgage", S, mode="dense", k=50).hits) == 4
    engine.add_documents(docs(6), S)
    assert len(engine.search("mortgage", S, mode="dense", k=50).hits) == 6
    engine.delete(S, [h.doc_id for h in engine.search("mortgage", S, mode="dense", k=2).hits])
    assert len(engine.search("mortgage", S, mode="dense", k=50).hits) == 4


def test_delete_collection(engine) -> None:
    engine.add_documents(docs(3), S)
    engine.delete_collection(S)
    with pytest.raises(NotFoundError):
        engine.get_collection(S)
    engine.add_documents(docs(1), S)  # can be re-created
    assert engine.get_collection(S).documents == 1


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder()
    a, b = e.embed_documents(["same text", "same text"])
    assert np.allclose(a, b) and abs(float(np.linalg.norm(a)) - 1) < 1e-6


def test_nested_filter_values_are_config_errors(engine) -> None:
    engine.add_documents(docs(2), S)
    for bad in ({"year": [[2001]]}, {"year": {"gte": {"x": 1}}}, {"source": {"in": [["a"]]}}):
        with pytest.raises(ConfigError, match="values must be"):
            engine.search("x", S, filters=bad)


def test_owner_deletes_only_its_own_documents(engine) -> None:
    shared, ann = S, Scope("acme", ("kb",), "ann")
    engine.add_documents([Document("shared.txt", [Block("shared handbook text")])], shared)
    engine.add_documents([Document("mine.txt", [Block("ann private text")])], ann)
    ids = {d.source: d.id for d in engine.list_documents(ann)}
    assert engine.delete(ann, [ids["shared.txt"]]) == 0  # visible to ann, but not hers to delete
    assert engine.delete(shared, [ids["mine.txt"]]) == 0
    assert engine.delete(ann, [ids["mine.txt"]]) == 1
    assert engine.delete(shared, [ids["shared.txt"]]) == 1


def test_vector_index_is_not_reused_for_a_recreated_collection(tmp_path) -> None:
    settings_path = tmp_path / "s.sqlite"
    reader, writer = open_store(Settings(), str(settings_path)), open_store(Settings(), str(settings_path))  # two processes' views
    for store in (writer,):
        store.ensure_collection(S, model_id="m", dimension=2)
    rec = DocumentRecord(id="d1", source="a", origin=None, title=None, media_type="text/plain", content_hash="h")
    chunk = ChunkRecord(id="c1", position=0, text="old", content_hash="x", start=0, end=3, terms="old")
    writer.put_document(S, rec, [chunk], np.array([[1.0, 0.0]], np.float32))
    assert reader.dense_search(S, np.array([1.0, 0.0], np.float32), 5) == [("c1", 1.0)]
    writer.delete_collection(S)
    writer.ensure_collection(S, model_id="m", dimension=2)
    rec.id, chunk.id = "d2", "c2"
    writer.put_document(S, rec, [chunk], np.array([[0.0, 1.0]], np.float32))
    assert [c for c, _ in reader.dense_search(S, np.array([1.0, 0.0], np.float32), 5)] == ["c2"]


def test_vectors_and_document_chunk_ids_respect_the_scope(engine) -> None:
    ann, bob = Scope("acme", ("kb",), "ann"), Scope("acme", ("kb",), "bob")
    # Two identical paragraphs: both chunks must be listed, in reading order.
    same = "Same paragraph here. " * 40
    text = f"{same}\n\n{same}\n\n" + "A different closing paragraph. " * 10
    engine.add_documents([Document("a.txt", [Block(text)])], ann)
    (doc,) = engine.list_documents(ann)
    chunk_ids = engine.store.document_chunk_ids(ann, doc.id)
    assert len(chunk_ids) == doc.chunks >= 3 and len(set(chunk_ids)) == len(chunk_ids)
    assert set(engine.store.vectors(ann, chunk_ids)) == set(chunk_ids)
    assert engine.store.document_chunk_ids(bob, doc.id) == [] and engine.store.vectors(bob, chunk_ids) == {}


def test_k_zero_is_an_error_not_the_default(engine) -> None:
    engine.add_documents(docs(2), S)
    with pytest.raises(ConfigError, match="k must be at least 1"):
        engine.search("fees", S, k=0)
