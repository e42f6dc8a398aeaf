"""``AnswerTurn``: what a conversation changes in one answer, handed to the
``Answerer`` (``answer/service.py``) as ``turn=`` by ``ragline.conversations``. The answer pipeline stays the same;
the turn decides what is searched (the rewritten follow-up, fused with the
passages of the documents cited before), the per-request bounds of the context,
what the prompt adds (the recent turns and the user's relevant past messages), and
what happens when nothing relevant is found (the collection's policy)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import GeneratorError
from ..messages import message
from ..models import Hit, Scope
from ..retrieve.fusion import reciprocal_rank_fusion
from ..retrieve.search import SearchResult

log = logging.getLogger(__name__)

CARRY_WEIGHT = 1.0  # weight of the carried-sources list in the fused ranking (conversations.followup)
GENERAL_SYSTEM = """You are a helpful assistant. The user's documents hold nothing relevant to this question, \
so answer briefly from general knowledge. Say plainly when you are not sure. Do not invent citations."""


def fuse_carried(main: list[Hit], carried: list[Hit], weight: float = CARRY_WEIGHT,
                 k: int | None = None) -> list[Hit]:
    """Reciprocal-rank fusion of the main ranking with the carried documents' ranking
    (weight ``weight``): a passage in both rises, one in the carried list only enters."""
    by_id: dict[str, Hit] = {}
    for hit in [*main, *carried]:
        by_id.setdefault(hit.chunk_id, hit)
    fused = reciprocal_rank_fusion([[(h.chunk_id, h.score) for h in main], [(h.chunk_id, h.score) for h in carried]],
                                   weights=[1.0, weight])
    order = [cid for cid, _ in fused]
    return [by_id[cid] for cid in order[:k or len(order)]]


@dataclass
class AnswerTurn:
    """Per-turn changes to the answer pipeline (all optional)."""

    query: str | None = None  # what is searched; None: the question
    carried_sources: list[str] = field(default_factory=list)  # doc ids cited in the previous answer
    carry_weight: float = CARRY_WEIGHT
    max_sources: int | None = None
    max_tokens: int | None = None
    floor: float | None = None
    floor_set: bool = False  # True: ``floor`` overrides the measured one (even when None)
    policy: str = "abstain"  # abstain | general: when nothing relevant is found
    history: list[tuple[str, str]] = field(default_factory=list)  # (role, text) of recent turns, for the prompt
    memory: str = ""  # the user's relevant past messages, formatted (RAGContext.context)
    general: bool = False  # set when the general policy answered
    carried_used: int = 0  # passages of carried documents that entered the ranking

    # -- hooks the Answerer calls -------------------------------------------------------
    def search(self, searcher: Any, question: str, scope: Scope, *, mode: str | None, k: int,
               filters: dict[str, Any] | None) -> SearchResult:
        query = self.query or question
        result: SearchResult = searcher.search(query, scope, mode=mode, k=k, filters=filters)
        if not self.carried_sources or (filters and "doc_id" in filters):
            return result
        started = time.perf_counter()
        try:
            carried = searcher.search(query, scope, mode=mode, k=max(3, k // 2),
                                      filters={**(filters or {}), "doc_id": {"in": self.carried_sources}})
        except Exception as exc:  # noqa: BLE001 — carrying is a refinement: never fail the answer for it
            log.info("carried-sources search failed: %s", exc)
            return result
        main_ids = {h.chunk_id for h in result.hits}
        self.carried_used = sum(1 for h in carried.hits if h.chunk_id not in main_ids)
        result.hits = fuse_carried(result.hits, carried.hits, self.carry_weight, k)
        result.timings_ms["carry"] = (time.perf_counter() - started) * 1000
        return result

    def answer_vector(self, question: str, memo: Any) -> Any:
        """The vector the extractive generator picks sentences by: for a rewritten
        follow-up, the mean of the question's and the rewritten query's (the question
        says which aspect is asked, the rewrite which topic), else the query's."""
        import numpy as np

        if not self.query or memo.query_vector is None:
            return memo.query_vector
        rewritten = memo.query_vector
        try:
            own = memo.inner.embed_query(question)
        except Exception:  # noqa: BLE001 — the rewritten query's vector will do
            return rewritten
        blend = np.asarray(own, dtype=np.float32) + np.asarray(rewritten, dtype=np.float32)
        norm = float(np.linalg.norm(blend))
        return blend / norm if norm else rewritten

    def context_bounds(self, max_tokens: int, max_sources: int, floor: float | None) -> tuple[int, int, float | None]:
        return (self.max_tokens or max_tokens, self.max_sources or max_sources,
                self.floor if self.floor_set else floor)

    def prompt(self, prompt: Any) -> Any:
        """The grounded prompt with the conversation so far (and the user's relevant past
        messages) ahead of the sources: context for references, never a source."""
        from ..answer.prompt import Prompt
        from ..answer.sanitize import inline

        parts = []
        if self.memory:
            parts.append("Relevant earlier messages of this user (context only, not sources; do not cite):\n"
                         + self.memory)
        if self.history:
            lines = [f"[{role}] {inline(text)[:800]}" for role, text in self.history]
            parts.append("The conversation so far (context only, not sources; do not cite):\n" + "\n".join(lines))
        if not parts:
            return prompt
        return Prompt(system=prompt.system, user="\n\n".join(parts) + "\n\n" + prompt.user, tag=prompt.tag)

    def answers_generally(self, generator: Any) -> bool:
        from ..answer.generators.extractive import ExtractiveGenerator

        return self.policy == "general" and not isinstance(generator, ExtractiveGenerator)

    def general_answer(self, question: str, generator: Any, answer: Any, settings: Any) -> Iterator[dict[str, Any]]:
        """The ``general`` policy: the model answers alone, and the answer says so. If the
        model fails, the abstention stands (with the reason)."""
        from ..answer.context import RAGContext
        from ..answer.generators import GenerationRequest
        from ..answer.prompt import Prompt

        lines = [f"[{role}] {text[:800]}" for role, text in self.history]
        user = (("Conversation so far:\n" + "\n".join(lines) + "\n\n") if lines else "") + f"Question: {question}"
        request = GenerationRequest(question=question, context=RAGContext(enabled=False),
                                    prompt=Prompt(system=GENERAL_SYSTEM, user=user),
                                    temperature=settings.temperature, max_output_tokens=settings.max_output_tokens)
        started = time.perf_counter()
        try:
            text = generator.generate(request).strip()
        except GeneratorError as exc:
            answer.fallback_reason = str(exc)
            return
        answer.timings_ms["generate"] = (time.perf_counter() - started) * 1000
        if text:
            self.general = True
            note = message("general_answer_note", answer.language)
            answer.answer, answer.abstained, answer.generator = f"{note}\n\n{text}", False, generator.name
            yield {"type": "delta", "text": answer.answer}
