"""Plain text and Markdown."""

from __future__ import annotations

import re

from charset_normalizer import from_bytes

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")


def decode_text(data: bytes, source: str) -> str:
    """Decode text strictly: UTF-8 (with or without BOM), UTF-16 with a BOM, else a
    confident guess. Binary content or undecodable bytes raise LoaderError."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise LoaderError(source, f"invalid UTF-16 text: {exc.reason} at byte {exc.start}") from exc
    if b"\x00" in data[:8192]:
        raise LoaderError(source, "binary content in a text file (NUL bytes); wrong extension?")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        utf8_error = f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
    guess = from_bytes(data[:1_000_000]).best()
    if guess is None or guess.encoding is None:
        raise LoaderError(source, f"{utf8_error} and no other text encoding fits")
    text = data.decode(guess.encoding, errors="replace")
    if len(_CONTROL.findall(text)) > max(8, len(text) // 100):
        raise LoaderError(source, f"{utf8_error}; decoding as {guess.encoding} gives garbage")
    return text


def require_text(text: str, source: str) -> str:
    if not text.strip():
        raise LoaderError(source, "no text content (empty file)")
    return text


class TextLoader:
    name = "text"
    extensions = (".txt", ".text", ".log", ".rst")
    media_type = "text/plain"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        return [Document(source=source, blocks=[Block(text=text.strip())], media_type=self.media_type)]


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINE_END = re.compile(r"\r\n|\r|\n")


class MarkdownLoader:
    """Splits at ATX headings; each block carries its heading path as the section."""

    name = "markdown"
    extensions = (".md", ".markdown", ".mdx")
    media_type = "text/markdown"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        text = require_text(decode_text(data, source), source)
        blocks: list[Block] = []
        path: list[str] = []
        lines: list[str] = []
        title: str | None = None
        in_fence = False

        def flush() -> None:
            body = "\n".join(lines).strip()
            if body:
                blocks.append(Block(text=body, section=" > ".join(path) or None))
            lines.clear()

        # CommonMark's line endings only: str.splitlines() would also break at U+2028,
        # U+0085 and form feeds inside a paragraph.
        for line in _LINE_END.split(text):
            if _FENCE.match(line):
                in_fence = not in_fence
            match = None if in_fence else _HEADING.match(line)
            if match:
                flush()
                level, heading = len(match.group(1)), match.group(2).strip()
                path[:] = path[: level - 1] + [heading]
                if title is None and level == 1:
                    title = heading
                continue
            lines.append(line)
        flush()
        if not blocks:  # headings only
            blocks = [Block(text=text.strip())]
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type)]
