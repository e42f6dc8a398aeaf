"""Grounding checks: does each answer sentence say what the source it cites says?

A sentence with checkable facts (figures, dates, names) is verified claim by
claim against its cited source (``answer.claims``): a wrong figure, a figure
attached to the wrong thing, a name the source does not hold fail however close
the wording. An uncited sentence whose facts one source states gets that
citation. The rest — sentences without such facts — are compared with the
sentences of each numbered source, two ways:

- lexical: the share of its content terms (stemmed, stopwords out) found in the source;
- semantic: the best cosine between it and any one sentence of the source.

A sentence is *supported* by a source when either measure clears its floor. A
sentence whose cited sources do not support it but another source does is a
*wrong citation*; one that no source supports is *unsupported*; one with no
``[n]`` at all is *uncited*. The floors were set by measurement on SciFact train
(scripts/measure_abstain_floor.py, docs/answers.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..embed.base import Embedder
from ..errors import EmbedderError
from ..messages import not_from_documents
from ..pause import pause_point
from .claims import check_claim, supported_by
from .context import RAGContext
from .passages import Passage
from .prompt import is_no_answer
from .text import AnswerSentence, answer_sentences, content_terms, split_sentences, strip_citations, term_overlap
from .types import FAILED, Grounding, SentenceCheck, SentenceStatus

# Measured on SciFact train with MiniLM (docs/answers.md): claims against their own
# abstract are supported 95% of the time, against an unrelated abstract 3%. A
# same-topic wrong source passes too (95%): these measures catch citations of
# unrelated sources and claims no source is about, not subtle misattribution.
LEXICAL_FLOOR = 0.4
SEMANTIC_FLOOR = 0.4
# Sentences with fewer content terms than this are judged by embeddings alone:
# "Yes [1]." shares no terms with anything, and one shared term proves little.
MIN_TERMS = 3


@dataclass
class Support:
    lexical: float
    semantic: float

    def ok(self, lexical_floor: float, semantic_floor: float, terms: int) -> bool:
        if terms >= MIN_TERMS and self.lexical >= lexical_floor:
            return True
        return self.semantic >= semantic_floor

    def strength(self) -> float:
        return max(self.lexical, self.semantic)


class GroundingChecker:
    """Checks an answer against its context. Without an embedder (or when it
    fails) only the lexical measure is used."""

    def __init__(self, embedder: Embedder | None = None, *, lexical_floor: float = LEXICAL_FLOOR,
                 semantic_floor: float = SEMANTIC_FLOOR) -> None:
        self.embedder = embedder
        self.lexical_floor = lexical_floor
        self.semantic_floor = semantic_floor

    def check(self, answer: str, context: RAGContext, *, drop_unsupported: bool = False,
              general: bool = False, language: str | None = None) -> tuple[str, Grounding]:
        """The answer text as it may ship and its grounding report.

        ``drop_unsupported`` removes sentences whose claims failed (``types.FAILED``)
        and uncited sentences no source states; with ``general`` (a collection whose
        policy allows general answers) an uncited sentence stays, labelled as not
        from the documents. A wrong citation whose fact another source states is
        re-cited to it either way."""
        sentences = [s for s in answer_sentences(answer) if strip_citations(s.text)]
        if not sentences or not context.sources or is_no_answer(answer):
            return answer, Grounding()
        support = self.support_matrix(sentences, context)  # embeds every sentence of every source
        pause_point()
        passages = passages_of(context)  # reads each source into clauses and values
        pause_point()
        grounding = Grounding()
        kept: list[str] = []
        for i, sentence in enumerate(sentences):
            pause_point()  # one sentence's checks at a time
            following = sentences[i + 1].cited if i + 1 < len(sentences) else []
            check = self._judge(sentence, support[i], context, passages, following)
            text = sentence.text
            if check.status == "wrong_citation" and check.better is not None and check.problem:
                text = _recite(text, check.better)  # the fact is stated, by another source
                check.note, check.cited = f"re-cited to [{check.better}]", [check.better]
            elif check.status == "uncited" and general:
                label = not_from_documents(language)
                text = f"{text.rstrip()} ({label[:1].lower()}{label[1:]})"
                check.note = label
            elif drop_unsupported and (check.status in FAILED or check.status == "uncited"):
                check.note = "dropped"
                grounding.dropped.append(check)
                continue
            elif check.note == "citation added" and check.better is not None:
                text, check.cited = _recite(text, check.better), [check.better]
            check.text = text
            grounding.sentences.append(check)
            kept.append(text)
        if grounding.dropped and "dropped" not in grounding.action:
            grounding.action.append("dropped")
        return " ".join(kept), grounding

    def _judge(self, sentence: AnswerSentence, row: list[Support], context: RAGContext,
               passages: list[Passage], following: list[int]) -> SentenceCheck:
        terms = len(content_terms(sentence.text))
        valid = [n for n in sentence.cited if context.source(n) is not None]
        supporting = [n for n in range(1, len(context.sources) + 1)
                      if row[n - 1].ok(self.lexical_floor, self.semantic_floor, terms)]
        best_other = max(supporting, key=lambda n: row[n - 1].strength(), default=None)
        if valid:
            best = max(valid, key=lambda n: row[n - 1].strength())
            lexical, semantic = row[best - 1].lexical, row[best - 1].semantic
        else:
            lexical = max((s.lexical for s in row), default=0.0)
            semantic = max((s.semantic for s in row), default=0.0)
        status: SentenceStatus
        problem = note = None
        claim = check_claim(sentence.text, valid, passages) if valid else None
        if claim is not None:  # figures and names decide, not wording
            status, problem, best_other = claim.status, claim.problem, claim.better  # type: ignore[assignment]
        elif not sentence.cited:
            stated_by = supported_by(sentence.text, passages)
            if stated_by is not None and stated_by in following:  # "X. It … [2]." cites both at the end
                status = "supported"
            elif stated_by is not None:
                status, best_other, note = "supported", stated_by, "citation added"
            else:
                status = "uncited"
                problem = "no source states it" if best_other is None else None
        elif any(n in supporting for n in valid):
            status, best_other = "supported", None
        elif best_other is not None:
            status, problem = "wrong_citation", f"source [{best_other}] supports it, not the cited one"
        else:
            status, problem = "unsupported", "the cited source does not say this"
        return SentenceCheck(text=sentence.text, cited=sentence.cited, status=status, lexical=lexical,
                             semantic=semantic, better=best_other if status != "supported" or note else None,
                             problem=problem, note=note)

    def support_matrix(self, sentences: list[AnswerSentence], context: RAGContext) -> list[list[Support]]:
        """(lexical, semantic) support of each sentence by each source, in source order."""
        claims = [strip_citations(s.text) for s in sentences]
        claim_terms = [content_terms(c) for c in claims]
        evidence = [split_sentences(s.text) or [s.text] for s in context.sources]
        evidence_terms = [content_terms(f"{s.title or ''} {s.text}") for s in context.sources]
        lexical = [[term_overlap(ct, et) for et in evidence_terms] for ct in claim_terms]
        semantic = self._semantic(claims, evidence)
        return [[Support(lexical[i][j], semantic[i][j]) for j in range(len(context.sources))]
                for i in range(len(claims))]

    def _semantic(self, claims: list[str], evidence: list[list[str]]) -> list[list[float]]:
        zeros = [[0.0] * len(evidence) for _ in claims]
        if self.embedder is None:
            return zeros
        flat = [sentence for group in evidence for sentence in group]
        try:
            vectors = self.embedder.embed_documents(claims + flat)
        except EmbedderError:
            return zeros
        claim_vecs, evidence_vecs = vectors[: len(claims)], vectors[len(claims):]
        sims = claim_vecs @ evidence_vecs.T  # unit vectors: cosine
        out, start = [], 0
        bounds = []
        for group in evidence:
            bounds.append((start, start + len(group)))
            start += len(group)
        for i in range(len(claims)):
            out.append([float(np.max(sims[i, a:b])) if b > a else 0.0 for a, b in bounds])
        return out



def passages_of(context: RAGContext) -> list[Passage]:
    """The context's sources read for claim checking (``answer.claims``)."""
    return [Passage.of(s.n, s.text, f"{s.title or ''}\n{s.section or ''}") for s in context.sources]


def _recite(text: str, n: int) -> str:
    """``text`` citing source ``n`` instead of what it cited (or nothing)."""
    from .generators.extractive import with_citation

    return with_citation(strip_citations(text), n)
