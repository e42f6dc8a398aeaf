"""Records: a JSON array of objects or JSON Lines, one Document per record.

Each record gives an id (its source becomes ``<file>#<id>``), a title, a text and
metadata. Which fields hold the first three is configurable (``LoadOptions``:
dotted paths), else the usual names. Everything else becomes filterable metadata:
nested objects are flattened, a wrapper named ``metadata`` (or ``meta``) is
dropped (``metadata.chapter`` → ``chapter``), other nesting is joined with ``_``
(``author.name`` → ``author_name``). ``page`` and ``section`` are ragline's own
fields: they go to the record's block, so citations show them and the ``page``
and ``section`` filters find them.

A bad record is a ``LoaderError`` of its own and does not stop the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions

ID_KEYS = ("_id", "id")
TITLE_KEYS = ("title",)
TEXT_KEYS = ("text", "content", "body")
_WRAPPERS = ("metadata", "meta")
MAX_RECORD_ID_CHARS = 200
MAX_DEPTH = 8  # deeper nesting is not metadata anyone filters on


def record_id_problem(key: str) -> str | None:
    """Why a record id cannot name a source, or None. Ids end up in sources, citations
    and prompts, so like file names they must be printable (no control, format or
    line-separator characters that could fake a "SYSTEM:" line) and bounded. URLs and
    paths are ordinary ids in real exports (``https://example.com/faq/a/b``,
    ``<wiki:AC/DC>``) and are kept: an id is never a path on disk (the source's file
    is the part before its first ``#``), and where it is shown as markdown or in a
    prompt it is escaped (``answer/sanitize.py``)."""
    if len(key) > MAX_RECORD_ID_CHARS:
        return f"longer than {MAX_RECORD_ID_CHARS} characters ({len(key):,})"
    bad = next((ch for ch in key if not ch.isprintable()), None)
    if bad is not None:
        return f"contains the non-printable character U+{ord(bad):04X}"
    if key.strip() != key:
        return "starts or ends with a space"
    return None


def _shown(key: str) -> str:
    """An id quoted for an error message: escaped, and short."""
    return ascii(key[:60] + ("…" if len(key) > 60 else ""))


def _path(record: dict[str, Any], dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _pick(record: dict[str, Any], configured: str | None, usual: tuple[str, ...]) -> tuple[str | None, Any]:
    """(the field used, its value): the configured dotted path, else the first usual
    name with a value."""
    if configured:
        return configured, _path(record, configured)
    for key in usual:
        if record.get(key) not in (None, ""):
            return key, record[key]
    return None, None


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def flatten_metadata(record: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    """The record's other fields as flat, filterable keys (see the module docstring).
    A top-level key wins over a nested one of the same name; lists of scalars stay
    lists; other lists are dropped (they are content, not metadata)."""
    flat: dict[str, Any] = {}
    nested: list[tuple[str, Any]] = []

    def walk(value: dict[str, Any], prefix: str, depth: int) -> None:
        for key, item in value.items():
            dotted = f"{prefix}.{key}" if prefix else str(key)
            if dotted in skip:
                continue
            if isinstance(item, dict):
                if depth < MAX_DEPTH:
                    walk(item, dotted, depth + 1)
                continue
            if isinstance(item, list) and not all(_scalar(x) for x in item):
                continue
            parts = dotted.split(".")
            if parts[0] in _WRAPPERS and len(parts) > 1:
                parts = parts[1:]
            name = "_".join(parts)
            if "." in dotted:
                nested.append((name, item))
            else:
                flat[name] = item

    walk(record, "", 0)
    for name, item in nested:
        flat.setdefault(name, item)
    return flat


def render_lines(value: Any, prefix: str = "") -> list[str]:
    """Render JSON as 'key.path: value' lines, readable and searchable."""
    if isinstance(value, dict):
        lines: list[str] = []
        for key, item in value.items():
            lines.extend(render_lines(item, f"{prefix}.{key}" if prefix else str(key)))
        return lines
    if isinstance(value, list):
        lines = []
        for index, item in enumerate(value):
            lines.extend(render_lines(item, f"{prefix}[{index}]"))
        return lines
    if value is None or value == "":
        return []
    return [f"{prefix}: {value}" if prefix else str(value)]


def record_document(record: dict[str, Any], source: str, media_type: str, options: LoadOptions) -> Document:
    """One record → one Document (``source`` already names the record). A record
    with no text field is rendered whole as ``key: value`` lines."""
    title_key, title = _pick(record, options.title_field, TITLE_KEYS)
    text_key, text = _pick(record, options.text_field, TEXT_KEYS)
    id_key, _ = _pick(record, options.id_field, ID_KEYS)
    title = (str(title).strip() or None) if title is not None and _scalar(title) else None
    skip = {k for k in (title_key, text_key, id_key) if k}
    if isinstance(text, str):
        body = text.strip()
        metadata = flatten_metadata(record, skip)
    elif options.text_field:
        raise LoaderError(source, f"record has no text in its {options.text_field!r} field")
    else:
        body = "\n".join(render_lines({k: v for k, v in record.items() if k != title_key}))
        metadata = {}
    if not body and not title:
        raise LoaderError(source, "record has no text")
    page = metadata.pop("page", None)
    section = metadata.pop("section", None)
    block = Block(text=body or title or "",
                  page=page if isinstance(page, int) and not isinstance(page, bool) else None,
                  section=str(section) if _scalar(section) and section not in (None, "") else None)
    if page is not None and block.page is None:
        metadata["page"] = page  # not a page number ragline can cite: kept as the user's metadata
    return Document(source=source, blocks=[block], title=title, media_type=media_type, metadata=metadata,
                    chunked=options.records_as_chunks)


def record_documents(records: Iterable[tuple[str, int, Any]], source: str, media_type: str,
                     options: LoadOptions) -> list[Document | LoaderError]:
    """``(where, number, value)`` triples (``where`` names the line or item for
    errors) → Documents named ``<source>#<id>``, and a LoaderError for each bad
    record. The id is the record's id field, else ``number``."""
    out: list[Document | LoaderError] = []
    seen: set[str] = set()
    for where, number, record in records:
        if isinstance(record, LoaderError):
            out.append(record)
            continue
        if not isinstance(record, dict):
            out.append(LoaderError(where, "a record must be a JSON object"))
            continue
        _, raw = _pick(record, options.id_field, ID_KEYS)
        key = str(raw) if _scalar(raw) and raw not in (None, "") else str(number)
        problem = record_id_problem(key)
        if problem:
            out.append(LoaderError(where, f"record id {_shown(key)} refused: {problem}"))
            continue
        if key in seen:
            out.append(LoaderError(where, f"duplicate id {key!r}"))
            continue
        seen.add(key)
        try:
            document = record_document(record, f"{source}#{key}", media_type, options)
        except LoaderError as exc:
            out.append(LoaderError(where, exc.reason))
            continue
        document.metadata["record_id"] = key
        out.append(document)
    return out
