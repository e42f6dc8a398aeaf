"""``parse_file`` and the wire format between ``ParserSandbox`` and its worker
(``parse_worker``): frames of a 4-byte big-endian length followed by UTF-8 JSON.

JSON rather than pickle because the worker parses hostile files: a pickle from a
subverted worker would run code in the parent, while JSON can only ever be data.

- first reply, once the loaders are imported: ``{"ready": pid}``
- request: ``{"path", "source", "password", "max_bytes", "max_chars", "options"}``
  (``options``: ``LoadOptions.to_wire()``)
- reply: ``{"ok": [item, ...]}`` (a document as a dict, or a per-record error as
  ``{"error": [path, reason]}``), or ``{"error": [path, reason]}`` for the file.
"""

from __future__ import annotations

import json
import os
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LoaderError
from ..models import Block, Document
from .limits import too_much_text

if TYPE_CHECKING:
    from .loaders.options import LoadOptions

_HEADER = struct.Struct(">I")
MAX_REASON_CHARS = 1000  # an error's text is shown to users and stored with jobs: keep it readable


class ProtocolError(Exception):
    """A frame was malformed or larger than allowed."""


# -- framing (used by both sides) ----------------------------------------------
def write_frame(fd: int, message: Any) -> None:
    """Send one message; blocks until written."""
    payload = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view):]


def read_frame(fd: int, deadline: float | None = None, max_bytes: int = 1 << 31) -> Any:
    """Receive one message, or None at end of file. ``deadline`` (time.monotonic())
    raises TimeoutError when passed; ``max_bytes`` bounds what a peer can make us allocate."""
    header = _read_exact(fd, _HEADER.size, deadline)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > max_bytes:
        raise ProtocolError(f"a reply of {size:,} bytes is over the {max_bytes:,} byte limit")
    payload = _read_exact(fd, size, deadline)
    if payload is None:
        return None
    try:
        return json.loads(payload.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise ProtocolError(f"malformed frame: {exc}") from exc


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes | None:
    import select

    buffer = bytearray()
    while len(buffer) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(size - len(buffer), 1 << 20))
        if not chunk:
            return None
        buffer += chunk
    return bytes(buffer)


# -- what crosses the boundary -----------------------------------------------------
def _bounded(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON_CHARS else reason[:MAX_REASON_CHARS] + " …"


def encode_error(exc: LoaderError) -> dict[str, list[str]]:
    return {"error": [str(exc.path), _bounded(str(exc.reason))]}


def encode_item(item: Document | LoaderError) -> dict[str, Any]:
    if isinstance(item, LoaderError):
        return encode_error(item)
    return {"source": item.source, "title": item.title, "media_type": item.media_type, "metadata": item.metadata,
            "blocks": [[b.text, b.page, b.section] for b in item.blocks], "chunked": item.chunked}


def decode_item(data: dict[str, Any]) -> Document | LoaderError:
    """The parent's side of ``encode_item``; anything unexpected is a ProtocolError."""
    try:
        if "error" in data:
            path, reason = data["error"]
            return LoaderError(str(path), str(reason))
        blocks = [Block(text=str(text), page=page if isinstance(page, int) else None,
                        section=section if isinstance(section, str) else None) for text, page, section in data["blocks"]]
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise TypeError("metadata is not an object")
        title = data.get("title")
        return Document(source=str(data["source"]), blocks=blocks, title=title if isinstance(title, str) else None,
                        media_type=str(data.get("media_type") or "text/plain"), metadata=metadata,
                        chunked=data.get("chunked") is True)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"malformed document: {exc}") from exc


# -- the work ------------------------------------------------------------------------
def parse_file(path: str, source: str, password: str | None, max_bytes: int,
               max_chars: int | None = None, options: LoadOptions | None = None) -> list[Document | LoaderError]:
    """Read and parse one file (runs in the worker; also usable in-process). The size
    limit is checked before reading; ``max_chars`` bounds the text it may expand to."""
    from .loaders import loader_for

    file = Path(path)
    try:
        size = file.stat().st_size
        if size > max_bytes:
            raise LoaderError(source, f"file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.1f} MB limit")
        with file.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise LoaderError(source, f"cannot read file: {exc.strerror or exc}") from exc
    if not data:
        raise LoaderError(source, "empty file")
    loader = loader_for(file, data[:16], source)
    try:
        results = loader.load(data, source, password=password, options=options)
    except MemoryError as exc:
        raise LoaderError(source, "parsing exceeded the memory limit") from exc
    if max_chars is not None:
        chars = sum(len(item.text) for item in results if isinstance(item, Document))
        if chars > max_chars:
            raise too_much_text(source, chars, max_chars)
    return results


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """One request → one reply. Every failure becomes a LoaderError with a readable
    reason here, so no parser's exception object (lxml's, say) has to cross over."""
    from .loaders.options import LoadOptions

    source = str(request.get("source", "?"))
    try:
        results = parse_file(request["path"], source, request.get("password"), int(request["max_bytes"]),
                             request.get("max_chars"), LoadOptions.from_wire(request.get("options")))
        return {"ok": [encode_item(item) for item in results]}
    except LoaderError as exc:
        return encode_error(exc)
    except MemoryError:
        return encode_error(LoaderError(source, "parsing exceeded the memory limit"))
    except RecursionError:
        return encode_error(LoaderError(source, "the file is nested too deeply to parse"))
    except Exception as exc:  # noqa: BLE001 - any parser bug is this file's failure, not the worker's
        return encode_error(LoaderError(source, f"parser error: {type(exc).__name__}: {exc}"))
