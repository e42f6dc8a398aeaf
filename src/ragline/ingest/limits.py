"""Bounds on what one file may expand to once parsed: extracted characters, chunks,
and document metadata (which is copied into every search hit)."""

from __future__ import annotations

import json
from typing import Any

from ..errors import LoaderError

# Loader-set keys that ragline itself relies on are kept before any user key.
RESERVED_KEYS = ("record_id", "pages", "rows", "warning")


def too_much_text(source: str, chars: int, limit: int) -> LoaderError:
    """The error for a file whose text is over ``limits.max_extracted_chars``."""
    return LoaderError(source, f"{source} expands to {chars:,} characters of text, over the limit of {limit:,} "
                               f"(limits.max_extracted_chars); nothing of this file was stored")


def too_many_chunks(source: str, chunks: int, limit: int) -> LoaderError:
    """The error for a file that splits into more than ``limits.max_chunks_per_file`` chunks."""
    return LoaderError(source, f"{source} splits into {chunks:,} chunks or more, over the limit of {limit:,} "
                               f"(limits.max_chunks_per_file); nothing of this file was stored")


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def _shown(key: str) -> str:
    return repr(key if len(key) <= 40 else key[:40] + "…")


def bound_metadata(metadata: dict[str, Any], *, max_keys: int, max_key_chars: int, max_value_chars: int,
                   max_total_chars: int) -> tuple[dict[str, Any], str | None]:
    """Keep what fits (reserved keys first, then in the document's order) and say
    what was dropped: ``(kept, warning or None)``."""
    order = [k for k in RESERVED_KEYS if k in metadata] + [k for k in metadata if k not in RESERVED_KEYS]
    kept: dict[str, Any] = {}
    dropped: dict[str, list[str]] = {}
    total = 2  # the braces
    for key in order:
        value = metadata[key]
        name = str(key)
        size = _size(value)
        if len(name) > max_key_chars:
            reason = f"key longer than {max_key_chars} characters (limits.max_metadata_key_chars)"
        elif size > max_value_chars:
            reason = f"value over {max_value_chars:,} characters (limits.max_metadata_value_chars)"
        elif len(kept) >= max_keys:
            reason = f"more than {max_keys} keys (limits.max_metadata_keys)"
        elif total + _size(name) + size + 2 > max_total_chars:
            reason = f"metadata over {max_total_chars:,} characters in all (limits.max_metadata_chars)"
        else:
            kept[name] = value
            total += _size(name) + size + 2
            continue
        dropped.setdefault(reason, []).append(name)
    if not dropped:
        return kept, None
    parts = []
    for reason, names in dropped.items():
        listed = ", ".join(_shown(n) for n in names[:5]) + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")
        parts.append(f"{len(names):,} for {reason}: {listed}")
    return kept, "metadata keys dropped: " + "; ".join(parts)
