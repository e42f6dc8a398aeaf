"""Conversations: chat memory, follow-up questions and retrieval over a user's own
messages (issue 10). ``engine.conversations`` is the entry point; see
``docs/conversations.md``."""

from .followup import FollowupPlan, plan
from .gate import GateDecision, should_retrieve
from .memory import RAGContext
from .options import AnswerOptions, RAGOptions
from .service import Conversations, TurnResult, TurnStream

__all__ = ["AnswerOptions", "Conversations", "FollowupPlan", "GateDecision", "RAGContext", "RAGOptions",
           "TurnResult", "TurnStream", "plan", "should_retrieve"]
