"""The limits on one provider call, over real HTTP against the fake servers: a reply
is read only up to its byte cap (a 60 MB answer, streamed or not, is refused after
about the cap, and the server could write little more than that), an answer past
twice the tokens asked for is cut, and one deadline spans the whole call: a provider
dripping bytes or hanging ends the call at its deadline, and retries that would
not fit in it are not started. Figures are counted (bytes read, attempts); the
only clock bound is a hang guard well above the deadline."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest

from ragline.answer.context import RAGContext
from ragline.answer.generators.anthropic import AnthropicGenerator
from ragline.answer.generators.base import GenerationRequest
from ragline.answer.generators.gemini import GeminiGenerator
from ragline.answer.generators.http import HTTPGenerator
from ragline.answer.generators.openai import OpenAIGenerator
from ragline.answer.prompt import Prompt
from ragline.embed.openai import OpenAIEmbedder
from ragline.errors import ConnectorError, EmbedderError, GeneratorError
from ragline.records.truelayer import TokenStore, TrueLayerClient
from ragline.settings import TrueLayerSettings
from tests.fakes.embedding_servers import FakeEmbeddingServer
from tests.fakes.llm import Drip, FakeLLMServer, Huge, Reply, Slow
from tests.fakes.truelayer import CLIENT_ID, CLIENT_SECRET, FakeTrueLayer

MB = 1024 * 1024
GENERATORS = {"openai": OpenAIGenerator, "gemini": GeminiGenerator, "anthropic": AnthropicGenerator}
# What the kernel's socket buffers may hold beyond what the client read (both ends).
BUFFERS = 16 * MB


def _request(max_output_tokens: int = 512) -> GenerationRequest:
    prompt = Prompt(system="Answer from the sources.", user="[1] Some source.\n\nQuestion: what?")
    return GenerationRequest(question="what?", context=RAGContext(), prompt=prompt,
                             max_output_tokens=max_output_tokens)


def _generator(server: FakeLLMServer, **options) -> HTTPGenerator:
    return GENERATORS[server.protocol](base_url=server.base_url, model="m", api_key="k",
                                       sleep=options.pop("sleep", lambda s: None), **options)


@pytest.mark.parametrize("protocol", list(GENERATORS))
@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
def test_a_60_mb_answer_is_read_only_to_the_byte_cap(protocol: str, streamed: bool) -> None:
    with FakeLLMServer(protocol, default=Huge(60)) as server:
        generator = _generator(server, max_reply_bytes=1 * MB)
        with pytest.raises(GeneratorError, match=r"passed 1,048,576 bytes.*RAGLINE_GENERATOR__MAX_REPLY_MB"):
            if streamed:
                for _ in generator.stream(_request(max_output_tokens=10**9)):  # the byte cap alone
                    pass
            else:
                generator.generate(_request())
        generator.close()
        time.sleep(0.2)  # the server notices the closed connection
        assert generator.http.bytes_read <= 1 * MB + 128 * 1024
        assert server.spout.sent < 1 * MB + BUFFERS < 60 * MB
        assert generator.attempts == 1  # a refusal by size is not retried


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
def test_an_answer_past_twice_the_tokens_asked_for_is_cut(streamed: bool) -> None:
    with FakeLLMServer("openai", default=Reply(text="word " * 2000, chunks=200)) as server:
        generator = _generator(server)
        pieces: list[str] = []
        with pytest.raises(GeneratorError, match=r"passed 128 tokens.*ignored max_tokens"):
            if streamed:
                pieces.extend(generator.stream(_request(max_output_tokens=64)))
            else:
                generator.generate(_request(max_output_tokens=64))
        assert len("".join(pieces)) <= 128 * 4
        generator.close()


@pytest.mark.parametrize("protocol", list(GENERATORS))
def test_a_dripping_provider_holds_an_ask_no_longer_than_the_deadline(protocol: str) -> None:
    """Each read gets a byte well within the 0.5 s timeout; only the call's 1 s deadline
    stops it (before: the ask lasted as long as the provider kept dripping)."""
    with FakeLLMServer(protocol, default=Drip(0.02)) as server:
        generator = _generator(server, timeout=0.5, deadline=1.0)
        started = time.monotonic()
        with pytest.raises(GeneratorError, match=r"deadline of 1 s passed.*RAGLINE_GENERATOR__DEADLINE_S"):
            for _ in generator.stream(_request()):
                pass
        assert time.monotonic() - started < 3.0  # a hang guard, not a speed check
        assert generator.attempts == 1 and 0 < generator.http.bytes_read
        generator.close()


def test_a_dripping_whole_reply_is_cut_at_the_deadline_too() -> None:
    with FakeLLMServer("openai", default=Drip(0.02)) as server:
        generator = _generator(server, timeout=0.5, deadline=1.0)
        started = time.monotonic()
        with pytest.raises(GeneratorError, match=r"deadline of 1 s passed"):
            generator.generate(_request())
        assert time.monotonic() - started < 3.0
        generator.close()


def test_a_hanging_provider_costs_the_deadline_not_every_attempts_timeout() -> None:
    """Timeout 0.6 s, three retries: 2.4 s of attempts before. With a 1 s deadline the
    third attempt gets what is left of it, and no fourth starts."""
    waits: list[float] = []
    with FakeLLMServer("openai", default=Slow(30)) as server:
        generator = _generator(server, timeout=0.6, max_retries=3, backoff=0.01, deadline=1.0, sleep=waits.append)
        started = time.monotonic()
        with pytest.raises(GeneratorError, match=r"timed out.*no time left for another within the call's "
                                                 r"deadline of 1 s"):
            generator.generate(_request())
        elapsed = time.monotonic() - started
        assert generator.attempts == 2 and len(waits) == 1
        assert elapsed < 3.0  # hang guard: four attempts would have taken 2.4 s and more
        generator.close()


def test_a_retry_whose_wait_reaches_the_deadline_is_not_started() -> None:
    waits: list[float] = []
    with FakeLLMServer("openai", script=[Slow(5)], default=Reply(text="fine [1].")) as server:
        generator = _generator(server, timeout=0.3, max_retries=3, backoff=4.0, max_wait=4.0, deadline=2.0,
                               sleep=waits.append)
        with pytest.raises(GeneratorError, match=r"after 1 attempt; no time left"):
            generator.generate(_request())
        assert waits == []
        generator.close()


@pytest.mark.parametrize(("flood", "message"), [(("huge", 60), r"passed 1,048,576 bytes.*EMBEDDER__MAX_REPLY_MB"),
                                                (("drip", 0.02), r"deadline of 1 s passed.*EMBEDDER__DEADLINE_S")])
def test_a_remote_embedder_reads_within_the_cap_and_the_deadline(flood: tuple[str, float], message: str) -> None:
    with FakeEmbeddingServer("openai", models={"text-embedding-3-small": 1536}) as server:
        server.flood = flood
        embedder = OpenAIEmbedder(name="openai", base_url=server.base_url, model="text-embedding-3-small",
                                  api_key=server.key, timeout=0.5, deadline=1.0, max_reply_bytes=1 * MB)
        started = time.monotonic()
        with pytest.raises(EmbedderError, match=message):
            embedder.embed_query("hello")
        assert time.monotonic() - started < 3.0
        embedder.close()
        time.sleep(0.2)
        assert embedder.http.bytes_read <= 1 * MB + 128 * 1024 and server.spout.sent < 1 * MB + BUFFERS


@pytest.mark.parametrize(("flood", "message"), [("huge", r"passed 1,048,576 bytes.*TRUELAYER__MAX_REPLY_MB"),
                                                ("drip", r"deadline of 1 s passed.*TRUELAYER__DEADLINE_S")])
def test_the_bank_connector_reads_within_the_cap_and_the_deadline(tmp_path: Path, flood: str, message: str) -> None:
    with FakeTrueLayer({}, script=[("/accounts", flood, None)]) as server:
        settings = TrueLayerSettings(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, auth_url=server.url,
                                     api_url=server.url, timeout=0.5, deadline_s=1.0, max_reply_mb=1.0)
        client = TrueLayerClient(settings, TokenStore(tmp_path, "bank", "ann"), sleep=lambda s: None)
        client.use_refresh_token("rt-0")
        started = time.monotonic()
        with pytest.raises(ConnectorError, match=message):
            client.accounts()
        assert time.monotonic() - started < 3.0
        client.close()
        time.sleep(0.2)
        assert client.http.bytes_read <= 1 * MB + 128 * 1024 and server.spout.sent < 1 * MB + BUFFERS
        assert date.today()  # the connector is still usable for other calls
