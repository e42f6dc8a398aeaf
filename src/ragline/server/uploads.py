"""Kept uploads: every uploaded file (or text document) is written under
``RAGLINE_HOME/uploads/<tenant>/<collection>/<document id>/`` before its job is
queued, so a job can resume after a restart and a document can be re-ingested."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from ..models import Block, Document, Scope, content_hash, document_id
from ..store.types import NAME_PATTERN

_SAFE = re.compile(NAME_PATTERN)
TEXT_FILE = "document.json"


def _component(name: str) -> str:
    """A path component for a tenant or collection name; names outside the API's
    safe pattern (possible from the CLI) are hashed, never used raw. The "_" prefix
    cannot start a safe name and the full hash is kept, so two names never share
    a directory (deleting one's collection must not delete another's uploads)."""
    return name if _SAFE.match(name) else "_" + content_hash(name)


def clean_filename(filename: str | None) -> str | None:
    """The file's base name without directories or control characters, or None."""
    if not filename:
        return None
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    if name in ("", ".", "..") or len(name) > 255:
        return None
    return name


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
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(tmp, target)  # a running job never reads a half-written file
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def save_file(self, scope: Scope, filename: str, data: IO[bytes]) -> tuple[str, Path]:
        """Keep an uploaded file; returns (document id, kept path)."""
        doc_id = document_id(scope, filename)
        target = self.document_dir(scope, doc_id) / filename
        self._atomic_write(target, lambda handle: shutil.copyfileobj(data, handle, 1024 * 1024))
        return doc_id, target

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
