"""HTML via selectolax (the Lexbor HTML5 parser): visible text split at headings."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...errors import LoaderError
from ...models import Block, Document
from .options import LoadOptions
from .text import decode_text, require_text

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "head", "iframe", "object", "-comment"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_BLOCKS = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "li", "ul", "ol",
    "table", "tr", "td", "th", "pre", "blockquote", "dd", "dt", "dl", "figure", "figcaption",
    "form", "fieldset", "address", "br", "hr", "caption",
}
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANKS = re.compile(r"\n\s*\n+")


class _Walker:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.path: list[str] = []
        self.buf: list[str] = []

    def flush(self) -> None:
        text = _SPACES.sub(" ", "".join(self.buf))
        text = _BLANKS.sub("\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip()
        if text:
            self.blocks.append(Block(text=text, section=" > ".join(self.path) or None))
        self.buf.clear()

    def walk(self, node: LexborNode) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                self.buf.append(child.text(deep=False) or "")
            elif tag in _SKIP:
                continue
            elif tag in _HEADINGS:
                self.flush()
                heading = _SPACES.sub(" ", child.text(separator=" ", strip=True))
                level = _HEADINGS[tag]
                if heading:
                    self.path[:] = self.path[: level - 1] + [heading]
            else:
                block = tag in _BLOCKS
                if block:
                    self.buf.append("\n")
                self.walk(child)
                if block:
                    self.buf.append("\n")


class HtmlLoader:
    name = "html"
    extensions = (".html", ".htm", ".xhtml")
    media_type = "text/html"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        markup = require_text(decode_text(data, source), source)
        tree = LexborHTMLParser(markup)
        title_node = tree.css_first("title")
        title = title_node.text(strip=True) if title_node else None
        walker = _Walker()
        root = tree.body or tree.root
        if root is None:
            raise LoaderError(source, "no HTML body")
        try:
            walker.walk(root)
        except RecursionError as exc:
            raise LoaderError(source, "HTML nested too deeply to parse") from exc
        walker.flush()
        if not walker.blocks:
            raise LoaderError(source, "no visible text in HTML")
        if not title:
            first_h1 = tree.css_first("h1")
            title = first_h1.text(strip=True) if first_h1 else None
        return [Document(source=source, blocks=walker.blocks, title=title or None, media_type=self.media_type)]
