"""Which files a CLI ingest reads: paths → (file, source) pairs.

A folder contributes its supported files (hidden ones skipped) with sources relative
to its parent. Three things are never picked up while walking a folder: ragline's
own data directory (other tenants' kept uploads, keys), symlinks that lead outside
the folder (``/etc/passwd``), and a second file whose name differs from a first
only in Unicode normalisation (sources are NFC, so NFC and NFD spellings of one
name are one document).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .loaders import supported_extensions


def nfc(text: str) -> str:
    """The one spelling sources are stored under (macOS writes NFD file names, Linux keeps either)."""
    return unicodedata.normalize("NFC", text)


def _inside(path: Path, folder: Path | None) -> bool:
    return folder is not None and (path == folder or path.is_relative_to(folder))


@dataclass
class Discovery:
    """What ``discover`` found: files to read, paths that failed, paths skipped on purpose."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)


def discover(paths: Iterable[Path], data_dir: Path | None = None) -> Discovery:
    """Expand paths into (file, source) pairs. A file named explicitly is always
    attempted (unless it lies in ``data_dir``); see the module docstring for what a
    folder walk leaves out."""
    found = Discovery()
    extensions = set(supported_extensions())
    data = data_dir.resolve() if data_dir is not None else None
    spellings: dict[str, tuple[str, Path]] = {}  # NFC source → (as spelled on disk, file)

    def add(file: Path, source: str) -> None:
        normal = nfc(source)
        first = spellings.setdefault(normal, (source, file))
        if first[0] != source:
            found.warnings.append({"path": str(file), "warning": f"the same name as {first[1]} in another Unicode "
                                                                  "spelling (NFC/NFD); skipped as a duplicate"})
            return
        found.files.append((file, normal))

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            root = path.resolve()
            if _inside(root, data):
                found.failed.append({"path": str(raw), "error": "inside ragline's data directory; not ingested"})
                continue
            for dirpath, dirnames, filenames in os.walk(root):  # symlinked folders are not descended
                here = Path(dirpath)
                if _inside(here, data):  # only reached when the data directory is the root itself
                    continue
                kept = []
                for d in sorted(dirnames):
                    if d.startswith("."):
                        continue
                    if _inside(here / d, data):
                        found.warnings.append({"path": str(here / d), "warning": "ragline's data directory; skipped"})
                        continue
                    kept.append(d)
                dirnames[:] = kept
                for name in sorted(filenames):
                    file = here / name
                    if name.startswith(".") or file.suffix.lower() not in extensions:
                        continue
                    if file.is_symlink():
                        target = file.resolve()
                        if not _inside(target, root) or _inside(target, data):
                            found.warnings.append({"path": str(file), "warning": "a symlink to outside the "
                                                   "ingested folder; not followed"})
                            continue
                    add(file, file.relative_to(root.parent).as_posix())
        elif path.is_file():
            if _inside(path.resolve(), data):
                found.failed.append({"path": str(raw), "error": "inside ragline's data directory; not ingested"})
                continue
            add(path.resolve(), path.name)
        else:
            found.failed.append({"path": str(raw), "error": "no such file or directory"})
    return found
