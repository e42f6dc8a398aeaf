"""PowerPoint .pptx via python-pptx: one block per slide (the slide number is its
page, its title the section): text frames, tables and grouped shapes in slide
order, then the speaker notes."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .archive import check_archive
from .options import LoadOptions

MAX_GROUP_DEPTH = 16


class PptxLoader:
    name = "pptx"
    extensions = (".pptx",)
    media_type = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        from lxml import etree
        from pptx import Presentation
        from pptx.exc import PackageNotFoundError

        check_archive(data, source, ".pptx")
        try:
            deck = Presentation(io.BytesIO(data))
            blocks = [block for number, slide in enumerate(deck.slides, start=1)
                      if (block := _slide(slide, number)) is not None]
            title = (deck.core_properties.title or "").strip() or None
        except (PackageNotFoundError, KeyError, ValueError, AttributeError) as exc:
            raise LoaderError(source, f"not a readable .pptx file ({type(exc).__name__}: {exc})") from exc
        except etree.LxmlError as exc:
            raise LoaderError(source, f"malformed XML in .pptx: {exc}") from exc
        if not blocks:
            raise LoaderError(source, "no text on any slide")
        return [Document(source=source, blocks=blocks, title=title or blocks[0].section, media_type=self.media_type,
                         metadata={"slides": len(deck.slides)})]


def _slide(slide: Any, number: int) -> Block | None:
    title_shape = slide.shapes.title
    title = title_shape.text_frame.text.strip() if title_shape is not None and title_shape.has_text_frame else None
    lines = [text for shape in slide.shapes if shape is not title_shape for text in _texts(shape, 0)]
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        if notes is not None and notes.text.strip():
            lines.append(f"Notes: {notes.text.strip()}")
    body = "\n".join(line for line in ([title] if title else []) + lines if line)
    return Block(text=body, page=number, section=title or None) if body else None


def _texts(shape: Any, depth: int) -> Iterator[str]:
    from pptx.shapes.group import GroupShape

    if depth > MAX_GROUP_DEPTH:
        return
    if isinstance(shape, GroupShape):
        for inner in shape.shapes:
            yield from _texts(inner, depth + 1)
    elif getattr(shape, "has_text_frame", False):
        text = shape.text_frame.text.strip()
        if text:
            yield text
    elif getattr(shape, "has_table", False):
        for row in shape.table.rows:
            cells = [cell.text.strip() for cell in row.cells]
            if any(cells):
                yield " | ".join(cells)
