"""Claim verification: does the passage a sentence cites state *its* facts?

Comparing words and embeddings cannot catch the dangerous errors: "A 3-year
deposit earns 8.4% [1]" is about the same deposit as source [1]'s "7.00% for 3
years", and "The Standard plan costs €9.50 [1]" is about the same plans as
"Standard €4.50, Premium €9.50". So each sentence's checkable facts are read and
looked up in the cited passage:

- **quantities** (``answer.quantities``: amounts with their currency, rates,
  durations, times, dates, counts), normalised so ``Rs. 500`` = ``₹500`` and
  ``16:00`` = ``4 pm``. A quantity the cited passage does not state is a
  *wrong number* when the passage states another of its kind, else *unsupported*;
  one that another passage states is a *wrong citation*.
- **pairs**: a stated quantity must belong to what the sentence attaches it to.
  In the passage every word belongs to the nearest quantity of that kind in its
  sentence or table row ("Standard" to €4.50, "Premium" to €9.50). A sentence word
  that the passage ties to *another* value of the same kind, and not to this one,
  makes the claim a *wrong entity* (a swapped pair). Two quantities of a sentence
  ("3-year … 7.00%") must also be stated together (same sentence, row or heading).
- **named things**: capitalised names and abbreviations not opening the sentence
  ("NEFT", "Premium Metal", "Valencia") must occur in the cited passage, an
  abbreviation matching the long form the passages define ("Equated Monthly
  Instalment (EMI)").

How a passage is read (its clauses, table cells, headings, definitions and which
value each word belongs to) is ``answer.passages``. A sentence with none of these
is judged as before (``grounding``: shared terms
or embedding similarity). ``check_claim`` returns the verdict and, for a failure,
the problem in words ("source [1] states 7.00%, not 8.4%").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from .passages import STOP, Passage, Window, clauses, contains, family, fold, terms
from .quantities import Quantity, quantities

_NAME = re.compile(r"\b(?:[A-Z][\w'’&.-]*[A-Za-z0-9]|[A-Z]{2,})(?:\s+(?:[A-Z][\w'’&.-]*[A-Za-z0-9]|[A-Z]{2,}|\d+))*")
_NOT_NAMES = frozenset(["i", "a", "an", "the", "this", "that", "these", "those", "it", "its", "if", "in", "on", "at", "for", "from", "to", "of", "and", "or", "but", "so", "as", "by", "with", "what", "how", "when", "where", "which", "who", "why", "is", "are", "can", "do", "does", "will", "would", "should", "could", "please", "yes", "no", "you", "your", "we", "our", "they", "their", "there", "here", "also", "however", "note", "each", "every", "all", "some", "any", "both", "our", "its", "his", "her", "my", "el", "la", "los", "las", "un", "una", "en", "de", "por", "para", "con", "si", "no", "sí", "cada", "también"])

# A rate's period is no thing a value belongs to ("per day"), in terms' five-letter form.
_PERIOD_WORDS = frozenset("day days month years year night week annum hour dia mes año noche seman hora".split())

# A citation mark: [1], [2, 3], [1-3] (text.cited_numbers reads them).
_CITATION_MARK = re.compile(r"\[\d{1,2}(?:\s*[-,–]\s*\d{1,2})*\]")

ClaimStatus = str  # "supported" | "wrong_number" | "wrong_entity" | "wrong_citation" | "unsupported" | "uncited"


@dataclass
class ClaimCheck:
    """The verdict on one sentence: ``status`` and, when it failed, ``problem``."""

    status: ClaimStatus
    problem: str | None = None
    better: int | None = None  # a passage that states what the cited one does not


def names_in(sentence: str) -> list[str]:
    """The named things of a sentence: capitalised runs that do not open it and
    abbreviations ("Premium Metal", "NEFT"), without citation markers."""
    text = _CITATION_MARK.sub(" ", sentence)
    for q in reversed(quantities(text)):  # "Rs. 500", "5 V": a unit is no name
        text = text[:q.start] + " " * (q.end - q.start) + text[q.end:]
    out = []
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        opening = not text[:match.start()].strip() or re.search(r"[.!?:;]\s*$", text[:match.start()])
        if opening or words[0].lower() in _NOT_NAMES:
            # The opening word is only a capital; the rest of the run may still be a name.
            rest = words[1:] if opening or words[0].lower() in _NOT_NAMES else words
            while rest and rest[0].lower() in _NOT_NAMES:
                rest = rest[1:]
            words = rest
        words = [w.rstrip(".") for w in words]
        name = " ".join(w for w in words if w)
        if name and not name.isdigit() and len(name) > 1:
            out.append(name)
    return out


@dataclass
class _Claim:
    """What a sentence claims: its quantities, its names, and per quantity the terms
    of its own clause (``clause_terms``; key -1 for a sentence without quantities)."""

    quantities: list[Quantity]
    names: list[str]
    terms: dict[int, set[str]]

    @classmethod
    def of(cls, sentence: str) -> _Claim | None:
        """None when the sentence holds no checkable fact (no quantity, no name)."""
        text = _CITATION_MARK.sub(" ", sentence)
        claimed, names = quantities(text), names_in(text)
        if not claimed and not names:
            return None
        return cls(claimed, names, clause_terms(text, claimed) if claimed else {-1: {t for t, _ in terms(text)}})

    def problem(self, sources: list[Passage], aliases: dict[str, str]) -> tuple[ClaimStatus, str] | None:
        return _facts_problem(self.quantities, self.names, self.terms, sources, aliases)


def _aliases(passages: Sequence[Passage]) -> dict[str, str]:
    """Every abbreviation and long form the passages define, both ways."""
    out: dict[str, str] = {}
    for passage in passages:
        out.update(passage.definitions)
    return out


def check_claim(sentence: str, cited: Sequence[int], passages: Sequence[Passage]) -> ClaimCheck | None:
    """Verify one answer sentence against the passages it cites (``passages`` are
    all the context's, numbered). None when the sentence holds no checkable fact
    (no quantity, no name): judge it by term and embedding support instead."""
    claim = _Claim.of(sentence)
    by_n = {p.n: p for p in passages}
    sources = [by_n[n] for n in cited if n in by_n]
    if claim is None or not sources:
        return None
    aliases = _aliases(passages)
    problem = claim.problem(sources, aliases)
    if problem is None:
        return ClaimCheck("supported")
    status, text = problem
    if status in ("wrong_number", "unsupported", "wrong_entity"):
        for other in (p for p in passages if p.n not in cited):
            if claim.problem([other], aliases) is None:
                return ClaimCheck("wrong_citation", f"{text}; source [{other.n}] states it", other.n)
    return ClaimCheck(status, text)


def supported_by(sentence: str, passages: Sequence[Passage]) -> int | None:
    """The first passage that states every checkable fact of an uncited sentence, or None."""
    claim = _Claim.of(sentence)
    if claim is None:
        return None
    aliases = _aliases(passages)
    return next((p.n for p in passages if claim.problem([p], aliases) is None), None)


def _facts_problem(claimed: list[Quantity], names: list[str], claim_terms: dict[int, set[str]],
                   sources: list[Passage], aliases: dict[str, str]) -> tuple[ClaimStatus, str] | None:
    label = ", ".join(f"[{p.n}]" for p in sources)
    for q in claimed:
        if not any(p.states(q) for p in sources):
            stated = [o.text for p in sources for o in p.of_kind(q) if o.kind != "number" or q.kind == "number"]
            if stated:
                shown = ", ".join(dict.fromkeys(stated[:4]))
                return "wrong_number", f"source {label} states {shown}, not {q.text}"
            return "unsupported", f"source {label} does not state {q.text}"
    every = set().union(*claim_terms.values())
    for name in names:
        if not any(p.names(name, aliases) for p in sources):
            known = set().union(*(p.all_terms for p in sources))
            on_topic = every and len(every & known) / len(every) >= 0.5
            return ("wrong_entity" if on_topic else "unsupported"), f"source {label} does not mention {name}"
    for index, q in enumerate(claimed):
        own = claim_terms.get(index, every)
        # the names of q's own clause: a clause's terms hold its names' words
        own_names = [n for n in names if {t for t, _ in terms(n)} <= own]
        mismatch = _pair_problem(q, claimed, own, sources, [" ".join(re.findall(r"\w+", fold(n))) for n in own_names])
        if mismatch:
            return "wrong_entity", mismatch
    return None


def clause_terms(claim_text: str, claimed: list[Quantity]) -> dict[int, set[str]]:
    """Per quantity of the sentence, the terms of its own clause ("the daily withdrawal
    limit is €1,000 and the daily payment limit is €5,000": "payment" is €5,000's)."""
    spans, start = [], 0
    for part in clauses(claim_text):
        at = claim_text.find(part, start)
        spans.append((at, at + len(part), part))
        start = at + len(part)
    out: dict[int, set[str]] = {}
    for index, q in enumerate(claimed):
        part = next((text for a, b, text in spans if a <= q.start < b), claim_text)
        out[index] = {t for t, _ in terms(part, quantities(part))}
    return out


def _pair_problem(q: Quantity, claimed: list[Quantity], claim_terms: set[str], sources: list[Passage],
                  names: list[str]) -> str | None:
    """Why ``q`` is stated for something else than the sentence says, or None.
    ``claim_terms`` and ``names`` are those of ``q``'s own clause of the sentence."""
    others = [o for o in claimed if o is not q and family(o) != family(q) and "number" not in (o.kind, q.kind)]
    claim_values = [o for o in claimed if family(o) == family(q) or "number" in (o.kind, q.kind)]
    best_reason = None
    for passage in sources:
        for window in passage.windows:
            hits = [i for i in window.own if q.same(window.sentence_quantities[i])]
            if not hits:
                continue
            if not all(_stated_with(o, q, window, passage) for o in others):
                best_reason = best_reason or (f"source [{passage.n}] does not state {q.text} together with "
                                              + ", ".join(o.text for o in others))
                continue
            kind = family(window.sentence_quantities[hits[0]])
            table = window.attached.get(kind, {})
            foreign = _competing(passage, q, claim_values, kind)
            mine = {t for t, ids in table.items() if any(i in ids for i in hits)}
            # A sentence word the passage ties to another value and not to this one (nor a
            # heading), while this value's own words include one the sentence lacks:
            # "Standard … €9.50" where the passage says "Premium … €9.50".
            wrong = [t for t in claim_terms & foreign if t not in mine and t not in passage.context]
            lacking = [t for t in mine - claim_terms - _PERIOD_WORDS if t in _distinctive(passage, kind)]
            # A name of the sentence that the passage gives with another value, and not in
            # this value's sentence ("The MG996R weighs 9 g" where 9 g is the SG90's).
            folded = " ".join(re.findall(r"\w+", fold(window.sentence)))
            misnamed = [n for n in names if n and not contains(folded, n) and _named_elsewhere(passage, n, q, kind)]
            if not misnamed and (not wrong or not lacking):
                return None
            owner = _owner(window, hits[0], kind)
            best_reason = best_reason or (f"source [{passage.n}] gives {q.text} for {owner or 'something else'}")
    return best_reason


def _stated_with(o: Quantity, q: Quantity, window: Window, passage: Passage) -> bool:
    """Is ``o`` stated with ``q``: in its sentence (or a heading), or — in a list of
    pairs ("12 months 2.75%, 24 months 2.60%") — in its clause?"""
    listed = all(sum(1 for x in window.sentence_quantities if family(x) == family(v)) > 1 for v in (q, o))
    together = window.quantities if listed else window.sentence_quantities
    return any(o.same(x) for x in together + passage.context_quantities)


def _named_elsewhere(passage: Passage, name: str, q: Quantity, kind: str) -> bool:
    """Does the passage name ``name`` in a clause with another value of ``kind``?"""
    for window in passage.windows:
        folded = " ".join(re.findall(r"\w+", fold(window.text)))
        if contains(folded, name) and any(family(o) == kind and not o.same(q) for o in window.sentence_quantities):
            return True
    return False


def _competing(passage: Passage, q: Quantity, claim_values: list[Quantity], kind: str) -> set[str]:
    """Terms the passage ties to a value of ``kind`` that the sentence does not state."""
    out: set[str] = set()
    for window in passage.windows:
        table = window.attached.get(kind)
        if not table:
            continue
        for term, indexes in table.items():
            for i in indexes:
                value = window.sentence_quantities[i]
                if not value.same(q) and not any(value.same(c) for c in claim_values):
                    out.add(term)
    return out


def _distinctive(passage: Passage, kind: str) -> set[str]:
    """Terms the passage ties to some but not all of its values of ``kind`` (a tier,
    a size, a product), not to the heading: what tells its values apart."""
    values: dict[str, set[Decimal]] = {}
    every: set[Decimal] = set()
    for window in passage.windows:
        for term, ids in window.attached.get(kind, {}).items():
            values.setdefault(term, set()).update(window.sentence_quantities[i].value for i in ids)
        every.update(q.value for q in window.sentence_quantities if family(q) == kind)
    return {t for t, v in values.items() if v != every and t not in passage.context}


def _owner(window: Window, index: int, kind: str) -> str:
    words = [t for t, ids in window.attached.get(kind, {}).items() if index in ids]
    original = [w for w in re.findall(r"[^\W\d_]+", window.sentence) if fold(w)[:5] in words and fold(w) not in STOP]
    return " ".join(dict.fromkeys(original[:4]))


@dataclass(frozen=True)
class RecordRow:
    """One line of an exact money table: what (a category, merchant or month) and its figure."""

    label: str
    amount: Decimal
    currency: str = ""


def check_records_claim(sentence: str, rows: Sequence[RecordRow], *, ranked: bool = True) -> ClaimCheck:
    """A money sentence against the table the records computed: every figure must
    be one of the table's, and sit with its own label; a sentence that names the
    top (largest, most) label must name the table's first row (``ranked``)."""
    claimed = [q for q in quantities(sentence) if q.kind in ("money", "number")]
    folded = fold(sentence)
    mentioned = [(row, m.start()) for row in rows for m in re.finditer(rf"(?<!\w){re.escape(fold(row.label))}(?!\w)",
                                                                        folded)]
    for q in claimed:
        matching = [row for row in rows if row.amount == q.value and (not q.unit or not row.currency
                                                                      or q.unit == row.currency)]
        if not matching:
            if q.kind == "number" and not any(row.amount == q.value for row in rows) and q.value == q.value.to_integral() \
                    and q.value < 1000:
                continue  # a count or a day of the month, not a figure
            return ClaimCheck("wrong_number", f"the records hold no figure {q.text}")
        near = sorted(mentioned, key=lambda rm: abs(rm[1] - q.start))
        if near and near[0][0] not in matching:
            return ClaimCheck("wrong_entity", f"{q.text} is {', '.join(r.label for r in matching)}'s figure, "
                                              f"not {near[0][0].label}'s")
    top = re.search(r"\b(most|top|largest|biggest|highest|main|m[aá]s|mayor)\b", folded) if ranked else None
    if top and rows and mentioned:
        nearest = min(mentioned, key=lambda rm: abs(rm[1] - top.start()))[0]
        if nearest.label != rows[0].label:
            return ClaimCheck("wrong_entity", f"the largest is {rows[0].label}, not {nearest.label}")
    if not claimed and not mentioned:
        return ClaimCheck("unsupported", "it states nothing the records hold")
    return ClaimCheck("supported")
