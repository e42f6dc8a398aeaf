"""Qdrant as ragline's search index, paired with a catalog (SQLite or PostgreSQL)
that stays the system of record.

Layout: one Qdrant collection per ragline collection, named
``{prefix}_{sha256(CollectionRef.key)[:32]}`` and created on the first upsert (a
missing one simply has no results). The reason is keyword search: Qdrant's
``Modifier.IDF`` computes document frequencies over a whole Qdrant collection, and
ragline promises that one tenant's text never shifts another's BM25 scores, so
each ragline collection needs its own. Every point still carries ``tenant``,
``collection`` and ``owner`` (null when shared) in its payload, and every search
filters on them (``filters.scope_conditions``) as defence in depth.

Points (``filters``): id = uuid5 of the chunk id; a named dense vector
``dense`` (cosine, HNSW on a server, searched with ``hnsw_ef = store.ef_search``)
whose score is the cosine similarity; a named sparse vector ``keyword`` with
``Modifier.IDF`` that makes Qdrant's score exactly BM25.

Local mode (``qdrant:///dir``, ``qdrant://:memory:``) is Qdrant's brute-force
Python implementation, for tests and small data: it locks its directory and is
not thread-safe, so a process keeps one client per path (``_LOCAL``) and
serialises calls to it. Server clients (``qdrant://host:6333``, ``http(s)://``)
are thread-safe and used without a lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import threading
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from ...errors import ConfigError, ModelMismatchError, RaglineError, StoreError, StoreUnavailableError
from ...models import Scope
from ..base import Scored
from ..facade import Store
from ..filters import Filter
from ..types import ChunkRecord, CollectionRef, DocumentRecord
from .filters import DENSE, KEYWORD, compile_qdrant, make_point, point_id, query_vector, scope_conditions

if TYPE_CHECKING:
    from ..postgres import PostgresStore
    from ..sqlite import SQLiteStore

try:  # only a gRPC client raises these; qdrant-client depends on grpcio
    import grpc

    _GRPC = True
except ImportError:  # pragma: no cover
    _GRPC = False  # then ``grpc`` is never read

BATCH = 128  # points per upsert request
_SETTING = "RAGLINE_STORE__URL"
_INDEXED = {  # payload indexes a server builds: filters on these never scan
    "tenant": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
    "collection": models.PayloadSchemaType.KEYWORD,
    "owner": models.PayloadSchemaType.KEYWORD,
    "doc_id": models.PayloadSchemaType.KEYWORD,
}


# -- connections ----------------------------------------------------------------------
class _Connection:
    """A client, its lock (local mode only) and the error mapping of every call."""

    def __init__(self, client: QdrantClient, where: str, *, local: str | None = None) -> None:
        self.client = client
        self.where = where
        self.local = local  # the registry key of a local-mode client, None for a server
        self.lock: Any = threading.RLock() if local else contextlib.nullcontext()
        self.users = 0

    def call(self, method: str, *args: Any, missing: Any = ..., **kwargs: Any) -> Any:
        """``client.method(*args, **kwargs)``, raising ragline errors only. With
        ``missing`` given, a missing collection returns it instead of raising."""
        try:
            with self.lock:
                return getattr(self.client, method)(*args, **kwargs)
        except RaglineError:
            raise
        except Exception as exc:
            if missing is not ... and _is_missing(exc):
                return missing
            raise mapped(exc, self.where) from exc


_LOCAL: dict[str, _Connection] = {}
_LOCAL_LOCK = threading.Lock()


def _local(location: str) -> _Connection:
    """The process's one client for a local path (or ``:memory:``), shared and counted."""
    with _LOCAL_LOCK:
        conn = _LOCAL.get(location)
        if conn is None:
            try:
                if location == ":memory:":
                    client = QdrantClient(location=":memory:", force_disable_check_same_thread=True)
                else:
                    client = QdrantClient(path=location, force_disable_check_same_thread=True)
            except Exception as exc:  # e.g. the directory is locked by another process
                raise StoreUnavailableError(f"{_SETTING}: cannot open Qdrant local mode at {location}: {exc}. "
                                            "Local mode serves one process; use a Qdrant server for more") from exc
            conn = _LOCAL[location] = _Connection(client, f"Qdrant local mode at {location}", local=location)
        conn.users += 1
        return conn


def _release(conn: _Connection) -> None:
    if not conn.local:
        conn.client.close()
        return
    with _LOCAL_LOCK:
        conn.users -= 1
        if conn.users <= 0:
            _LOCAL.pop(conn.local, None)
            with conn.lock:
                conn.client.close()  # releases the directory lock for other processes


def _is_missing(exc: Exception) -> bool:
    if isinstance(exc, UnexpectedResponse):  # not a proxy's 404 for a wrong URL prefix
        return exc.status_code == 404 and b"ollection" in exc.content
    if _GRPC and isinstance(exc, grpc.RpcError):
        return exc.code() == grpc.StatusCode.NOT_FOUND
    text = str(exc)
    return isinstance(exc, ValueError) and text.startswith("Collection ") and text.endswith(" not found")


def mapped(exc: BaseException, where: str) -> StoreError:
    """A qdrant-client / httpx / gRPC / local-mode exception → a ragline error."""
    source = exc.source if isinstance(exc, ResponseHandlingException) else exc
    text = str(source)
    if isinstance(source, httpx.TransportError | ConnectionError | TimeoutError):
        return StoreUnavailableError(f"{where} cannot be reached ({type(source).__name__}: {text or 'no answer'}); "
                                     f"check {_SETTING} and that Qdrant is running")
    if _GRPC and isinstance(source, grpc.RpcError):
        code = source.code()
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return StoreUnavailableError(f"{where} cannot be reached ({code.name}); check {_SETTING}")
        text = f"{code.name}: {source.details()}"
    if isinstance(source, UnexpectedResponse):
        if source.status_code in (401, 403):
            return StoreError(f"{where} refused the API key ({source.status_code}); "
                              "check RAGLINE_STORE__QDRANT_API_KEY")
        if source.status_code in (429, 502, 503, 504):
            return StoreUnavailableError(f"{where} is unavailable ({source.status_code}); retry later")
        text = source.content.decode("utf-8", "replace")[:300]
    if "dimension" in text.lower():
        return ModelMismatchError(f"{where}: {text}")
    return StoreError(f"{where}: {type(source).__name__}: {text}")


# -- the index ------------------------------------------------------------------------
class QdrantIndex:
    """``SearchIndex`` over Qdrant: one Qdrant collection per ragline collection
    (see the module docstring); written by the facade alongside the catalog."""

    external = True

    def __init__(self, conn: _Connection, *, prefix: str = "ragline", ef_search: int = 100) -> None:
        self._conn = conn
        self.prefix = prefix
        self.ef_search = ef_search
        self._known: set[str] = set()  # collections seen to exist (skips a round trip per write)
        self._closed = False

    def name(self, ref: CollectionRef) -> str:
        """The Qdrant collection of a ragline collection: keys are unique per lifetime."""
        return f"{self.prefix}_{hashlib.sha256(ref.key.encode('utf-8')).hexdigest()[:32]}"

    @property
    def client(self) -> QdrantClient:
        """The underlying client, for operators' tools and tests."""
        return self._conn.client

    # -- search ------------------------------------------------------------------
    def dense_search(self, scope: Scope, collections: list[CollectionRef], vector: np.ndarray, k: int,
                     filters: Filter = ()) -> Scored:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        for ref in collections:
            if query.shape[0] != ref.dimension:
                raise ModelMismatchError(f"query vector has dim {query.shape[0]}, collection {ref.name!r} "
                                         f"has {ref.dimension}")
        # Local mode is exact and warns about HNSW parameters; HNSW needs ef >= k to return k.
        params = None if self._conn.local else models.SearchParams(hnsw_ef=max(self.ef_search, k))
        return self._search(scope, collections, query.tolist(), DENSE, k, filters, params)

    def keyword_search(self, scope: Scope, collections: list[CollectionRef], terms: list[str], k: int,
                       filters: Filter = ()) -> Scored:
        if not terms:
            return []
        if scope.owner is not None:
            seen: Scored = []
            for ref in collections:
                if ref.tenant != scope.tenant:
                    raise StoreError("a collection of another tenant was passed to a scoped search")
                if self._others_private(ref, scope.owner):
                    seen.extend(self._keyword_seen(scope, ref, terms, k, filters))
                else:
                    seen.extend(pair for pair in self._search(scope, [ref], query_vector(terms), KEYWORD, k, filters,
                                                              None) if pair[1] > 0)
            seen.sort(key=lambda pair: -pair[1])
            return seen[:k]
        # A score of 0 means no shared term; Qdrant's sparse search does not return those anyway.
        found = self._search(scope, collections, query_vector(terms), KEYWORD, k, filters, None)
        return [(cid, score) for cid, score in found if score > 0]

    def _others_private(self, ref: CollectionRef, owner: str) -> bool:
        """Whether the collection holds points of an owner other than ``owner``."""
        others = models.Filter(must_not=[models.IsNullCondition(is_null=models.PayloadField(key="owner")),
                                         models.IsEmptyCondition(is_empty=models.PayloadField(key="owner")),
                                         models.FieldCondition(key="owner", match=models.MatchValue(value=owner))])
        counted = self._conn.call("count", self.name(ref), count_filter=others, exact=True, missing=None)
        return counted is not None and counted.count > 0

    def _keyword_seen(self, scope: Scope, ref: CollectionRef, terms: list[str], k: int,
                      filters: Filter) -> Scored:
        """BM25 as ``Modifier.IDF`` scores it, with N and each term's document frequency
        counted over the points the scope may read instead of the whole Qdrant collection:
        those included other owners' private chunks, so an owner's scores told whether
        they contained a word (issue 29). Each point's stored weights are read back."""
        name = self.name(ref)
        seen = scope_conditions(scope, ref) + [models.HasVectorCondition(has_vector=KEYWORD)]
        counted = self._conn.call("count", name, count_filter=models.Filter(must=seen), exact=True, missing=None)
        n = counted.count if counted is not None else 0
        if not n:
            return []
        user = compile_qdrant(filters)
        scores: dict[str, float] = {}
        for index in query_vector(terms).indices:
            single = models.SparseVector(indices=[index], values=[1.0])
            held = self._conn.call("query_points", name, query=single, using=KEYWORD, query_filter=models.Filter(
                must=seen), limit=n, with_payload=["chunk_id"], with_vectors=[KEYWORD], missing=None)
            points = held.points if held is not None else []
            if not points:
                continue
            idf = math.log(1 + (n - len(points) + 0.5) / (len(points) + 0.5))
            kept = None
            if user:
                found = self._conn.call("query_points", name, query=single, using=KEYWORD, query_filter=models.Filter(
                    must=seen + user), limit=n, with_payload=["chunk_id"], with_vectors=False, missing=None)
                kept = {p.payload["chunk_id"] for p in found.points} if found is not None else set()
            for point in points:
                chunk_id = point.payload["chunk_id"]
                if kept is not None and chunk_id not in kept:
                    continue
                vector = point.vector[KEYWORD] if isinstance(point.vector, dict) else None
                weight = dict(zip(vector.indices, vector.values)).get(index, 0.0) if vector is not None else 0.0
                if weight > 0:
                    scores[chunk_id] = scores.get(chunk_id, 0.0) + idf * weight
        return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))[:k]

    def _search(self, scope: Scope, collections: list[CollectionRef], query: Any, using: str, k: int,
                filters: Filter, params: models.SearchParams | None) -> Scored:
        if k <= 0:
            return []
        user = compile_qdrant(filters)
        results: Scored = []
        for ref in collections:
            if ref.tenant != scope.tenant:
                raise StoreError("a collection of another tenant was passed to a scoped search")
            flt = models.Filter(must=scope_conditions(scope, ref) + user)
            response = self._conn.call("query_points", self.name(ref), query=query, using=using, query_filter=flt,
                                       limit=k, search_params=params, with_payload=["chunk_id"], with_vectors=False,
                                       missing=None)
            if response is not None:
                results.extend((p.payload["chunk_id"], float(p.score)) for p in response.points)
        results.sort(key=lambda pair: -pair[1])
        return results[:k]

    # -- writes ------------------------------------------------------------------
    def upsert(self, collection: CollectionRef, owner: str | None, document: DocumentRecord,
               chunks: list[ChunkRecord], vectors: np.ndarray) -> None:
        if len(chunks) != len(vectors):
            raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors for {document.source}")
        if len({c.id for c in chunks}) != len(chunks):
            # Checked here, before any point is written: the catalog would refuse it after.
            raise StoreError(f"duplicate chunk ids in {document.source}")
        if not chunks:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != collection.dimension:
            raise ModelMismatchError(f"vectors have dim {matrix.shape[-1]}, collection {collection.name!r} "
                                     f"has {collection.dimension}")
        points = [make_point(collection, owner, document, chunk, vector) for chunk, vector in zip(chunks, matrix)]
        name = self._ensure(collection)
        for i in range(0, len(points), BATCH):
            batch = points[i:i + BATCH]
            done = self._conn.call("upsert", name, points=batch, wait=True, missing=None)
            if done is None:  # dropped since we saw it (another process): create it again, once
                self._known.discard(name)
                self._ensure(collection)
                self._conn.call("upsert", name, points=batch, wait=True)

    def _ensure(self, ref: CollectionRef) -> str:
        """Create the Qdrant collection (and, on a server, its payload indexes) if needed."""
        name = self.name(ref)
        if name in self._known:
            return name
        info = self._conn.call("get_collection", name, missing=None)
        if info is None:
            try:
                self._conn.call(
                    "create_collection", name,
                    vectors_config={DENSE: models.VectorParams(size=ref.dimension, distance=models.Distance.COSINE)},
                    sparse_vectors_config={KEYWORD: models.SparseVectorParams(modifier=models.Modifier.IDF)})
            except StoreError as exc:
                if "already exists" not in str(exc):  # another process won the race: fine
                    raise
        # Local mode has no payload indexes (it scans); a server needs them for fast filters.
        schema = {} if info is None else (info.payload_schema or {})
        for field, index in ({} if self._conn.local else _INDEXED).items():
            if field not in schema:
                self._conn.call("create_payload_index", name, field_name=field, field_schema=index, wait=True)
        self._known.add(name)
        return name

    def delete_chunks(self, collection: CollectionRef, owner: str | None, chunk_ids: list[str]) -> None:
        name = self.name(collection)
        for i in range(0, len(chunk_ids), 1000):
            selector = models.PointIdsList(points=[point_id(c, owner) for c in chunk_ids[i:i + 1000]])
            self._conn.call("delete", name, points_selector=selector, wait=True, missing=None)

    def remove_documents(self, collection: CollectionRef, doc_ids: list[str]) -> None:
        name = self.name(collection)
        for i in range(0, len(doc_ids), 1000):
            flt = models.Filter(must=[
                models.FieldCondition(key="tenant", match=models.MatchValue(value=collection.tenant)),
                models.FieldCondition(key="doc_id", match=models.MatchAny(any=doc_ids[i:i + 1000]))])
            self._conn.call("delete", name, points_selector=models.FilterSelector(filter=flt), wait=True,
                            missing=None)

    def drop(self, collection: CollectionRef) -> None:
        name = self.name(collection)
        self._known.discard(name)
        self._conn.call("delete_collection", name, missing=None)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _release(self._conn)


# -- opening ----------------------------------------------------------------------------
def connect(url: str, settings: Any) -> _Connection:
    """A connection for a store URL; ``ConfigError`` for a malformed one, and for a
    server, one request to check it answers (``StoreUnavailableError`` otherwise)."""
    store = settings.store
    if "://" not in url:
        raise ConfigError(f"{_SETTING}: {url!r} is not a Qdrant URL")
    scheme, rest = url.split("://", 1)
    scheme = scheme.lower()
    if scheme == "qdrant" and rest == ":memory:":
        return _local(":memory:")
    if scheme == "qdrant" and rest.startswith(("/", "~")):
        return _local(str(Path(rest).expanduser().resolve()))
    parts = urlsplit(url)
    try:
        _ = parts.port  # validates it
    except ValueError as exc:
        raise ConfigError(f"{_SETTING}: bad port in {url!r}") from exc
    if scheme not in ("qdrant", "http", "https") or not parts.hostname:
        raise ConfigError(f"{_SETTING}: {url!r} is not a Qdrant URL; use qdrant:///abs/dir, qdrant://:memory:, "
                          "qdrant://host:6333 or http(s)://host:6333")
    if scheme == "qdrant":
        if parts.path not in ("", "/"):
            raise ConfigError(f"{_SETTING}: qdrant://host:port takes no path (local mode is qdrant:///abs/dir)")
        server = f"http://{parts.netloc}"
    else:
        server = url  # the client defaults the port to 6333 and takes a path as its prefix
    options = {"url": server, "api_key": store.qdrant_api_key, "check_compatibility": False}
    # The probe waits connect_timeout; requests afterwards get statement_timeout_s. The
    # client warns about an API key over http: once (below) is enough.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            probe = _Connection(QdrantClient(timeout=math.ceil(store.connect_timeout), **options),
                                f"Qdrant at {server}")
        try:
            probe.call("collection_exists", f"{store.qdrant_prefix}_probe")
        finally:
            probe.client.close()
        client = QdrantClient(timeout=math.ceil(store.statement_timeout_s), **options)
    except ValueError as exc:  # the client's own URL checks
        raise ConfigError(f"{_SETTING}: {url!r}: {exc}") from exc
    return _Connection(client, f"Qdrant at {server}")


def open_catalog(settings: Any) -> SQLiteStore | PostgresStore:
    """The catalog a Qdrant index pairs with (``store.catalog_url``); it keeps every
    other role (admin, conversations, records, counters) too."""
    from .. import sqlite_path
    from ..sqlite import SQLiteStore

    url = settings.store.catalog_url
    scheme = url.split("://", 1)[0].lower() if url and "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        try:
            from ..postgres import PostgresStore  # lazily: only this pairing needs psycopg
        except ImportError as exc:
            if (exc.name or "").startswith("ragline"):  # our own bug, not a missing extra
                raise
            raise ConfigError(f"RAGLINE_STORE__CATALOG_URL names PostgreSQL, which needs psycopg and pgvector: "
                              f"pip install 'ragline[postgres]' ({exc})") from exc
        return PostgresStore(url, settings, index=False)
    if scheme not in ("", "sqlite"):
        raise ConfigError(f"RAGLINE_STORE__CATALOG_URL: unknown scheme {scheme!r}; use a path, sqlite:///path "
                          "or postgresql://…")
    # SQLite keeps its FTS5 rows up to date even here (cheap): the file stays a complete
    # store on its own, so switching the URL back to SQLite needs no rebuild.
    return SQLiteStore(sqlite_path(url, settings), busy_timeout_s=settings.store.sqlite_busy_timeout_s)


def open_backend(url: str, settings: Any) -> Store:
    """The registry's entry: a catalog (``open_catalog``) with a Qdrant index."""
    from .. import redact

    conn = connect(url, settings)
    try:
        catalog = open_catalog(settings)
    except BaseException:
        _release(conn)
        raise
    index = QdrantIndex(conn, prefix=settings.store.qdrant_prefix, ef_search=settings.store.ef_search)
    return Store(replace(catalog.roles(), index=index), url=redact(url))
