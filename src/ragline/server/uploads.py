"""Kept uploads: every uploaded file (or text document) is written under
``RAGLINE_HOME/uploads/<tenant>/<collection>/<document id>/`` before its job is
queued, so a job can resume after a restart and a document can be re-ingested."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from ..errors import DiskFullError
from ..models import NAME_PATTERN, Block, Document, Scope, content_hash, document_id

_SAFE = re.compile(NAME_PATTERN)
TEXT_FILE = "document.json"
# A PDF password given with an upload waits here, owner-only, beside the kept file
# until its job finishes: never in the job table or a log line. A document's folder
# holds one uploaded file, so only an upload of this very name could clash: refused.
PASSWORD_FILE = ".ragline-password"
_TEMP_PREFIX = ".upload-"
MAX_NAME_BYTES = 255  # the file system's limit on one path component (ext4, XFS, btrfs, APFS)


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


class Uploads:
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

    def save_file(self, scope: Scope, filename: str, data: IO[bytes],
                  password: str | None = None) -> tuple[str, Path]:
        """Keep an uploaded file, and its PDF password (if any) for its job; returns
        (document id, kept path). An earlier upload's password is dropped."""
        doc_id = document_id(scope, filename)
        target = self.document_dir(scope, doc_id) / filename
        self._atomic_write(target, lambda handle: shutil.copyfileobj(data, handle, 1024 * 1024))
        secret = target.parent / PASSWORD_FILE
        if password:
            self._atomic_write(secret, lambda handle: handle.write(password.encode("utf-8")))
        else:
            secret.unlink(missing_ok=True)
        return doc_id, target

    @staticmethod
    def password(kept: Path | str) -> str | None:
        """The password uploaded with this kept file, while its job has not finished."""
        try:
            return (Path(kept).parent / PASSWORD_FILE).read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None

    @staticmethod
    def forget_password(kept: Path | str) -> None:
        """Remove the kept file's password (its job finished, for good or not)."""
        (Path(kept).parent / PASSWORD_FILE).unlink(missing_ok=True)

    def save_text(self, scope: Scope, text: str, source: str | None, title: str | None,
                  metadata: dict[str, Any]) -> tuple[str, str, Path]:
        """Keep a text document as JSON; returns (document id, source, kept path)."""
        source = source or f"text-{content_hash(text)[:12]}"
        doc_id = document_id(scope, source)
        payload = json.dumps({"source": source, "text": text, "title": title, "metadata": metadata},
                             ensure_ascii=False).encode("utf-8")
        target = self.document_dir(scope, doc_id) / TEXT_FILE
        self._atomic_write(target, lambda handle: handle.write(payload))
        return doc_id, source, target

    @staticmethod
    def load_text(path: Path | str) -> Document:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return Document(source=data["source"], blocks=[Block(text=data["text"])], title=data.get("title"),
                        metadata=data.get("metadata") or {})

    def remove_document(self, scope: Scope, doc_id: str) -> None:
        shutil.rmtree(self.document_dir(scope, doc_id), ignore_errors=True)

    def remove_collection(self, tenant: str, collection: str) -> None:
        shutil.rmtree(self.collection_dir(tenant, collection), ignore_errors=True)
