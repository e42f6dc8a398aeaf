"""PDF: text per page, section titles from the outline, passwords.

PDFium (pypdfium2, Chrome's PDF engine) is the fast, tolerant default; files it
refuses as malformed get a second chance with pdfminer.six, which rebuilds
broken cross-reference tables.
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from ..ocr import INSTALL_HINT, MAX_PIXELS, OcrText, ocr_enabled, ocr_metadata, read_image
from .options import DEFAULT_OPTIONS, LoadOptions

logging.getLogger("pdfminer").setLevel(logging.ERROR)

_LINE_HYPHEN = re.compile(r"\ufffe\n?(?=(\w))")


class PdfLoader:
    name = "pdf"
    extensions = (".pdf",)
    media_type = "application/pdf"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        options = options or DEFAULT_OPTIONS
        rendered = True
        try:
            pages, sections, title = _read_with_pdfium(data, source, password)
        except _Malformed as exc:
            pages, sections, title = _read_with_pdfminer(data, source, password, first_error=str(exc))
            rendered = False  # no page renderer for a file PDFium refused: no OCR either
        pages = strip_running(pages)
        textless = [number for number, text in enumerate(pages, start=1) if not text]
        read = _ocr_pages(data, password, textless, options, source) if textless and rendered else {}
        blocks: list[Block] = []
        current: str | None = None
        for number, text in enumerate(pages, start=1):
            current = sections.get(number, current)
            text = text or (read[number].text if number in read else "")
            if text:
                blocks.append(Block(text=text, page=number, section=current))
        metadata: dict[str, object] = {"pages": len(pages)}
        if read:
            metadata.update(ocr_metadata(read, options))
        if not blocks:
            # A valid PDF without a text layer (photos, scans) and nothing OCR could read:
            # kept as a document with no chunks, and reported as a warning, not a failure.
            why = "OCR found no text" if read else ("OCR is off" if options.ocr == "off" else INSTALL_HINT)
            metadata["warning"] = f"no extractable text in {len(pages)} page(s) (image-only; {why})"
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type, metadata=metadata)]


class _Malformed(Exception):
    pass


MIN_OCR_DPI = 150


def _scan_dpi(page: Any, wanted: int) -> float:  # a pypdfium2 PdfPage (untyped)
    """The resolution to render a text-less page at for OCR: ``wanted``, but no more
    than its scanned image holds: rendering a 200 dpi scan at 300 dpi enlarges its
    speckles into blobs that Tesseract reads as letters (bench/ocr_accuracy.py)."""
    import pypdfium2.raw as pdfium_c

    native = []
    for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=2):
        left, _, right, _ = obj.get_bounds()
        if right - left > 1:
            native.append(obj.get_px_size()[0] / ((right - left) / 72))
    return max(MIN_OCR_DPI, min(wanted, max(native))) if native else wanted


def _ocr_pages(data: bytes, password: str | None, numbers: list[int], options: LoadOptions,
               source: str) -> dict[int, OcrText]:
    """OCR of the pages without a text layer, rendered at ``options.ocr_dpi`` (none
    when OCR is off, or unavailable under ``auto``)."""
    import pypdfium2 as pdfium

    if not ocr_enabled(options, source):
        return {}
    pdf = pdfium.PdfDocument(data, password=password)
    try:
        read = {}
        for number in numbers:
            page = pdf[number - 1]
            try:
                width, height = page.get_size()
                scale = _scan_dpi(page, options.ocr_dpi) / 72
                if width * height * scale * scale > MAX_PIXELS:  # a huge page: rendered smaller, up to the cap
                    scale = (MAX_PIXELS / (width * height)) ** 0.5
                image = page.render(scale=scale, grayscale=True).to_pil()
            finally:
                page.close()
            read[number] = read_image(image, options, source)
        return read
    finally:
        pdf.close()


# Lines at a page's top or bottom that repeat on most pages are running headers and
# footers ("Bank Ltd. | Fixed Deposits", "Page 2 of 3"): left in, they land inside the
# sentence a page break cut ("Rs. 1.5 <header> lakh").
_EDGE_LINES = 3


def strip_running(pages: list[str]) -> list[str]:
    """``pages`` without their running headers and footers: a line among the first or
    last three of a page whose text (numbers aside) is at the edge of at least half
    the pages, and of two at least."""
    texts = [p for p in pages if p.strip()]
    if len(texts) < 2:
        return pages

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", " ".join(line.split()).lower())

    seen: dict[str, int] = {}
    for text in texts:
        lines = [line for line in text.split("\n") if line.strip()]
        for k in {key(line) for line in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:]}:
            seen[k] = seen.get(k, 0) + 1
    running = {k for k, n in seen.items() if n >= max(2, (len(texts) + 1) // 2) and len(k) > 3}
    if not running:
        return pages
    out = []
    for text in pages:
        lines = text.split("\n")
        content = [i for i, line in enumerate(lines) if line.strip()]
        edges = set(content[:_EDGE_LINES] + content[-_EDGE_LINES:])
        kept = [line for i, line in enumerate(lines) if not (i in edges and key(line) in running)]
        # A page that is nothing but such lines (a caption per page) keeps them.
        out.append("\n".join(kept).strip() if any(line.strip() for line in kept) else text)
    return out


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


def _read_with_pdfminer(data: bytes, source: str, password: str | None,
                        first_error: str) -> tuple[list[str], dict[int, str], str | None]:
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
