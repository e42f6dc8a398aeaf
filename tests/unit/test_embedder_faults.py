"""Issue 16, embedder faults at the boundary: ONNX Runtime and tokenizer failures in
a real MiniLMEmbedder, and bad vectors from any embedder, become ``EmbedderError``
with the reason, so search degrades to keyword, ask still answers, ingestion fails
the batch clearly, and no bad vector is ever stored."""

from __future__ import annotations

import numpy as np
import pytest
from onnxruntime.capi.onnxruntime_pybind11_state import Fail

from ragline.embed import check_vectors
from ragline.embed.hashing import HashingEmbedder
from ragline.engine import Engine
from ragline.errors import EmbedderError
from ragline.models import Block, Document, Scope
from ragline.retrieve.search import Searcher
from ragline.settings import SearchSettings, Settings

SCOPE = Scope("acme", ("kb",))
DOCS = {
    "photosynthesis.txt": "Photosynthesis converts light energy into chemical energy stored in sugars. In the "
                          "Calvin cycle, the enzyme RuBisCO fixes carbon dioxide from the air into sugars.",
    "volcanoes.md": "A volcano erupts when molten magma rises through cracks in the crust. Mount Etna in Sicily "
                    "is one of the most active volcanoes in Europe.",
}
QUESTION = "Which enzyme fixes carbon dioxide in the Calvin cycle?"
ORT_MESSAGE = "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Attention node."


def documents(**texts: str) -> list[Document]:
    return [Document(source=name, blocks=[Block(text)]) for name, text in (texts or DOCS).items()]


def ort_fails(*args, **kwargs):
    raise Fail(ORT_MESSAGE)


class BrokenTokenizer:
    """What a tokenizers failure looks like: a plain ``Exception`` from the Rust side."""

    def encode_batch(self, texts):
        raise Exception("tokenizer: unexpected end of input")  # noqa: TRY002  (what tokenizers raises)

    def encode(self, text, add_special_tokens=True):
        raise Exception("tokenizer: unexpected end of input")  # noqa: TRY002  (what tokenizers raises)


@pytest.fixture
def session(minilm):
    return minilm._get_session()


@pytest.fixture
def engine(tmp_path, minilm):
    eng = Engine(Settings(home=tmp_path / "home"), embedder=minilm)
    yield eng
    eng.close()


def test_onnx_runtime_failure_is_an_embedder_error_with_the_reason(minilm, session, monkeypatch) -> None:
    monkeypatch.setattr(session, "run", ort_fails)
    with pytest.raises(EmbedderError, match=r"ONNX Runtime failed .*Fail: .*running Attention node") as caught:
        minilm.embed_documents(["one", "two"])
    assert isinstance(caught.value.__cause__, Fail)
    with pytest.raises(EmbedderError, match="ONNX Runtime failed"):
        minilm.embed_query("one")


def test_tokenizer_failure_is_an_embedder_error_with_the_reason(minilm, monkeypatch) -> None:
    minilm._get_tokenizer()
    monkeypatch.setattr(minilm, "_tokenizer", BrokenTokenizer())
    with pytest.raises(EmbedderError, match="tokenizer failed: Exception: tokenizer: unexpected end of input"):
        minilm.embed_documents(["one"])
    with pytest.raises(EmbedderError, match="tokenizer failed"):
        minilm.count_tokens("one")


@pytest.mark.parametrize("bad", ["nan", "inf", "dimension"])
def test_bad_model_output_is_an_embedder_error(minilm, session, monkeypatch, bad: str) -> None:
    real = session.run

    def run(names, feeds):
        (hidden,) = real(names, feeds)
        if bad == "dimension":
            return [hidden[:, :, :100]]
        hidden = hidden.copy()
        hidden[0, 0, 3] = np.nan if bad == "nan" else np.inf
        return [hidden]

    monkeypatch.setattr(session, "run", run)
    with pytest.raises(EmbedderError, match="dimension|NaN or infinite"):
        minilm.embed_documents(["one", "two words"])


def test_check_vectors_refuses_wrong_shapes_and_non_finite_values() -> None:
    good = np.eye(2, 4, dtype=np.float32)
    assert check_vectors(good, 2, 4, "m") is not None
    for bad, reason in ((good[:, :3], "dimension"), (good[:1], "1 vectors for 2 texts"),
                        (np.where(good == 1, np.nan, good), "NaN or infinite")):
        with pytest.raises(EmbedderError, match=reason):
            check_vectors(bad, 2, 4, "m")


def test_search_and_ask_degrade_to_keyword_when_onnx_runtime_fails(engine, session, monkeypatch) -> None:
    engine.add_documents(documents(), SCOPE)
    monkeypatch.setattr(session, "run", ort_fails)
    result = engine.search(QUESTION, SCOPE)
    assert result.mode == "keyword" and result.hits and result.hits[0].source == "photosynthesis.txt"
    assert result.degraded and "embedder unavailable" in result.degraded and "ONNX Runtime failed" in result.degraded
    answer = engine.ask(QUESTION, SCOPE)
    assert answer.degraded and answer.search_mode == "keyword"
    assert not answer.abstained and "RuBisCO" in answer.answer and answer.citations
    with pytest.raises(EmbedderError, match="ONNX Runtime failed"):  # dense alone has nothing to fall back to
        engine.search(QUESTION, SCOPE, mode="dense")


def test_search_degrades_when_the_tokenizer_fails(engine, minilm, monkeypatch) -> None:
    engine.add_documents(documents(), SCOPE)
    monkeypatch.setattr(minilm, "_tokenizer", BrokenTokenizer())
    result = engine.search(QUESTION, SCOPE)
    assert result.mode == "keyword" and result.hits and "tokenizer failed" in (result.degraded or "")
    assert "RuBisCO" in engine.ask(QUESTION, SCOPE).answer


@pytest.mark.parametrize("fault", ["ort", "nan"])
def test_ingestion_fails_the_batch_clearly_and_stores_nothing(engine, session, monkeypatch, fault: str) -> None:
    real = session.run

    def nan_run(names, feeds):
        (hidden,) = real(names, feeds)
        return [np.full_like(hidden, np.nan)]

    monkeypatch.setattr(session, "run", ort_fails if fault == "ort" else nan_run)
    summary = engine.add_documents(documents(), SCOPE)
    assert summary.added == 0 and len(summary.failed) == 2
    for failure in summary.failed:
        assert failure["error"].startswith("embedding failed: ")
        assert ("ONNX Runtime failed" if fault == "ort" else "NaN or infinite") in failure["error"]
    monkeypatch.undo()
    assert engine.search("RuBisCO", SCOPE, mode="keyword").hits == []
    summary = engine.add_documents(documents(), SCOPE)  # the fault gone, the same call works
    assert summary.added == 2 and summary.failed == []
    hits = engine.search(QUESTION, SCOPE, mode="dense").hits  # no NaN vector was cached and reused
    vectors = engine.store.vectors(SCOPE, [h.chunk_id for h in hits])
    assert hits and all(np.isfinite(v).all() for v in vectors.values())


class NaNQueryEmbedder(HashingEmbedder):
    """A third-party embedder gone wrong: NaN for queries, or the wrong width."""

    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault = fault

    def embed_query(self, text):
        vector = super().embed_query(text)
        return np.full_like(vector, np.nan) if self.fault == "nan" else vector[:10]


@pytest.mark.parametrize("fault", ["nan", "dimension"])
def test_a_bad_query_vector_from_any_embedder_degrades_search(tmp_path, fault: str) -> None:
    from ragline.settings import EmbedderSettings

    eng = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing")))
    eng.add_documents(documents(), SCOPE)
    result = Searcher(eng.store, NaNQueryEmbedder(fault), SearchSettings()).search(QUESTION, SCOPE)
    assert result.mode == "keyword" and result.hits
    assert "NaN or infinite" in (result.degraded or "") or "dimension" in (result.degraded or "")
    eng.close()


class NaNDocumentEmbedder(HashingEmbedder):
    """Any embedder (not only MiniLM, which checks its own output) returning NaN for
    one document's text: ingestion itself refuses the vectors."""

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        vectors = super().embed_documents(texts)
        for i, text in enumerate(texts):
            if "Etna" in text:
                vectors[i, :] = np.nan
        return vectors


def test_any_embedders_bad_vectors_are_refused_at_ingest(tmp_path) -> None:
    engine = Engine(Settings(home=tmp_path / "home"), embedder=NaNDocumentEmbedder())
    summary = engine.add_documents(documents(), SCOPE)
    assert "volcanoes.md" in {f["path"] for f in summary.failed}
    assert any("NaN or infinite" in f["error"] for f in summary.failed), summary.failed
    assert engine.search("Etna volcano", SCOPE, mode="keyword").hits == []  # nothing of it stored
    vectors = engine.store.vectors(SCOPE, [h.chunk_id for h in engine.search("RuBisCO", SCOPE, mode="keyword").hits])
    assert all(np.isfinite(v).all() for v in vectors.values())
