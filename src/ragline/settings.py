"""Typed settings, built once at the edge (CLI, server, tests) and passed down.

Sources, highest first: explicit arguments, ``RAGLINE_*`` environment variables
(nested with ``__``, e.g. ``RAGLINE_CHUNKING__SIZE=800``), a TOML file
(``RAGLINE_CONFIG`` or ``./ragline.toml``), then the defaults below.
Nothing below this module reads ``os.environ``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Literal

import platformdirs
from pydantic import BaseModel, Field, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)


class ChunkingSettings(BaseModel):
    """How documents are split. ``size``/``overlap`` are in ``unit``s."""

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
    name: str = "minilm"
    batch_size: int = Field(default=32, ge=1, le=1024)
    threads: int | None = None


SEARCH_MODES = ("hybrid", "dense", "keyword")
SearchMode = Literal[SEARCH_MODES]  # type: ignore[valid-type]  (Literal of a tuple: each value)


class SearchSettings(BaseModel):
    """Retrieval. The defaults were chosen on SciFact's train split (docs/quality.md):
    a convex combination of min-max normalised dense and keyword scores (``weighted``)
    beat RRF by ~0.017 nDCG@10, and fusing over 500 candidates per list beat 100."""

    mode: SearchMode = "hybrid"
    k: int = Field(default=10, ge=1, le=1000)
    fusion: Literal["rrf", "weighted"] = "weighted"
    rrf_k: int = Field(default=60, ge=1)
    dense_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    overfetch: int = Field(default=500, ge=1, le=10000)
    doc_aggregate: Literal["max", "sum"] = "max"


class LimitSettings(BaseModel):
    """Guards against hostile files: each file is parsed in a child process."""

    max_file_mb: float = Field(default=100.0, gt=0)
    parse_timeout_s: float = Field(default=120.0, gt=0)
    parse_memory_mb: int = Field(default=4096, ge=256)
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
    # Generators a request may name (RAGLINE_GENERATOR__ALLOWED="extractive,openai"); None:
    # ``name`` and extractive. base_url, api_key and model belong to ``name`` alone: any other
    # allowed provider gets its own default URL and its own key variable, never these.
    allowed: Annotated[tuple[str, ...] | None, NoDecode] = None

    @model_validator(mode="before")
    @classmethod
    def _allowed_from_string(cls, value: object) -> object:
        # A comma-separated string or a JSON list (environment, TOML) as well as a list.
        raw = value.get("allowed") if isinstance(value, dict) else None
        if isinstance(raw, str):
            items = json.loads(raw) if raw.lstrip().startswith("[") else raw.split(",")
            names = (str(n).strip().lower() for n in items)
            value = {**value, "allowed": tuple(n for n in names if n)}  # type: ignore[dict-item]
        return value


class AnswerSettings(BaseModel):
    """Context building, abstaining and grounding checks (see docs/answers.md)."""

    max_tokens: int = Field(default=2000, ge=100, le=4000)
    max_sources: int = Field(default=5, ge=1, le=10)
    # Abstain when no hit's cosine(question, chunk) reaches this floor. None: the floor
    # measured for the collection's embedding model (answer/service.py MEASURED_FLOORS).
    relevance_floor: float | None = Field(default=None, ge=-1.0, le=1.0)
    candidates: int = Field(default=10, ge=1, le=100)  # hits retrieved before the context builder
    neighbours: int = Field(default=0, ge=0, le=3)  # adjacent chunks added to each source when they fit
    drop_unsupported: bool = False  # remove answer sentences the grounding check flags


class ServerSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    admin_key: str | None = None
    job_workers: int = Field(default=1, ge=0, le=32)  # 0: this process only serves; `ragline worker` ingests
    job_lease_s: float = Field(default=30.0, ge=1.0, le=3600.0)  # a dead worker's job is taken again after this
    max_file_mb: float = Field(default=50.0, gt=0)
    max_request_mb: float = Field(default=200.0, gt=0)
    # On SIGTERM, requests in flight get this long to finish before they are cancelled.
    shutdown_timeout_s: int = Field(default=5, ge=0, le=600)


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
    ef_search: int = Field(default=100, ge=10, le=1000)  # HNSW search breadth (pgvector, Qdrant)
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
    requests_per_minute: int | None = Field(default=None, ge=1)  # per server process (each replica counts its own)
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
    concurrent_jobs: int | None = Field(default=None, ge=1)
    tenants: dict[str, TenantQuota] = Field(default_factory=dict)

    def for_tenant(self, tenant: str) -> TenantQuota:
        """The tenant's limits: the defaults with its override's named fields on top."""
        limits = {name: getattr(self, name) for name in TenantQuota.model_fields}
        override = self.tenants.get(tenant)
        if override is not None:
            limits.update({name: getattr(override, name) for name in override.model_fields_set})
        return TenantQuota(**limits)


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
