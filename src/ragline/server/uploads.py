"""Kept uploads: every uploaded file (or text document) is kept before its job is
queued, so a job can resume after a restart (on any worker) and a document can be
re-ingested. Where they are kept is a small seam, ``UploadStorage`` (put, open,
delete), chosen by ``server.upload_storage``:

- ``LocalFiles``: under ``RAGLINE_HOME/uploads/<tenant>/<collection>/<document id>/``;
  a job's path is the file's absolute path (a worker elsewhere needs that folder).
- ``CatalogFiles``: in the store's database (``Engine.put_upload``, parts of 1 MB in
  one transaction), scoped by tenant, collection and owner like every other read;
  a job's path is ``catalog:<document id>/<name>``, and a worker on another machine
  copies the file to its own home while it parses it.

``auto`` (the default) keeps them in the catalog when the store is PostgreSQL (what
replicas and workers on other machines share), on local disk otherwise. A job reads
its file from wherever its path says, whatever the setting is now, so changing it
loses nothing already kept."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from ..errors import DiskFullError, NotFoundError, StoreError
from ..models import NAME_PATTERN, Block, Document, Scope, content_hash, document_id
from ..store import shared_by_replicas
from ..store.types import KEPT_IN_CATALOG, UPLOAD_PART

if TYPE_CHECKING:
    from ..engine import Engine
    from ..settings import Settings

_SAFE = re.compile(NAME_PATTERN)
TEXT_FILE = "document.json"
# A PDF password given with an upload waits here, owner-only, beside the kept file
# until its job finishes: never in the job table or a log line. A document's folder
# holds one uploaded file, so only an upload of this very name could clash: refused.
PASSWORD_FILE = ".ragline-password"
_TEMP_PREFIX = ".upload-"
MAX_NAME_BYTES = 255  # the file system's limit on one path component (ext4, XFS, btrfs, APFS)
CATALOG = KEPT_IN_CATALOG


def _component(name: str) -> str:
    """A path component for a tenant or collection name; names outside the API's
    safe pattern (possible from the CLI) are hashed, never used raw. The "_" prefix
    cannot start a safe name and the full hash is kept, so two names never share
    a directory (deleting one's collection must not delete another's uploads)."""
    return name if _SAFE.fullmatch(name) else "_" + content_hash(name)


def clean_filename(filename: str | None) -> str | None:
    """The file's base name without directories or control characters, or None when
    no usable name is left (empty, reserved, or over 255 bytes in UTF-8: the file
    system counts bytes, so 90 "€" are 270 bytes)."""
    if not filename:
        return None
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    if name in ("", ".", "..", PASSWORD_FILE) or name.startswith(_TEMP_PREFIX):
        return None
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate cannot be a file name
        return None
    return name if size <= MAX_NAME_BYTES else None


class UploadStorage(Protocol):
    """Where kept uploads live. ``key``: what a job's path holds for the file."""

    def put(self, scope: Scope, doc_id: str, name: str, data: IO[bytes]) -> str:
        """Keep ``data`` as the document's file ``name`` (replacing one of that name
        whole, or leaving it as it was on failure); returns its key."""
        ...

    def open(self, scope: Scope, key: str) -> Any:
        """A context manager giving a local path with the file's bytes (``NotFoundError``
        when the scope has no such file)."""
        ...

    def delete(self, tenant: str, collection: str, doc_id: str | None = None, name: str | None = None) -> None:
        """Remove a collection's kept files (a document's, or one file of it)."""
        ...

    def origin_prefix(self, scope: Scope, doc_id: str) -> str:
        """What the origins of a document's kept files start with."""
        ...

    def check_writable(self) -> None:
        """Readiness: raise (naming where) when a file could not be kept now."""
        ...


def _split(key: str) -> tuple[str, str]:
    doc_id, _, name = key[len(CATALOG):].partition("/")
    if not doc_id or not name or "/" in name:
        raise StoreError(f"invalid kept-upload key {key!r}")
    return doc_id, name


class LocalFiles:
    """Kept uploads on this machine's disk, under ``<home>/uploads``."""

    def __init__(self, home: Path) -> None:
        self.root = (home / "uploads").resolve()

    def collection_dir(self, tenant: str, collection: str) -> Path:
        return self.root / _component(tenant) / _component(collection)

    def document_dir(self, scope: Scope, doc_id: str) -> Path:
        return self.collection_dir(scope.tenant, scope.collection) / doc_id

    @staticmethod
    def _atomic_write(target: Path, write: Any) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=_TEMP_PREFIX)  # owner-only (0600)
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(tmp, target)  # a running job never reads a half-written file
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
                raise DiskFullError(f"no space left to keep the upload at {target.parent}: free space there "
                                    "and send it again") from exc
            raise

    def put(self, scope: Scope, doc_id: str, name: str, data: IO[bytes]) -> str:
        target = self.document_dir(scope, doc_id) / name
        self._atomic_write(target, lambda handle: shutil.copyfileobj(data, handle, UPLOAD_PART))
        return str(target)

    def _inside(self, scope: Scope, key: str) -> Path:
        """The key's path, if it lies in the scope's collection folder (tenant-scoped reads only)."""
        path = Path(key)
        if not path.resolve().is_relative_to(self.collection_dir(scope.tenant, scope.collection)):
            raise NotFoundError(f"kept upload {path.name!r} of collection {scope.collection!r}")
        return path

    @contextmanager
    def open(self, scope: Scope, key: str) -> Iterator[Path]:
        path = self._inside(scope, key)
        if not path.is_file():
            raise NotFoundError(f"kept upload {path.name!r} of collection {scope.collection!r} (upload it again)")
        yield path

    def read_small(self, scope: Scope, key: str) -> bytes | None:
        try:
            return self._inside(scope, key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def delete(self, tenant: str, collection: str, doc_id: str | None = None, name: str | None = None) -> None:
        folder = self.collection_dir(tenant, collection)
        if doc_id is None:
            shutil.rmtree(folder, ignore_errors=True)
        elif name is None:
            shutil.rmtree(folder / doc_id, ignore_errors=True)
        else:
            (folder / doc_id / name).unlink(missing_ok=True)

    def origin_prefix(self, scope: Scope, doc_id: str) -> str:
        return str(self.document_dir(scope, doc_id).resolve()) + "/"

    def check_writable(self) -> None:
        _probe_write(self.root, "kept uploads")


class CatalogFiles:
    """Kept uploads in the store's database, read back through the scoped store API."""

    def __init__(self, engine: Engine, scratch: Path) -> None:
        self.engine = engine
        self.scratch = scratch  # where a job's copy waits while it is parsed

    def put(self, scope: Scope, doc_id: str, name: str, data: IO[bytes]) -> str:
        self.engine.put_upload(scope, doc_id, name, iter(lambda: data.read(UPLOAD_PART), b""))
        return f"{CATALOG}{doc_id}/{name}"

    def _parts(self, scope: Scope, key: str) -> Iterator[bytes] | None:
        doc_id, name = _split(key)
        return self.engine.read_upload(scope, doc_id, name)

    @contextmanager
    def open(self, scope: Scope, key: str) -> Iterator[Path]:
        parts = self._parts(scope, key)
        if parts is None:
            raise NotFoundError(f"kept upload {key!r} of collection {scope.collection!r} (upload it again)")
        self.scratch.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(dir=self.scratch, prefix="job-"))
        try:
            path = folder / _split(key)[1]
            with path.open("wb") as handle:
                for part in parts:
                    handle.write(part)
            yield path
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def read_small(self, scope: Scope, key: str) -> bytes | None:
        parts = self._parts(scope, key)
        return None if parts is None else b"".join(parts)

    def delete(self, tenant: str, collection: str, doc_id: str | None = None, name: str | None = None) -> None:
        self.engine.delete_uploads(tenant, collection=collection, doc_id=doc_id, name=name)

    def origin_prefix(self, scope: Scope, doc_id: str) -> str:
        return f"{CATALOG}{doc_id}/"

    def check_writable(self) -> None:
        """The catalog is writable when the store is (readiness probes it first); the
        folder where a job's copy waits must be too."""
        _probe_write(self.scratch, "a job's copy of its kept upload")


def _probe_write(folder: Path, what: str) -> None:
    """``OSError`` naming ``folder`` unless a file can be created there now."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=_TEMP_PREFIX)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OSError(f"cannot write {what} under {folder}: {exc.strerror or exc}") from exc


def storage_for(settings: Settings, engine: Engine | None) -> str:
    """``server.upload_storage`` resolved: "catalog" or "local"."""
    mode = settings.server.upload_storage
    if mode == "auto":
        mode = "catalog" if engine is not None and shared_by_replicas(settings) else "local"
    return mode


class Uploads:
    """Kept uploads of one process: written where ``server.upload_storage`` says, read
    from wherever a job's path says (``catalog:…`` or a local path)."""

    def __init__(self, home: Path, engine: Engine | None = None, storage: str = "local") -> None:
        self.local = LocalFiles(home)
        self.catalog = CatalogFiles(engine, home / "job-files") if engine is not None else None
        if storage == "catalog" and self.catalog is None:
            raise ValueError("catalog upload storage needs the engine")
        self.storage: LocalFiles | CatalogFiles = self.catalog if storage == "catalog" and self.catalog else self.local

    @classmethod
    def from_settings(cls, settings: Settings, engine: Engine) -> Uploads:
        return cls(settings.home, engine, storage_for(settings, engine))

    @property
    def root(self) -> Path:
        return self.local.root

    def collection_dir(self, tenant: str, collection: str) -> Path:
        return self.local.collection_dir(tenant, collection)

    def _holding(self, key: str) -> LocalFiles | CatalogFiles:
        if key.startswith(CATALOG):
            if self.catalog is None:
                raise StoreError(f"kept upload {key!r} is in the catalog, and this process has no store")
            return self.catalog
        return self.local

    # -- writing ---------------------------------------------------------------
    def save_file(self, scope: Scope, filename: str, data: IO[bytes],
                  password: str | None = None) -> tuple[str, str]:
        """Keep an uploaded file, and its PDF password (if any) for its job; returns
        (document id, key). An earlier upload's password is dropped."""
        doc_id = document_id(scope, filename)
        key = self.storage.put(scope, doc_id, filename, data)
        if password:
            from io import BytesIO

            self.storage.put(scope, doc_id, PASSWORD_FILE, BytesIO(password.encode("utf-8")))
        else:
            self.storage.delete(scope.tenant, scope.collection, doc_id, PASSWORD_FILE)
        return doc_id, key

    def save_text(self, scope: Scope, text: str, source: str | None, title: str | None,
                  metadata: dict[str, Any]) -> tuple[str, str, str]:
        """Keep a text document as JSON; returns (document id, source, key)."""
        from io import BytesIO

        source = source or f"text-{content_hash(text)[:12]}"
        doc_id = document_id(scope, source)
        payload = json.dumps({"source": source, "text": text, "title": title, "metadata": metadata},
                             ensure_ascii=False).encode("utf-8")
        return doc_id, source, self.storage.put(scope, doc_id, TEXT_FILE, BytesIO(payload))

    # -- a job's reads -----------------------------------------------------------
    def open(self, scope: Scope, key: str) -> Any:
        """A context manager giving a local path with the kept file (see ``UploadStorage.open``)."""
        return self._holding(key).open(scope, key)

    def origin(self, key: str) -> str:
        """The origin a kept file's documents record (``origin_prefix`` finds them)."""
        return key if key.startswith(CATALOG) else str(Path(key).resolve())

    def load_text(self, scope: Scope, key: str) -> Document:
        raw = self._holding(key).read_small(scope, key)
        if raw is None:
            raise NotFoundError(f"kept text document {key!r} (add it again)")
        data = json.loads(raw.decode("utf-8"))
        return Document(source=data["source"], blocks=[Block(text=data["text"])], title=data.get("title"),
                        metadata=data.get("metadata") or {})

    def _password_key(self, key: str) -> str:
        if key.startswith(CATALOG):
            return f"{CATALOG}{_split(key)[0]}/{PASSWORD_FILE}"
        return str(Path(key).parent / PASSWORD_FILE)

    def password(self, scope: Scope, key: str) -> str | None:
        """The password uploaded with this kept file, while its job has not finished."""
        raw = self._holding(key).read_small(scope, self._password_key(key))
        return None if raw is None else raw.decode("utf-8")

    def forget_password(self, scope: Scope, key: str) -> None:
        """Remove the kept file's password (its job finished, for good or not)."""
        if key.startswith(CATALOG):
            self._holding(key).delete(scope.tenant, scope.collection, _split(key)[0], PASSWORD_FILE)
        else:
            Path(self._password_key(key)).unlink(missing_ok=True)

    # -- removing ----------------------------------------------------------------
    def origin_prefixes(self, scope: Scope, doc_id: str) -> list[str]:
        """What the origins of a document's kept files start with, wherever they are kept."""
        return [s.origin_prefix(scope, doc_id) for s in (self.local, self.catalog) if s is not None]

    def remove_document(self, scope: Scope, doc_id: str) -> None:
        for storage in (self.local, self.catalog):
            if storage is not None:
                storage.delete(scope.tenant, scope.collection, doc_id)

    def remove_collection(self, tenant: str, collection: str) -> None:
        for storage in (self.local, self.catalog):
            if storage is not None:
                storage.delete(tenant, collection)

    def check_writable(self) -> None:
        """Readiness: ``OSError`` or ``StoreError`` naming where a new upload could not be kept."""
        self.storage.check_writable()
