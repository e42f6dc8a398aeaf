"""HTML via selectolax (the Lexbor HTML5 parser): visible text split at headings.

Before the parser sees a file, a scan of its tags bounds its structure (nesting
depth, element count): the HTML5 tree builder takes time quadratic in nesting, so
200,000 nested ``<div>``s would hold a parser for minutes; the scan refuses them
in a fraction of a second with an error naming the limit.
"""

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
# Elements that never nest (void) or whose end tag may be left out, the next sibling
# closing them (so a page of unclosed <p>s is flat, not deep): not counted as depth.
_FLAT = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup",
    "caption", "rb", "rt", "rtc", "rp", "html", "head", "body",
}
_RAW = {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"}
_TAG = re.compile(r"<!--.*?(?:-->|\Z)|<(/?)([a-zA-Z][^\s/>]*)[^>]*>", re.DOTALL)
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


def check_structure(markup: str, source: str, max_depth: int, max_nodes: int) -> None:
    """``LoaderError`` naming the limit if ``markup`` nests deeper than ``max_depth``
    elements or holds more than ``max_nodes`` start tags; counted from its tags as the
    tree builder would open and close them (comments and raw text skipped)."""
    if markup.count("<") <= min(max_depth, max_nodes):
        return  # too few tags to pass either limit
    depth = nodes = 0
    position = 0
    lowered: str | None = None
    while (match := _TAG.search(markup, position)) is not None:
        position = match.end()
        name = match.group(2)
        if name is None:  # a comment
            continue
        name = name.lower()
        if match.group(1):  # an end tag
            if name not in _FLAT and depth > 0:
                depth -= 1
            continue
        nodes += 1
        if nodes > max_nodes:
            raise LoaderError(source, f"more than {max_nodes:,} HTML elements "
                                      f"(limits.max_html_nodes); not parsed")
        if name in _RAW:  # script, style…: text up to its end tag, however tag-like
            lowered = markup.lower() if lowered is None else lowered
            end = lowered.find(f"</{name}", position)
            position = len(markup) if end < 0 else end
        if name not in _FLAT:
            depth += 1
            if depth > max_depth:
                raise LoaderError(source, f"HTML elements nested more than {max_depth:,} deep "
                                          f"(limits.max_html_depth); not parsed")


class HtmlLoader:
    name = "html"
    extensions = (".html", ".htm", ".xhtml")
    media_type = "text/html"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        markup = require_text(decode_text(data, source), source)
        options = options or LoadOptions()
        check_structure(markup, source, options.max_html_depth, options.max_html_nodes)
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
