"""Sentence splitting for answers: headings and list markers are not sentence text."""

from __future__ import annotations

from ragline.answer.text import split_sentences


def test_heading_line_is_cut_from_the_sentence_after_it() -> None:
    assert split_sentences("Vacation\nEvery employee receives 27 vacation days per year.") == [
        "Vacation", "Every employee receives 27 vacation days per year."]


def test_wrapped_line_inside_a_sentence_stays_whole() -> None:
    text = "Lorem ipsum dolor sit amet, consetetur\nsadipscing elitr, sed diam nonumy."
    assert split_sentences(text) == [text]


def test_list_markers_are_dropped() -> None:
    assert split_sentences("- There is no monthly fee.\n* Cards are free.") == [
        "There is no monthly fee.", "Cards are free."]


def test_extractive_citation_joins_hard_wrapped_lines() -> None:
    from ragline.answer.generators.extractive import with_citation

    assert with_citation("The fee is €5 per day the account\nis overdrawn.", 2) == "The fee is €5 per day the account is overdrawn [2]."
