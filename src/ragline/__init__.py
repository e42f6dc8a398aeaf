"""ragline: an offline-first retrieval-augmented generation engine."""

from .engine import Engine
from .errors import RaglineError
from .models import Document, Hit, Scope
from .settings import Settings

__all__ = ["Document", "Engine", "Hit", "RaglineError", "Scope", "Settings"]
__version__ = "0.1.0"
