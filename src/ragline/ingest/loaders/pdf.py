"""PDF: text per page, section titles from the outline, passwords.

PDFium (pypdfium2, Chrome's PDF engine) is the fast, tolerant default; files it
refuses as malformed get a second chance with pdfminer.six, which rebuilds
broken cross-reference tables.
"""

from __future__ import annotations

import io
import logging
import re

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions

logging.getLogger("pdfminer").setLevel(logging.ERROR)

_LINE_HYPHEN = re.compile(r"\ufffe\n?(?=(\w))")


class PdfLoader:
    name = "pdf"
    extensions = (".pdf",)
    media_type = "application/pdf"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        try:
            pages, sections, title = _read_with_pdfium(data, source, password)
        except _Malformed as exc:
            pages, sections, title = _read_with_pdfminer(data, source, password, first_error=str(exc))
        blocks: list[Block] = []
        current: str | None = None
        for number, text in enumerate(pages, start=1):
            current = sections.get(number, current)
            if text:
                blocks.append(Block(text=text, page=number, section=current))
        metadata: dict[str, object] = {"pages": len(pages)}
        if not blocks:
            # A valid PDF without a text layer (photos, scans): kept as a document
            # with no chunks, and reported as a warning rather than a failure.
            metadata["warning"] = f"no extractable text in {len(pages)} page(s) (image-only; OCR is not enabled)"
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type, metadata=metadata)]


class _Malformed(Exception):
    pass


def _clean(text: str) -> str:
    # PDFium marks a hyphen at a line break with U+FFFE: join a split word
    # ("adip-iscing"), keep the hyphen of a compound ("Schwarz-Weiß").
    text = _LINE_HYPHEN.sub(lambda m: "-" if m.group(1).isupper() else "", text.replace("\ufffe\r\n", "\ufffe"))
    text = text.replace("\ufffe", "")
    lines = [line.rstrip() for line in text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip()


def _read_with_pdfium(data: bytes, source: str, password: str | None) -> tuple[list[str], dict[int, str], str | None]:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            if password:
                raise LoaderError(source, "PDF is password-protected and the given password is wrong") from exc
            raise LoaderError(source, "PDF is password-protected; supply its password to ingest it") from exc
        raise _Malformed(message) from exc
    try:
        pages = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            pages.append(_clean(textpage.get_text_range()))
            textpage.close()
            page.close()
        sections: dict[int, str] = {}
        trail: list[str] = []
        try:
            for item in pdf.get_toc(max_depth=8):
                title = (item.get_title() or "").strip()
                trail[:] = trail[: item.level] + [title]
                page_index = item.get_dest().get_index() if item.get_dest() else None
                if title and page_index is not None and page_index + 1 not in sections:
                    sections[page_index + 1] = " > ".join(t for t in trail if t)
        except Exception:  # noqa: BLE001 - a broken outline must not lose the text
            sections = {}
        title = (pdf.get_metadata_dict().get("Title") or "").replace("\x00", "").strip() or None
    finally:
        pdf.close()
    return pages, sections, title


def _read_with_pdfminer(data: bytes, source: str, password: str | None, first_error: str):
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer
    from pdfminer.pdfdocument import PDFPasswordIncorrect

    pages: list[str] = []
    try:
        for layout in extract_pages(io.BytesIO(data), password=password or ""):
            parts = [element.get_text() for element in layout if isinstance(element, LTTextContainer)]
            pages.append(_clean("\n".join(parts)))
    except PDFPasswordIncorrect as exc:
        raise LoaderError(source, "PDF is password-protected; supply its password to ingest it") from exc
    except Exception as exc:
        raise LoaderError(source, f"unreadable PDF ({first_error}; {type(exc).__name__}: {exc})") from exc
    return pages, {}, None
