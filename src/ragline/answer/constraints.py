"""The question's hard constraints, and whether the context holds them.

A near miss is a question on the right topic whose specific fact is not there:
"the interest rate on a 5-year fixed-term deposit" when the bank has only a 1-year
saver. Cosine relevance cannot tell the two apart (the savings passage is about the
question); the words can. Two kinds of terms in a question are constraints the
answer must meet, not just topic words:

- a number with a unit of time ("5-year", "2 years", "30 days"): the evidence must
  state the same number with that unit;
- a name: a run of capitalised words that does not start the sentence ("Premium
  Metal", "Western Union", "Maastricht"): the evidence must contain it.

``missing_constraints`` returns the constraints that no source meets, where a
source meets them when it holds every constraint *and* at least one of the
question's other content terms (so "5 years" in a privacy passage does not
answer a question about deposits). The answer step abstains when any is missing,
and also when the best source only just clears the relevance floor while the
sources hold under half of the question's terms (``term_coverage``).
Measured on the labelled answer set (bench/quality_answers.md, docs/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .text import content_terms

_UNITS = "year|month|week|day|hour|minute"
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "twelve": "12"}
_DURATION = re.compile(rf"\b(\d+|{'|'.join(_NUMBER_WORDS)})\s*-?\s*({_UNITS})s?\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’&-]*|[.?!;:]")
# Capitalised words that are no names: question openers, pronouns and the like.
_NOT_NAMES = {"i", "i'm", "i've", "my", "what", "how", "is", "are", "can", "do", "does", "who", "when", "where",
              "which", "why", "will", "would", "should", "could", "the", "a", "an", "if", "please", "hi", "hello"}

# Words before a name that make it a destination or origin, not the thing asked about.
_PLACE_WORDS = {"to", "from", "outside", "within", "across", "into", "abroad"}


@dataclass(frozen=True)
class Constraint:
    """A term the evidence must contain: ``label`` as asked, ``pattern`` to find it."""

    label: str
    pattern: re.Pattern[str]

    def met_by(self, text: str) -> bool:
        return bool(self.pattern.search(text))


def question_constraints(question: str) -> list[Constraint]:
    """The durations and names in ``question`` (see the module docstring)."""
    out: list[Constraint] = []
    for match in _DURATION.finditer(question):
        number = _NUMBER_WORDS.get(match.group(1).lower(), match.group(1))
        words = [w for w, digit in _NUMBER_WORDS.items() if digit == number]
        alternatives = "|".join([re.escape(number), *words])
        unit = match.group(2).lower()
        out.append(Constraint(match.group(0), re.compile(rf"\b(?:{alternatives})\s*-?\s*{unit}s?\b", re.IGNORECASE)))
    for name in _names(question):
        # A plural or possessive in the question still matches the singular ("Sundays" → "Sunday").
        stem = re.sub(r"(?:'s|’s|s)$", "", name) if len(name) > 4 else name
        out.append(Constraint(name, re.compile(rf"\b{re.escape(stem)}", re.IGNORECASE)))
    return out


def _names(question: str) -> list[str]:
    """Runs of capitalised words that do not open a sentence, nor name where money
    goes or comes from ("to the United States", "from outside Europe"): a place of
    destination is usually covered by a general rule ("outside the euro area"),
    unlike the product, branch or provider a question asks about."""
    names: list[str] = []
    run: list[str] = []
    sentence_start, place = True, False
    previous: list[str] = []
    for token in _WORD.findall(question):
        if token in ".?!;:":
            sentence_start, run, previous = True, _flush(run, names, place), []
            continue
        capital = token[0].isupper() and token.lower() not in _NOT_NAMES and len(token) > 1
        if capital and not sentence_start:
            if not run:
                lead = [w.lower() for w in previous[-2:]]
                place = bool(lead) and (lead[-1] in _PLACE_WORDS or (lead[-1] == "the" and len(lead) == 2
                                                                      and lead[0] in _PLACE_WORDS))
            run.append(token)
        else:
            run = _flush(run, names, place)
        sentence_start = False
        previous.append(token)
    _flush(run, names, place)
    return names


def _flush(run: list[str], names: list[str], place: bool = False) -> list[str]:
    if run and not place:
        names.append(" ".join(run))
    return []


def missing_constraints(question: str, evidence: Sequence[str]) -> list[str]:
    """Labels of the question's constraints that no single evidence text meets
    together with one of the question's other content terms; [] when all are met
    (or the question has none)."""
    constraints = question_constraints(question)
    if not constraints or not evidence:
        return []
    constrained = set().union(*(content_terms(c.label) for c in constraints))
    others = content_terms(question) - constrained
    best: list[str] | None = None
    for text in evidence:
        missing = [c.label for c in constraints if not c.met_by(text)]
        on_topic = not others or bool(others & content_terms(text))
        if not on_topic:
            missing = [c.label for c in constraints]
        if best is None or len(missing) < len(best):
            best = missing
        if not best:
            return []
    return best or []


# A question whose best source only just clears the relevance floor is weak
# evidence; it is answered only when the sources hold at least this share of its
# content terms. Chosen on the odd half of the labelled answer set (docs/answers.md).
MIN_COVERAGE = 0.5
WEAK = "weak evidence"


def term_coverage(question: str, evidence: Sequence[str]) -> float:
    """Share of the question's content terms found anywhere in ``evidence`` (1.0 when it has none)."""
    wanted = content_terms(question)
    if not wanted:
        return 1.0
    found = set().union(*(content_terms(text) for text in evidence)) if evidence else set()
    return len(wanted & found) / len(wanted)


# What kind of fact a question asks for, and how a sentence that states one looks.
# The extractive generator uses it to drop padding: after a first sentence that
# states the asked kind of fact, further sentences must state one too. A kind that
# ``leads`` also reorders: a sentence close to the best that states it goes first
# (only where the question is specific enough: "what interest…" wants a rate).
@dataclass(frozen=True)
class AnswerType:
    states: re.Pattern[str]
    leads: bool = False

    def search(self, text: str) -> re.Match[str] | None:
        return self.states.search(text)


_ANSWER_TYPES: list[tuple[re.Pattern[str], AnswerType]] = [
    (re.compile(r"\bhow (?:long|fast|soon|quickly)\b|\bwhen will\b", re.IGNORECASE),
     AnswerType(re.compile(r"\d+\s*(?:(?:-|to)\s*\d+\s*)?(?:business\s+|calendar\s+|working\s+)?"
                           r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|"
                           r"\b(?:same|next)\s+(?:business\s+)?day\b|\bimmediate|\binstant|\bwithin\b",
                           re.IGNORECASE))),
    (re.compile(r"\bhow many\b", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d+\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|unlimited|no)\b",
                           re.IGNORECASE))),
    (re.compile(r"\bwhat time\b|\bopening hours\b|\bcut-?off\b|\bhours\b", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d{1,2}[:.]\d{2}\b|\bclosed\b", re.IGNORECASE))),
    # "What interest is charged?": a rate answers it, an interest-free allowance does not.
    (re.compile(r"\binterest\b(?!-)(?!.*\bfree\b)|\binterest\s+rates?\b|\b(?:APR|EAR|AER)\b", re.IGNORECASE),
     AnswerType(re.compile(r"\d\s*%|\d\s*(?:per\s?cent|percent)\b|\b(?:APR|EAR|AER)\b", re.IGNORECASE),
                leads=True)),
    (re.compile(r"\bhow much\b|\bfees?\b|\bcosts?\b|\bcharges?\b|\bprice\b|\binterest\b|\brate\b|\bpay\b",
                re.IGNORECASE),
     AnswerType(re.compile(r"[€$£%]|\bEUR\b|\bper\s?cent\b|\bpercent\b|\bfree\b|\bno\s+(?:\w+\s+)?fee\b|"
                           r"\bnothing\b|\binterest-free\b", re.IGNORECASE))),
]


def answer_type(question: str) -> AnswerType | None:
    """The kind of fact ``question`` asks for (a duration, a count, a time of day,
    a rate, an amount), or None."""
    for asks, kind in _ANSWER_TYPES:
        if asks.search(question):
            return kind
    return None
