"""A collection's language through the engine: detected from its first document
when not set, kept with the collection, applied to queries per collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.analyzer import analyze, detect_language, query_terms
from ragline.engine import Engine
from ragline.errors import ConfigError
from ragline.models import Block, Document, Scope
from ragline.settings import EmbedderSettings, SearchSettings, Settings

ES, EN = Scope("acme", ("es",)), Scope("acme", ("en",))
SPANISH = ("Las transferencias internacionales tardan dos días hábiles y cuestan quince euros. "
           "Los clientes pueden cancelarlas antes de las cinco de la tarde.")
ENGLISH = "International transfers take two business days and cost fifteen euros."


@pytest.fixture
def engine(tmp_path: Path):
    eng = Engine(Settings(home=tmp_path, embedder=EmbedderSettings(name="hashing")))
    yield eng
    eng.close()


def test_detection_is_offline_and_limited_to_snowball_languages() -> None:
    assert detect_language(SPANISH) == "spanish" and detect_language(ENGLISH) == "english"
    assert detect_language("Die Überweisung dauert zwei Werktage.") == "german"
    assert detect_language("这是一个测试句子，用来检测语言。") == "english"  # no stemmer for it: the default
    assert analyze("Las transferencias", "spanish") == ["transferent"]


def test_a_new_collection_takes_the_language_of_its_first_document(engine: Engine) -> None:
    engine.add_documents([Document("transfers.txt", [Block(SPANISH)])], ES)
    engine.add_documents([Document("transfers.txt", [Block(ENGLISH)])], EN)
    assert engine.store.get_collection(ES).config["language"] == "spanish"
    assert engine.store.get_collection(EN).config["language"] == "english"
    # "transferencia" (singular) and "cancelar" (infinitive) reach the inflected forms only with Spanish stems.
    hit = engine.search("¿Puedo cancelar una transferencia?", ES, mode="keyword").hits
    assert hit and hit[0].source == "transfers.txt"
    both = engine.search("transferencia transfer", Scope("acme", ("es", "en")), mode="keyword", k=5).hits
    assert {h.collection for h in both} == {"es", "en"}  # each collection's own analysis


def test_the_setting_names_the_language_and_is_checked(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder=EmbedderSettings(name="hashing"), search=SearchSettings(language="es"))
    engine = Engine(settings)
    try:
        engine.add_documents([Document("a.txt", [Block(ENGLISH)])], ES)  # set, so not detected
        assert engine.store.get_collection(ES).config["language"] == "spanish"
    finally:
        engine.close()
    bad = Engine(Settings(home=tmp_path / "b", embedder=EmbedderSettings(name="hashing"),
                          search=SearchSettings(language="klingon")))
    try:
        with pytest.raises(ConfigError, match="unknown language 'klingon'"):
            bad.add_documents([Document("a.txt", [Block(ENGLISH)])], ES)
    finally:
        bad.close()


def test_a_collection_filled_before_languages_stays_english(engine: Engine) -> None:
    from tests.contract_helpers import put

    engine.collection(ES)  # documents stored with English terms, before collections had a language
    put(engine.store, ES, "old.txt", ["Old transfers"], [engine.embedder.embed_query("Old transfers")])
    engine.add_documents([Document("new.txt", [Block(SPANISH)])], ES)
    assert "language" not in engine.store.get_collection(ES).config  # not detected: old terms stay valid
    assert [h.source for h in engine.search("transferencias", ES, mode="keyword").hits] == ["new.txt"]
    assert query_terms("transferencias") == ["transferencia"]  # English analysis on both sides


def test_the_api_sets_and_shows_a_collections_language(tmp_path: Path) -> None:
    from ragline.settings import ServerSettings
    from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=0))
    with LiveServer(settings) as server, server.client(create_tenant(server, "acme")) as client:
        created = client.post("/v1/collections", json={"name": "es", "language": "es"})
        assert created.status_code == 201 and created.json()["language"] == "spanish"
        assert client.post("/v1/collections", json={"name": "xx", "language": "klingon"}).status_code == 400
        undecided = client.post("/v1/collections", json={"name": "later"}).json()
        assert undecided["language"] is None  # the first document decides


def test_a_document_without_text_does_not_decide_the_language(engine: Engine) -> None:
    engine.add_documents([Document("scan.pdf", [Block("   ")]), Document("b.txt", [Block(SPANISH)])], ES)
    assert engine.store.get_collection(ES).config["language"] == "spanish"
