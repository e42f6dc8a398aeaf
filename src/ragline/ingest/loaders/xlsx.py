"""Excel .xlsx via openpyxl (read-only, cached values, never formulas run): each
sheet's rows as ``header: value`` lines under the sheet's first row, packed into
blocks whose section names the sheet and rows (``Fees › rows 2–40``)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .archive import check_archive
from .options import LoadOptions

BLOCK_CHARS = 1500  # rows per block: about one chunk's worth, so a row stays with its neighbours


class XlsxLoader:
    name = "xlsx"
    extensions = (".xlsx", ".xlsm")
    media_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        import zipfile

        from lxml import etree
        from openpyxl import load_workbook

        check_archive(data, source, ".xlsx")
        try:
            book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as exc:
            raise LoaderError(source, f"not a readable .xlsx file ({type(exc).__name__}: {exc})") from exc
        try:
            blocks = [block for sheet in book.worksheets for block in _sheet_blocks(sheet)]
            title = (book.properties.title or "").strip() or None if book.properties else None
            sheets = len(book.worksheets)
        except (etree.LxmlError, ValueError, KeyError, TypeError) as exc:
            raise LoaderError(source, f"malformed .xlsx: {type(exc).__name__}: {exc}") from exc
        finally:
            book.close()
        if not blocks:
            raise LoaderError(source, "no cells with values in any sheet")
        return [Document(source=source, blocks=blocks, title=title, media_type=self.media_type,
                         metadata={"sheets": sheets})]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _rows(sheet: Any) -> Iterator[tuple[int, str]]:
    """(row number, the row as ``header: value; …``) for rows with a value; the
    first row with values is the header."""
    header: list[str] | None = None
    header_row, data_rows = 0, 0
    for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells = [_cell(v) for v in row]
        if not any(cells):
            continue
        if header is None:
            header, header_row = cells, number
            continue
        names = [h or f"col{i + 1}" for i, h in enumerate(header)] + [f"col{i + 1}" for i in range(len(header), len(cells))]
        data_rows += 1
        yield number, "; ".join(f"{name}: {value}" for name, value in zip(names, cells) if value)
    if header is not None and not data_rows:  # a sheet of one row: the row is the content
        yield header_row, "; ".join(h for h in header if h)


def _sheet_blocks(sheet: Any) -> Iterator[Block]:
    lines: list[tuple[int, str]] = []
    size = 0

    def block() -> Block:
        first, last = lines[0][0], lines[-1][0]
        rows = f"row {first}" if first == last else f"rows {first}–{last}"
        return Block(text="\n".join(text for _, text in lines), section=f"{sheet.title} › {rows}")

    for number, text in _rows(sheet):
        if lines and size + len(text) > BLOCK_CHARS:
            yield block()
            lines, size = [], 0
        lines.append((number, text))
        size += len(text) + 1
    if lines:
        yield block()
