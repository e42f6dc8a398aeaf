"""What a loader may be told besides the bytes: record field names, OCR, and the
structural bounds of HTML (set by the parser sandbox from ``LimitSettings``).

``LoadOptions`` crosses into the parser worker as a plain JSON object
(``to_wire``/``from_wire``), so only data, never code, passes the sandbox wall.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from ...settings import IngestSettings, LimitSettings

_LIMITS = LimitSettings()


@dataclass(frozen=True)
class LoadOptions:
    """Record field mapping (dotted paths; None: the usual names) and OCR choices
    (``ocr``: auto, on or off); see ``IngestSettings``."""

    id_field: str | None = None
    title_field: str | None = None
    text_field: str | None = None
    records_as_chunks: bool = False
    ocr: str = "auto"
    ocr_languages: str = "eng"
    ocr_dpi: int = 300
    max_html_depth: int = _LIMITS.max_html_depth
    max_html_nodes: int = _LIMITS.max_html_nodes

    @classmethod
    def from_settings(cls, settings: IngestSettings) -> LoadOptions:
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)})

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_wire(cls, data: Any) -> LoadOptions:
        """The worker's side: unknown keys are ignored, wrong types refused."""
        if not isinstance(data, dict):
            return cls()
        known = {f.name: f.type for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for key, value in values.items():
            if value is not None and not isinstance(value, (str, bool, int)):
                raise ValueError(f"load option {key} has an invalid value")
        return cls(**values)


DEFAULT_OPTIONS = LoadOptions()
