"""OCR with Tesseract: images of every supported kind, scanned (image-only) PDFs,
answers citing their pages, OCR marked in metadata, the off switch, the install
hint, and hostile images. Scans are rendered from known text (bench/ocr_accuracy.py)."""

from __future__ import annotations

import io
import os
import struct
import zlib
from pathlib import Path

import pytest
from bench.ocr_accuracy import PAGES, char_accuracy, render_scan
from PIL import Image

from ragline.engine import Engine
from ragline.errors import LoaderError
from ragline.ingest import ocr
from ragline.ingest.loaders.options import LoadOptions
from ragline.ingest.sandbox import parse_file
from ragline.models import Document, Scope

SCOPE = Scope("bank", ("kb",))
FORM = PAGES[2]  # the account application form


def _require_tesseract() -> None:
    if ocr.tesseract_version() is not None:
        return
    if os.environ.get("CI"):
        pytest.fail("Tesseract must be installed in CI (scripts/ensure_tesseract.sh)", pytrace=False)
    pytest.skip("Tesseract is not installed (scripts/ensure_tesseract.sh)")


@pytest.fixture(autouse=True)
def tesseract() -> None:
    _require_tesseract()


def image_file(path: Path, text: str, fmt: str, **degrade: float) -> Path:
    Image.open(io.BytesIO(render_scan(text, **degrade))).save(path, format=fmt)
    return path


def load(path: Path, options: LoadOptions | None = None) -> list[Document | LoaderError]:
    return parse_file(str(path), path.name, None, 50 << 20, options=options)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_images_are_read_with_their_confidence(tmp_path: Path, fmt: str) -> None:
    (doc,) = load(image_file(tmp_path / f"form.{fmt.lower()}", FORM, fmt, skew=2.0))
    assert isinstance(doc, Document)
    assert char_accuracy(FORM, doc.text) > 0.97
    assert doc.blocks[0].page == 1 and doc.media_type == f"image/{fmt.lower()}"
    assert doc.metadata["ocr"] is True and doc.metadata["ocr_languages"] == "eng"
    assert doc.metadata["ocr_pages"] == [1] and 50 < doc.metadata["ocr_confidence"] <= 100


def test_a_multi_page_tiff_keeps_its_pages(tmp_path: Path) -> None:
    frames = [Image.open(io.BytesIO(render_scan(text))) for text in PAGES[:2]]
    path = tmp_path / "statement.tiff"
    frames[0].save(path, format="TIFF", save_all=True, append_images=frames[1:])
    (doc,) = load(path)
    assert [b.page for b in doc.blocks] == [1, 2]
    assert "SWIFT" in doc.blocks[1].text and len(doc.metadata["ocr_page_confidence"]) == 2


def scanned_pdf(path: Path) -> Path:
    """A two-page PDF with no text layer: each page is a scan."""
    pages = [Image.open(io.BytesIO(render_scan(text, skew=1.5, noise=0.01, seed=n))).convert("RGB")
             for n, text in enumerate(PAGES[:2])]
    pages[0].save(path, format="PDF", save_all=True, append_images=pages[1:], resolution=200)
    return path


def test_a_scanned_pdf_and_a_photo_are_answered_with_page_citations(engine: Engine, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    scanned_pdf(docs / "fees-scan.pdf")
    image_file(docs / "application-photo.jpg", FORM, "JPEG", skew=-2.5, noise=0.01, blur=0.5, quality=70)
    summary = engine.ingest([docs], SCOPE)
    assert (summary.added, summary.failed, summary.warnings) == (2, [], [])
    stored = {d.source: d for d in engine.list_documents(SCOPE)}
    assert stored["docs/fees-scan.pdf"].metadata["ocr_pages"] == [1, 2]
    answer = engine.ask("How much does a SWIFT transfer cost?", SCOPE)
    first = answer.citations[0]
    assert (first.source, first.page) == ("docs/fees-scan.pdf", 2) and "15 EUR" in answer.answer
    answer = engine.ask("What is the date of birth on the account application form?", SCOPE)
    assert answer.citations[0].source == "docs/application-photo.jpg" and "12/03/1985" in answer.answer


def test_ocr_off(tmp_path: Path) -> None:
    off = LoadOptions(ocr="off")
    (error,) = [pytest.raises(LoaderError, load, image_file(tmp_path / "a.png", FORM, "PNG"), off).value]
    assert "OCR is off" in error.reason
    (doc,) = load(scanned_pdf(tmp_path / "scan.pdf"), off)
    assert doc.blocks == [] and "OCR is off" in doc.metadata["warning"] and "ocr" not in doc.metadata


def test_without_tesseract_the_message_says_how_to_install_it(tmp_path: Path, monkeypatch) -> None:
    png = image_file(tmp_path / "a.png", FORM, "PNG")
    pdf = scanned_pdf(tmp_path / "scan.pdf")
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on it
    ocr.tesseract_version.cache_clear()
    try:
        with pytest.raises(LoaderError, match="apt-get install tesseract-ocr"):
            load(png)
        (doc,) = load(pdf)  # auto: the PDF is kept, with the hint as its warning
        assert "apt-get install tesseract-ocr" in doc.metadata["warning"]
        with pytest.raises(LoaderError, match="apt-get install tesseract-ocr"):
            load(pdf, LoadOptions(ocr="on"))
    finally:
        monkeypatch.undo()
        ocr.tesseract_version.cache_clear()


def test_a_missing_language_is_named(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="no data for xyz"):
        load(image_file(tmp_path / "a.png", FORM, "PNG"), LoadOptions(ocr_languages="eng+xyz"))


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims huge dimensions: a decompression bomb's signature."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + \
        chunk(b"IEND", b"")


@pytest.mark.parametrize(("name", "data", "message"), [
    ("bomb.png", _png_header_only(60_000, 60_000), "not a readable image"),
    ("garbage.png", b"\x89PNG\r\n\x1a\n" + os.urandom(200), "image"),
    ("text.jpg", b"just some text, not a JPEG", "not a readable image"),
])
def test_hostile_images_fail_alone_with_a_reason(tmp_path: Path, name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(LoaderError, match=message) as caught:
        load(path)
    assert caught.value.path == name
