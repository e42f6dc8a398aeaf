"""Bank statement files → transactions: CSV (column mapping, EU/US number and date
formats), JSON (an array, ``{"transactions": […]}`` or JSON Lines) and OFX/QFX.

Every importer returns an ``ImportResult``: the transactions it read, and one
``RowError`` (line number and reason) per malformed row, which is skipped; the rest
of the file is imported. A file that cannot be read at all raises ``LoaderError``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from ...errors import ConfigError
from .common import ImportOptions, ImportResult, RowError
from .csv import import_csv
from .json import import_json
from .ofx import import_ofx

IMPORTERS: dict[str, Callable[[bytes, str, ImportOptions], ImportResult]] = {
    "csv": import_csv,
    "json": import_json,
    "ofx": import_ofx,
}
"""Format name → importer(data, source name, options)."""

EXTENSIONS = {".csv": "csv", ".tsv": "csv", ".txt": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json",
              ".ofx": "ofx", ".qfx": "ofx", ".qbo": "ofx"}


def format_for(source: str, data: bytes, requested: str | None = None) -> str:
    """The importer for a file: the requested one, else by extension, else by content."""
    if requested:
        name = requested.strip().lower()
        if name == "qfx":
            name = "ofx"
        if name not in IMPORTERS:
            raise ConfigError(f"unknown transactions format {requested!r}; use one of: {', '.join(IMPORTERS)}")
        return name
    by_extension = EXTENSIONS.get(PurePath(source).suffix.lower())
    if by_extension:
        return by_extension
    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").upper()
    if head.startswith(b"OFXHEADER") or b"<OFX>" in head:
        return "ofx"
    return "json" if head[:1] in (b"[", b"{") else "csv"


def import_transactions(data: bytes, source: str, options: ImportOptions | None = None,
                        format: str | None = None) -> ImportResult:
    """Read a statement file of any supported format."""
    name = format_for(source, data, format)
    return IMPORTERS[name](data, source, options or ImportOptions())


__all__ = ["EXTENSIONS", "IMPORTERS", "ImportOptions", "ImportResult", "RowError", "format_for",
           "import_transactions"]
