"""The extractive generator: no model, no network. It picks the source sentences
that best answer the question and stitches them, each with its [n] citation.

Sentences are the readable units of ``answer.readable``: a table row is quoted as
"Everyday Plus: monthly fee €4.50.", headings stay out, a sentence that opens by
pointing back ("It can be raised…") is quoted with the sentence before it or not
at all, and padding that does not state the kind of fact asked for is left out.

It is the default and the fallback when a provider fails, so it must not fail
itself: without a working embedder it ranks sentences by term overlap alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ...embed.base import Embedder
from ...errors import EmbedderError
from ...pause import pause_point
from ..constraints import answer_type, kind_terms
from ..passages import fold
from ..readable import units
from ..text import content_terms, term_overlap
from .base import GenerationRequest

# Weight of embedding similarity against term overlap in a sentence's score.
SEMANTIC_WEIGHT = 0.7
# Sentences scoring below this share of the best one are left out.
RELATIVE_CUTOFF = 0.75
# A candidate sharing this much of its terms with a chosen sentence repeats it.
REDUNDANT = 0.8
MIN_WORDS = 4
# Score factor of a sentence that names a sibling of the question's kind of product, not it.
KIND_PENALTY = 0.5
# Structured-abstract labels ("BACKGROUND", "MATERIALS AND METHODS:") glued to a
# sentence's start by the loader; they are not part of the claim.
_LABEL = (r"(?:BACKGROUND|INTRODUCTION|CONTEXT|OBJECTIVES?|AIMS?|PURPOSE|IMPORTANCE|RATIONALE|DESIGN|SETTINGS?|"
          r"PARTICIPANTS|PATIENTS|MATERIALS|METHODS?|METHODOLOGY|RESULTS?|FINDINGS|MEASUREMENTS|INTERVENTIONS?|"
          r"MAIN OUTCOME MEASURES?|OUTCOMES?|CONCLUSIONS?|INTERPRETATION|SIGNIFICANCE|SUMMARY|ABSTRACT)")
_HEADING = re.compile(rf"^{_LABEL}(?:\s*(?:AND|&|/)\s*{_LABEL})*\s*[:.]?\s+(?=[A-Z0-9(])")


def strip_heading(sentence: str) -> str:
    return _HEADING.sub("", sentence, count=1)


@dataclass
class _Candidate:
    n: int
    text: str
    terms: set[str]
    score: float = 0.0


def with_citation(sentence: str, n: int) -> str:
    """``Claim text [2].`` — the marker goes before the closing punctuation; the
    source's hard line wraps become spaces."""
    sentence = " ".join(sentence.split())
    if sentence and sentence[-1] in ".!?":
        return f"{sentence[:-1]} [{n}]{sentence[-1]}"
    return f"{sentence} [{n}]"


class ExtractiveGenerator:
    """Selects up to ``max_sentences`` source sentences (about ``max_chars`` of text)."""

    name = "extractive"

    def __init__(self, embedder: Embedder | None = None, *, max_sentences: int = 4, max_chars: int = 900) -> None:
        self.embedder = embedder
        self.max_sentences = max_sentences
        self.max_chars = max_chars

    def select(self, request: GenerationRequest) -> list[tuple[int, str]]:
        """The chosen (source number, sentence) pairs, best first.

        Sentences come from ``readable.units``: table rows rendered as sentences,
        headings left out, linking openers cut; a sentence that points back ("It
        …") is quoted with the one before it, or not at all. After the first,
        a sentence must score within ``RELATIVE_CUTOFF`` of the best and, when the
        question asks for a kind of fact the best sentence states (a duration, an
        amount…), state one too: the rest is padding."""
        candidates = []
        for source in request.context.sources:
            pause_point()  # reading each source is CPU work: a lighter tenant's request may go first
            for unit in units(source.text, request.question):
                text = strip_heading(unit.text)
                if unit.dangling:
                    if unit.previous is None:
                        continue
                    text = f"{unit.previous} {text}"
                if len(text.split()) >= MIN_WORDS:
                    candidates.append(_Candidate(source.n, text, content_terms(text)))
        if not candidates:  # only fragments: fall back to whole sources
            candidates = [_Candidate(s.n, " ".join(s.text.split()), content_terms(s.text))
                          for s in request.context.sources if s.text.strip()]
        if not candidates:
            return []
        pause_point()
        question_terms = content_terms(request.question)
        lexical = np.array([term_overlap(question_terms, c.terms) for c in candidates], dtype=np.float32)
        pause_point()
        semantic = self._similarities(request, [c.text for c in candidates])
        pause_point()
        scores = lexical if semantic is None else SEMANTIC_WEIGHT * semantic + (1 - SEMANTIC_WEIGHT) * lexical
        # The question's kind words ("home" of "home loan" beside personal loans): a
        # sentence whose source never names the asked kind answers a sibling.
        labels = {s.n: fold(f"{s.title or ''} {s.section or ''}") for s in request.context.sources}
        kinds = kind_terms(request.question, [f"{s.title or ''} {s.section or ''} {s.text}"
                                              for s in request.context.sources])
        pause_point()
        for candidate, score in zip(candidates, scores):
            label = f"{labels.get(candidate.n, '')} {fold(candidate.text)}"  # where it is said, and what
            # lacking the asked kind while naming a sibling of it: said of another product
            sibling = any(not re.search(rf"\b{re.escape(k)}", label)
                          and any(re.search(rf"\b{re.escape(o)}", label) for o in others)
                          for k, others in kinds.items())
            candidate.score = float(score) * (KIND_PENALTY if sibling else 1.0)
        best = max(c.score for c in candidates)
        wanted = answer_type(request.question)
        # Among the sentences close to the best, one that states the kind of fact
        # asked for leads when that kind is specific (a rate for "what interest…").
        leads = wanted is not None and wanted.leads
        ranked = sorted(candidates, key=lambda c: (
            not (leads and wanted is not None and c.score >= best * RELATIVE_CUTOFF and wanted.search(c.text)),
            -c.score, c.n))
        typed = wanted is not None and bool(wanted.search(ranked[0].text))
        chosen: list[_Candidate] = []
        length = 0
        for candidate in ranked:
            if len(chosen) >= self.max_sentences:
                break
            if chosen and (candidate.score < best * RELATIVE_CUTOFF or length + len(candidate.text) > self.max_chars):
                continue
            if chosen and typed and wanted is not None and not wanted.search(candidate.text):
                continue
            inside = next((i for i, c in enumerate(chosen) if c.n == candidate.n and c.text in candidate.text), None)
            if inside is not None:  # "X. It …" after "X.": quote the pair in its place
                length += len(candidate.text) - len(chosen[inside].text)
                chosen[inside] = candidate
                continue
            if any(term_overlap(candidate.terms, c.terms) >= REDUNDANT or candidate.text in c.text
                   for c in chosen):
                continue
            chosen.append(candidate)
            length += len(candidate.text)
        return [(c.n, c.text) for c in chosen]

    def _similarities(self, request: GenerationRequest, texts: list[str]) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            query = request.query_vector
            if query is None:
                query = self.embedder.embed_query(request.question)
            vectors = self.embedder.embed_documents(texts)
        except EmbedderError:
            return None  # degrade to term overlap rather than fail the fallback
        return vectors @ np.asarray(query, dtype=np.float32)

    def generate(self, request: GenerationRequest) -> str:
        return "".join(self.stream(request)).strip()

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        chosen = self.select(request)
        for index, (n, sentence) in enumerate(chosen):
            yield ("" if index == 0 else " ") + with_citation(sentence, n)
