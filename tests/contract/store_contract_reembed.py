"""The reembed and language contracts. Every backend swaps a collection's embedding model in one
step (``Store.switch_model``, driven by ``ragline.reembed.Reembedder``), serves the
old vectors until then, takes chunks written meanwhile, and resumes after a crash;
and applies a collection's language to its keyword analysis."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragline.analyzer import query_terms
from ragline.embed.base import CountingEmbedder, EmbeddingCache
from ragline.embed.hashing import HashingEmbedder
from ragline.errors import ConfigError, EmbedderError, ModelMismatchError, NotFoundError
from ragline.models import Scope
from ragline.reembed import Reembedder
from ragline.store import Store

from tests.contract_helpers import DIM, MODEL, A, _Base, collection, put, unit

TEXTS = {"fees.txt": ["Card fees are waived for students.", "Overdraft fees are charged monthly."],
         "transfers.txt": ["International transfers take two days."],
         "branches.txt": ["Branches open at nine.", "The main branch closes at five."]}
NEW_DIM = 16


class NewModel(HashingEmbedder):
    """The model swapped in: another id, another dimension."""

    model_id = "new/model"

    def __init__(self) -> None:
        super().__init__(NEW_DIM)


class FailsAfter(NewModel):
    """Crashes (as a killed process would stop) after ``n`` embedding calls."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.left = n

    def embed_documents(self, texts):
        if self.left == 0:
            raise EmbedderError("model process killed")
        self.left -= 1
        return super().embed_documents(texts)


def fill(store: Store) -> None:
    collection(store, A)
    for source, texts in TEXTS.items():
        put(store, A, source, texts)
    other = Scope("other", ("kb",))
    collection(store, other)
    put(store, other, "fees.txt", TEXTS["fees.txt"])


def top_text(store: Store, scope: Scope, vector: np.ndarray) -> str:
    return store.get_hits(scope, store.dense_search(scope, vector, 1))[0].text


class ReembedContract(_Base):
    @pytest.fixture
    def cache(self, tmp_path: Path):
        c = EmbeddingCache(tmp_path / "reembed-cache.sqlite")
        yield c
        c.close()

    def test_reembed_switches_model_vectors_and_dimension(self, store: Store, cache: EmbeddingCache) -> None:
        fill(store)
        before = store.usage("acme").bytes
        report = Reembedder(store, NewModel(), cache, "acme", "kb", batch=2).run()
        assert (report.switched, report.chunks, report.embedded, report.rounds) == (True, 5, 5, 1)
        info = store.get_collection(A)
        assert (info.model_id, info.dimension, info.documents, info.chunks) == ("new/model", NEW_DIM, 3, 5)
        model = NewModel()
        for texts in TEXTS.values():
            for text in texts:
                assert top_text(store, A, model.embed_query(text)) == text
        assert store.keyword_search(A, query_terms("international transfers"), 1)  # the keyword half still there
        assert store.usage("acme").bytes == before + 5 * 4 * (NEW_DIM - DIM)  # vectors are counted at their new size
        other = Scope("other", ("kb",))  # another tenant's collection is not touched
        assert store.get_collection(other).model_id == MODEL
        assert top_text(store, other, store.vectors(other, [h.chunk_id for h in store.get_hits(
            other, store.keyword_search(other, query_terms("overdraft"), 1))]).popitem()[1]).startswith("Overdraft")
        again = Reembedder(store, NewModel(), cache, "acme", "kb").run()  # nothing left to do
        assert (again.switched, again.embedded) == (False, 0)

    def test_switch_changes_nothing_while_a_chunk_lacks_a_new_vector(self, store: Store) -> None:
        fill(store)
        old = {text: top_text(store, A, unit(1.0, 0.5)) for text in ["probe"]}
        chunks = [(d.record.id, c) for d in store.catalog.export_documents("acme", "kb") for c in d.chunks]
        skipped = chunks[0][1].id
        model = NewModel()

        def lookup(pairs):
            found = {}
            for chunk_id, _ in pairs:
                if chunk_id != skipped:
                    found[chunk_id] = model.embed_query(chunk_id)
            return found

        missing = store.switch_model("acme", "kb", old_model=MODEL, model_id="new/model", dimension=NEW_DIM,
                                     vectors=lookup)
        assert missing == [skipped]
        info = store.get_collection(A)
        assert (info.model_id, info.dimension) == (MODEL, DIM)
        assert {text: top_text(store, A, unit(1.0, 0.5)) for text in ["probe"]} == old  # old vectors serve
        with pytest.raises(ModelMismatchError, match="filled by test/model, not some/model"):
            store.switch_model("acme", "kb", old_model="some/model", model_id="new/model", dimension=NEW_DIM,
                               vectors=lookup)

    def test_search_serves_old_vectors_and_writes_land_until_the_switch(self, store: Store,
                                                                      cache: EmbeddingCache) -> None:
        fill(store)
        probe = unit(0.3, 1.0, 0.2)
        expected = top_text(store, A, probe)
        seen: list[str] = []

        def during(done: int, total: int) -> None:
            seen.append(top_text(store, A, probe))  # searches with the old model keep answering
            if done == total == 5:  # a document written after the pass, with the old model, is taken too
                put(store, A, "late.txt", ["A late notice about cheque deposits."], [unit(0, 0, 0, 0, 0, 0, 0, 1)])

        report = Reembedder(store, NewModel(), cache, "acme", "kb", batch=2, progress=during).run()
        assert seen and set(seen) == {expected}
        assert report.switched and report.rounds == 2 and report.chunks == 6  # the first switch found it missing
        late = "A late notice about cheque deposits."
        assert top_text(store, A, NewModel().embed_query(late)) == late

    def test_a_crashed_reembed_resumes_without_embedding_twice(self, store: Store, cache: EmbeddingCache) -> None:
        fill(store)
        with pytest.raises(EmbedderError, match="killed"):
            Reembedder(store, FailsAfter(1), cache, "acme", "kb", batch=2).run()
        info = store.get_collection(A)
        assert (info.model_id, info.dimension) == (MODEL, DIM)  # nothing switched: the old model still serves
        assert store.dense_search(A, unit(1.0), 1)
        counted = CountingEmbedder(NewModel())
        report = Reembedder(store, counted, cache, "acme", "kb", batch=2).run()
        assert report.switched and report.embedded == counted.documents_embedded == 3  # 2 were done before
        assert store.get_collection(A).model_id == "new/model"


class LanguageContract(_Base):
    """A collection's language decides its keyword analysis on every backend: the
    terms stored are analyzed in it, and queries are analyzed the same way."""

    def test_spanish_collection_matches_inflected_words(self, store: Store) -> None:
        es, en = Scope("acme", ("es",)), Scope("acme", ("en",))
        store.ensure_collection(es, model_id=MODEL, dimension=DIM, config={"language": "es"})
        assert store.get_collection(es).config["language"] == "spanish"  # codes are normalised
        collection(store, en)
        texts = ["Los niños corrían por el parque", "El gato duerme en la casa"]
        put(store, es, "es.txt", texts, language="spanish")
        put(store, en, "es.txt", texts)

        def found(scope: Scope, query: str, language: str | None) -> list[str]:
            return [h.text for h in store.get_hits(scope, store.keyword_search(
                scope, query_terms(query, language=language), 5))]

        assert found(es, "correr niño", "spanish") == [texts[0]]  # corrían ~ correr, niños ~ niño
        assert found(es, "gatos", "spanish") == [texts[1]]
        assert found(es, "el la por", "spanish") == []  # Spanish stopwords are not indexed
        assert found(en, "correr", None) == []  # English analysis: no Spanish stemming

    def test_unknown_language_is_a_config_error(self, store: Store) -> None:
        with pytest.raises(ConfigError, match="unknown language 'klingon'.*choose one of: danish, dutch, english"):
            store.ensure_collection(Scope("acme", ("xx",)), model_id=MODEL, dimension=DIM,
                                    config={"language": "klingon"})

    def test_settle_language_records_the_first(self, store: Store) -> None:
        collection(store, A)
        assert store.settle_language(A, "fr") == "french"
        assert store.settle_language(A, "german") == "french"  # the first ingestion decided
        assert store.get_collection(A).config["language"] == "french"
        with pytest.raises(NotFoundError):
            store.settle_language(Scope("acme", ("nope",)), "french")
