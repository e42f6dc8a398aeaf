"""The provider client every remote call goes through (generators, remote embedders,
the bank connector), against httpx's ``MockTransport``: which failures are retried,
how long it waits, what it raises; the key and URL resolution; and the layering
that keeps ``providers/`` below the stages and the registries above their
implementations."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from ragline.errors import ConnectorError, EmbedderError, GeneratorError
from ragline.providers.client import ProviderClient, Retry
from ragline.providers.endpoint import ollama_host, resolve_endpoint
from ragline.providers.policy import CallPolicy
from tests.paths import ROOT

SRC = ROOT / "src" / "ragline"


def _client(replies: list[httpx.Response | Exception], waits: list[float], **options) -> ProviderClient:
    """A client whose requests get ``replies`` in turn (an exception is raised instead)."""
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        reply = queue.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    policy = options.pop("policy", CallPolicy(max_retries=3, backoff=0.2, max_wait=1.0))
    return ProviderClient(options.pop("name", "p"), error=options.pop("error", GeneratorError), policy=policy,
                          transport=httpx.MockTransport(handler), sleep=waits.append, **options)


def test_retried_statuses_wait_with_backoff_or_retry_after_then_succeed() -> None:
    waits: list[float] = []
    client = _client([httpx.Response(503), httpx.Response(429, headers={"Retry-After": "0.05"}),
                      httpx.Response(500), httpx.Response(200, json={"ok": True})], waits)
    assert client.post_json("http://x/y", {}, {}) == {"ok": True}
    assert client.attempts == 4
    assert 0.1 <= waits[0] <= 0.2 and waits[1] == pytest.approx(0.05) and 0.4 <= waits[2] <= 0.8


def test_the_last_failure_is_raised_as_the_callers_error_class() -> None:
    waits: list[float] = []
    client = _client([httpx.Response(500, json={"error": {"message": "down"}})] * 2, waits, error=EmbedderError,
                     policy=CallPolicy(max_retries=1, max_wait=0.0))
    with pytest.raises(EmbedderError, match=r"^p: HTTP 500: down \(after 2 attempts\)$"):
        client.post_json("http://x/y", {}, {})
    assert waits == [0.0]


def test_timeouts_and_connection_errors_are_retried_and_named() -> None:
    waits: list[float] = []
    request = httpx.Request("POST", "http://x/y")
    client = _client([httpx.ConnectError("refused", request=request), httpx.ReadTimeout("slow", request=request)],
                     waits, policy=CallPolicy(max_retries=1))
    with pytest.raises(GeneratorError, match=r"p: timed out \(ReadTimeout\) \(after 2 attempts\)") as raised:
        client.post_json("http://x/y", {}, {})
    assert isinstance(raised.value.__cause__, httpx.ReadTimeout)  # mapped, never escaping


def test_refusals_are_not_retried_and_carry_the_callers_advice() -> None:
    waits: list[float] = []
    client = _client([httpx.Response(401, json={"error": {"message": "bad key"}})], waits,
                     hint=lambda status: " (check THE_KEY)" if status == 401 else "")
    with pytest.raises(GeneratorError, match=r"^p: HTTP 401: bad key \(check THE_KEY\)$"):
        client.post_json("http://x/y", {}, {})
    assert client.attempts == 1 and waits == []


def test_send_returns_refusals_and_retries_what_its_check_refuses() -> None:
    waits: list[float] = []

    def page(response: httpx.Response) -> None:
        if "results" not in response.json():
            raise Retry("the page has no results list")

    client = _client([httpx.Response(501), httpx.Response(200, json={}), httpx.Response(200, json={"results": []}),
                      httpx.Response(401)], waits, name="Bank", error=ConnectorError,
                     policy=CallPolicy(max_retries=2, retry_status=frozenset({429, *range(500, 600)})))
    assert client.send("GET", "http://x/a", what="accounts", check=page).json() == {"results": []}
    assert client.send("GET", "http://x/a", what="accounts", check=page).status_code == 401  # the caller's to read
    assert len(waits) == 2


def test_a_missing_key_fails_before_any_request() -> None:
    client = _client([], [], missing_key="no API key for p: set P_KEY")
    with pytest.raises(GeneratorError, match="no API key for p: set P_KEY"):
        client.post_json("http://x/y", {}, {})
    assert client.attempts == 0


@pytest.mark.parametrize(("settings", "env", "expected"), [
    ({"base_url": "http://mine/v1/", "api_key": "k"}, {"P_URL": "http://env", "P_KEY": "e"},
     ("http://mine/v1", "k", None)),
    ({}, {"P_URL": "10.0.0.2:11434", "P_KEY": "e"}, ("http://10.0.0.2:11434/v1", "e", None)),
    ({}, {}, ("https://p.example/v1", None, "no API key for p: set RAGLINE_P__API_KEY or P_KEY")),
    ({"base_url": "http://self-hosted"}, {}, ("http://self-hosted", None, None)),  # may need no key
])
def test_endpoint_settings_then_variables_then_defaults(settings: dict, env: dict, expected: tuple) -> None:
    endpoint = resolve_endpoint(label="p", default_url="https://p.example/v1/", url_env=("P_URL",),
                                key_env=("P_KEY",), key_setting="RAGLINE_P__API_KEY", env=env,
                                url_form=lambda value: ollama_host(value, "/v1"), **settings)
    assert (endpoint.base_url, endpoint.api_key, endpoint.missing_key) == expected


# -- layering -------------------------------------------------------------------------------
def _imports(path: Path) -> set[str]:
    """The ragline modules ``path`` imports, at any depth of its code, as dotted paths
    relative to the package of ``path`` (``..errors`` → ``errors``)."""
    package = path.parent.relative_to(SRC).parts
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - node.level + 1])
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            elif (node.module or "").startswith("ragline"):
                target = node.module.removeprefix("ragline").lstrip(".") if node.module else ""
            else:
                continue
            found.update(f"{target}.{alias.name}".strip(".") for alias in node.names)
            found.add(target)
    return found


def _imports_any(path: Path, forbidden: Callable[[str], bool]) -> list[str]:
    return sorted(name for name in _imports(path) if forbidden(name))


def test_providers_import_nothing_of_the_stages() -> None:
    for path in (SRC / "providers").glob("*.py"):
        assert not _imports_any(path, lambda n: n.split(".")[0] not in {"errors", "settings", "providers", ""}), path


def test_implementations_never_import_their_registry() -> None:
    generators = SRC / "answer" / "generators"
    assert not _imports_any(generators / "base.py", lambda n: n.startswith("answer.generators."))
    for name in ("http", "openai", "anthropic", "gemini", "extractive"):
        assert not _imports_any(generators / f"{name}.py", lambda n: n.startswith("answer.generators.registry"))
    for name in ("minilm", "bert", "http", "openai", "gemini", "ollama", "local", "models", "vectors"):
        path = SRC / "embed" / f"{name}.py"
        assert not _imports_any(path, lambda n: n == "embed" or n.startswith(("embed.registry", "embed.check_"))), path
        assert not _imports_any(path, lambda n: n.startswith("answer")), path


def test_one_deadline_spans_every_attempt_and_wait() -> None:
    """Each attempt's timeout is what is left of the deadline; a hanging provider
    (every attempt times out) costs the deadline, not attempts x timeout."""
    now = [0.0]
    timeouts: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        read = request.extensions["timeout"]["read"]
        timeouts.append(read)
        now[0] += read  # the attempt hangs for its whole timeout
        raise httpx.ReadTimeout("hung", request=request)

    def sleep(seconds: float) -> None:
        now[0] += seconds

    client = ProviderClient("p", error=GeneratorError, transport=httpx.MockTransport(handler), sleep=sleep,
                            clock=lambda: now[0], policy=CallPolicy(timeout=10.0, max_retries=3, backoff=1.0,
                                                                    max_wait=1.0, deadline=22.0,
                                                                    settings="RAGLINE_GENERATOR__"))
    with pytest.raises(GeneratorError, match=r"timed out \(ReadTimeout\) \(after 3 attempts; no time left for "
                                             r"another within the call's deadline of 22 s"):
        client.post_json("http://x/y", {}, {})
    assert timeouts[:2] == [10.0, 10.0] and 0 < timeouts[2] <= 1.5
    assert now[0] == pytest.approx(22.0)  # before: 4 x 10 s and the waits
    no_deadline = ProviderClient("p", error=GeneratorError, transport=httpx.MockTransport(handler), sleep=sleep,
                                 clock=lambda: now[0], policy=CallPolicy(timeout=10.0, max_retries=3, max_wait=0.0))
    with pytest.raises(GeneratorError, match=r"after 4 attempts\)$"):
        no_deadline.post_json("http://x/y", {}, {})


def test_reply_caps_and_deadlines_are_checked() -> None:
    with pytest.raises(ValueError, match="deadline"):
        CallPolicy(deadline=0)
    with pytest.raises(ValueError, match="max_reply_bytes"):
        CallPolicy(max_reply_bytes=-1)
    waits: list[float] = []
    client = _client([httpx.Response(200, content=b"x" * 5000)], waits,
                     policy=CallPolicy(max_reply_bytes=4096, settings="RAGLINE_X__"))
    with pytest.raises(GeneratorError, match=r"^p: the reply passed 4,096 bytes; the rest was not read "
                                             r"\(the cap: RAGLINE_X__MAX_REPLY_MB\)$"):
        client.post_json("http://x/y", {}, {})
    assert client.attempts == 1
