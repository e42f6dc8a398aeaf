"""Grounded answers: the route seam, context building, generators, abstaining and
grounding checks.

    from ragline.answer import Answerer
    answer = Answerer(store, embedder, settings).ask("question?", scope)
    answer.to_dict()  # {"answer", "citations", "abstained", "generator", ...}

``Engine.ask`` / ``Engine.ask_stream`` ask ``Engine.router`` (``route.Router``),
whose last route is this ``Answerer`` (the documents); the CLI and the server call
the engine.
"""

from __future__ import annotations

from .context import ContextBuilder, DroppedHit, RAGContext, Source
from .generators import GENERATORS, GenerationRequest, Generator, make_generator
from .grounding import GroundingChecker
from .prompt import NO_ANSWER, Prompt, build_prompt
from .route import Asked, Decision, Route, Router
from .service import Answerer
from .types import Answer, AnswerStream, Citation, Grounding, SentenceCheck

__all__ = [
    "GENERATORS", "NO_ANSWER", "Answer", "AnswerStream", "Answerer", "Asked", "Citation",
    "ContextBuilder", "Decision", "DroppedHit", "GenerationRequest", "Generator", "Grounding", "GroundingChecker",
    "Prompt", "RAGContext", "Route", "Router", "SentenceCheck", "Source", "build_prompt", "make_generator",
]
