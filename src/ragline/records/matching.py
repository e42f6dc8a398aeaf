"""Names in a question against what a statement prints: merchants and places,
normalised and fuzzy ("Sainsburys" finds "SAINSBURY'S S/MKT", "Munich" finds
"MUENCHEN", "M&S" finds "MARKS & SPENCER").

A name matches a transaction when each of its words is found, in order, among the
words of the transaction's merchant and description: the same word after folding
(case, accents, German umlauts written out, apostrophes), a known alias (a place's
local spelling, a brand's other names: ``records.merchants``' tables, defined once
there) or a close spelling (edit ratio at least ``CLOSE``, words of five letters or
more). The words are compared, never the sums:
what matched is executed exactly by the store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from functools import lru_cache

from ..analyzer import strip_accents
from .merchants import MERCHANT_ALIASES, PLACE_ALIASES

CLOSE = 0.84
"""The least ``SequenceMatcher`` ratio for two words (5+ letters) to count as one spelled two ways."""

_NOISE = frozenset("""card payment purchase pos visa debit credit contactless direct dd so fpo fpi bgc tfr
transfer to from ref reference on at the ltd limited plc gmbh co uk gb de com www online
mobile faster payments payment paypal via sumup zettle sq izettle cd jan feb mar apr may jun jul aug sep sept
oct nov dec lastschrift kartenzahlung ec sepa gutschrift uberweisung ueberweisung dauerauftrag""".split())
"""Words banks add around a payee's name (they never identify one)."""


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Case, accents, written-out umlauts and punctuation folded away: "MÜNCHEN",
    "Muenchen" and "munchen" are one word; "Sainsbury's" is "sainsburys"."""
    text = text.casefold().replace("ß", "ss").replace("&", " & ")
    text = re.sub(r"['’`´]", "", strip_accents(text))
    words = re.findall(r"[a-z0-9&+]+", text)
    return " ".join(_umlaut(w) for w in words)


def _umlaut(word: str) -> str:
    # "ue" → "u" etc. on both sides alike, so "muenchen" = "munchen"; "blue" → "blu" harms
    # nothing because every compared word goes through the same mapping.
    return re.sub(r"(?<=[a-z])([aou])e", r"\1", word) if len(word) > 3 else word


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    return tuple(fold(text).split())


def words(text: str) -> list[str]:
    return list(_words(text))


@lru_cache(maxsize=4096)
def variants(name: str) -> tuple[tuple[str, ...], ...]:
    """The word sequences ``name`` may be printed as (itself, a brand's other names, a
    place's local spellings: the alias tables of ``records.merchants``), folded."""
    base = " ".join(name.casefold().split())
    forms = {base}
    for table in (PLACE_ALIASES, MERCHANT_ALIASES):
        for canonical, spellings in table.items():
            names = {canonical, *spellings}
            if base in names or fold(base) in {fold(n) for n in names}:
                forms |= names
    out = []
    for form in sorted(forms):
        folded = tuple(fold(form).split())
        if folded and folded not in out:
            out.append(folded)
        joined = ("".join(folded),) if len(folded) > 1 else None  # "just eat" ~ "JUSTEAT"
        if joined and joined not in out and len(joined[0]) >= 5:
            out.append(joined)
    return tuple(out)


@lru_cache(maxsize=262144)
def close(a: str, b: str) -> bool:
    """One word, maybe spelled two ways (or one a plural of the other)."""
    if a == b:
        return True
    if min(len(a), len(b)) >= 3 and a.rstrip("s") == b.rstrip("s") and abs(len(a) - len(b)) <= 1:
        return True  # "fees" is "fee"
    if min(len(a), len(b)) < 4:
        return False
    if min(len(a), len(b)) < 5 or a.isdigit() or b.isdigit():
        return False
    return SequenceMatcher(None, a, b).ratio() >= CLOSE


def _found(sequence: tuple[str, ...], haystack: list[str], exact: bool = False) -> bool:
    """``sequence`` occurs in ``haystack``, word after word (each word close, or equal)."""
    n = len(sequence)
    same = (lambda a, b: a == b) if exact else close
    for i in range(len(haystack) - n + 1):
        if all(same(sequence[j], haystack[i + j]) for j in range(n)):
            return True
    if exact:
        glued = "".join(sequence)
        return n > 1 and glued in haystack
    # A name printed without spaces ("SAINSBURYS", "JUSTEAT"), or cut short ("SAINSBURYS S/MKT").
    glued = "".join(sequence)
    return n > 1 and any(close(glued, w) or (len(glued) >= 6 and w.startswith(glued)) for w in haystack)


def name_matches(name: str, *texts: str | None, exact: bool = False) -> bool:
    """Whether ``name`` (a merchant or place as the asker says it) is printed in any of
    ``texts`` (a transaction's merchant and description); ``exact``: word for word,
    no spelling variants (a list's known brands, where "Booths" must not find "Boots")."""
    haystack = [w for t in texts if t for w in _words(t)]
    return any(_found(form, haystack, exact) for form in variants(name))


def payee(description: str, merchant: str | None = None) -> str:
    """Who was paid, as a short name: the merchant when the bank gives one, else the
    description without card numbers, dates, references and banking words."""
    if merchant and merchant.strip():
        return " ".join(merchant.split())
    cleaned = re.sub(r"(?i)(\.com|\.co\.uk|\.de|\.net|\.org)\b", "", description)
    kept = [w for w in re.split(r"[\s*/]+", cleaned) if w and not any(c.isdigit() for c in w)
            and fold(w) not in _NOISE and len(fold(w)) > 1]
    return " ".join(kept[:3]).title() if kept else " ".join(description.split()[:3])


def mentioned(question: str, names: Iterable[str]) -> list[str]:
    """Those of ``names`` the question mentions (fuzzily), longest first, without one
    that is part of another found ("Uber" inside "Uber Eats")."""
    haystack = list(_words(question))
    found = [n for n in names if n and any(_found(form, haystack) for form in variants(n))]
    found.sort(key=lambda n: -len(n))
    kept: list[str] = []
    for name in found:
        if not any(fold(name) in fold(k) for k in kept):
            kept.append(name)
    return kept
