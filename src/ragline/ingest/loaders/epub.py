"""EPUB: the book's spine in reading order, each chapter's XHTML read by the HTML
loader (headings become sections). The container and package files are parsed
with entities and network access off; the archive is checked first (``archive``)."""

from __future__ import annotations

import posixpath
import zipfile
from typing import Any

from ...errors import LoaderError
from ...models import Block, Document
from .archive import ENTITY, open_archive, refuse_declarations
from .options import LoadOptions

MAX_CHAPTERS = 5000
_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "dc": "http://purl.org/dc/elements/1.1/"}


class EpubLoader:
    name = "epub"
    extensions = (".epub",)
    media_type = "application/epub+zip"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        from lxml import etree

        with open_archive(data, source, ".epub") as book:
            refuse_declarations(book, source, ENTITY)  # XHTML may have a DOCTYPE, never entity declarations
            try:
                return [self._read(book, source)]
            except (KeyError, IndexError, zipfile.BadZipFile, etree.LxmlError) as exc:
                raise LoaderError(source, f"not a readable EPUB ({type(exc).__name__}: {exc})") from exc

    def _read(self, book: zipfile.ZipFile, source: str) -> Document:
        from .html import HtmlLoader

        container = _xml(book.read("META-INF/container.xml"))
        opf_path = container.xpath("//c:rootfile/@full-path", namespaces=_NS)[0]
        package = _xml(book.read(opf_path))
        base = posixpath.dirname(opf_path)
        manifest = {item.get("id"): item.get("href") for item in package.xpath("//opf:manifest/opf:item", namespaces=_NS)}
        spine = package.xpath("//opf:spine/opf:itemref/@idref", namespaces=_NS)[:MAX_CHAPTERS]
        title = (package.xpath("string(//dc:title)", namespaces=_NS) or "").strip() or None
        blocks: list[Block] = []
        for chapter, idref in enumerate(spine, start=1):
            href = manifest.get(idref)
            if not href:
                continue
            path = posixpath.normpath(posixpath.join(base, href.split("#", 1)[0]))
            try:
                (page,) = HtmlLoader().load(book.read(path), f"{source}#{path}")
            except (LoaderError, KeyError):
                continue  # an empty or missing chapter (cover, blank page): the rest is the book
            assert isinstance(page, Document)
            name = page.title or f"Chapter {chapter}"
            blocks.extend(Block(text=b.text, section=f"{name} > {b.section}" if b.section and b.section != name
                                else name) for b in page.blocks)
        if not blocks:
            raise LoaderError(source, "no text in any chapter of the EPUB")
        return Document(source=source, blocks=blocks, title=title, media_type=self.media_type,
                        metadata={"chapters": len(spine)})


def _xml(data: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    return etree.fromstring(data, parser)
