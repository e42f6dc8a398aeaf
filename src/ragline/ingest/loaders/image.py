"""Images (png, jpg, tiff, webp): text by OCR (``ingest/ocr.py``), one block per
frame (a multi-page TIFF's pages are pages)."""

from __future__ import annotations

import io
import warnings

from ...errors import LoaderError
from ...models import Block, Document
from .options import DEFAULT_OPTIONS, LoadOptions

MAX_FRAMES = 500


class ImageLoader:
    name = "image"
    extensions = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
    media_type = "image/*"

    def load(self, data: bytes, source: str, *, password: str | None = None,
             options: LoadOptions | None = None) -> list[Document | LoaderError]:
        from PIL import Image, ImageSequence, UnidentifiedImageError

        from ..ocr import INSTALL_HINT, MAX_PIXELS, ocr_enabled, ocr_metadata, read_image

        options = options or DEFAULT_OPTIONS
        if not ocr_enabled(options, source):
            hint = "OCR is off (RAGLINE_INGEST__OCR=off)" if options.ocr == "off" else INSTALL_HINT
            raise LoaderError(source, f"an image has text only through OCR: {hint}")
        Image.MAX_IMAGE_PIXELS = MAX_PIXELS
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)  # refuse, never decode, a pixel bomb
            try:
                image = Image.open(io.BytesIO(data))
                media_type = Image.MIME.get(image.format or "", "image/unknown")
                pages = {}
                for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
                    if number > MAX_FRAMES:
                        raise LoaderError(source, f"more than {MAX_FRAMES} frames in one image")
                    pages[number] = read_image(frame, options, source)
            except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
                raise LoaderError(source, f"not a readable image ({exc})") from exc
            except (OSError, SyntaxError, ValueError) as exc:  # truncated or malformed files
                raise LoaderError(source, f"unreadable image: {exc}") from exc
        blocks = [Block(text=p.text, page=n) for n, p in pages.items() if p.text.strip()]
        metadata = ocr_metadata(pages, options)
        if not blocks:
            metadata["warning"] = "OCR found no text in the image"
        return [Document(source=source, blocks=blocks, media_type=media_type, metadata=metadata)]
