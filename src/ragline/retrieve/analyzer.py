"""Text analysis for keyword search: lowercase word tokens, English stopwords
removed, Snowball (Porter2) stems. The same function indexes and queries."""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

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


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def analyze(text: str) -> list[str]:
    """Text → index terms (order kept, duplicates kept: they are term frequencies)."""
    words = [w for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS]
    return _stemmer().stemWords(words)


def query_terms(text: str, limit: int = MAX_QUERY_TERMS) -> list[str]:
    """The first ``limit`` distinct terms of a query, in order of appearance.
    Stops stemming once it has them."""
    terms: dict[str, None] = {}
    stem = _stemmer().stemWord
    for match in _TOKEN.finditer(text.lower()):  # lowercase first, exactly as analyze() does
        word = match.group()
        if word in STOPWORDS:
            continue
        terms[stem(word)] = None
        if len(terms) >= limit:
            break
    return list(terms)
