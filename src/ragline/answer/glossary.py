"""A question's abbreviations and spelled-out names, and the other form the
collection gives them ("Equated Monthly Instalment (EMI)"): ``Answerer`` looks them
up through the keyword index (``Answerer._glossary``) and searches with both forms
(``expanded``), so "EMI" meets a page that only says "instalment" and "Real Time
Gross Settlement" a page that only says "RTGS"."""

from __future__ import annotations

import re

from ..models import Hit
from .passages import definitions, fold

ABBREVIATION = re.compile(r"\b[A-Z][A-Z0-9&]{1,7}\b")
# A spelled-out name the collection may abbreviate ("Real Time Gross Settlement" → RTGS).
LONG_FORM = re.compile(r"\b[A-Z][a-z]+(?:[\s-]+(?:of\s+|for\s+|and\s+)?[A-Z][a-z]+){1,6}")


def spelled_out(question: str, hits: list[Hit], known: dict[str, str]) -> dict[str, str]:
    """Long forms or abbreviations of the question, in any case, that the found
    passages define and ``known`` does not hold yet."""
    folded = " ".join(re.findall(r"\w+", fold(question)))
    out: dict[str, str] = {}
    for form, other in definitions("\n".join(h.text for h in hits)).items():
        if " " in form and re.search(rf"\b{re.escape(form)}\b", folded) and form not in known.values():
            out[form] = other
    return out


def expanded(question: str, glossary: dict[str, str]) -> str:
    """The question with each abbreviation's long form beside it, for search."""
    for abbreviation, long in glossary.items():
        question = re.sub(rf"\b{re.escape(abbreviation)}\b", f"{abbreviation} ({long})", question, count=1,
                          flags=re.IGNORECASE)
    return question
