"""OCR character accuracy on scans made from known text.

Each page of known text is rendered with Pillow's bundled font at 300 dpi-like
size, then degraded as a scanner or a phone would: rotated a little (skew),
speckled with salt-and-pepper noise, blurred, and saved as a JPEG. ragline's OCR
(``ragline.ingest.ocr``, Tesseract) reads it back; character accuracy is
``1 - levenshtein(expected, read) / len(expected)`` after collapsing whitespace.

    .venv/bin/python -m bench.ocr_accuracy          # → bench/ocr_accuracy.json and .md

Figures go to docs/formats.md. Deterministic: the noise is seeded.
"""

from __future__ import annotations

import io
import json
import random
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

OUT = Path(__file__).with_suffix("")

PAGES = [
    ("Overdraft policy. An arranged overdraft costs 19.9% EAR. An unarranged overdraft is "
     "charged 5 EUR per day, at most 60 EUR a month. Customers under 18 pay no overdraft fees."),
    ("International transfers: SEPA payments arrive the next working day and cost nothing. "
     "SWIFT transfers cost 15 EUR plus the correspondent bank's charges; cut-off time 14:00 CET."),
    ("Account application form. Full name: Maria Lopez. Date of birth: 12/03/1985. "
     "Address: 221 Harbour Street, Leith, EH6 6LW. Account type: current. Signature required below."),
    ("Lost or stolen card? Call 0800 123 4567 at once; we block the card within minutes. "
     "A replacement card arrives in 3 to 5 working days and costs 10 EUR after the first one each year."),
]

CONDITIONS = {  # name → (skew in degrees, share of pixels flipped, blur radius, JPEG quality)
    "clean": (0.0, 0.0, 0.0, 95),
    "skew 2°": (2.0, 0.0, 0.0, 95),
    "noise 2%": (0.0, 0.02, 0.0, 95),
    "skew 3° + noise 3% + blur + JPEG 60": (3.0, 0.03, 0.6, 60),
}


def wrap(text: str, font: ImageFont.ImageFont, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if font.getlength(trial) > width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def render_scan(text: str, *, skew: float = 0.0, noise: float = 0.0, blur: float = 0.0, quality: int = 95,
                seed: int = 0, font_size: int = 40) -> bytes:
    """A scanned page of ``text``: black on white, then degraded; JPEG bytes."""
    font = ImageFont.load_default(size=font_size)
    width, margin = 2000, 120
    lines = wrap(text, font, width - 2 * margin)
    height = 2 * margin + len(lines) * int(font_size * 1.6)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * int(font_size * 1.6)), line, font=font, fill=0)
    if skew:
        page = page.rotate(skew, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    if noise:
        rng = random.Random(seed)
        pixels = page.load()
        for _ in range(int(page.width * page.height * noise)):
            x, y = rng.randrange(page.width), rng.randrange(page.height)
            pixels[x, y] = 0 if rng.random() < 0.5 else 255
    if blur:
        page = page.filter(ImageFilter.GaussianBlur(blur))
    out = io.BytesIO()
    page.save(out, format="JPEG", quality=quality)
    return out.getvalue()


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def char_accuracy(expected: str, read: str) -> float:
    """1 − edit distance / expected length, whitespace collapsed (line breaks are layout)."""
    expected, read = " ".join(expected.split()), " ".join(read.split())
    return max(0.0, 1 - levenshtein(expected, read) / max(1, len(expected)))


def _pdf(skew: float, noise: float) -> dict[str, float]:
    """The image-only PDF path (PdfLoader: render each text-less page, OCR it): all
    pages as one PDF of 200 dpi scans."""
    from ragline.ingest.sandbox import parse_file

    scans = [Image.open(io.BytesIO(render_scan(text, skew=skew, noise=noise, seed=n))).convert("RGB")
             for n, text in enumerate(PAGES)]
    path = OUT.parent / "ocr_scan.tmp.pdf"
    scans[0].save(path, format="PDF", save_all=True, append_images=scans[1:], resolution=200)
    try:
        started = time.perf_counter()
        (document,) = parse_file(str(path), path.name, None, 1 << 26)
        seconds = time.perf_counter() - started
    finally:
        path.unlink()
    read = {block.page: block.text for block in document.blocks}
    scores = [char_accuracy(text, read.get(n, "")) for n, text in enumerate(PAGES, start=1)]
    return {"char_accuracy": round(sum(scores) / len(scores), 4), "worst_page": round(min(scores), 4),
            "mean_confidence": document.metadata.get("ocr_confidence") or 0.0,
            "seconds_per_page": round(seconds / len(PAGES), 2)}


def main() -> int:
    from ragline.ingest.loaders.options import LoadOptions
    from ragline.ingest.ocr import read_image, tesseract_version

    if tesseract_version() is None:
        print("Tesseract is not installed (scripts/ensure_tesseract.sh)", file=sys.stderr)
        return 1
    options = LoadOptions(ocr="on")
    results = {}
    for name, (skew, noise, blur, quality) in CONDITIONS.items():
        scores, confidences, seconds = [], [], 0.0
        for seed, text in enumerate(PAGES):
            scan = render_scan(text, skew=skew, noise=noise, blur=blur, quality=quality, seed=seed)
            started = time.perf_counter()
            read = read_image(Image.open(io.BytesIO(scan)), options, f"page{seed}.jpg")
            seconds += time.perf_counter() - started
            scores.append(char_accuracy(text, read.text))
            confidences.append(read.confidence or 0.0)
        results[name] = {"char_accuracy": round(sum(scores) / len(scores), 4), "worst_page": round(min(scores), 4),
                         "mean_confidence": round(sum(confidences) / len(confidences), 1),
                         "seconds_per_page": round(seconds / len(PAGES), 2)}
    results["scanned PDF, 200 dpi, skew 1.5° + noise 1%"] = _pdf(1.5, 0.01)
    report = {"tesseract": tesseract_version(), "pages": len(PAGES), "characters": sum(len(p) for p in PAGES),
              "conditions": results}
    OUT.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    rows = [f"| {name} | {r['char_accuracy']:.2%} | {r['worst_page']:.2%} | {r['mean_confidence']} | "
            f"{r['seconds_per_page']} |" for name, r in results.items()]
    OUT.with_suffix(".md").write_text(
        f"OCR character accuracy, Tesseract {report['tesseract']}, {report['pages']} pages "
        f"({report['characters']} characters) rendered from known text (`python -m bench.ocr_accuracy`).\n\n"
        "| scan | char accuracy | worst page | mean confidence | s/page |\n| --- | --- | --- | --- | --- |\n"
        + "\n".join(rows) + "\n")
    print(OUT.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
