"""The engine's objects produce the wire shapes (``ragline.wire``) the server
declares and the client reads: their ``to_dict()`` validates against them."""

from __future__ import annotations

from ragline import wire
from ragline.answer.context import RAGContext
from ragline.answer.types import Answer, Citation
from ragline.models import Hit


def test_a_hit_dict_is_a_wire_hit() -> None:
    data = Hit(chunk_id="c", doc_id="d", source="s.md", score=0.5, text="t", collection="kb").to_dict()
    assert set(data) == set(wire.Hit.model_fields)
    assert wire.Hit.model_validate(data).model_dump() == data


def test_an_answer_dict_is_a_wire_answer() -> None:
    citation = Citation(n=1, chunk_id="c", doc_id="d", source="s.md", page=2, score=0.25)
    data = Answer(question="q", answer="a [1]", citations=[citation], abstained=False, generator="extractive",
                  context=RAGContext()).to_dict()
    assert set(wire.Answer.model_fields) <= set(data)
    assert set(data["citations"][0]) == set(wire.Citation.model_fields)
    assert wire.Answer.model_validate(data).model_dump() == data
