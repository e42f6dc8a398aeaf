"""Loaders turn a file's bytes into Documents. One module per format family.

``LOADERS`` is the registry, keyed by name; ``loader_for`` picks one from the
file extension, then from the content (a PDF or ZIP signature wins over a
misleading extension).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ...errors import LoaderError
from ...models import Document
from .archive import ZIP_SIGNATURE
from .docx import DocxLoader
from .eml import EmlLoader
from .epub import EpubLoader
from .html import HtmlLoader
from .image import ImageLoader
from .odt import OdtLoader
from .options import LoadOptions
from .pdf import PdfLoader
from .pptx import PptxLoader
from .rtf import RtfLoader
from .structured import CsvLoader, JsonLinesLoader, JsonLoader
from .text import MarkdownLoader, TextLoader
from .xlsx import XlsxLoader


class Loader(Protocol):
    """Bytes of one file → Documents (or per-record LoaderErrors for record files)."""

    name: str
    extensions: tuple[str, ...]
    media_type: str

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]: ...


LOADERS: dict[str, Loader] = {
    loader.name: loader
    for loader in (
        TextLoader(),
        MarkdownLoader(),
        HtmlLoader(),
        PdfLoader(),
        DocxLoader(),
        CsvLoader(),
        JsonLoader(),
        JsonLinesLoader(),
        ImageLoader(),
        PptxLoader(),
        XlsxLoader(),
        OdtLoader(),
        EpubLoader(),
        EmlLoader(),
        RtfLoader(),
    )
}

ZIP_FORMATS = frozenset({"pptx", "xlsx", "odt", "epub"})
"""Formats packaged as ZIP archives: without the signature the file is not one."""

_BY_EXTENSION = {ext: loader for loader in LOADERS.values() for ext in loader.extensions}


def supported_extensions() -> list[str]:
    return sorted(_BY_EXTENSION)


def loader_for(path: Path, head: bytes, source: str | None = None) -> Loader:
    """Choose a loader by extension, letting unmistakable content signatures win.
    Errors name ``source`` (default: the path)."""
    name = source or str(path)
    if head.startswith(b"%PDF-"):
        return LOADERS["pdf"]
    ext = path.suffix.lower()
    if head.startswith(b"PK\x03\x04") and ext == ".docx":
        return LOADERS["docx"]
    loader = _BY_EXTENSION.get(ext)
    if loader is not None and loader.name in ZIP_FORMATS and not head.startswith(ZIP_SIGNATURE):
        raise LoaderError(name, f"not a {ext} file (no ZIP signature)")
    if loader is None:
        raise LoaderError(
            name, f"unsupported file type {ext or '(no extension)'}; supported: {', '.join(supported_extensions())}"
        )
    if loader.name == "pdf":
        raise LoaderError(name, "not a PDF file (no %PDF- header)")
    if loader.name == "docx":
        raise LoaderError(name, "not a .docx file (no ZIP signature)")
    return loader
