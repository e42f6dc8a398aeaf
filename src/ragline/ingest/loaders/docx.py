"""Word .docx via python-docx: paragraphs and tables, split at Heading styles."""

from __future__ import annotations

import io
import zipfile
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .archive import check_archive
from .options import LoadOptions


class DocxLoader:
    name = "docx"
    extensions = (".docx",)
    media_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        import docx  # python-docx; imported here so the CLI starts fast
        from docx.opc.exceptions import PackageNotFoundError
        from lxml import etree

        check_archive(data, source, ".docx")
        try:
            document = docx.Document(io.BytesIO(data))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
            raise LoaderError(source, f"not a readable .docx file ({exc})") from exc
        except etree.LxmlError as exc:
            raise LoaderError(source, f"malformed XML in .docx: {exc}") from exc
        try:
            return self._read(document, source)
        except etree.LxmlError as exc:
            raise LoaderError(source, f"malformed XML in .docx: {exc}") from exc

    def _read(self, document: Any, source: str) -> list[Document | LoaderError]:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        blocks: list[Block] = []
        path: list[str] = []
        lines: list[str] = []
        first_heading: str | None = None  # the title when the file has no title property

        def flush() -> None:
            body = "\n".join(lines).strip()
            if body:
                blocks.append(Block(text=body, section=" > ".join(path) or None))
            lines.clear()

        # Style names looked up once: python-docx's Paragraph.style scans every style
        # per paragraph, which made a 20,000-paragraph file take a minute.
        styles, default_style = _paragraph_styles(document)
        body = document.element.body
        for child in body.iterchildren():
            tag = child.tag.rsplit("}", 1)[-1]
            if tag == "p":
                paragraph = Paragraph(child, document)
                text = paragraph.text.strip()
                level = _heading_level(styles.get(child.style, default_style))
                if level and text:
                    flush()
                    path[:] = path[: level - 1] + [text]
                    first_heading = first_heading or text
                elif text:
                    lines.append(text)
            elif tag == "tbl":
                table = Table(child, document)
                for row in table.rows:
                    cells = [c.text.strip() for c in row.cells]
                    if any(cells):
                        lines.append(" | ".join(cells))
        flush()
        if not blocks:
            raise LoaderError(source, "no text content in .docx")
        title = (document.core_properties.title or "").strip() or None
        if title is None:
            title = first_heading
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type)]


def _paragraph_styles(document: Any) -> tuple[dict[str | None, str], str]:
    """Paragraph style id → name, and the default style's name (for unknown ids)."""
    from docx.enum.style import WD_STYLE_TYPE

    names = {s.style_id: s.name or "" for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    return names, (default.name or "") if default is not None else ""


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        tail = style.removeprefix("Heading ").strip()
        return int(tail) if tail.isdigit() else 0
    return 0
