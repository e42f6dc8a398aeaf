"""Grounding checks: each answer sentence against the source it cites."""

from __future__ import annotations

import pytest

from ragline.answer.context import ContextBuilder
from ragline.answer.grounding import GroundingChecker
from ragline.answer.prompt import NO_ANSWER
from ragline.answer.text import answer_sentences, cited_numbers, strip_citations
from ragline.embed.hashing import HashingEmbedder
from ragline.models import Hit

PLANTS = ("In the Calvin cycle, the enzyme RuBisCO fixes carbon dioxide from the air into sugars. "
          "Chlorophyll absorbs mostly blue and red light.")
VOLCANO = ("Rhyolitic magma is thick and traps gas, which makes eruptions explosive. "
           "Mount Etna in Sicily is one of the most active volcanoes in Europe.")
CONTEXT = ContextBuilder().build([Hit("c1", "d1", "plants.txt", 1.0, PLANTS, {}),
                                  Hit("c2", "d2", "volcano.txt", 0.9, VOLCANO, {})])
CHECKER = GroundingChecker(HashingEmbedder())


def counts(grounding) -> dict[str, int]:  # type: ignore[no-untyped-def]
    return {k: v for k, v in grounding.to_dict().items() if k in ("supported", "unsupported", "uncited")}


def statuses(answer: str) -> list[tuple[str, list[int], int | None]]:
    _, grounding = CHECKER.check(answer, CONTEXT)
    return [(s.status, s.cited, s.better) for s in grounding.sentences]


def test_sentence_citing_its_source_is_supported() -> None:
    _, grounding = CHECKER.check("RuBisCO fixes carbon dioxide from the air into sugars in the Calvin cycle [1].",
                                 CONTEXT)
    (check,) = grounding.sentences
    assert check.status == "supported" and check.lexical == pytest.approx(1.0)
    assert counts(grounding) == {"supported": 1, "unsupported": 0, "uncited": 0}


def test_citation_pointing_at_the_wrong_source_is_flagged_and_re_cited_to_the_right_one() -> None:
    # the shipped sentence cites the source that states it; the report keeps the verdict
    assert statuses("Rhyolitic magma traps gas, which makes eruptions explosive [1].") == [("wrong_citation", [2], 2)]


def test_citation_to_a_source_that_does_not_exist_is_flagged() -> None:
    assert statuses("Mount Etna in Sicily is one of the most active volcanoes in Europe [7].") == \
        [("wrong_citation", [2], 2)]


def test_claim_no_source_supports_is_unsupported() -> None:
    assert statuses("The moon is made of green cheese according to NASA [1].") == [("unsupported", [1], None)]


def test_sentence_without_citation_is_uncited() -> None:
    answer = "Chlorophyll absorbs mostly blue and red light. Mount Etna is very active [2]."
    assert statuses(answer) == [("uncited", [], 1), ("supported", [2], None)]


def test_one_supporting_citation_among_several_is_enough() -> None:
    assert statuses("Chlorophyll absorbs mostly blue and red light [2][1].")[0][0] == "supported"


def test_counts_and_optional_dropping_of_unsupported_sentences() -> None:
    answer = ("RuBisCO fixes carbon dioxide into sugars [1]. The moon is made of cheese [2]. "
              "Etna is in Sicily and is one of the most active volcanoes in Europe [1].")
    text, grounding = CHECKER.check(answer, CONTEXT)
    # the Etna sentence names places source [1] lacks and source [2] holds: re-cited, not dropped
    recited = answer.replace("Europe [1].", "Europe [2].")
    assert text == recited
    assert counts(grounding) == {"supported": 1, "unsupported": 2, "uncited": 0}
    assert [s.note for s in grounding.sentences] == [None, None, "re-cited to [2]"]
    pruned, kept = CHECKER.check(answer, CONTEXT, drop_unsupported=True)
    assert pruned == "RuBisCO fixes carbon dioxide into sugars [1]. " + recited.split("[2]. ")[1]
    assert [s.status for s in kept.dropped] == ["unsupported"] and kept.action == ["dropped"]
    assert counts(kept) == counts(grounding)  # dropped sentences are still reported


def test_no_answer_reply_has_nothing_to_check() -> None:
    text, grounding = CHECKER.check(NO_ANSWER, CONTEXT)
    assert text == NO_ANSWER and counts(grounding) == {"supported": 0, "unsupported": 0, "uncited": 0}


def test_lexical_only_without_an_embedder() -> None:
    _, grounding = GroundingChecker(None).check("Chlorophyll absorbs blue and red light [1].", CONTEXT)
    assert grounding.sentences[0].status == "supported" and grounding.sentences[0].semantic == 0.0


@pytest.mark.parametrize("text, numbers", [
    ("a [1] b [2]", [1, 2]), ("a [1][3]", [1, 3]), ("a [2, 1]", [2, 1]), ("a [1-3]", [1, 2, 3]),
    ("in [2020] and [a]", []), ("[1] and [1]", [1]),
])
def test_citation_markers_are_parsed(text: str, numbers: list[int]) -> None:
    assert cited_numbers(text) == numbers


def test_a_leading_citation_belongs_to_the_previous_sentence() -> None:
    sentences = answer_sentences("Carbon is fixed. [1] Etna is active [2].")
    assert [(s.text, s.cited) for s in sentences] == [("Carbon is fixed. [1]", [1]), ("Etna is active [2].", [2])]
    assert strip_citations("Etna is active [2][3].") == "Etna is active."
