"""The language of an answer's fixed messages (``ragline.messages``): the
question's own when it can be told, else the language configured for the
scope's collections (when they agree), else English."""

from __future__ import annotations

from ..errors import RaglineError
from ..messages import choose_language
from ..models import Scope
from ..store import Store


def collection_language(store: Store, scope: Scope) -> str | None:
    """The keyword language the scope's collections were given or detected at
    ingest (``"spanish"``), when they share one; ``None`` otherwise, or when a
    collection does not exist yet (a greeting may come before any document)."""
    found: set[str] = set()
    for name in scope.collections:
        try:
            language = store.collection_ref(scope.tenant, name).config.get("language")
        except RaglineError:
            continue
        if language:
            found.add(str(language))
    return found.pop() if len(found) == 1 else None


def answer_language(store: Store, question: str, scope: Scope) -> str:
    """The catalog code (``"es"``) an answer to ``question`` in ``scope`` speaks in;
    the store is read only when the question alone does not tell."""
    return choose_language(question, lambda: collection_language(store, scope))
