"""Build ``bench/datasets/python-docs``: long, structured HTML pages in BEIR format.

Corpus: the pages of the Python 3.11 Library Reference (Debian's ``python3.11-doc``,
``/usr/share/doc/python3.11/html/library``), the main content of each page read
by ragline's own HTML loader (headings kept as lines before the text they head,
sidebars and navigation left out), titled by the page's ``<h1>``. Pages run to
tens of thousands of characters, so ragline's chunker cuts each into many chunks
and a document is found through its best chunk.

Query: a module's synopsis from the module index (``py-modindex.html``, e.g.
"Operations on pathnames."), which is not shown on the page itself. Relevant: the
page that documents the module. Synopses shared by two modules, and pages over
MAX_CHARS (a few huge pages would cost more embedding than all the rest), are
left out; the MAX_PAGES pages are those with a query plus, as distractors, the
rest of the library pages by name.

    apt-get install python3.11-doc
    .venv/bin/python bench/datasets/build_python_docs.py   # rewrites the folder
"""

from __future__ import annotations

import html
import re
import sys
from collections import Counter
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from ragline.ingest.loaders.html import HtmlLoader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beir_writer import write_beir

DOCS = Path("/usr/share/doc/python3.11/html")
OUT = Path(__file__).resolve().parent / "python-docs"
MAX_CHARS = 60_000
MAX_PAGES = 260
_ENTRY = re.compile(r'<a href="library/([\w.\-]+)\.html#module-[^"]*"><code class="xref">([^<]+)</code></a>'
                    r'[^\n]*\n?\s*(?:<em>\([^)]*\)</em>)?\s*(?:</td><td>)?\s*(?:<strong>[^<]*</strong>)?\s*<em>([^<]+)</em>')


_ROLE = re.compile(r":[\w:]+:`(?:[^`<]*<)?([^`>]+)>?`")


def page_text(path: Path) -> tuple[str, str]:
    """(title, text) of one page: its main content through ragline's HTML loader."""
    tree = LexborHTMLParser(path.read_text(encoding="utf-8"))
    main = tree.css_first('div[role="main"]') or tree.body
    for node in main.css("a.headerlink"):  # the "¶" permalink after every heading
        node.decompose()
    document = HtmlLoader().load(f"<html><body>{main.html}</body></html>".encode(), path.name)[0]
    lines, section = [], None
    for block in document.blocks:
        if block.section != section and block.section:
            lines.append(block.section.split(" > ")[-1])
        section = block.section
        lines.append(block.text)
    h1 = main.css_first("h1")
    return (h1.text(strip=True) if h1 else path.stem), "\n\n".join(lines)


def synopses() -> dict[str, tuple[str, str]]:
    """module → (page stem, synopsis) from the module index."""
    index = (DOCS / "py-modindex.html").read_text(encoding="utf-8")
    return {module: (page, _plain(text)) for page, module, text in _ENTRY.findall(index)}


def _plain(synopsis: str) -> str:
    """The synopsis as a reader would type it: reST roles and literals unwrapped."""
    text = _ROLE.sub(r"\1", html.unescape(synopsis)).replace("``", "")
    return " ".join(text.split())


def main() -> None:
    if not (DOCS / "library").is_dir():
        sys.exit(f"{DOCS} is missing: apt-get install python3.11-doc")
    pages = {p.stem: page_text(p) for p in sorted((DOCS / "library").glob("*.html"))}
    pages = {stem: pair for stem, pair in pages.items() if 500 <= len(pair[1]) <= MAX_CHARS}
    found = {m: (page, text) for m, (page, text) in synopses().items() if page in pages and len(text) > 10}
    shared = Counter(text.lower() for _, text in found.values())
    found = {m: pair for m, pair in found.items() if shared[pair[1].lower()] == 1}
    judged = sorted({page for page, _ in found.values()})
    kept = (judged + [s for s in pages if s not in judged])[:MAX_PAGES]
    corpus = ({"_id": stem, "title": pages[stem][0], "text": pages[stem][1]} for stem in sorted(kept))
    found = {m: pair for m, pair in found.items() if pair[0] in kept}
    queries = {f"mod-{m}": text for m, (_, text) in sorted(found.items())}
    qrels = {f"mod-{m}": {page: 1} for m, (page, _) in sorted(found.items())}
    counts = write_beir(OUT, corpus, queries, qrels)
    print(f"{OUT}: {counts}, {sum(len(pages[s][1]) for s in kept):,} characters")


if __name__ == "__main__":
    main()
