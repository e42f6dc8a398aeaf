"""A source passage read for checking claims (``answer.claims``): its clauses and
table cells, each with its values (``answer.quantities``) and the words that belong
to each value, its heading lines, and the abbreviations it defines.

- Paragraphs a scan or a page break cut are rejoined (``text.rejoin``); sentences a
  splitter left joined after a unit or "p.a." are cut.
- A sentence is cut into clauses at semicolons, and at a comma or "and" between two
  values ("A single room costs 80 euros, a double room 120 euros").
- A word belongs to the nearest value of its family (``family``) in its own clause,
  or, when its clause states none, in its sentence.
- A table cell carries its row's label and its column's header, whichever way the
  table runs.
- "Equated Monthly Instalment (EMI)" defines EMI both ways (``definitions``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analyzer import strip_accents
from .quantities import Quantity, quantities
from .text import rejoin, split_sentences

# Words too common to tie a value to a thing, in English and Spanish.
STOP = frozenset(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "by", "for", "from", "with", "as", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "you", "your", "we", "our", "they", "their", "he", "she", "his", "her", "i", "my", "me", "can", "may", "will", "would", "should", "could", "do", "does", "did", "has", "have", "had", "not", "no", "yes", "if", "then", "than", "so", "per", "also", "only", "up", "out", "into", "over", "under", "about", "after", "before", "each", "any", "all", "more", "most", "less", "least", "which", "who", "whom", "what", "when", "where", "why", "how", "there", "here", "such", "other", "both", "either", "very", "just", "same", "own", "el", "la", "los", "las", "un", "una", "unos", "unas", "y", "o", "de", "del", "al", "en", "por", "para", "con", "sin", "se", "su", "sus", "es", "son", "fue", "ser", "esta", "este", "estos", "estas", "que", "como", "mas", "menos", "muy", "ya", "le", "les", "lo", "cada", "todo", "toda", "todos", "todas", "hay"])
_DEFINITION = re.compile(r"\b((?:[A-Z][a-z]+[\s-]+(?:(?:of|for|and|de|del|la|based|on)\s+)?){1,7}[A-Z][a-z]+)"
                         r"\s*\(\s*([A-Z][A-Za-z0-9&]{1,9})\s*\)")
_DEFINITION_BACK = re.compile(r"\b([A-Z]{2,8})\s*\(\s*((?:[A-Z][a-z]+\s+){1,6}[A-Z][a-z]+)\s*\)")
# Words that start a sentence or question with a capital but name nothing.


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
        if len(word) < 3 or word in STOP or any(q.start <= match.start() < q.end for q in spans):
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
        if contains(self.folded, wanted) or contains(self.folded.replace(" ", ""), wanted.replace(" ", "")):
            return True
        if wanted.endswith("s") and contains(self.folded, wanted[:-1]):
            return True
        other = aliases.get(wanted)
        return other is not None and contains(self.folded, other)


def contains(haystack: str, needle: str) -> bool:
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
