"""Small text tools shared by the extractive generator and the grounding check:
sentence splitting, ``[n]`` citation markers, content terms and their overlap."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analyzer import analyze

# [1], [2, 3], [1][2], [1-3]; not [a] or [2020] (years are not source numbers: n ≤ 99).
_CITE = re.compile(r"\[(\d{1,2}(?:\s*[-,–]\s*\d{1,2})*)\]")
_CITE_GROUP = re.compile(r"(?:\s*\[\d{1,2}(?:\s*[-,–]\s*\d{1,2})*\])+")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (abbreviation-aware; paragraph breaks end a sentence)."""
    from sentencex import segment

    out = []
    for sentence in segment("en", text):
        for part in _split_headings(sentence):
            part = _BULLET.sub("", part.strip())
            if part:
                out.append(part)
    return out


_BULLET = re.compile(r"^(?:[-*•·‣◦]|\d{1,2}[.)])\s+")
_HEADING_LINE = re.compile(r"^[^\n.:;!?,]{1,80}$")


def _split_headings(sentence: str) -> list[str]:
    """Cut a heading line off the sentence that follows it ("Vacation\nEvery employee
    receives…"): a short line without end punctuation, followed by a line that starts
    with a capital. A wrapped line inside a sentence continues in lower case."""
    lines = sentence.split("\n")
    parts: list[str] = []
    current: list[str] = []
    for index, line in enumerate(lines):
        current.append(line)
        following = lines[index + 1].lstrip() if index + 1 < len(lines) else ""
        stripped = line.strip()
        if (following[:1].isupper() and _HEADING_LINE.match(stripped) and len(stripped.split()) <= 8
                and len(current) == 1):
            parts.append(stripped)
            current = []
    if current:
        parts.append("\n".join(current))
    return parts


def rejoin(paragraphs: list[str]) -> list[str]:
    """Paragraphs put back together where a break cut a sentence (a scan or a PDF
    page): one that does not end a sentence, followed by one opening in lower case
    or with a number, is the same sentence."""
    out: list[str] = []
    for paragraph in paragraphs:
        text = paragraph.strip()
        if out and not re.search(r"[.!?:)\]»”\"]$", out[-1]) and re.match(r"[a-zà-ÿ0-9€£$₹(]", text):
            out[-1] = f"{out[-1]} {text}"
        else:
            out.append(text)
    return out


def cited_numbers(text: str) -> list[int]:
    """Source numbers cited in ``text``, in order of first appearance."""
    found: list[int] = []
    for match in _CITE.finditer(text):
        for part in re.split(r"\s*,\s*", match.group(1)):
            bounds = re.split(r"\s*[-–]\s*", part)
            if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
                low, high = int(bounds[0]), int(bounds[1])
                numbers = list(range(low, high + 1)) if 0 < high - low < 10 else [low, high]
            else:
                numbers = [int(bounds[0])]
            found.extend(n for n in numbers if n not in found)
    return found


def strip_citations(text: str) -> str:
    return " ".join(_CITE_GROUP.sub("", text).split())


@dataclass
class AnswerSentence:
    """A sentence of a generated answer with the sources it cites.

    A citation group at the very start of a sentence belongs to the previous one
    (generators often write ``claim. [1] Next claim``); the splitter puts it here.
    """

    text: str
    cited: list[int]


def answer_sentences(answer: str) -> list[AnswerSentence]:
    sentences = split_sentences(answer)
    out: list[AnswerSentence] = []
    for sentence in sentences:
        lead = re.match(r"^(?:\s*\[\d{1,2}(?:\s*[-,–]\s*\d{1,2})*\])+", sentence)
        if lead and out:
            out[-1].cited.extend(n for n in cited_numbers(lead.group(0)) if n not in out[-1].cited)
            out[-1].text += " " + lead.group(0).strip()
            sentence = sentence[lead.end():].strip()
            if not sentence:
                continue
        out.append(AnswerSentence(sentence, cited_numbers(sentence)))
    return out


def content_terms(text: str) -> set[str]:
    """Stemmed, stopword-free terms (the keyword index's analyzer), citations removed."""
    return set(analyze(strip_citations(text)))


def term_overlap(claim: str | set[str], evidence: str | set[str]) -> float:
    """Share of the claim's content terms that occur in the evidence (0 when none)."""
    a = claim if isinstance(claim, set) else content_terms(claim)
    b = evidence if isinstance(evidence, set) else content_terms(evidence)
    return len(a & b) / len(a) if a else 0.0
