"""What every ZIP-packaged format (docx, pptx, xlsx, odt, epub) checks before an XML
parser sees it: the archive opens, does not expand past a bound (zip bombs), and
declares no DTD entities (billion laughs, external-entity probes)."""

from __future__ import annotations

import io
import zipfile

from ...errors import LoaderError

ZIP_SIGNATURE = b"PK\x03\x04"
MAX_EXPANSION = 100  # uncompressed / compressed; office files are ~5–20
MIN_EXPANDED_BYTES = 256 << 20  # a small file may always expand this far
_PROLOG_BYTES = 64 * 1024
_XML_PARTS = (".xml", ".rels", ".opf", ".ncx", ".xhtml", ".html", ".htm", ".svg")
DOCTYPE_OR_ENTITY = ("<!DOCTYPE", "<!ENTITY")
ENTITY = ("<!ENTITY",)


def _encoded(markers: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(m.encode(codec) for m in markers for codec in ("utf-8", "utf-16-le", "utf-16-be"))


def open_archive(data: bytes, source: str, kind: str) -> zipfile.ZipFile:
    """The archive, or a LoaderError naming ``kind`` (e.g. ".pptx") when it is not
    one or would expand past ``MAX_EXPANSION`` times its size."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        expanded = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise LoaderError(source, f"not a readable {kind} file ({exc})") from exc
    if expanded > max(MIN_EXPANDED_BYTES, MAX_EXPANSION * len(data)):
        archive.close()
        raise LoaderError(source, f"the {kind} archive expands to {expanded / 1e6:,.0f} MB from "
                                  f"{len(data) / 1e6:,.1f} MB; refused as a zip bomb")
    return archive


def refuse_declarations(archive: zipfile.ZipFile, source: str, markers: tuple[str, ...] = DOCTYPE_OR_ENTITY) -> None:
    """Refuse, by name, an XML part that declares ``markers`` (office XML never needs
    a DTD; EPUB's XHTML may carry a DOCTYPE but never needs an entity declaration).
    A declaration must come before the root element, so each part's first bytes are
    enough (and reading no more keeps zip bombs harmless)."""
    encoded = _encoded(markers)
    for info in archive.infolist():
        if not info.filename.lower().endswith(_XML_PARTS):
            continue
        try:
            with archive.open(info) as part:
                head = part.read(_PROLOG_BYTES)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError):
            continue  # unreadable parts are the format parser's to report
        if any(marker in head for marker in encoded):
            raise LoaderError(source, f"the XML in {info.filename} declares a DTD or entity expansion "
                                      f"({'/'.join(m + '>' for m in markers)}), refused")


def check_archive(data: bytes, source: str, kind: str, markers: tuple[str, ...] = DOCTYPE_OR_ENTITY) -> None:
    """``open_archive`` and ``refuse_declarations`` for parsers that open the bytes themselves."""
    with open_archive(data, source, kind) as archive:
        refuse_declarations(archive, source, markers)
