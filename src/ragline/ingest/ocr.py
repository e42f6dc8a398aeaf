"""Optical character recognition with Tesseract (through pytesseract), for images
and for PDF pages that have no text layer.

Runs inside the parser worker (the sandbox's time limit and memory cap hold for the
``tesseract`` process it starts too). ``LoadOptions.ocr`` decides: ``auto`` reads
when Tesseract is installed and otherwise says how to install it, ``on`` requires
it, ``off`` never runs it. What is read keeps its page, the languages used and
Tesseract's confidence (the mean of its word confidences, 0–100).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import LoaderError
from .loaders.options import LoadOptions

if TYPE_CHECKING:
    from PIL.Image import Image

INSTALL_HINT = ("OCR needs Tesseract: install it (Debian/Ubuntu: apt-get install tesseract-ocr, plus "
                "tesseract-ocr-<lang> for other languages; macOS: brew install tesseract), or set "
                "RAGLINE_INGEST__OCR=off")
MAX_PIXELS = 100_000_000  # an image (or rendered page) larger than this is refused, not decoded


@dataclass(frozen=True)
class OcrText:
    """What Tesseract read on one page: text in reading order, and its confidence."""

    text: str
    confidence: float | None  # mean word confidence 0–100, None when no word was read


@cache
def tesseract_version() -> str | None:
    """The installed Tesseract's version, or None when it (or pytesseract) is missing."""
    if shutil.which("tesseract") is None:
        return None
    try:
        import pytesseract

        return str(pytesseract.get_tesseract_version())
    except Exception:  # noqa: BLE001 - not installed or not runnable: both mean no OCR
        return None


def ocr_enabled(options: LoadOptions, source: str) -> bool:
    """Whether to OCR: ``off`` no; ``on`` yes or a LoaderError with the install hint;
    ``auto`` when Tesseract is installed."""
    if options.ocr == "off":
        return False
    if tesseract_version() is None:
        if options.ocr == "on":
            raise LoaderError(source, INSTALL_HINT)
        return False
    return True


def _languages(options: LoadOptions, source: str) -> str:
    import pytesseract

    installed = set(pytesseract.get_languages(config=""))
    missing = [lang for lang in options.ocr_languages.split("+") if lang not in installed]
    if missing:
        raise LoaderError(source, f"Tesseract has no data for {', '.join(missing)} (installed: "
                                  f"{', '.join(sorted(installed - {'osd'})) or 'none'}); install "
                                  f"tesseract-ocr-{missing[0]} or change RAGLINE_INGEST__OCR_LANGUAGES")
    return options.ocr_languages


def read_image(image: Image, options: LoadOptions, source: str) -> OcrText:
    """OCR one image: lines in Tesseract's reading order, paragraphs separated by a
    blank line, and the mean confidence of the words read."""
    import pytesseract

    if image.width * image.height > MAX_PIXELS:
        raise LoaderError(source, f"image of {image.width}×{image.height} pixels is over the OCR limit "
                                  f"of {MAX_PIXELS:,} pixels")
    image = deskew(image.convert("L"))
    data = pytesseract.image_to_data(image, lang=_languages(options, source), output_type=pytesseract.Output.DICT)
    return _assemble(data)


MAX_SKEW = 6.0  # degrees either way: a scanner's or a phone's tilt, not a page on its side
_SKEW_STEP = 0.25
_PROBE_WIDTH = 800


def deskew(image: Image) -> Image:
    """The page turned level. Tesseract reads a line only if it is level: a 2° tilt
    breaks long lines into pieces read out of order. The angle is the one whose
    horizontal projection of dark pixels is the most peaked (text lines and the gaps
    between them), searched on a small copy."""
    import numpy as np
    from PIL import Image as PILImage

    scale = min(1.0, _PROBE_WIDTH / max(1, image.width))
    probe = image.resize((max(1, int(image.width * scale)), max(1, int(image.height * scale))))
    ink = PILImage.fromarray(((np.asarray(probe) < 128) * 255).astype(np.uint8))

    def peakedness(angle: float) -> float:
        rows = np.asarray(ink.rotate(angle, resample=PILImage.Resampling.NEAREST, expand=True)).sum(axis=1)
        return float(np.square(np.diff(rows.astype(np.float64))).sum())

    angles = np.arange(-MAX_SKEW, MAX_SKEW + _SKEW_STEP / 2, _SKEW_STEP)
    best = max(angles, key=peakedness)
    if abs(best) < _SKEW_STEP / 2:
        return image
    return image.rotate(float(best), resample=PILImage.Resampling.BICUBIC, expand=True, fillcolor=255)


def _assemble(data: dict[str, list[Any]]) -> OcrText:
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data["text"]):
        word = (word or "").strip()
        confidence = float(data["conf"][i])
        if not word or confidence < 0:
            continue
        confidences.append(confidence)
        lines = paragraphs.setdefault((data["block_num"][i], data["par_num"][i]), {})
        lines.setdefault(data["line_num"][i], []).append(word)
    text = "\n\n".join("\n".join(" ".join(words) for words in lines.values()) for lines in paragraphs.values())
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return OcrText(text=text, confidence=mean)


def ocr_metadata(pages: dict[int, OcrText], options: LoadOptions) -> dict[str, Any]:
    """How a document's OCR text is marked: ``ocr`` true, the pages read, the
    languages, the mean confidence overall and per page."""
    confidences = [p.confidence for p in pages.values() if p.confidence is not None]
    return {"ocr": True, "ocr_pages": sorted(pages), "ocr_languages": options.ocr_languages,
            "ocr_engine": f"tesseract {tesseract_version()}",
            "ocr_confidence": round(sum(confidences) / len(confidences), 1) if confidences else None,
            "ocr_page_confidence": [pages[n].confidence for n in sorted(pages)]}
