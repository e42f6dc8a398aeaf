"""Typed settings, built once at the edge (CLI, server, tests) and passed down.

Sources, highest first: explicit arguments, ``RAGLINE_*`` environment variables
(nested with ``__``, e.g. ``RAGLINE_CHUNKING__SIZE=800``), a TOML file
(``RAGLINE_CONFIG`` or ``./ragline.toml``), then the defaults below.

ragline's own settings are read only here. Three modules below read ``os.environ``
for something else: ``embed/registry.py`` and ``answer/generators/registry.py`` read the
providers' conventional variables (``OPENAI_API_KEY``, ``OLLAMA_HOST``…) where a
provider is built (``providers/endpoint.py`` resolves them), as its own tools do (their ``env`` argument replaces them in
tests); ``cli/__init__.py`` peeks at ``RAGLINE_EMBEDDER__NAME`` before any settings
exist, only to start importing ONNX Runtime early (a guess the settings overrule).
Child processes inherit the environment (``children.py``, ``eval/bench.py``) and
build their settings from it here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)


class ChunkingSettings(BaseModel):
    """How documents are split. ``size``/``overlap`` are in ``unit``s. With ``tokens``
    (the embedding model's), a chunk is capped at what the model reads (its window
    less the title line), so a short document is one chunk and overlap is only paid
    where a document is split (docs/embedders.md); an embedder without a tokenizer
    cannot use it. The default stays 1,000 characters: on SciFact 256-token chunks
    saved 6 % of the tokens embedded and cost 0.006 nDCG@10."""

    method: Literal["recursive", "sentence", "paragraph", "none"] = "recursive"
    size: int = Field(default=1000, ge=50, le=20000)
    overlap: int = Field(default=200, ge=0)
    unit: Literal["chars", "tokens"] = "chars"

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingSettings:
        if self.overlap >= self.size:
            raise ValueError(f"chunking.overlap ({self.overlap}) must be smaller than chunking.size ({self.size})")
        return self


class EmbedderSettings(BaseModel):
    """The embedding model (docs/embedders.md). ``name`` picks a provider from the
    registry (``ragline.embed.EMBEDDERS``); ``model``, ``base_url`` and ``api_key``
    default to the provider's own (keys also from its usual variable, e.g.
    ``OPENAI_API_KEY``), ``path`` is a local model folder or hub id (``local``)."""

    name: str = "minilm"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    path: str | None = None
    dimensions: int | None = Field(default=None, ge=1, le=8192)  # output dimensionality (OpenAI v3, Gemini)
    batch_size: int = Field(default=32, ge=1, le=1024)
    threads: int | None = None
    # Local ONNX models (minilm, local): "int8" (default) quantizes the encoder's MatMuls per
    # channel (2-3x faster on CPU, cosine >= 0.99 to fp32); "fp32" is the exact graph.
    precision: Literal["fp32", "int8"] = "int8"
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    retry_backoff: float = Field(default=0.5, ge=0.0, le=30.0)
    retry_max_wait: float = Field(default=8.0, ge=0.0, le=120.0)
    # Remote embedders: one call's deadline across its attempts and waits (None: attempts x
    # timeout), and the largest reply read (256 vectors of 3,072 dimensions as JSON: ~16 MB).
    deadline_s: float | None = Field(default=120.0, gt=0, le=3600)
    max_reply_mb: float = Field(default=64.0, gt=0, le=1024)
    query_cache_size: int = Field(default=1024, ge=0, le=1_000_000)  # query vectors kept in memory (0: off)
    # A chunk longer than the model's input limit: "split" it before embedding; "warn" (the model
    # reads its head); or "head" (the fast preset): chunks are not capped at the window, the model
    # reads a long chunk's head and the keyword index all of it, counted in the ingest summary
    # (``headed``) instead of a warning per document (docs/embedders.md).
    overflow: Literal["split", "warn", "head"] = "split"
    # Local models (minilm, local): read at most this many tokens of each text (None: all the
    # model can, 254 for MiniLM). Fewer is faster and reads less of a long chunk (the fast preset).
    max_tokens: int | None = Field(default=None, ge=16, le=8192)
    # Local models (minilm, local): where the ONNX graphs built from their weights (and hub
    # downloads) are kept. None: the user's cache directory (``~/.cache/ragline/models``), one
    # copy per machine and user whatever RAGLINE_HOME is, as pip and Hugging Face do.
    cache_dir: Path | None = None

    def model_cache(self) -> Path:
        """The directory ``cache_dir`` names, or the user's cache directory's ``ragline/models``."""
        return self.cache_dir if self.cache_dir is not None else Path(platformdirs.user_cache_dir("ragline")) / "models"


SearchMode = Literal["hybrid", "dense", "keyword"]
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)


class SearchSettings(BaseModel):
    """Retrieval. The defaults were chosen on the train splits of four sets and kept by
    leave-one-set-out over nine (docs/quality.md): a convex combination of min-max
    normalised dense and keyword scores (``weighted``, dense weight 0.6) over 500
    candidates per list; per-query ``confidence`` fusion and feedback measured, off by default."""

    mode: SearchMode = "hybrid"
    k: int = Field(default=10, ge=1, le=1000)
    fusion: Literal["rrf", "weighted", "dbsf", "adaptive", "confidence"] = "weighted"  # ragline.retrieve.fusion.FUSIONS
    rrf_k: int = Field(default=60, ge=1)
    # ``confidence`` fusion: the dense weight moved per query by slope × (dense's top z-score
    # − keyword's), each over the lists' first ``confidence_depth`` scores (ragline.retrieve.fusion).
    confidence_slope: float = Field(default=0.5, ge=0.0, le=10.0)
    confidence_depth: int = Field(default=20, ge=2, le=1000)
    dense_weight: float = Field(default=0.6, ge=0.0, le=1.0)  # chosen on four train sets (docs/quality.md)
    overfetch: int = Field(default=500, ge=1, le=10000)
    doc_aggregate: Literal["max", "sum"] = "max"
    # Re-sort the top ``rerank_depth`` hits: by cosine(question, chunk), or with a cross-encoder
    # from ``rerank_model`` (a local folder: tokenizer.json + onnx/model.onnx; none ships).
    rerank: Literal["none", "cosine", "cross-encoder"] = "none"
    rerank_model: str | None = None
    rerank_depth: int = Field(default=50, ge=1, le=1000)
    # Pseudo-relevance feedback (ragline.retrieve.feedback): a second search from the first
    # one's top ``feedback_docs`` chunks: RM3-like expansion terms (keyword), Rocchio (dense).
    feedback: Literal["none", "keyword", "dense", "both"] = "none"
    feedback_docs: int = Field(default=5, ge=1, le=100)
    feedback_terms: int = Field(default=10, ge=1, le=64)
    feedback_keyword_weight: float = Field(default=0.3, ge=0.0, le=1.0)  # λ: expansion list's share
    feedback_dense_weight: float = Field(default=0.5, ge=0.0, le=10.0)  # β: q + β·mean(top vectors)
    # Keyword analysis (stopwords, Snowball stemmer) of new collections, e.g. "spanish" or "es";
    # None: detected from a collection's first document. Kept with the collection once set.
    language: str | None = None


class LimitSettings(BaseModel):
    """Guards against hostile files: each file is parsed in a child process."""

    # The largest file the parser reads, however it came (CLI ingest, sync, an upload's job):
    # larger ones are refused unread. ``max_file_mb`` (RAGLINE_LIMITS__MAX_FILE_MB) is its
    # deprecated name, still read.
    max_parse_file_mb: float = Field(default=100.0, gt=0,
                                     validation_alias=AliasChoices("max_parse_file_mb", "max_file_mb"))
    parse_timeout_s: float = Field(default=120.0, gt=0)
    parse_memory_mb: int = Field(default=4096, ge=256)  # each parser process's address space
    # Files parsed at once, each in its own process: one slow file (another tenant's, say)
    # holds one of them, not every job worker behind a single parser.
    parse_workers: int = Field(default=2, ge=1, le=32)
    # HTML is bounded by structure before it is parsed: the HTML5 tree builder is quadratic
    # in nesting (20,000 nested <div>s: 1.5 s; 200,000: minutes). Browsers' tree builders
    # stop nesting at 512; no real page we hold comes near either limit.
    max_html_depth: int = Field(default=512, ge=16, le=10_000_000)
    max_html_nodes: int = Field(default=1_000_000, ge=1000)  # start tags
    # What one file may expand to (upload bytes say little: a 477 KB .docx held 200,000
    # chunks). The 31 real PDFs in shared/testdata need at most 142,392 characters and
    # 217 chunks; SciFact's corpus.jsonl, one file, 7.26 M characters and 10,459 chunks.
    max_extracted_chars: int = Field(default=25_000_000, ge=1000)
    max_chunks_per_file: int = Field(default=50_000, ge=1)
    # Document metadata is copied into every hit: bounded at ingest, the rest dropped with a warning.
    max_metadata_keys: int = Field(default=64, ge=1)
    max_metadata_key_chars: int = Field(default=128, ge=1)
    max_metadata_value_chars: int = Field(default=2048, ge=16)  # one value as JSON
    max_metadata_chars: int = Field(default=8192, ge=64)  # all of a document's metadata as JSON


class GeneratorSettings(BaseModel):
    """Answer generation. Provider keys from the usual variables (OPENAI_API_KEY, …)
    are resolved at the edge by the answer module's factory, not here."""

    name: str = "extractive"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float = Field(default=60.0, gt=0)
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    max_retries: int = Field(default=3, ge=0, le=10)
    retry_backoff: float = Field(default=0.5, ge=0.0, le=30.0)  # first wait (s); doubles per retry, with jitter
    retry_max_wait: float = Field(default=8.0, ge=0.0, le=120.0)  # cap on one wait, Retry-After included
    max_output_tokens: int = Field(default=512, ge=16, le=8192)
    # One call's deadline across its attempts and the waits between them, streamed answers
    # read to the end included (None: attempts x timeout). An answer past twice
    # max_output_tokens (about 4 characters a token) or max_reply_mb on the wire is cut there
    # and the answer falls back to extractive: a provider ignoring max_tokens cannot fill memory.
    deadline_s: float | None = Field(default=120.0, gt=0, le=3600)
    max_reply_mb: float = Field(default=4.0, gt=0, le=1024)
    # Generators a request may name (RAGLINE_GENERATOR__ALLOWED="extractive,openai"); None:
    # ``name`` and extractive. base_url, api_key and model belong to ``name`` alone: any other
    # allowed provider gets its own default URL and its own key variable, never these.
    allowed: Annotated[tuple[str, ...] | None, NoDecode] = None

    @model_validator(mode="before")
    @classmethod
    def _allowed_from_string(cls, value: object) -> object:
        # A comma-separated string or a JSON list (environment, TOML) as well as a list.
        raw = value.get("allowed") if isinstance(value, dict) else None
        if isinstance(value, dict) and isinstance(raw, str):
            items = json.loads(raw) if raw.lstrip().startswith("[") else raw.split(",")
            names = (str(n).strip().lower() for n in items)
            return {**value, "allowed": tuple(n for n in names if n)}
        return value


class AnswerSettings(BaseModel):
    """Context building, abstaining and grounding checks (see docs/answers.md)."""

    max_tokens: int = Field(default=2000, ge=100, le=4000)
    max_sources: int = Field(default=5, ge=1, le=10)
    # Abstain when no hit's cosine(question, chunk) reaches this floor. None: the floor
    # measured for the collection's embedding model (the embedder registry, ragline.embed.registry).
    relevance_floor: float | None = Field(default=None, ge=-1.0, le=1.0)
    # ... lowered per collection to what questions about nothing score there (answer/floor.py).
    calibrate_floor: bool = True
    candidates: int = Field(default=10, ge=1, le=100)  # hits retrieved before the context builder
    neighbours: int = Field(default=0, ge=0, le=3)  # adjacent chunks added to each source when they fit
    # Claims that fail the check (answer.claims: a wrong figure, a figure for the wrong
    # thing, a name the source lacks, no source at all) are named back to the model once,
    # then dropped; when nothing checked is left the answer is quoted from the sources.
    # False ships them flagged in ``grounding`` instead.
    drop_unsupported: bool = True
    # Abstain when the question names a duration ("5-year") or a name ("Premium Metal")
    # that no kept source states (answer/constraints.py; measured in docs/answers.md).
    check_constraints: bool = True
    # ... and when the best relevance is within this margin of the floor while the
    # sources hold under half of the question's terms (0: off).
    lexical_margin: float = Field(default=0.06, ge=0.0, le=1.0)


class TracingSettings(BaseModel):
    """OpenTelemetry spans for each stage (``ragline.tracing``, docs/integrations.md): off
    unless ``endpoint`` is set (exported there by OTLP/HTTP, e.g.
    ``http://localhost:4318/v1/traces``) or ``enabled`` (sent to the application's own
    tracer provider). Needs ``pip install 'ragline[otel]'``."""

    enabled: bool = False
    endpoint: str | None = None
    service_name: str = Field(default="ragline", min_length=1, max_length=200)


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # App processes behind one port (server/front.py): each tenant's requests go to one of
    # them, so a tenant flooding the server shares no interpreter with the others. 1: this
    # process serves the app itself (also with a store only one process may open).
    processes: int = Field(default=2, ge=1, le=64)
    admin_key: str | None = None
    job_workers: int = Field(default=1, ge=0, le=32)  # 0: this process only serves; `ragline worker` ingests
    # One more job worker beside them that takes only jobs of tenants with none running:
    # another tenant's small upload passes a long one instead of waiting for it.
    job_idle_tenant_lane: bool = True
    job_lease_s: float = Field(default=30.0, ge=1.0, le=3600.0)  # a dead worker's job is taken again after this
    # Ingestion in a child process at a lower CPU priority (server/worker_process.py), so one
    # tenant's upload does not slow others' requests; False runs the workers as threads here.
    job_process: bool = True
    job_nice: int = Field(default=10, ge=0, le=19)
    # The job process also runs in Linux's idle scheduling class (SCHED_IDLE): it gets a core only
    # when the server's threads do not want it. Nice alone gave it ~10% of the server's weight.
    job_idle: bool = True
    # POST requests handled at once in this process, and how many of them one tenant may hold
    # (default: all but one, so another tenant always finds a slot); server/fairness.py.
    request_slots: int = Field(default=2, ge=1, le=256)
    request_slots_per_tenant: int | None = Field(default=None, ge=1, le=256)
    request_queue_per_tenant: int = Field(default=64, ge=1, le=10_000)  # waiting beyond this: 429 busy
    # Below this free space where data and uploads are written, readiness fails and uploads get 507.
    min_free_mb: float = Field(default=64.0, ge=0)
    # One uploaded file, and one upload request, refused (413) above these before anything is
    # queued. ``max_file_mb`` (RAGLINE_SERVER__MAX_FILE_MB) is the deprecated name of the first.
    max_upload_file_mb: float = Field(default=50.0, gt=0,
                                      validation_alias=AliasChoices("max_upload_file_mb", "max_file_mb"))
    max_request_mb: float = Field(default=200.0, gt=0)
    # On SIGTERM, requests in flight get this long to finish before they are cancelled.
    shutdown_timeout_s: int = Field(default=5, ge=0, le=600)
    # Where kept uploads live until their jobs (and re-ingests) need them: "local" under
    # <home>/uploads (a worker elsewhere needs that folder shared), "catalog" in the store's
    # database, "auto" the catalog when the store is PostgreSQL (server/uploads.py).
    upload_storage: Literal["auto", "local", "catalog"] = "auto"


class StoreSettings(BaseModel):
    """Where data lives, chosen by one URL (``RAGLINE_STORE__URL``):

    - unset: SQLite at ``<home>/ragline.sqlite`` (the embedded default);
    - a path, or ``sqlite:///abs/path.sqlite``: SQLite there;
    - ``postgresql://user:pass@host:5432/db``: PostgreSQL with pgvector (catalog,
      admin and indexes);
    - ``qdrant:///abs/dir`` (local mode), ``qdrant://:memory:``, ``qdrant://host:6333``
      or ``http(s)://host:6333``: Qdrant for the indexes, with the catalog and admin
      data at ``catalog_url`` (a SQLite path or a PostgreSQL URL; default SQLite in home).
    """

    url: str | None = None
    catalog_url: str | None = None
    pool_size: int = Field(default=10, ge=1, le=200)  # PostgreSQL connections per process
    connect_timeout: float = Field(default=5.0, gt=0, le=120)
    statement_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    # SQLite: how long a write waits for the file's write lock (held by another process, say)
    # before the request gets a 503; a 10,000-chunk document holds it 0.4 s. Readiness probes
    # the lock with a shorter wait (server/routes/health.py).
    sqlite_busy_timeout_s: float = Field(default=5.0, gt=0, le=300)
    ef_search: int = Field(default=200, ge=10, le=1000)  # HNSW search breadth (pgvector, Qdrant); 100 gave recall@10 0.946 at 100k chunks
    # PostgreSQL: the most postings one keyword search reads in a collection. Past it, the
    # likeliest chunks of what was read are scored whole and the rest is given up, so a
    # query of a tenant's commonest terms costs a bounded read: 64 of them took 4.8 s at
    # a million chunks, 0.8 s with this budget. 300 SciFact questions read 0.2 million
    # postings p50 there (1.04 million at most) and kept every top 10 and top 100 of
    # exact search with this budget; 0.999 of the top 10 with half of it (docs/scaling.md).
    keyword_budget: int = Field(default=1_000_000, ge=10_000)
    # SQLite: collections of this many chunks or more answer dense search from an HNSW side
    # index (in <db>.ann/) instead of exact vectors (docs/scaling.md).
    ann_above: int = Field(default=50_000, ge=1)
    # SQLite: collections of this many chunks (or ann_above, if lower) answer keyword search
    # from a tantivy side index instead of FTS5 (FTS5 scores every posting of every term:
    # 8.8 ms p50 at SciFact's 12k chunks against 3.4 ms; docs/scaling.md).
    keyword_index_above: int = Field(default=5_000, ge=1)
    # SQLite: the most collections whose side indexes (HNSW graph, tantivy searcher, membership
    # snapshot) one process keeps loaded; the least recently searched is let go first and read
    # back from disk when searched again, so many tenants' large collections cannot pile up in
    # a server's memory (an HNSW graph holds ~1.7 KB per chunk; docs/scaling.md).
    side_indexes_loaded: int = Field(default=16, ge=1)
    # SQLite: the memory (MB) one process gives the exact-search matrices of collections below
    # ann_above (~1.6 KB a chunk at 384 dimensions: 77 MB at 50,000 chunks); the least
    # recently searched is let go first and read back from the file when searched again.
    exact_matrices_mb: int = Field(default=256, ge=1)
    # SQLite's HNSW search breadth: at a million clustered chunks recall@10 was 0.82 at 100,
    # 0.976 at 400 (0.85 ms), 0.978 at 800 (docs/scaling.md).
    ann_ef: int = Field(default=400, ge=10, le=5000)
    qdrant_api_key: str | None = None
    qdrant_prefix: str = Field(default="ragline", pattern=r"^[A-Za-z0-9_-]{1,40}$")

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: object) -> object:
        # RAGLINE_STORE=<url> (or the old RAGLINE_STORE=sqlite) as shorthand for store.url.
        if isinstance(value, str) and value.lstrip().startswith("{"):
            return json.loads(value)
        if isinstance(value, str):
            return {"url": None if value in ("", "sqlite") else value}
        return value


class TenantQuota(BaseModel):
    """One tenant's limits; None is unlimited."""

    documents: int | None = Field(default=None, ge=0)
    chunks: int | None = Field(default=None, ge=0)
    stored_mb: float | None = Field(default=None, ge=0)  # chunk text + vectors, as the catalog stores them
    requests_per_minute: int | None = Field(default=None, ge=1)  # per tenant; across replicas when quotas.rate_shared
    upload_mb_per_minute: float | None = Field(default=None, gt=0)  # request bodies of uploads, per server process
    concurrent_jobs: int | None = Field(default=None, ge=1)  # running ingestion jobs, capped when workers claim


class QuotaSettings(TenantQuota):
    """Per-tenant quotas (docs/scaling.md): generous defaults for every tenant, and
    overrides per tenant, e.g. ``RAGLINE_QUOTAS__TENANTS='{"acme": {"requests_per_minute": 600}}'``.
    An override replaces only the fields it names (``null`` lifts one for that tenant).
    ``concurrent_jobs`` defaults to unlimited: fair claiming already shares workers
    between tenants, and a cap would leave workers idle when one tenant is alone."""

    documents: int | None = Field(default=1_000_000, ge=0)
    chunks: int | None = Field(default=10_000_000, ge=0)
    stored_mb: float | None = Field(default=20_480.0, ge=0)
    requests_per_minute: int | None = Field(default=6_000, ge=1)
    # About 2 MB/s sustained, bursts of ten seconds' worth: above what ingestion can embed
    # on a small machine, far below what one tenant's flood would cost everyone else.
    upload_mb_per_minute: float | None = Field(default=120.0, gt=0)
    concurrent_jobs: int | None = Field(default=None, ge=1)
    tenants: dict[str, TenantQuota] = Field(default_factory=dict)
    # requests_per_minute counted in the store, one bucket per tenant every replica draws from
    # (one statement per request), or per process (None: in the store when it is PostgreSQL,
    # the store replicas share; server/quotas.py).
    rate_shared: bool | None = None

    def for_tenant(self, tenant: str) -> TenantQuota:
        """The tenant's limits: the defaults with its override's named fields on top."""
        limits = {name: getattr(self, name) for name in TenantQuota.model_fields}
        override = self.tenants.get(tenant)
        if override is not None:
            limits.update({name: getattr(override, name) for name in override.model_fields_set})
        return TenantQuota(**limits)


class TrueLayerSettings(BaseModel):
    """The TrueLayer Data API connector (``ragline connect truelayer``): the app's
    client id and secret from TrueLayer's console; the URLs default to production
    (the sandbox: ``https://auth.truelayer-sandbox.com``, ``https://api.truelayer-sandbox.com``)."""

    client_id: str | None = None
    client_secret: str | None = None
    auth_url: str = "https://auth.truelayer.com"
    api_url: str = "https://api.truelayer.com"
    days: int = Field(default=90, ge=1, le=730)  # history fetched per account
    timeout: float = Field(default=30.0, gt=0, le=300)
    max_retries: int = Field(default=4, ge=0, le=10)  # on 429 and 5xx, with backoff honouring Retry-After
    retry_backoff: float = Field(default=0.5, ge=0.0, le=30.0)
    deadline_s: float | None = Field(default=90.0, gt=0, le=3600)  # one call, its retries and waits included
    max_reply_mb: float = Field(default=16.0, gt=0, le=1024)  # one page of accounts or transactions


class RecordsSettings(BaseModel):
    """Transactions (docs/transactions.md): the collection their searchable text goes
    to (private to each owner), and the bank connector."""

    collection: str = "transactions"
    currency: str | None = Field(default=None, pattern=r"^[A-Za-z]{3}$")  # a statement's, when nothing in it tells
    # Who plans a money question (docs/transactions.md): "auto" — the request's LLM when it can
    # call tools (the offline rules are its fallback), else the rules; "rules" — always the rules.
    planner: Literal["auto", "rules"] = "auto"
    truelayer: TrueLayerSettings = TrueLayerSettings()

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, value: str) -> str:
        from .models import NAME_PATTERN  # the one definition of a name the API can address

        if not re.fullmatch(NAME_PATTERN, value):
            raise ValueError(f"records.collection {value[:80]!r} is not a valid collection name")
        return value


class IngestSettings(BaseModel):
    """How files are read (docs/formats.md). Record files (a JSON array of objects,
    JSON Lines): the fields holding each record's id, title and text (dotted paths
    such as ``payload.body`` reach into nested objects; unset: ``_id``/``id``,
    ``title``, ``text``/``content``/``body``), and ``records_as_chunks`` to store
    each record as one chunk, unsplit. OCR (``ocr``): ``auto`` reads images and
    text-less PDF pages when Tesseract is installed, ``on`` requires it, ``off``
    never runs it; ``ocr_languages`` are Tesseract's codes joined by ``+``."""

    id_field: str | None = None
    title_field: str | None = None
    text_field: str | None = None
    records_as_chunks: bool = False
    ocr: Literal["auto", "on", "off"] = "auto"
    ocr_languages: str = Field(default="eng", pattern=r"^[A-Za-z_]{3,20}(\+[A-Za-z_]{3,20}){0,9}$")
    ocr_dpi: int = Field(default=300, ge=72, le=600)  # PDF pages are rendered at this resolution for OCR


class Price(BaseModel):
    """What a model costs, in ``UsageSettings.currency`` per million tokens."""

    input: float = Field(default=0.0, ge=0)
    output: float = Field(default=0.0, ge=0)


class UsageSettings(BaseModel):
    """Usage accounting (docs/usage.md). ``prices`` maps a model id (as the embedder
    or the generator reports it, e.g. ``gpt-4o-mini``) to its price per million
    tokens; a model not listed costs 0 (local models) and is shown as unpriced.
    Match counters are written in batches every ``flush_interval_s`` seconds, off
    the query path."""

    currency: str = "USD"
    prices: dict[str, Price] = Field(default_factory=dict)
    flush_interval_s: float = Field(default=2.0, gt=0, le=3600)


# Named sets of defaults (``RAGLINE_PRESET``); a setting given explicitly wins over its preset.
# "fast": chunks of up to 2,000 characters without overlap, each embedded from its first 190
# tokens and keyword-indexed whole, fused at dense weight 0.5 (its keyword side is the
# stronger). Chosen on SciFact train (hybrid nDCG@10 0.7348 against the exact fp32 pipeline's
# 0.7376); about 60 % of the default's tokens embedded, shorter sequences (docs/embedders.md).
PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "default": {},
    "fast": {"chunking": {"size": 2000, "overlap": 0}, "embedder": {"overflow": "head", "max_tokens": 190},
             "search": {"dense_weight": 0.5}},
}


class Settings(BaseSettings):
    """All of ragline's configuration."""

    model_config = SettingsConfigDict(
        env_prefix="RAGLINE_",
        env_nested_delimiter="__",
        extra="ignore",
    )

    home: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("ragline")))
    store: Annotated[StoreSettings, NoDecode] = StoreSettings()  # NoDecode: RAGLINE_STORE=<url> is a plain string
    chunking: ChunkingSettings = ChunkingSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    search: SearchSettings = SearchSettings()
    limits: LimitSettings = LimitSettings()
    generator: GeneratorSettings = GeneratorSettings()
    answer: AnswerSettings = AnswerSettings()
    server: ServerSettings = ServerSettings()
    quotas: QuotaSettings = QuotaSettings()
    records: RecordsSettings = RecordsSettings()
    tracing: TracingSettings = TracingSettings()
    ingest: IngestSettings = IngestSettings()
    usage: UsageSettings = UsageSettings()
    preset: Literal["default", "fast"] = "default"  # PRESETS: defaults under the explicit settings

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("preset", "default") not in PRESETS:
            return data  # an unknown preset is reported by the field's own validation
        merged = dict(data)
        for section, values in PRESETS[data.get("preset", "default")].items():
            given = merged.get(section)
            if isinstance(given, BaseModel):  # a settings object from code: its fields were chosen
                given = given.model_dump(exclude_unset=True)
            merged[section] = {**values, **(given or {})}
        return merged

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = Path(os.environ.get("RAGLINE_CONFIG", "ragline.toml"))
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )

    @property
    def db_path(self) -> Path:
        """The embedded default's SQLite file (when ``store.url`` is unset)."""
        return self.home / "ragline.sqlite"
