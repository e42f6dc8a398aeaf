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

A sentence with none of these is judged as before (``grounding``: shared terms
or embedding similarity). ``check_claim`` returns the verdict and, for a failure,
the problem in words ("source [1] states 7.00%, not 8.4%").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from ..analyzer import strip_accents
from .quantities import Quantity, quantities
from .text import rejoin, split_sentences

# Words too common to tie a value to a thing, in English and Spanish.
_STOP = frozenset(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "from", "with", "as", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "you", "your", "we", "our", "they", "their", "he", "she", "his", "her", "i", "my", "me", "can", "may", "will", "would", "should", "could", "do", "does", "did", "has", "have", "had", "not", "no", "yes", "if", "then", "than", "so", "per", "also", "only", "up", "out", "into", "over", "under", "about", "after", "before", "each", "any", "all", "more", "most", "less", "least", "which", "who", "whom", "what", "when", "where", "why", "how", "there", "here", "such", "other", "both", "either", "very", "just", "same", "own", "el", "la", "los", "las", "un", "una", "unos", "unas", "y", "o", "de", "del", "al", "en", "por", "para", "con", "sin", "se", "su", "sus", "es", "son", "fue", "ser", "esta", "este", "estos", "estas", "que", "como", "mas", "menos", "muy", "ya", "le", "les", "lo", "cada", "todo", "toda", "todos", "todas", "hay"])

_NAME = re.compile(r"\b(?:[A-Z][\w'’&.-]*[A-Za-z0-9]|[A-Z]{2,})(?:\s+(?:[A-Z][\w'’&.-]*[A-Za-z0-9]|[A-Z]{2,}|\d+))*")
_DEFINITION = re.compile(r"\b((?:[A-Z][a-z]+[\s-]+(?:(?:of|for|and|de|del|la|based|on)\s+)?){1,7}[A-Z][a-z]+)"
                         r"\s*\(\s*([A-Z][A-Za-z0-9&]{1,9})\s*\)")
_DEFINITION_BACK = re.compile(r"\b([A-Z]{2,8})\s*\(\s*((?:[A-Z][a-z]+\s+){1,6}[A-Z][a-z]+)\s*\)")
# Words that start a sentence or question with a capital but name nothing.
_NOT_NAMES = frozenset(["i", "a", "an", "the", "this", "that", "these", "those", "it", "its", "if", "in", "on", "at", "for", "from", "to", "of", "and", "or", "but", "so", "as", "by", "with", "what", "how", "when", "where", "which", "who", "why", "is", "are", "can", "do", "does", "will", "would", "should", "could", "please", "yes", "no", "you", "your", "we", "our", "they", "their", "there", "here", "also", "however", "note", "each", "every", "all", "some", "any", "both", "our", "its", "his", "her", "my", "el", "la", "los", "las", "un", "una", "en", "de", "por", "para", "con", "si", "no", "sí", "cada", "también"])

# A rate's period is no thing a value belongs to ("per day"), in terms' five-letter form.
_PERIOD_WORDS = frozenset("day days month years year night week annum hour dia mes año noche seman hora".split())

# A citation mark: [1], [2, 3], [1-3] (text.cited_numbers reads them).
_CITATION_MARK = re.compile(r"\[\d{1,2}(?:\s*[-,–]\s*\d{1,2})*\]")

ClaimStatus = str  # "supported" | "wrong_number" | "wrong_entity" | "wrong_citation" | "unsupported" | "uncited"


def fold(text: str) -> str:
    """Lower case without accents: "MÜNCHEN" → "munchen", "Tarifa Básica" → "tarifa basica"."""
    return strip_accents(text).lower()


def terms(text: str, spans: Sequence[Quantity] = ()) -> list[tuple[str, int]]:
    """(term, position) of the words that can tie a value to a thing: folded,
    stopwords out, cut to five letters (a crude stem that serves both languages),
    without the words inside ``spans`` (a quantity's unit is not a thing)."""
    out = []
    for match in re.finditer(r"[^\W\d_]+", fold(text)):
        word = match.group(0)
        if len(word) < 3 or word in _STOP or any(q.start <= match.start() < q.end for q in spans):
            continue
        out.append((word[:5], match.start()))
    return out


@dataclass
class Window:
    """A clause or table cell of a passage: its quantities and, per family of
    quantity (``family``), the terms that belong to each value (the nearest one).
    ``sentence`` is the whole sentence (or row) the clause comes from."""

    text: str
    quantities: list[Quantity]
    terms: set[str]
    sentence: str = ""
    sentence_quantities: list[Quantity] = field(default_factory=list)
    attached: dict[str, dict[str, set[int]]] = field(default_factory=dict)  # family → term → sentence value indexes
    own: list[int] = field(default_factory=list)  # indexes of this clause's values among the sentence's

    @classmethod
    def of(cls, text: str, sentence: str | None = None) -> Window:
        """A clause ``text`` of ``sentence`` (a table cell is its own sentence). A word
        belongs to the nearest value of each family in its own clause, or, when its
        clause states none of that family, in its sentence ("For example, a robot …
        moves at 0.5 m/s": "robot" is 0.5 m/s's)."""
        whole = text if sentence is None else sentence
        parts = clauses(whole) if sentence is not None else [whole]
        everything = quantities(whole)
        offset = whole.find(text) if sentence is not None else 0
        mine = [i for i, q in enumerate(everything) if offset <= q.start < offset + len(text)] if offset >= 0 else []
        window = cls(text, [everything[i] for i in mine], {t for t, _ in terms(text, quantities(text))}, whole,
                     everything)
        window.own = mine
        spans, start = [], 0
        for part in parts:
            at = whole.find(part, start)
            spans.append((at, at + len(part)))
            start = at + len(part)
        words = terms(whole, everything)
        for kind in {family(q) for q in everything}:
            table: dict[str, set[int]] = {}
            for term, pos in words:
                clause = next(((a, b) for a, b in spans if a <= pos < b), (0, len(whole)))
                near = [(i, q) for i, q in enumerate(everything) if family(q) == kind and clause[0] <= q.start < clause[1]]
                near = near or [(i, q) for i, q in enumerate(everything) if family(q) == kind]
                best = min(near, key=lambda iq: (_distance(pos, iq[1]), iq[1].start < pos))
                table.setdefault(term, set()).add(best[0])
            window.attached[kind] = table
        return window


def family(q: Quantity) -> str:
    """What a value competes with: its kind, a measure by its dimension (volts do not
    compete with amps), a bare number with every value."""
    return f"measure:{q.unit}" if q.kind == "measure" else q.kind


def _distance(pos: int, q: Quantity) -> int:
    if q.start <= pos < q.end:
        return 0
    return q.start - pos if pos < q.start else pos - q.end + 1


@dataclass
class Passage:
    """One numbered source read for checking: its windows and its context (title,
    section and heading lines: they hold for every window)."""

    n: int
    windows: list[Window]
    context: set[str]
    context_quantities: list[Quantity]
    folded: str
    definitions: dict[str, str]
    all_terms: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, n: int, text: str, context: str = "") -> Passage:
        rows, prose, headings = _split(text)
        windows = [Window.of(w) for w in rows] + [Window.of(c, sentence) for sentence, c in prose]
        heading_text = " ".join([context, *headings])
        squashed = fold(f"{context}\n{text}")
        return cls(n, windows, {t for t, _ in terms(heading_text)}, quantities(heading_text),
                   " ".join(re.findall(r"\w+", squashed)), definitions(f"{context}\n{text}"),
                   {t for t, _ in terms(f"{context}\n{text}")})

    def states(self, q: Quantity) -> bool:
        return any(q.same(other) for w in self.windows for other in w.quantities) or any(
            q.same(other) for other in self.context_quantities)

    def of_kind(self, q: Quantity) -> list[Quantity]:
        """The passage's values that compete with ``q`` (same family, or bare numbers)."""
        return [o for w in self.windows for o in w.quantities
                if family(o) == family(q) or "number" in (q.kind, o.kind)]

    def names(self, name: str, aliases: dict[str, str]) -> bool:
        """Does the passage name ``name`` (case-, accent- and spacing-insensitive,
        or by the abbreviation/long form the passages define)?"""
        wanted = " ".join(re.findall(r"\w+", fold(name)))
        if not wanted:
            return True
        if _contains(self.folded, wanted) or _contains(self.folded.replace(" ", ""), wanted.replace(" ", "")):
            return True
        if wanted.endswith("s") and _contains(self.folded, wanted[:-1]):
            return True
        other = aliases.get(wanted)
        return other is not None and _contains(self.folded, other)


def _contains(haystack: str, needle: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", haystack) is not None


_TABLE_ROW = re.compile(r"\||\t|\S\s{3,}\S")


def _split(text: str) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Table cells (``_cells_with_header``), prose clauses with their sentences (hard
    line wraps and OCR breaks rejoined) and heading lines of a passage."""
    rows: list[str] = []
    paragraph: list[str] = []
    paragraphs: list[list[str]] = []
    headings: list[str] = []
    header: str | None = None  # a table's first row names its columns: it holds for every row
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if paragraph:
                paragraphs.append(paragraph)
                paragraph = []
            header = None
            continue
        if _TABLE_ROW.search(stripped):
            row = stripped.strip("|").strip()
            if re.fullmatch(r"[\s|:-]*", row):
                continue  # the markdown rule under the header
            if header is None and not quantities(row):
                header = row
            else:
                rows.extend(_cells_with_header(row, header))
            continue
        header = None
        if stripped.startswith("#") or (len(stripped) < 60 and not re.search(r"[.,;:!?]$", stripped)
                                        and not quantities(stripped) and not paragraph):
            headings.append(stripped.lstrip("#").strip())
            continue
        paragraph.append(stripped)
    if paragraph:
        paragraphs.append(paragraph)
    joined = rejoin([" ".join(p) for p in paragraphs])
    prose = [(s, c) for p in joined for s in _resplit(split_sentences(p)) for c in clauses(s)]
    return rows, prose, headings


_CLAUSE_BREAK = re.compile(r";\s+|,\s+(?:and\s+|but\s+|while\s+|whereas\s+|y\s+|pero\s+|mientras\s+)?|"
                           r"\s+(?:and|but|while|whereas|y|pero|mientras que)\s+")


_UNIT_STOP = re.compile(r"(\d\s?[A-Za-z°]{1,3}|\bp\.a)\.\s+(?=[A-Z¿¡])")


def _resplit(sentences: list[str]) -> list[str]:
    """Sentences a splitter left joined after a unit or "p.a." ("… at 6 V. Smart servos …")."""
    out = []
    for sentence in sentences:
        last = 0
        for match in _UNIT_STOP.finditer(sentence):
            out.append(sentence[last:match.end(1) + 1].strip())
            last = match.end()
        out.append(sentence[last:].strip())
    return [part for part in out if part]


def clauses(sentence: str) -> list[str]:
    """A sentence cut where each part states its own value: at semicolons, and at a
    comma or "and" between two values ("A single room costs 80 euros, a double room
    120 euros"), so a word belongs to the value of its own clause."""
    parts: list[str] = []
    for piece in re.split(r";\s+", sentence):
        current = ""
        last = 0
        for match in _CLAUSE_BREAK.finditer(piece):
            head, tail = piece[last:match.start()], piece[match.end():]
            if quantities(current + head) and quantities(tail) and not match.group(0).startswith(";"):
                parts.append((current + head).strip())
                current = ""
            else:
                current += piece[last:match.end()]
            last = match.end()
        parts.append((current + piece[last:]).strip())
    return [p for p in parts if p]


def _cells_with_header(row: str, header: str | None) -> list[str]:
    """A table row as windows: with a header, one per value column — the row's
    label, the column's name and the cell ("Finance charges GUCB Gold 3.25%") —
    so a value belongs to its own row and column, whichever way the table runs."""
    cells = [c.strip() for c in row.split("|")]
    names = [c.strip() for c in header.split("|")] if header else []
    if len(cells) < 2 or len(names) != len(cells):
        return [f"{row} | {header}" if header else row]
    return [f"{cells[0]} {names[i]}: {cells[i]}" for i in range(1, len(cells)) if cells[i]]


def definitions(text: str) -> dict[str, str]:
    """Abbreviations a text defines, both ways, folded: "Equated Monthly Instalment
    (EMI)" gives {"emi": "equated monthly instalment", "equated monthly instalment": "emi"}."""
    out: dict[str, str] = {}
    for match in _DEFINITION.finditer(text):
        words, short = match.group(1).split(), match.group(2)
        # The capitalised run may start early ("The Equated Monthly Instalment (EMI)"):
        # the long form is the shortest tail whose initials give the abbreviation.
        for start in range(len(words) - 1, -1, -1):
            long = " ".join(words[start:])
            if _initials_fit(long, short):
                out[fold(short)] = " ".join(re.findall(r"\w+", fold(long)))
                break
    for match in _DEFINITION_BACK.finditer(text):
        short, long = match.group(1), " ".join(match.group(2).split())
        if _initials_fit(long, short):
            out[fold(short)] = " ".join(re.findall(r"\w+", fold(long)))
    out.update({v: k for k, v in list(out.items())})
    return out


def _initials_fit(long: str, short: str) -> bool:
    """"Know Your Customer" fits "KYC"; "Marginal Cost of Funds based Lending Rate" fits "MCLR"."""
    words = [w for w in re.split(r"[\s-]+", long) if w]
    letters = [w[0].upper() for w in words if w[0].isupper()]
    wanted = [c for c in short.upper() if c.isalpha()]
    if not wanted:
        return False
    # The short form's letters appear, in order, among the long form's word initials.
    it = iter(letters)
    return all(any(c == x for x in it) for c in wanted) and letters[0] == wanted[0]


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
            # The sentence's other values must be stated in the same sentence (or a heading).
            # In a list of pairs ("12 months 2.75%, 24 months 2.60%") the clause must hold both.
            def stated_with(o: Quantity) -> bool:
                count = {family(x) for x in window.sentence_quantities}
                listed = all(sum(1 for x in window.sentence_quantities if family(x) == family(v)) > 1 for v in (q, o))
                together = (window.quantities if listed and count else window.sentence_quantities)
                return any(o.same(x) for x in together + passage.context_quantities)

            if not all(stated_with(o) for o in others):
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
            misnamed = [n for n in names if n and not _contains(folded, n) and _named_elsewhere(passage, n, q, kind)]
            if not misnamed and (not wrong or not lacking):
                return None
            owner = _owner(window, hits[0], kind)
            best_reason = best_reason or (f"source [{passage.n}] gives {q.text} for {owner or 'something else'}")
    return best_reason


def _named_elsewhere(passage: Passage, name: str, q: Quantity, kind: str) -> bool:
    """Does the passage name ``name`` in a clause with another value of ``kind``?"""
    for window in passage.windows:
        folded = " ".join(re.findall(r"\w+", fold(window.text)))
        if _contains(folded, name) and any(family(o) == kind and not o.same(q) for o in window.sentence_quantities):
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
    original = [w for w in re.findall(r"[^\W\d_]+", window.sentence) if fold(w)[:5] in words and fold(w) not in _STOP]
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
