"""Loaders turn a file's bytes into Documents. One module per format family.

``LOADERS`` is the registry, keyed by name; ``loader_for`` picks one from the
file extension, then from the content (a PDF or ZIP signature wins over a
misleading extension). The loader modules (and their parsers) are imported on
first use, so a search that imports this package does not load them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import LoaderError
from ...models import Document

if TYPE_CHECKING:
    from .options import LoadOptions


class Loader(Protocol):
    """Bytes of one file → Documents (or per-record LoaderErrors for record files)."""

    # Read-only: each loader sets them as class attributes.
    @property
    def name(self) -> str: ...
    @property
    def extensions(self) -> tuple[str, ...]: ...
    @property
    def media_type(self) -> str: ...

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]: ...


@cache
def _registry() -> dict[str, Loader]:
    """The loaders by name, imported on first use: a search never pays for them."""
    from .docx import DocxLoader
    from .eml import EmlLoader
    from .epub import EpubLoader
    from .html import HtmlLoader
    from .image import ImageLoader
    from .odt import OdtLoader
    from .pdf import PdfLoader
    from .pptx import PptxLoader
    from .rtf import RtfLoader
    from .structured import CsvLoader, JsonLinesLoader, JsonLoader
    from .text import MarkdownLoader, TextLoader
    from .xlsx import XlsxLoader

    return {
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


@cache
def _by_extension() -> dict[str, Loader]:
    return {ext: loader for loader in _registry().values() for ext in loader.extensions}


def __getattr__(name: str) -> Any:
    if name == "LOADERS":
        return _registry()
    if name == "_BY_EXTENSION":
        return _by_extension()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ZIP_FORMATS = frozenset({"pptx", "xlsx", "odt", "epub"})
"""Formats packaged as ZIP archives: without the signature the file is not one."""


def supported_extensions() -> list[str]:
    return sorted(_by_extension())


def loader_for(path: Path, head: bytes, source: str | None = None) -> Loader:
    """Choose a loader by extension, letting unmistakable content signatures win.
    Errors name ``source`` (default: the path)."""
    from .archive import ZIP_SIGNATURE

    name = source or str(path)
    loaders = _registry()
    if head.startswith(b"%PDF-"):
        return loaders["pdf"]
    ext = path.suffix.lower()
    if head.startswith(b"PK\x03\x04") and ext == ".docx":
        return loaders["docx"]
    loader = _by_extension().get(ext)
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
