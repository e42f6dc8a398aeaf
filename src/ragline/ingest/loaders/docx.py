"""Word .docx via python-docx: paragraphs and tables, split at Heading styles."""

from __future__ import annotations

import io
import zipfile

from ...errors import LoaderError
from ...models import Block, Document


class DocxLoader:
    name = "docx"
    extensions = (".docx",)
    media_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

    def load(self, data: bytes, source: str, *, password: str | None = None) -> list[Document | LoaderError]:
        import docx  # python-docx; imported here so the CLI starts fast
        from docx.opc.exceptions import PackageNotFoundError

        try:
            document = docx.Document(io.BytesIO(data))
        except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
            raise LoaderError(source, f"not a readable .docx file ({exc})") from exc

        blocks: list[Block] = []
        path: list[str] = []
        lines: list[str] = []

        def flush() -> None:
            body = "\n".join(lines).strip()
            if body:
                blocks.append(Block(text=body, section=" > ".join(path) or None))
            lines.clear()

        body = document.element.body
        for child in body.iterchildren():
            tag = child.tag.rsplit("}", 1)[-1]
            if tag == "p":
                paragraph = docx.text.paragraph.Paragraph(child, document)
                text = paragraph.text.strip()
                style = (paragraph.style.name or "") if paragraph.style is not None else ""
                level = _heading_level(style)
                if level and text:
                    flush()
                    path[:] = path[: level - 1] + [text]
                elif text:
                    lines.append(text)
            elif tag == "tbl":
                table = docx.table.Table(child, document)
                for row in table.rows:
                    cells = [c.text.strip() for c in row.cells]
                    if any(cells):
                        lines.append(" | ".join(cells))
        flush()
        if not blocks:
            raise LoaderError(source, "no text content in .docx")
        title = (document.core_properties.title or "").strip() or None
        if title is None and path:
            title = path[0]
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type)]


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    if style.startswith("Heading "):
        tail = style.removeprefix("Heading ").strip()
        return int(tail) if tail.isdigit() else 0
    return 0
