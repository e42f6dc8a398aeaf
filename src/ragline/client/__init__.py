"""A Python client for a ragline server's REST API (docs/api.md), on httpx.

    from ragline.client import Client

    with Client("http://127.0.0.1:8000", key="rl-…") as client:
        client.upload(["handbook.pdf"], collection="handbook", wait=True)
        answer = client.ask("How many vacation days do I get?", collection="handbook")
        print(answer.answer, [c.source for c in answer.citations])

``AsyncClient`` has the same methods, awaited. Results are typed (``types.py``);
errors are ragline's error tree (``errors.py``)."""

from __future__ import annotations

from .client import AsyncClient, Client
from .errors import (
    ApiError,
    AuthenticationError,
    ConflictError,
    JobTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    ServerUnreachableError,
)
from .types import (
    Answer,
    AskEvent,
    Citation,
    Collection,
    Conversation,
    Delta,
    Document,
    Done,
    Hit,
    Job,
    Match,
    Me,
    Passage,
    Restart,
    SearchResult,
    Usage,
)

__all__ = [
    "Answer", "ApiError", "AskEvent", "AsyncClient", "AuthenticationError", "Citation", "Client", "Collection",
    "ConflictError", "Conversation", "Delta", "Document", "Done", "Hit", "Job", "JobTimeoutError", "Match", "Me",
    "Passage", "PermissionDeniedError", "RateLimitError", "Restart", "SearchResult", "ServerUnreachableError", "Usage",
]
