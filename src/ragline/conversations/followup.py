"""Follow-up questions: "and what about its side effects?" searched as a standalone query.

Two ways to rewrite, and one way to stay on the same documents:

- **Carry** (no model): when the question reads as a follow-up (it leans on an
  earlier turn: a pronoun such as *it*/*those*, a demonstrative *that*/*this*, an
  opening such as *and*, *what about*, *also* without a topic of its own, or hardly
  any words of its own), the key terms of the current topic's user turns (the
  latest one's already rewritten query) that the question lacks are appended to
  it. A question that stands on its own is searched as written: the conversation
  has moved on.
- **LLM**: with a configured model, the model rewrites the follow-up from the
  recent turns (a short standalone query, no answer); when it fails or returns
  nothing usable, the carry rewrite is used and the report says why.
- **Carried sources**: the documents cited in the previous answer are searched
  again with the rewritten query, and their passages are fused into the ranking
  (reciprocal rank, weight ``answer.turn.CARRY_WEIGHT``), so a follow-up stays on them unless
  a better passage elsewhere outranks them.

Measured on 55 multi-turn conversations (``bench/followups.py``; figures in
``docs/conversations.md``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analyzer import STOPWORDS, query_terms

log = logging.getLogger(__name__)

MAX_CARRIED_TERMS = 8
CARRY_TURNS = 2  # previous user turns whose terms may be carried
SHORT_QUESTION = 3  # a question with fewer content words than this leans on the conversation

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

ANAPHORA = frozenset([
    "it", "its", "it's", "itself", "they", "them", "their", "theirs", "that", "this", "those", "these", "there",
    "he", "she", "him", "her", "his", "hers", "one", "ones", "same", "such", "former", "latter", "above",
    "previous", "aforementioned", "then"
])
WEAK_ANAPHORA = frozenset([
    "that", "this", "there", "same", "such", "one", "ones", "then", "above", "previous", "former", "latter"
])
LONG_QUESTION = 4  # content words from which a weak anaphor no longer makes a follow-up
CUES = ("and ", "also", "what about", "how about", "what if", "and what", "but ", "or ", "so ", "then ",
        "why ", "how come", "else", "more about", "tell me more", "what else", "same ", "besides")
# Conversational filler: not a key term of a topic.
FILLER = frozenset([
    "also", "tell", "please", "thanks", "thank", "know", "like", "much", "many", "else", "would", "could", "might",
    "may", "one", "ones", "get", "got", "give", "show", "explain", "mean", "means", "meant", "say", "said", "want",
    "need", "let", "lets", "us", "okay", "ok", "yes", "yeah", "sure", "really", "actually", "exactly", "kind",
    "sort", "thing", "things", "way", "ways", "happen", "happens", "happened", "anything", "something", "instead",
    "well", "still", "even", "another", "bit", "more", "less"
])


@dataclass
class Turn:
    """One earlier turn as the rewriter sees it."""

    role: str
    content: str
    query: str | None = None  # the (rewritten) query this user turn was searched with
    cited_docs: list[str] = field(default_factory=list)  # assistant turns: documents cited
    followup: bool | None = None  # user turns: whether it leaned on the turns before (None: unknown)
    retrieved: bool = True  # user turns: False for small talk (nothing to carry)


@dataclass
class FollowupPlan:
    """What will be searched for this turn, and why (shown in the answer report)."""

    question: str
    query: str
    followup: bool = False
    method: str = "none"  # none | carry | llm
    reason: str = ""
    carried_terms: list[str] = field(default_factory=list)
    carried_sources: list[str] = field(default_factory=list)
    fallback_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"original": self.question, "rewritten": self.query, "followup": self.followup,
                "method": self.method, "reason": self.reason, "carried_terms": self.carried_terms,
                "carried_sources": self.carried_sources, "fallback_reason": self.fallback_reason}


def words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


def content_words(text: str) -> list[str]:
    """Words that carry a topic: no stopwords, pronouns or conversational filler."""
    return [w for w in words(text) if w not in STOPWORDS and w not in ANAPHORA and w not in FILLER
            and "'" not in w and (len(w) > 1 or w.isdigit())]


def followup_reason(question: str, history: Sequence[Turn]) -> str | None:
    """Why ``question`` leans on the conversation, or None when it stands alone."""
    if not any(t.role == "user" for t in history):
        return None
    lowered = " " + " ".join(words(question)) + " "
    own = content_words(question)
    anaphora = _anaphora(words(question), len(own))
    if anaphora:
        return f"refers back ({anaphora[0]!r})"
    for cue in CUES:
        if lowered.startswith(" " + cue):
            if NEW_TOPIC_RULE and len(own) >= SHORT_QUESTION and not _shares_topic(own, history):
                return None  # "what about <a topic of its own>": the conversation moves on
            return f"continues ({cue.strip()!r})"
    if len(own) < SHORT_QUESTION:
        return "too short to stand alone"
    return None


NEW_TOPIC_RULE = True
BE = frozenset(["is", "are", "was", "were", "be", "been", "being", "isn't", "aren't"])


def _anaphora(tokens: list[str], own: int) -> list[str]:
    """The words that point back. "it", "they", "those" do; "that"/"this" only as a
    demonstrative ("did that study", "about that"), not after a noun ("cards that are
    frozen"); "there" not as "is there"; "same", "one"… only in a short question."""
    found = []
    for i, w in enumerate(tokens):
        if w not in ANAPHORA:
            continue
        before = tokens[i - 1] if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if w in ("that", "this") and before and before not in STOPWORDS:
            continue
        if w == "there" and (before in BE or after in BE):
            continue
        if w in WEAK_ANAPHORA and w not in ("that", "this", "there") and own >= LONG_QUESTION:
            continue
        found.append(w)
    return found


def _shares_topic(words: list[str], history: Sequence[Turn]) -> bool:
    """Whether any of ``words`` (by stem) occurs in the earlier user turns' queries."""
    mine = {t for w in words for t in query_terms(w)}
    for turn in history:
        if turn.role == "user" and mine & set(query_terms(turn.query or turn.content)):
            return True
    return False


def topic_turns(history: Sequence[Turn], most: int = CARRY_TURNS) -> list[Turn]:
    """The user turns of the current topic, latest first: back to (and including) the
    last one that stood on its own, at most ``most``; small talk is skipped."""
    users = [t for t in history if t.role == "user" and t.retrieved]
    out: list[Turn] = []
    for i in range(len(users) - 1, -1, -1):
        turn = users[i]
        out.append(turn)
        leaned = turn.followup if turn.followup is not None else \
            followup_reason(turn.content, users[:i]) is not None
        if not leaned or len(out) >= most:
            break
    return out


def carry_terms(question: str, history: Sequence[Turn], limit: int = MAX_CARRIED_TERMS) -> list[str]:
    """Key terms of the current topic's user turns (``topic_turns``; the latest one's
    rewritten query) that the question lacks, most recent turn first."""
    have = set(query_terms(question))
    carried: list[str] = []
    seen: set[str] = set()
    for n, turn in enumerate(topic_turns(history)):
        for word in content_words((turn.query if n == 0 else None) or turn.content):
            stem = query_terms(word)
            key = stem[0] if stem else word
            if key in have or key in seen:
                continue
            seen.add(key)
            carried.append(word)
            if len(carried) >= limit:
                return carried
    return carried


def last_cited(history: Sequence[Turn]) -> list[str]:
    """Documents cited by the latest assistant turn that cited any."""
    for turn in reversed(history):
        if turn.role == "assistant" and turn.cited_docs:
            return list(dict.fromkeys(turn.cited_docs))
    return []


def plan(question: str, history: Sequence[Turn], *, rewrite: bool = True, carry_sources: bool = True,
         llm: Any = None) -> FollowupPlan:
    """The query to search for ``question`` given the earlier turns (oldest first).

    ``llm`` is a callable ``(question, history) -> str`` (see ``llm_rewriter``); when
    it fails or returns nothing usable, the carry rewrite is used instead."""
    result = FollowupPlan(question=question, query=question)
    reason = followup_reason(question, history)
    if reason is None:
        result.reason = "stands alone" if history else "first turn"
        return result
    result.followup, result.reason = True, reason
    if carry_sources:
        result.carried_sources = last_cited(history)
    if not rewrite:
        return result
    if llm is not None:
        try:
            rewritten = clean_rewrite(llm(question, history))
        except Exception as exc:  # noqa: BLE001 — any failure: carry instead
            rewritten, result.fallback_reason = None, f"{type(exc).__name__}: {exc}"
        if rewritten:
            result.query, result.method = rewritten, "llm"
            result.carried_terms = [w for w in content_words(rewritten) if w not in content_words(question)]
            return result
        result.fallback_reason = result.fallback_reason or "the model returned no usable query"
    result.carried_terms = carry_terms(question, history)
    if result.carried_terms:
        result.query = f"{question} {' '.join(result.carried_terms)}"
        result.method = "carry"
    return result


def clean_rewrite(text: str | None) -> str | None:
    """The model's rewrite as one line, or None when it is empty, too long, an answer
    or the no-answer line (a model that read the rewrite prompt as a question)."""
    if not text:
        return None
    line = text.strip().splitlines()[0].strip().strip('"').strip()
    line = re.sub(r"^(standalone (question|query)|query|rewritten( query)?)\s*:\s*", "", line, flags=re.IGNORECASE)
    if not line or len(line) > 400:
        return None
    from ..answer.prompt import is_no_answer

    if is_no_answer(line):  # the model answered the prompt's no-answer line, not a query
        return None
    return line


REWRITE_SYSTEM = """You rewrite the last user message of a conversation into one standalone search query.
Resolve pronouns and references ("it", "that", "there", "what about ...") from the earlier turns, keep the \
user's own words and language, add nothing the conversation does not say, and do not answer.
Reply with the query alone, on one line."""


def llm_rewriter(generator: Any, *, turns: int = 6, temperature: float = 0.0) -> Any:
    """A ``(question, history) -> str`` that asks ``generator`` (an LLM provider) for the
    rewrite; it raises ``GeneratorError`` when the provider fails."""
    from ..answer.context import RAGContext
    from ..answer.generators import GenerationRequest
    from ..answer.prompt import Prompt
    from ..answer.sanitize import inline

    def rewrite(question: str, history: Sequence[Turn]) -> str:
        lines = [f"{t.role}: {inline(t.content)[:600]}" for t in list(history)[-turns:]]
        user = "Conversation:\n" + "\n".join(lines) + f"\n\nLast user message: {inline(question)}\n\nStandalone query:"
        request = GenerationRequest(question=question, context=RAGContext(enabled=False),
                                    prompt=Prompt(system=REWRITE_SYSTEM, user=user), temperature=temperature,
                                    max_output_tokens=64)
        return generator.generate(request)

    return rewrite
