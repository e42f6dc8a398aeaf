"""OpenDocument text (.odt: LibreOffice, Google Docs exports): ``content.xml``
read with entities and network access off; headings (``text:h`` with their
outline level) split the text into sections, as in .docx."""

from __future__ import annotations

import zipfile
from typing import TYPE_CHECKING

from ...errors import LoaderError
from ...models import Block, Document
from .archive import open_archive, refuse_declarations
from .options import LoadOptions

if TYPE_CHECKING:
    from lxml.etree import _Element

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_NS = {"text": _TEXT, "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
       "dc": "http://purl.org/dc/elements/1.1/"}


class OdtLoader:
    name = "odt"
    extensions = (".odt",)
    media_type = "application/vnd.oasis.opendocument.text"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        from lxml import etree

        with open_archive(data, source, ".odt") as archive:
            refuse_declarations(archive, source)
            try:
                content = _xml(archive.read("content.xml"))
                meta = _xml(archive.read("meta.xml")) if "meta.xml" in archive.namelist() else None
            except (KeyError, zipfile.BadZipFile, etree.LxmlError) as exc:
                raise LoaderError(source, f"not a readable .odt file ({type(exc).__name__}: {exc})") from exc
        blocks, first_heading = _blocks(content)
        if not blocks:
            raise LoaderError(source, "no text content in .odt")
        title = (meta.xpath("string(//dc:title)", namespaces=_NS).strip() or None) if meta is not None else None
        return [Document(source=source, blocks=blocks, title=title or first_heading, media_type=self.media_type)]


def _blocks(content: _Element) -> tuple[list[Block], str | None]:
    blocks: list[Block] = []
    path: list[str] = []
    lines: list[str] = []
    first_heading = None

    def flush() -> None:
        body = "\n".join(lines).strip()
        if body:
            blocks.append(Block(text=body, section=" > ".join(path) or None))
        lines.clear()

    for element in content.iter(f"{{{_TEXT}}}h", f"{{{_TEXT}}}p"):
        text = " ".join(element.xpath("string()").split())
        if not text:
            continue
        if element.tag == f"{{{_TEXT}}}h":
            flush()
            level = int(element.get(f"{{{_TEXT}}}outline-level") or 1)
            path[:] = path[: max(0, level - 1)] + [text]
            first_heading = first_heading or text
        elif (parent := element.getparent()) is None or parent.tag != f"{{{_TEXT}}}p":
            lines.append(text)
    flush()
    return blocks, first_heading


def _xml(data: bytes) -> _Element:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    return etree.fromstring(data, parser)
