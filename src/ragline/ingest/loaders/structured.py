"""CSV, JSON and JSON Lines. A JSON array of objects and a JSON Lines file are
records, one document each (``records.py``); other JSON is one document."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .options import DEFAULT_OPTIONS, LoadOptions
from .records import MAX_RECORD_ID_CHARS, record_document, record_documents, record_id_problem, render_lines
from .text import decode_text, require_text

__all__ = ["MAX_RECORD_ID_CHARS", "CsvLoader", "JsonLinesLoader", "JsonLoader", "record_id_problem"]


class CsvLoader:
    name = "csv"
    extensions = (".csv", ".tsv")
    media_type = "text/csv"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        try:
            dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if source.lower().endswith(".tsv") else csv.excel
        try:
            rows = list(csv.reader(io.StringIO(text), dialect))
        except csv.Error as exc:
            raise LoaderError(source, f"malformed CSV: {exc}") from exc
        rows = [r for r in rows if any(cell.strip() for cell in r)]
        if not rows:
            raise LoaderError(source, "no rows in CSV")
        header, body = rows[0], rows[1:]
        if not body:
            lines = [", ".join(header)]
        else:
            lines = [
                "; ".join(f"{h.strip() or f'col{i + 1}'}: {v.strip()}" for i, (h, v) in enumerate(zip(header, row)) if v.strip())
                for row in body
            ]
        return [Document(source=source, blocks=[Block(text="\n".join(lines))], media_type=self.media_type,
                         metadata={"rows": len(body), "columns": header})]


class JsonLoader:
    name = "json"
    extensions = (".json",)
    media_type = "application/json"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoaderError(source, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
        options = options or DEFAULT_OPTIONS
        if isinstance(value, dict):
            return [record_document(value, source, self.media_type, options)]
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            return record_documents(((f"{source}[{i}]", i + 1, item) for i, item in enumerate(value)),
                                    source, self.media_type, options)
        lines = render_lines(value)
        if not lines:
            raise LoaderError(source, "JSON holds no text")
        return [Document(source=source, blocks=[Block(text="\n".join(lines))], media_type=self.media_type)]


class JsonLinesLoader:
    """One document per line; ``source`` becomes ``<file>#<_id>``. A bad line is
    reported on its own and does not stop the rest of the file."""

    name = "jsonl"
    extensions = (".jsonl", ".ndjson")
    media_type = "application/x-ndjson"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        out = record_documents(self._records(text, source), source, self.media_type, options or DEFAULT_OPTIONS)
        if not out:
            raise LoaderError(source, "no records in JSON Lines file")
        return out

    @staticmethod
    def _records(text: str, source: str) -> Iterator[tuple[str, int, Any]]:
        """(``file:line``, line number, the parsed line or, when it is not JSON, a LoaderError)."""
        # "\n" only: str.splitlines() also breaks at U+2028, U+0085 and other characters
        # that JSON strings may hold unescaped (web-scraped corpora do).
        for number, line in enumerate(text.split("\n"), start=1):
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            try:
                yield f"{source}:{number}", number, json.loads(line)
            except json.JSONDecodeError as exc:
                yield f"{source}:{number}", number, LoaderError(f"{source}:{number}", f"invalid JSON: {exc.msg} at column {exc.colno}")
