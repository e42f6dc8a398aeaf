"""The values that cross the store seam, and the constants every backend shares.

Defined once here: job states, the name pattern of tenants and collections, the
API key format. Backends, the engine, the CLI and the server import them.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models import FINISHED, JOB_STATES, NAME_PATTERN  # noqa: F401 — re-exported: defined with the data model

# -- jobs --------------------------------------------------------------------
QUEUED, PARSING, EMBEDDING, INDEXED, FAILED = JOB_STATES
RUNNING = (PARSING, EMBEDDING)
JOB_KINDS = ("file", "text")

UNCAPPED = 1 << 62
"""A tenant's running-jobs cap when it has none (claim queries compare numbers, not NULLs)."""


def caps_params(max_running: int | None, max_running_for: Mapping[str, int | None] | None) -> tuple[str, int]:
    """``claim_job``'s caps as SQL parameters: (per-tenant caps as a JSON object, the
    default cap), with "no cap" as ``UNCAPPED``."""
    caps = {t: UNCAPPED if c is None else int(c) for t, c in (max_running_for or {}).items()}
    return json.dumps(caps), UNCAPPED if max_running is None else int(max_running)


# -- shared rate buckets and kept uploads (Admin.draw_tokens, Admin.put_upload) ----
UPLOAD_PART = 1024 * 1024
"""Kept uploads are stored in parts of at most this many bytes."""

KEPT_IN_CATALOG = "catalog:"
"""How a job's path names a file kept in the catalog: ``catalog:<document id>/<name>``."""


def token_wait(tokens: float, took: bool, amount: float, rate: float, debt: bool) -> float:
    """``draw_tokens``' answer from the bucket row after the draw: 0 when taken (and, with
    ``debt``, the balance is still positive), else the seconds until it would be."""
    if debt:
        return 0.0 if tokens > 0 else -tokens / rate + 1e-3
    return 0.0 if took else max(amount - tokens, 0.0) / rate + 1e-3

# -- API keys ----------------------------------------------------------------
KEY_PREFIX = "rl-"


def new_api_key() -> tuple[str, str]:
    """A new key's (id, secret): the secret is high-entropy and shown once; backends
    store its ``hash_key`` and the first characters as a prefix."""
    return "key_" + secrets.token_hex(6), KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(secret: str) -> str:
    """What a backend stores for an API key: the sha256 of the secret, never the secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CollectionRef:
    """Just enough to address a collection in an index: ``key`` is unique for the
    collection's lifetime (a re-created collection of the same name gets a new one)."""

    tenant: str
    name: str
    key: str
    dimension: int
    config: dict[str, Any] = field(default_factory=dict, compare=False)
    model_id: str = field(default="", compare=False)  # the embedding model that filled it ("" when unknown)


@dataclass(frozen=True)
class CollectionInfo:
    """A collection with its embedding model pin and its sizes."""

    tenant: str
    name: str
    model_id: str
    dimension: int
    config: dict[str, Any]
    documents: int = 0
    chunks: int = 0
    created: float = 0.0


@dataclass
class ChunkRecord:
    """A chunk ready to store: its id, text, position, and the analyzed terms the
    keyword index holds (space-separated, produced by ``ragline.analyzer``)."""

    id: str
    position: int
    text: str
    content_hash: str
    start: int
    end: int
    terms: str
    page: int | None = None
    section: str | None = None


@dataclass
class DocumentRecord:
    """A document ready to store. ``metadata`` is the user's metadata only."""

    id: str
    source: str
    origin: str | None
    title: str | None
    media_type: str
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DocumentInfo:
    """A stored document as listed or fetched."""

    id: str
    collection: str
    owner: str | None
    source: str
    origin: str | None
    title: str | None
    media_type: str
    content_hash: str
    metadata: dict[str, Any]
    state: str
    error: str | None
    chunks: int
    created: float
    updated: float


@dataclass(frozen=True)
class StoredDocument:
    """A document with its chunks and vectors, as copied between backends
    (``ragline migrate``) or replayed into a rebuilt index."""

    collection: str
    owner: str | None
    record: DocumentRecord
    chunks: list[ChunkRecord]
    vectors: Any  # np.ndarray (n, dimension) float32


@dataclass(frozen=True)
class ApiKeyInfo:
    """A tenant's API key as stored: never the secret itself."""

    id: str
    tenant: str
    label: str | None
    prefix: str
    created: float
    last_used: float | None = None
    owner: str | None = None
    """Set for a key bound to one user of the tenant: every request made with it acts
    as that owner (shared documents plus the owner's own), whatever it names."""


KEY_COLUMNS = ("id", "tenant", "label", "prefix", "created", "last_used", "owner")
"""ApiKeyInfo's fields in order: backends select these columns and build ``ApiKeyInfo(*row)``."""


@dataclass(frozen=True)
class TenantUsage:
    """What a tenant stores, for quotas: documents, chunks, and bytes (chunk text as
    UTF-8 plus vectors as float32, summed per document when it is written)."""

    documents: int = 0
    chunks: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class StoredKey:
    """An API key row as copied between backends: the hash, never the secret."""

    info: ApiKeyInfo
    hash: str
    revoked: float | None


@dataclass(frozen=True)
class JobInfo:
    """One background ingestion job (one uploaded file or text document).

    A claimed job carries a lease: ``worker`` holds it until ``lease_until``; a
    worker that dies stops renewing it, and another worker claims the job again."""

    id: str
    tenant: str
    collection: str
    owner: str | None
    doc_id: str
    source: str
    kind: str  # one of JOB_KINDS
    path: str  # the kept upload the job reads
    state: str  # one of JOB_STATES
    done: int
    total: int
    error: str | None
    tries: int
    not_before: float
    created: float
    updated: float
    started: float | None
    finished: float | None
    worker: str | None = None
    lease_until: float | None = None


JOB_COLUMNS = ("id", "tenant", "collection", "owner", "doc_id", "source", "kind", "path", "state", "done", "total",
               "error", "tries", "not_before", "created", "updated", "started", "finished", "worker", "lease_until")
"""JobInfo's fields in order: backends select these columns and build ``JobInfo(*row)``."""

JOB_UPDATABLE = frozenset({"state", "done", "total", "error", "tries", "not_before", "started", "finished", "path"})


def stored_bytes(chunks: list[ChunkRecord], vectors: Any) -> int:
    """What a document costs against the tenant's ``stored_mb`` quota: its chunks' text
    as UTF-8 plus its vectors as float32 (one definition for every backend)."""
    return sum(len(c.text.encode("utf-8", "surrogatepass")) for c in chunks) + 4 * int(getattr(vectors, "size", 0))
