"""CSV, JSON (one document per file) and JSON Lines (one document per line, BEIR)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .text import decode_text, require_text

_ID_KEYS = ("_id", "id")
_TEXT_KEYS = ("text", "content", "body")


def _flatten(value: Any, prefix: str = "") -> list[str]:
    """Render JSON as 'key.path: value' lines, readable and searchable."""
    if isinstance(value, dict):
        lines: list[str] = []
        for key, item in value.items():
            lines.extend(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return lines
    if isinstance(value, list):
        lines = []
        for index, item in enumerate(value):
            lines.extend(_flatten(item, f"{prefix}[{index}]"))
        return lines
    if value is None or value == "":
        return []
    return [f"{prefix}: {value}" if prefix else str(value)]


class CsvLoader:
    name = "csv"
    extensions = (".csv", ".tsv")
    media_type = "text/csv"

    def load(self, data: bytes, source: str, *, password: str | None = None) -> list[Document | LoaderError]:
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


def _record_document(record: dict[str, Any], source: str, media_type: str) -> Document:
    title = record.get("title")
    title = str(title).strip() if title not in (None, "") else None
    text_key = next((k for k in _TEXT_KEYS if isinstance(record.get(k), str)), None)
    if text_key is not None:
        text = record[text_key].strip()
        rest = {k: v for k, v in record.items() if k not in (text_key, "title") and k not in _ID_KEYS}
    else:
        text = "\n".join(_flatten({k: v for k, v in record.items() if k != "title"}))
        rest = {}
    if not text and not title:
        raise LoaderError(source, "record has no text")
    metadata = {k: v for k, v in rest.items() if isinstance(v, (str, int, float, bool)) or v is None}
    return Document(source=source, blocks=[Block(text=text or title or "")], title=title,
                    media_type=media_type, metadata=metadata)


class JsonLoader:
    name = "json"
    extensions = (".json",)
    media_type = "application/json"

    def load(self, data: bytes, source: str, *, password: str | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoaderError(source, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
        if isinstance(value, dict):
            return [_record_document(value, source, self.media_type)]
        lines = _flatten(value)
        if not lines:
            raise LoaderError(source, "JSON holds no text")
        return [Document(source=source, blocks=[Block(text="\n".join(lines))], media_type=self.media_type)]


MAX_RECORD_ID_CHARS = 200


def record_id_problem(key: str) -> str | None:
    """Why a record id cannot name a source, or None. Ids end up in sources, citations
    and prompts, so like file names they must be printable (no control, format or
    line-separator characters that could fake a "SYSTEM:" line), bounded, and free of
    path separators."""
    if len(key) > MAX_RECORD_ID_CHARS:
        return f"longer than {MAX_RECORD_ID_CHARS} characters ({len(key):,})"
    bad = next((ch for ch in key if not ch.isprintable()), None)
    if bad is not None:
        return f"contains the non-printable character U+{ord(bad):04X}"
    if "/" in key or "\\" in key:
        return "contains a path separator (/ or \\)"
    if key.strip() != key:
        return "starts or ends with a space"
    return None


def _shown(key: str) -> str:
    """An id quoted for an error message: escaped, and short."""
    return ascii(key[:60] + ("…" if len(key) > 60 else ""))


class JsonLinesLoader:
    """One document per line; ``source`` becomes ``<file>#<_id>``. A bad line is
    reported on its own and does not stop the rest of the file."""

    name = "jsonl"
    extensions = (".jsonl", ".ndjson")
    media_type = "application/x-ndjson"

    def load(self, data: bytes, source: str, *, password: str | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        out: list[Document | LoaderError] = []
        seen: set[str] = set()
        # "\n" only: str.splitlines() also breaks at U+2028, U+0085 and other characters
        # that JSON strings may hold unescaped (web-scraped corpora do).
        for number, line in enumerate(text.split("\n"), start=1):
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            where = f"{source}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                out.append(LoaderError(where, f"invalid JSON: {exc.msg} at column {exc.colno}"))
                continue
            if not isinstance(record, dict):
                out.append(LoaderError(where, "a JSON Lines record must be an object"))
                continue
            key = next((str(record[k]) for k in _ID_KEYS if record.get(k) not in (None, "")), str(number))
            problem = record_id_problem(key)
            if problem:
                out.append(LoaderError(where, f"record id {_shown(key)} refused: {problem}"))
                continue
            if key in seen:
                out.append(LoaderError(where, f"duplicate id {key!r}"))
                continue
            seen.add(key)
            try:
                document = _record_document(record, f"{source}#{key}", self.media_type)
            except LoaderError as exc:
                out.append(LoaderError(where, exc.reason))
                continue
            document.metadata["record_id"] = key
            out.append(document)
        if not out:
            raise LoaderError(source, "no records in JSON Lines file")
        return out
