"""Qdrant (local mode) as the search index, paired with a SQLite catalog, passes
the store contract; plus what is Qdrant's own: URLs, layout, BM25 encoding,
error mapping."""

from __future__ import annotations

import http.server
import json
import math
import re
import socket
import sys
import threading
import time
import types
from typing import ClassVar

import httpx
import numpy as np
import pytest
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from ragline.errors import ConfigError, ModelMismatchError, StoreError, StoreUnavailableError
from ragline.models import Scope
from ragline.settings import Settings, StoreSettings
from ragline.store import open_store
from ragline.store.qdrant import filters as qf
from ragline.store.qdrant import index as qdrant
from ragline.store.sqlite import SQLiteStore
from ragline.store.types import ChunkRecord, CollectionRef, DocumentRecord

from tests.contract.store_contract import DIM, A, StoreContract, collection, put, unit
from tests.contract.store_contract_records import RecordsContract
from tests.contract.store_contract_reembed import LanguageContract, ReembedContract
from tests.contract.store_contract_usage import UsageContract


def _settings(tmp_path, **store) -> Settings:
    return Settings(home=tmp_path / "home", store=StoreSettings(url=f"qdrant://{tmp_path / 'qdrant'}", **store))


class TestQdrantStore(StoreContract, RecordsContract, ReembedContract, LanguageContract, UsageContract):
    @pytest.fixture
    def make_store(self, tmp_path):
        settings = _settings(tmp_path)
        return lambda: open_store(settings)


# -- URLs and connections ---------------------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("url", ["qdrant://", "qdrant://host:notaport", "qdrant://host:6333/some/dir", "ftp://x"])
def test_malformed_urls_are_config_errors(tmp_path, url: str) -> None:
    with pytest.raises(ConfigError, match="RAGLINE_STORE__URL"):
        qdrant.connect(url, _settings(tmp_path))


@pytest.mark.parametrize("template", ["http://127.0.0.1:{port}", "qdrant://127.0.0.1:{port}"])
def test_unreachable_server_names_the_setting(tmp_path, template: str) -> None:
    settings = _settings(tmp_path)
    settings.store.url = template.format(port=_closed_port())
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError, match="RAGLINE_STORE__URL"):
        open_store(settings)
    assert time.monotonic() - started < 5


def test_one_local_client_per_path(tmp_path) -> None:
    settings = _settings(tmp_path)
    first, second = open_store(settings), open_store(settings)
    assert first.index.client is second.index.client
    collection(first, A)
    put(first, A, "a.txt", ["shared client"], [unit(1)])
    first.close()
    first.close()  # idempotent; the other store keeps the client
    assert second.keyword_search(A, ["client"], 5)
    second.close()
    location = str((tmp_path / "qdrant").resolve())
    assert location not in qdrant._LOCAL
    QdrantClient(path=location).close()  # the directory lock was released


def test_memory_url_is_shared_within_the_process(tmp_path) -> None:
    settings = _settings(tmp_path)
    settings.store.url = "qdrant://:memory:"
    first, second = open_store(settings), open_store(settings)
    try:
        collection(first, A)
        put(first, A, "a.txt", ["in memory"], [unit(1)])
        assert second.dense_search(A, unit(1), 5)
    finally:
        first.close()
        second.close()


# -- layout and encoding ----------------------------------------------------------------
def test_layout_one_qdrant_collection_per_ragline_collection(tmp_path) -> None:
    store = open_store(_settings(tmp_path, qdrant_prefix="rl-test"))
    try:
        client = store.index.client
        collection(store, A)
        assert client.get_collections().collections == []  # created lazily, on the first upsert
        did = put(store, A, "a.txt", ["alpha beta", ""], [unit(1), unit(0, 1)], title="T", metadata={"year": 2020},
                  pages=[4, None])
        collection(store, Scope("other", ("kb",)))
        put(store, Scope("other", ("kb",), "ann"), "b.txt", ["gamma"])
        names = sorted(c.name for c in client.get_collections().collections)
        ref = store.catalog.resolve(A)[0]
        name = store.index.name(ref)
        assert len(names) == 2 and name in names and all(re.fullmatch(r"rl-test_[0-9a-f]{32}", n) for n in names)
        config = client.get_collection(name).config.params
        assert config.vectors["dense"].distance == models.Distance.COSINE and config.vectors["dense"].size == DIM
        assert config.sparse_vectors["keyword"].modifier == models.Modifier.IDF
        points, _ = client.scroll(name, with_payload=True, with_vectors=True)
        first = next(p for p in points if p.payload["chunk_id"] == store.document_chunk_ids(A, did)[0])
        assert first.id == qf.point_id(first.payload["chunk_id"])
        assert {k: v for k, v in first.payload.items() if k != "chunk_id"} == {
            "tenant": "acme", "collection": "kb", "owner": None, "doc_id": did, "source": "a.txt", "title": "T",
            "media_type": "text/plain", "page": 4, "section": "§0", "meta": {"year": 2020}}
        assert "keyword" in first.vector and all("keyword" not in p.vector for p in points if p is not first)
        store.delete_collection(A)
        assert name not in {c.name for c in client.get_collections().collections}
    finally:
        store.close()


def test_bm25_scores_are_exact(tmp_path) -> None:
    store = open_store(_settings(tmp_path))
    try:
        collection(store, A)
        texts = ["apple apple cherry", "apple banana", "cherry date fig grape"]
        did = put(store, A, "a.txt", texts)
        ids = store.document_chunk_ids(A, did)
        n, df = 3, 2

        def expected(tf: int, dl: int) -> float:
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            return idf * tf * (qf.K1 + 1) / (tf + qf.K1 * (1 - qf.B + qf.B * dl / qf.AVGDL))

        found = dict(store.keyword_search(A, ["appl", "appl"], 10))  # a repeated query term counts once
        assert found == pytest.approx({ids[0]: expected(2, 3), ids[1]: expected(1, 2)}, rel=1e-5)
    finally:
        store.close()


def test_keyword_vectors() -> None:
    vector = qf.keyword_vector("b a b")
    assert vector.indices == sorted({qf.term_index("a"), qf.term_index("b")})
    assert qf.keyword_vector("") is None and qf.keyword_vector("   ") is None
    assert qf.term_index("cat") == qf.term_index("cat") < 2**32
    assert qf.query_vector(["x", "x", "y"]).values == [1.0, 1.0]


def test_defence_in_depth_filters_tenant_and_owner(tmp_path) -> None:
    store = open_store(_settings(tmp_path))
    try:
        collection(store, A)
        put(store, A, "mine.txt", ["visible words"], [unit(1)])
        ref = store.catalog.resolve(A)[0]
        # Mis-addressed writes into acme/kb's Qdrant collection: another tenant's and bob's points.
        for tenant, owner, source in (("other", None, "theirs.txt"), ("acme", "bob", "bob.txt")):
            wrong = CollectionRef(tenant, "kb", ref.key, DIM)
            record = DocumentRecord(id=source, source=source, origin=None, title=None, media_type="text/plain",
                                    content_hash="h")
            chunk = ChunkRecord(id=f"c-{source}", position=0, text="visible words", content_hash="h", start=0,
                                end=13, terms="visibl word")
            store.index.upsert(wrong, owner, record, [chunk], unit(1)[None, :])
        for scope in (A, Scope("acme", ("kb",), "ann")):
            for found in (store.dense_search(scope, unit(1), 10), store.keyword_search(scope, ["visibl"], 10)):
                assert len(found) == 1 and not found[0][0].startswith("c-")
        assert len(store.dense_search(Scope("acme", ("kb",), "bob"), unit(1), 10)) == 2
    finally:
        store.close()


def test_writes_are_idempotent_and_checked(tmp_path) -> None:
    store = open_store(_settings(tmp_path))
    try:
        collection(store, A)
        ref = store.catalog.resolve(A)[0]
        did = put(store, A, "a.txt", ["one", "two"])
        store.index.remove_documents(ref, [did, "unknown"])
        store.index.remove_documents(ref, [did])
        store.index.delete_chunks(ref, None, ["unknown"])
        assert store.dense_search(A, unit(1), 5) == []
        missing = CollectionRef("acme", "gone", "no-such-key", DIM)
        store.index.delete_chunks(missing, None, ["x"])  # a collection never written: nothing to do
        store.index.remove_documents(missing, ["x"])
        store.index.drop(missing)
        record = DocumentRecord(id="d", source="d.txt", origin=None, title=None, media_type="text/plain",
                                content_hash="h")
        chunk = ChunkRecord(id="c", position=0, text="t", content_hash="h", start=0, end=1, terms="t")
        with pytest.raises(ModelMismatchError, match="dim"):
            store.index.upsert(ref, None, record, [chunk], np.ones((1, DIM + 1), np.float32))
    finally:
        store.close()


# -- catalogs -------------------------------------------------------------------------
def test_catalog_url_choices(tmp_path, monkeypatch) -> None:
    settings = _settings(tmp_path, catalog_url=str(tmp_path / "cat" / "catalog.sqlite"))
    store = open_store(settings)
    try:
        assert isinstance(store.catalog, SQLiteStore) and store.catalog.index_enabled  # stays complete on its own
        assert store.catalog.path == tmp_path / "cat" / "catalog.sqlite" and store.catalog.path.exists()
        assert store.admin is store.catalog and store.url.startswith("qdrant://")
    finally:
        store.close()

    calls = []

    class FakePostgres:
        def __init__(self, url, settings, *, index):
            calls.append((url, index))

    monkeypatch.setitem(sys.modules, "ragline.store.postgres", types.SimpleNamespace(PostgresStore=FakePostgres))
    settings = _settings(tmp_path, catalog_url="postgresql://u:p@db/rag")
    assert isinstance(qdrant.open_catalog(settings), FakePostgres) and calls == [("postgresql://u:p@db/rag", False)]
    with pytest.raises(ConfigError, match="RAGLINE_STORE__CATALOG_URL"):
        qdrant.open_catalog(_settings(tmp_path, catalog_url="mysql://db/x"))


# -- errors ---------------------------------------------------------------------------
def _response(status: int, body: bytes = b"{}") -> UnexpectedResponse:
    return UnexpectedResponse(status_code=status, reason_phrase="", content=body, headers=httpx.Headers())


@pytest.mark.parametrize(("exc", "kind", "message"), [
    (ResponseHandlingException(httpx.ConnectError("refused")), StoreUnavailableError, "RAGLINE_STORE__URL"),
    (ResponseHandlingException(httpx.ReadTimeout("slow")), StoreUnavailableError, "RAGLINE_STORE__URL"),
    (_response(401), StoreError, "RAGLINE_STORE__QDRANT_API_KEY"),
    (_response(503), StoreUnavailableError, "retry"),
    (_response(400, b'{"status":{"error":"Wrong input: Vector dimension error: expected dim: 8, got 11"}}'),
     ModelMismatchError, "dimension"),
    (_response(500, b'{"status":{"error":"boom"}}'), StoreError, "boom"),
    (ValueError("Wrong input: Vector dimension error: expected dim: 8, got 3"), ModelMismatchError, "dimension"),
    (RuntimeError("odd"), StoreError, "odd"),
])
def test_driver_errors_are_mapped(exc: Exception, kind: type, message: str) -> None:
    error = qdrant.mapped(exc, "Qdrant at x")
    assert type(error) is kind and re.search(message, str(error))


def test_only_a_missing_collection_counts_as_missing() -> None:
    assert qdrant._is_missing(_response(404, b'{"status":{"error":"Not found: Collection `x` doesn\'t exist!"}}'))
    assert qdrant._is_missing(ValueError("Collection ragline_x not found"))
    assert not qdrant._is_missing(_response(404, b"<html>404 Not Found</html>"))  # a wrong URL prefix


# -- server mode, against a stub speaking Qdrant's REST API ---------------------------------
class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers the few REST calls the index makes and records them."""

    requests: ClassVar[list[tuple[str, str, dict, str | None]]] = []
    collections: ClassVar[set[str]] = set()
    status = 200

    def log_message(self, *args) -> None:  # keep test output quiet
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.split("?")[0]
        self.requests.append((self.command, path, body, self.headers.get("api-key")))
        parts = path.strip("/").split("/")
        name = parts[1] if len(parts) > 1 else ""
        status, result = self.status, {"operation_id": 1, "status": "completed"}
        if status != 200:
            result = None
        elif path.endswith("/exists"):
            result = {"exists": name in self.collections}
        elif self.command == "GET" and len(parts) == 2:
            status = 404  # get_collection: only ever asked before the collection is created here
        elif self.command == "PUT" and len(parts) == 2:
            self.collections.add(name)
            result = True
        elif self.command == "DELETE" and len(parts) == 2:
            self.collections.discard(name)
            result = True
        elif path.endswith("/points/query"):
            result = {"points": [{"id": qf.point_id("c1"), "version": 0, "score": 0.5,
                                  "payload": {"chunk_id": "c1"}}]}
        error = f"Not found: Collection `{name}` doesn't exist!" if status == 404 else "stub refusal"
        data = json.dumps({"result": result, "status": "ok" if status == 200 else {"error": error},
                           "time": 0}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _answer


@pytest.fixture
def stub():
    _Stub.requests, _Stub.collections, _Stub.status = [], set(), 200
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
def test_server_mode_requests(tmp_path, stub: str) -> None:
    settings = _settings(tmp_path, qdrant_api_key="secret", ef_search=77)
    settings.store.url = stub
    store = open_store(settings)
    try:
        collection(store, A)
        put(store, A, "a.txt", ["server words"], [unit(1)])
        assert store.dense_search(A, unit(1), 3) == [("c1", 0.5)]
        store.delete_collection(A)
    finally:
        store.close()
    assert all(key == "secret" for *_, key in _Stub.requests)
    creates = [body for method, path, body, _ in _Stub.requests if method == "PUT" and path.count("/") == 2]
    assert creates[0]["sparse_vectors"]["keyword"]["modifier"] == "idf"
    assert creates[0]["vectors"]["dense"] == {"size": DIM, "distance": "Cosine"}
    indexes = {body["field_name"]: body["field_schema"] for method, path, body, _ in _Stub.requests
               if path.endswith("/index")}
    assert indexes["tenant"] == {"type": "keyword", "is_tenant": True}
    assert set(indexes) == {"tenant", "collection", "owner", "doc_id"}
    query = next(body for _, path, body, _ in _Stub.requests if path.endswith("/points/query"))
    assert query["params"]["hnsw_ef"] == 77 and query["using"] == "dense"
    assert {"key": "tenant", "match": {"value": "acme"}} in query["filter"]["must"]
    name = next(path for method, path, _, _ in _Stub.requests if method == "PUT" and path.count("/") == 2)
    assert _Stub.requests[-1][:2] == ("DELETE", name)


@pytest.mark.parametrize(("status", "kind", "message"), [(401, StoreError, "QDRANT_API_KEY"),
                                                         (503, StoreUnavailableError, "retry")])
def test_server_refusals_at_open(tmp_path, stub: str, status: int, kind: type, message: str) -> None:
    _Stub.status = status
    settings = _settings(tmp_path)
    settings.store.url = stub
    with pytest.raises(kind, match=message):
        open_store(settings)


# -- filters: the same answers as the reference backend ----------------------------------------
DIFF_DOCS = {"t": {"n": True}, "one": {"n": 1}, "onef": {"n": 1.0}, "s1": {"n": "1"}, "f": {"n": False},
             "big": {"n": 2**60}, "big1": {"n": 2**60 + 1}, "neg": {"n": -2.5}, "nul": {"n": None},
             "dash": {"my-key": "x"}, "none": {}}
DIFF_FILTERS = [{"n": 1}, {"n": 1.0}, {"n": "1"}, {"n": True}, {"n": False}, {"n": {"ne": 1}}, {"n": {"ne": True}},
                {"n": {"in": [True, "1"]}}, {"n": [1, False]}, {"n": {"gt": 0}}, {"n": {"lt": 0}}, {"n": 2**60},
                {"n": {"gte": 2**60}}, {"n": None}, {"n": {"ne": None}}, {"my-key": "x"}, {"my-key": {"ne": "x"}},
                {"n": {"gte": 0, "ne": 1}}, {"title": {"ne": "T"}}, {"page": {"in": [1, 2]}}]


def test_filters_agree_with_sqlite(tmp_path) -> None:
    stores = {"qdrant": open_store(_settings(tmp_path)),
              "sqlite": open_store(Settings(home=tmp_path / "sqlite-home"))}
    try:
        for store in stores.values():
            collection(store, A)
            for i, (source, meta) in enumerate(DIFF_DOCS.items()):
                put(store, A, source, [f"word {source}"], [unit(1, i)], metadata=meta, pages=[i % 3 or None],
                    title="T" if i % 2 else None)
        for filters in DIFF_FILTERS:
            answers = {name: ({h.source for h in s.get_hits(A, s.dense_search(A, unit(1), 50, filters))},
                              {h.source for h in s.get_hits(A, s.keyword_search(A, ["word"], 50, filters))})
                       for name, s in stores.items()}
            assert answers["qdrant"] == answers["sqlite"], filters
    finally:
        for store in stores.values():
            store.close()
