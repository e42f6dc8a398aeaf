"""Embedding tokens on the usage meter: a local model reports the tokens it read from
the tokenization that embedded them (no second pass over every text), the same count
as ``count_tokens``, a text longer than the model's window counted whole; a wrapper
between the meter and the model is never gone round."""

from __future__ import annotations

import numpy as np
import pytest

from ragline.embed.base import CountingEmbedder
from ragline.embed.minilm import MiniLMEmbedder
from ragline.models.usage import EMBED
from ragline.usage.embedding import MeteredEmbedder

TEXTS = ["", "Vitamin D and bone density.", "word " * 600, "Ünïcode, emoji 🚀 and [SEP] inside text."]


class Meter:
    """Records what the wrapper notes (the meter's own storage is tested elsewhere)."""

    def __init__(self) -> None:
        self.noted: list[tuple] = []

    def used(self, tenant, kind, model, *, events=1, input_tokens=0, output_tokens=0) -> None:
        self.noted.append((tenant, kind, model, events, input_tokens))


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> MiniLMEmbedder:
    return MiniLMEmbedder(cache_dir=tmp_path_factory.mktemp("models"), precision="int8")


def test_tokens_come_from_the_embedding_tokenization(model, monkeypatch) -> None:
    expected = sum(model.count_tokens(t) for t in TEXTS)
    assert expected > 600 > model.max_tokens  # the long text is counted whole, not cut
    meter = Meter()
    monkeypatch.setattr(model, "count_tokens", lambda text: pytest.fail("tokenized a second time"))
    vectors = MeteredEmbedder(model, meter, "acme").embed_documents(TEXTS)
    assert meter.noted == [("acme", EMBED, model.model_id, len(TEXTS), expected)]
    monkeypatch.undo()
    np.testing.assert_allclose(vectors, model.embed_documents(TEXTS), atol=1e-6)


def test_a_wrapper_in_between_is_not_gone_round(model) -> None:
    counting, meter = CountingEmbedder(model), Meter()
    MeteredEmbedder(counting, meter, "acme").embed_documents(TEXTS)
    assert counting.documents_embedded == len(TEXTS)  # the call went through the wrapper
    assert meter.noted[0][4] == sum(model.count_tokens(t) for t in TEXTS)
