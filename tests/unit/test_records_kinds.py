"""Kinds of spending named in a question (records/kinds.py): phrases, misspellings, and
what a long question costs."""

from __future__ import annotations

import random

import pytest

from ragline.records import kinds


@pytest.mark.parametrize(("question", "expected"), [
    ("what did the cinima cost me", [("cinema", "cinima")]),
    ("spent at the resturant", [("eating_out", "resturant")]),
    ("what does the gym cost me", [("gym", "the gym")]),
    ("my childcare and the car", [("childcare", "childcare"), ("car", "the car")]),
    ("how much did I spend in total last month", []),  # common words are not misspellings
])
def test_kinds_in_finds_phrases_and_misspellings(question: str, expected: list[tuple[str, str]]) -> None:
    assert kinds.kinds_in(question) == expected


def test_a_long_question_compares_each_word_with_few_phrases(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1,200-word question (a hostile tenant's) compared every word with every one-word
    phrase: 211,296 fuzzy comparisons, 0.4 s of CPU under the GIL before the route was
    chosen. Only phrases that share the word's first two letters can match."""
    calls = 0
    real = kinds.misspelt

    def counting(word: str, phrase: str) -> bool:
        nonlocal calls
        calls += 1
        return real(word, phrase)

    monkeypatch.setattr(kinds, "misspelt", counting)
    words = [f"word{i}" for i in range(5000)]
    question = " ".join(random.Random(0).choices(words, k=1200))
    assert kinds.kinds_in(question) == []
    assert calls < 5000
