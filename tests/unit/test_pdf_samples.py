"""All 31 real-world PDFs: text from every one that has a text layer, a clear error
for the encrypted one unless its password is given, never a crash or a hang."""

from __future__ import annotations

import json
from functools import cache

import pytest

from ragline.errors import LoaderError
from ragline.ingest.sandbox import parse_file
from ragline.models import Document

from tests.paths import PDF_SAMPLES, needs

pytestmark = needs(PDF_SAMPLES)
MB = 1024 * 1024
PDFS = sorted(PDF_SAMPLES.rglob("*.pdf"))  # none when the samples are missing: the module skips


@cache
def files() -> list[dict]:
    return json.loads((PDF_SAMPLES / "files.json").read_text())["data"]


# Pages that are pictures only (photos, 2x2-pixel images): no text layer to read.
IMAGE_ONLY = {"imagemagick-ASCII85Decode.pdf", "imagemagick-CCITTFaxDecode.pdf", "imagemagick-lzw.pdf",
              "grayscale-image.pdf", "cmyk-image.pdf"}
EXPECTED_TEXT = {
    "minimal-document.pdf": "no sea takimata sanctus",  # joined across a PDFium line hyphen
    "pdflatex-4-pages.pdf": "Hello, here is some text",
    "GeoTopo-komprimiert.pdf": "(Schwarz-Weiß,",  # a compound keeps its hyphen
    "google-doc-document.pdf": "Example document",
    "crazyones-pdfa.pdf": "The Crazy Ones",
    "unreadablemetadata.pdf": "Rotary Potentiometer",
    "habibi.pdf": "habibi",
    "multicolumn.pdf": "Two-Column Document",
}


def test_there_are_31_samples() -> None:
    assert len(PDFS) == 31


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.name)
def test_every_sample_ingests_or_fails_clearly(path) -> None:
    info = next((f for f in files() if f["path"].endswith("/" + path.name)), None)
    if info and info["encrypted"]:
        with pytest.raises(LoaderError, match="password-protected; supply its password"):
            parse_file(str(path), path.name, None, 50 * MB)
        with pytest.raises(LoaderError, match="password is wrong"):
            parse_file(str(path), path.name, "not-the-password", 50 * MB)
        (doc,) = parse_file(str(path), path.name, "openpassword", 50 * MB)
        assert "Lorem ipsum" in doc.text
        return
    (doc,) = parse_file(str(path), path.name, None, 50 * MB)
    assert isinstance(doc, Document)
    if path.name == "unreadablemetadata.pdf":
        # Damaged page tree: PDFium, pypdf and MuPDF recover no page; pdfminer reaches 1 of 4.
        assert 1 <= doc.metadata["pages"] <= info["pages"]
    elif info is not None:
        assert doc.metadata["pages"] == info["pages"]
    if path.name in IMAGE_ONLY:
        assert doc.blocks == [] and "no extractable text" in doc.metadata["warning"]
        return
    assert doc.text.strip(), f"no text from {path.name}"
    assert all(b.page is not None and 1 <= b.page <= doc.metadata["pages"] for b in doc.blocks)
    if path.name in EXPECTED_TEXT:
        assert EXPECTED_TEXT[path.name] in doc.text


def test_outline_titles_become_sections() -> None:
    path = PDF_SAMPLES / "006-pdflatex-outline" / "pdflatex-outline.pdf"
    (doc,) = parse_file(str(path), path.name, None, 50 * MB)
    assert [b.section for b in doc.blocks][1:3] == ["Foo", "Bar"]


def test_whole_folder_ingests_with_one_failure(engine) -> None:
    from ragline.models import Scope

    summary = engine.ingest([PDF_SAMPLES], Scope("t", ("pdfs",)))
    failed = [f["path"] for f in summary.failed]
    assert len(failed) == 1 and failed[0].endswith("libreoffice-writer-password.pdf")
    assert summary.added >= 30 and summary.chunks > 100
    assert {w["path"].rsplit("/", 1)[-1] for w in summary.warnings} == IMAGE_ONLY
    hits = engine.search("Geometrie und Topologie", Scope("t", ("pdfs",)), k=3).hits
    assert hits and hits[0].source.endswith("GeoTopo-komprimiert.pdf") and hits[0].page is not None


def test_hyphenation_marks_are_joined() -> None:
    # PDFium marks words hyphenated across lines with U+FFFE; none may leak into text.
    for path in PDFS:
        try:
            docs = parse_file(str(path), path.name, None, 50 * MB)
        except LoaderError:
            continue
        assert "\ufffe" not in docs[0].text, path.name
