"""Build ``bench/datasets/sample-kb``: ragline's sample bank and the real test PDFs,
one corpus record per section, with questions written by hand.

Corpus: every section of the sample knowledge base (``src/ragline/sample``) as
ragline's loaders split it (Markdown and HTML at their headings; the plain-text
card leaflet at its upper-case headings; the branch CSV one row per branch), and
every page of the PDFs in ``/work/shared/testdata`` with some text (OCR-free
extraction through ragline's PDF loader) as distractors. A record keeps its
heading path in ``section`` and its text without the heading, as ragline stores
a chunk: an FAQ whose questions are headings is therefore a test of whether
headings count when matching.

Queries: ``questions.jsonl`` in this folder, written for this set (id, question,
the ``file:heading`` or ``file:page`` that answers it); none was changed after a
measurement. Most paraphrase rather than quote the text.

    .venv/bin/python bench/datasets/build_sample_kb.py   # rewrites the folder
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

from ragline.errors import LoaderError
from ragline.ingest.loaders import loader_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beir_writer import write_beir

HERE = Path(__file__).resolve().parent
OUT = HERE / "sample-kb"
SAMPLE = HERE.parents[1] / "src" / "ragline" / "sample"
PDFS = Path("/work/shared/testdata")
MIN_PAGE_CHARS = 200
_CAPS_HEADING = re.compile(r"^[A-Z0-9][A-Z0-9 \-]+$", re.MULTILINE)


def _loaded(path: Path):
    data = path.read_bytes()
    return [d for d in loader_for(path, data[:64]).load(data, path.name) if not isinstance(d, LoaderError)]


def sample_sections() -> list[tuple[str, str, str, str]]:
    """(key, title, section path, text) for each section of the sample knowledge base."""
    out = []
    for path in sorted(SAMPLE.iterdir()):
        if path.suffix == ".csv":
            with path.open(encoding="utf-8") as handle:
                for row in csv.DictReader(handle):
                    text = "\n".join(f"{field}: {value}" for field, value in row.items())
                    out.append((f"{path.name}:{row['branch']}", "Branches", row["branch"], text))
        elif path.suffix == ".txt":
            body = path.read_text(encoding="utf-8")
            title, _, rest = body.partition("\n")
            parts = _CAPS_HEADING.split(rest)
            for heading, text in zip(_CAPS_HEADING.findall(rest), parts[1:]):
                out.append((f"{path.name}:{heading.strip()}", title.strip(), heading.strip(), text.strip()))
        else:
            for document in _loaded(path):
                for block in document.blocks:
                    section = block.section or document.title or path.stem
                    out.append((f"{path.name}:{section.split(' > ')[-1]}", document.title or path.stem,
                                section, block.text))
    return out


def pdf_pages() -> list[tuple[str, str, str, str]]:
    """(key, title, section, text) for each PDF page with at least MIN_PAGE_CHARS of text."""
    out = []
    for path in sorted(PDFS.rglob("*.pdf")):
        try:
            documents = _loaded(path)
        except LoaderError:
            continue  # password-protected or unreadable: nothing to judge
        for document in documents:
            for block in document.blocks:
                if len(block.text) >= MIN_PAGE_CHARS or block.page == 1:
                    out.append((f"{path.name}:{block.page}", document.title or path.stem,
                                f"page {block.page}", block.text))
    return out


def main() -> None:
    sections = sample_sections() + pdf_pages()
    ids = {key: f"d{number:04d}" for number, (key, *_) in enumerate(sections)}
    corpus = [{"_id": ids[key], "title": title, "text": text, "section": section, "key": key}
              for key, title, section, text in sections]
    questions = [json.loads(line) for line in (OUT / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    missing = [q["doc"] for q in questions if q["doc"] not in ids]
    if missing:
        sys.exit(f"questions name sections that do not exist: {missing}")
    counts = write_beir(OUT, corpus, {q["id"]: q["text"] for q in questions},
                        {q["id"]: {ids[q["doc"]]: 1} for q in questions})
    print(f"{OUT}: {counts}")


if __name__ == "__main__":
    main()
