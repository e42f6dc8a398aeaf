"""Remote embedders against local fake servers speaking the real wire formats.

The official SDKs (openai, google-genai) are pointed at the same fakes first: if
they read the fakes' replies, the fakes speak the real protocol, and what ragline's
embedders send and parse is held to it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragline.embed import make_embedder
from ragline.embed.gemini import GeminiEmbedder
from ragline.embed.ollama import OllamaEmbedder
from ragline.embed.openai import OpenAIEmbedder
from ragline.engine import Engine
from ragline.errors import ConfigError, EmbedderError
from ragline.models import Scope
from ragline.settings import EmbedderSettings, Settings
from tests.fakes.embedding_servers import FakeEmbeddingServer

TEXTS = ["Card fees are waived for students.", "Transfers abroad take two days.", "Branches open at nine."]
S = Scope("acme", ("kb",))


def no_sleep(_: float) -> None:
    pass


def openai_embedder(server: FakeEmbeddingServer, **kw) -> OpenAIEmbedder:
    options = {"name": "openai", "base_url": server.base_url, "model": "embed-model", "api_key": server.key,
               "sleep": no_sleep, **kw}
    return OpenAIEmbedder(**options)


# -- the fakes speak the real protocols (read by the official SDKs) ----------------------
def test_openai_sdk_reads_the_fake_and_agrees_with_ours() -> None:
    openai = pytest.importorskip("openai")
    with FakeEmbeddingServer("openai") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key=server.key, max_retries=0)
        reply = client.embeddings.create(model="embed-model", input=TEXTS)  # the SDK asks for base64
        assert server.requests[-1].body["encoding_format"] == "base64"
        sdk = np.array([d.embedding for d in sorted(reply.data, key=lambda d: d.index)], dtype=np.float32)
        ours = openai_embedder(server).embed_documents(TEXTS)
        assert server.requests[-1].body["encoding_format"] == "float"
    np.testing.assert_allclose(ours, sdk / np.linalg.norm(sdk, axis=1, keepdims=True), atol=1e-6)


def test_azure_style_base_url_sends_api_key_header() -> None:
    openai = pytest.importorskip("openai")
    with FakeEmbeddingServer("openai", models={"my-deployment": 32}) as server:
        root = server.base_url.removesuffix("/v1")
        sdk = openai.AzureOpenAI(azure_endpoint=root, api_key=server.key, api_version="2024-10-21", max_retries=0)
        sdk.embeddings.create(model="my-deployment", input=["hello"], encoding_format="float")
        sdk_request = server.requests[-1]
        base = f"{root}/openai/deployments/my-deployment?api-version=2024-10-21"
        ours = OpenAIEmbedder(name="openai", base_url=base, model="my-deployment", api_key=server.key)
        assert ours.embed_query("hello").shape == (32,)
        request = server.requests[-1]
    assert request.path == sdk_request.path == "/openai/deployments/my-deployment/embeddings?api-version=2024-10-21"
    assert request.headers["api-key"] == sdk_request.headers["api-key"] == server.key
    assert "authorization" not in request.headers


def test_gemini_sdk_reads_the_fake_and_task_types_are_sent() -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types

    with FakeEmbeddingServer("gemini", models={"text-embedding-004": 768}) as server:
        client = genai.Client(api_key=server.key, http_options=types.HttpOptions(base_url=server.base_url.removesuffix("/v1beta"), api_version="v1beta"))
        reply = client.models.embed_content(model="text-embedding-004", contents=TEXTS,
                                            config=types.EmbedContentConfig(task_type="RETRIEVAL_DOCUMENT",
                                                                            output_dimensionality=128))
        assert [len(e.values) for e in reply.embeddings] == [128] * 3
        sdk_body = server.requests[-1].body
        ours = GeminiEmbedder(name="gemini", base_url=server.base_url, model="text-embedding-004",
                              api_key=server.key, dimensions=128)
        docs = ours.embed_documents(TEXTS)
        doc_body = server.requests[-1].body
        query = ours.embed_query("student card fees")
        query_body = server.requests[-1].body
    # Ours is the SDK's request shape, with the task type each side needs.
    assert set(doc_body["requests"][0]) == set(sdk_body["requests"][0])
    assert {r["taskType"] for r in doc_body["requests"]} == {"RETRIEVAL_DOCUMENT"}
    assert [r["taskType"] for r in query_body["requests"]] == ["RETRIEVAL_QUERY"]
    assert doc_body["requests"][0]["outputDimensionality"] == 128
    assert docs.shape == (3, 128) and query.shape == (128,)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)  # re-normalised
    assert ours.model_id == "gemini/text-embedding-004" and ours.dimension == 128


def test_ollama_native_api() -> None:
    with FakeEmbeddingServer("ollama", models={"nomic-embed-text": 768}, key=None) as server:
        embedder = OllamaEmbedder(name="ollama", base_url=server.base_url, model="nomic-embed-text")
        vectors = embedder.embed_documents(TEXTS)
        body = server.requests[-1].body
    assert vectors.shape == (3, 768) and embedder.model_id == "ollama/nomic-embed-text"
    assert body == {"model": "nomic-embed-text", "input": TEXTS, "truncate": False}


# -- batching, retries ---------------------------------------------------------------------
def test_batches_stay_within_the_provider_limit_and_keep_order() -> None:
    texts = [f"text number {i} about topic {i % 3}" for i in range(23)]
    with FakeEmbeddingServer("openai", max_batch=5) as server:
        embedder = openai_embedder(server)
        embedder.max_batch = 5
        vectors = embedder.embed_documents(texts)
        sizes = [len(r.texts) for r in server.requests]
    assert sizes == [1, 5, 5, 5, 5, 3]  # a model the registry does not know: one probe for its dimension
    np.testing.assert_allclose(vectors[17], embedder_reference(texts[17], 64), atol=1e-6)


def embedder_reference(text: str, width: int) -> np.ndarray:
    from ragline.embed.hashing import HashingEmbedder

    return HashingEmbedder(width).embed_query(text)


def test_gemini_batches_at_100() -> None:
    with FakeEmbeddingServer("gemini") as server:
        embedder = GeminiEmbedder(name="gemini", base_url=server.base_url, model="embed-model", api_key=server.key)
        embedder.embed_documents([f"t{i}" for i in range(250)])
        assert [len(r.texts) for r in server.requests] == [1, 100, 100, 50]


def test_retries_rate_limits_then_succeeds() -> None:
    with FakeEmbeddingServer("openai") as server:
        server.fail_next = [(429, "0"), (503, None)]
        embedder = openai_embedder(server)
        assert embedder.embed_documents(TEXTS).shape == (3, 64)
        assert embedder.attempts == 4  # the dimension probe: 2 refused + 1; then the batch


# -- bad input: clear errors naming the setting ------------------------------------------------
def test_wrong_key_names_the_setting() -> None:
    with FakeEmbeddingServer("openai") as server:
        embedder = openai_embedder(server, api_key="wrong", key_env=("OPENAI_API_KEY",))
        with pytest.raises(EmbedderError, match=r"HTTP 401.*RAGLINE_EMBEDDER__API_KEY or OPENAI_API_KEY"):
            embedder.embed_query("x")
        assert embedder.attempts == 1  # not retried


def test_unknown_model_names_the_setting() -> None:
    with FakeEmbeddingServer("ollama", key=None) as server:
        embedder = OllamaEmbedder(name="ollama", base_url=server.base_url, model="no-such-model")
        with pytest.raises(EmbedderError, match=r"not found.*RAGLINE_EMBEDDER__MODEL='no-such-model'"):
            embedder.embed_query("x")


@pytest.mark.parametrize("fault", ["wrong_dimension", "nan"])
def test_bad_vectors_are_refused(fault: str) -> None:
    with FakeEmbeddingServer("openai", models={"text-embedding-3-small": 1536}) as server:
        setattr(server, fault, 12 if fault == "wrong_dimension" else True)
        embedder = openai_embedder(server, model="text-embedding-3-small")
        expected = "expected dimension 1536" if fault == "wrong_dimension" else "NaN"
        with pytest.raises(EmbedderError, match=rf"{expected}.*RAGLINE_EMBEDDER__DIMENSIONS"):
            embedder.embed_documents(TEXTS)


def test_missing_key_against_the_providers_own_url() -> None:
    embedder = make_embedder(EmbedderSettings(name="openai"), env={})
    with pytest.raises(EmbedderError, match="RAGLINE_EMBEDDER__API_KEY or OPENAI_API_KEY"):
        embedder.embed_query("x")


def test_unknown_embedder_lists_the_registry() -> None:
    with pytest.raises(ConfigError, match=r"RAGLINE_EMBEDDER__NAME; choose one of: minilm, hashing, openai"):
        make_embedder(EmbedderSettings(name="nope"))


def test_settings_and_variables_choose_the_provider() -> None:
    env = {"OLLAMA_HOST": "127.0.0.1:9", "GEMINI_API_KEY": "g"}
    ollama = make_embedder(EmbedderSettings(name="ollama"), env=env)
    assert (ollama.base_url, ollama.model_id) == ("http://127.0.0.1:9", "ollama/nomic-embed-text")
    gemini = make_embedder(EmbedderSettings(name="gemini", model="gemini-embedding-001", dimensions=256), env=env)
    assert (gemini.api_key, gemini.dimension, gemini.max_tokens) == ("g", 256, 2048)


# -- end to end: the engine over a fake provider ------------------------------------------------
def test_engine_ingests_and_searches_through_a_remote_embedder(tmp_path: Path) -> None:
    (tmp_path / "fees.txt").write_text("Card fees are waived for students under 26.")
    (tmp_path / "transfers.txt").write_text("International transfers take two business days.")
    with FakeEmbeddingServer("openai") as server:
        settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(
            name="openai", base_url=server.base_url, model="embed-model", api_key=server.key))
        with _closing(Engine(settings)) as engine:
            summary = engine.ingest([tmp_path / "fees.txt", tmp_path / "transfers.txt"], S)
            assert (summary.added, summary.failed) == (2, [])
            hit = engine.search("student card fees", S, mode="dense", k=1).hits[0]
            assert "students" in hit.text
            assert engine.store.get_collection(S).model_id == "openai/embed-model"
            server.nan = True  # a provider gone bad: the file fails, nothing is written
            (tmp_path / "branches.txt").write_text("Branches open at nine.")
            summary = engine.ingest([tmp_path / "branches.txt"], S)
            assert summary.added == 0 and "NaN" in summary.failed[0]["error"]
            assert len(engine.store.list_documents(S)) == 2


class _closing:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def __enter__(self) -> Engine:
        return self.engine

    def __exit__(self, *exc: object) -> None:
        self.engine.close()
