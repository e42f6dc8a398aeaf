"""Rich Text Format (.rtf) via striprtf: the text without control words; blank
lines split it into paragraphs (RTF has no dependable heading markup)."""

from __future__ import annotations

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions

SIGNATURE = b"{\\rtf"


class RtfLoader:
    name = "rtf"
    extensions = (".rtf",)
    media_type = "application/rtf"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        from striprtf.striprtf import rtf_to_text

        if not data.lstrip().startswith(SIGNATURE):
            raise LoaderError(source, "not an RTF file (no {\\rtf header)")
        try:
            # RTF is 7-bit: anything else is escaped (\'hh, \uN), so latin-1 never fails.
            text = rtf_to_text(data.decode("latin-1"), errors="replace")
        except (ValueError, IndexError, RecursionError) as exc:
            raise LoaderError(source, f"unreadable RTF: {exc}") from exc
        text = "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip()
        if not text:
            raise LoaderError(source, "no text content in RTF")
        return [Document(source=source, blocks=[Block(text=text)], media_type=self.media_type)]
