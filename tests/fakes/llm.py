"""Fake LLM providers: real HTTP servers on 127.0.0.1 threads speaking each wire
protocol — OpenAI chat completions (JSON and SSE ``data: {...}`` / ``data: [DONE]``),
Gemini ``generateContent`` / ``streamGenerateContent?alt=sse``, and Anthropic
Messages (JSON and its named event stream).

Each request takes the next scripted ``Behaviour`` (then the default one):
``Reply`` answers; ``Status`` fails with an HTTP status (and ``Retry-After``);
``Slow`` waits before answering (to trigger client timeouts); ``Reply(break_after=n)``
cuts the stream after n chunks; ``Reply(error_event=True)`` sends the provider's
in-stream error; ``Drip`` sends a 200 whose body comes a byte at a time and never
ends; ``Huge`` a well-formed answer of tens of megabytes (``server.spout.sent``
counts the bytes written). Every request is recorded (path, headers, JSON body).

A request that offers tools (OpenAI ``tools``, Anthropic ``tools``, Gemini
``tools.functionDeclarations``) is answered with a call of the first tool when the
behaviour is ``Reply(tool=…)``: the arguments (an object, raw text sent as it is,
or a function of the request's JSON body) in the protocol's own shape — OpenAI's
``tool_calls`` with a JSON string, Anthropic's ``tool_use`` block, Gemini's
``functionCall``. Without ``tool`` the "model" ignores the tools and answers text.

    with FakeLLMServer("openai") as server:
        OpenAIGenerator(base_url=server.base_url, model="m", api_key="k")
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.flood import Spout

PROTOCOLS = ("openai", "gemini", "anthropic")


def quote_first_source(prompt: str) -> str:
    """A stand-in "model": answers with the first sentence of source [1], cited.
    Falls back to the no-answer line when the prompt holds no numbered source."""
    match = re.search(r"^\[1\][^\n]*\n(.+?)(?:\n\n\[2\]|\n\nQuestion:|\Z)", prompt, re.DOTALL | re.MULTILINE)
    if not match:
        return "The provided sources do not contain the answer to this question."
    text = " ".join(match.group(1).split())
    sentence = re.split(r"(?<=[.!?])\s+", text)[0].rstrip(".!?")
    return f"{sentence} [1]."


@dataclass
class Reply:
    text: str | Callable[[str], str] | None = None  # None: quote_first_source(prompt)
    chunks: int = 4  # number of stream chunks the text is cut into
    chunk_delay: float = 0.0
    break_after: int | None = None  # close the stream after this many chunks
    error_event: bool = False  # send the provider's in-stream error after the first chunk
    tool: dict[str, Any] | str | Callable[[dict[str, Any]], dict[str, Any] | str] | None = None  # tool-call arguments


@dataclass
class Status:
    code: int
    retry_after: str | None = None
    message: str = "fake failure"


@dataclass
class Slow:
    delay: float
    then: Reply = field(default_factory=Reply)


@dataclass
class Garbage:
    """A 200 whose body is not the provider's JSON (a proxy's error page, a cut body)."""

    body: bytes = b"<html><body>502 Bad Gateway</body></html>"


@dataclass
class Drip:
    """A 200 whose body arrives one byte every ``delay`` seconds and never ends: each
    read of the client succeeds, so only a deadline over the whole call stops it."""

    delay: float = 0.05


@dataclass
class Huge:
    """A well-formed answer of about ``megabytes`` MB (streamed: thousands of text
    chunks; else one JSON body), written as fast as the client reads it."""

    megabytes: float = 60.0


Behaviour = Reply | Status | Slow | Garbage | Drip | Huge


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeLLMServer:
    """A fake provider on ``127.0.0.1:<port>``; use as a context manager."""

    def __init__(self, protocol: str = "openai", *, script: list[Behaviour] | None = None,
                 default: Behaviour | None = None, port: int = 0, host: str = "127.0.0.1") -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        self.protocol = protocol
        self.script = list(script or [])
        self.default = default or Reply()
        self.requests: list[Recorded] = []
        self.spout = Spout()  # bytes written by Drip and Huge replies
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """What a generator's ``base_url`` should be for this protocol."""
        suffix = {"openai": "/v1", "gemini": "/v1beta", "anthropic": "/v1"}[self.protocol]
        return f"http://127.0.0.1:{self.port}{suffix}"

    def next_behaviour(self) -> Behaviour:
        with self._lock:
            return self.script.pop(0) if self.script else self.default

    def start(self) -> FakeLLMServer:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-{self.protocol}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLMServer:  # noqa: PYI034
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- wire formats ----------------------------------------------------------------
def _prompt_text(protocol: str, body: dict[str, Any]) -> str:
    if protocol == "openai":
        return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")
    if protocol == "gemini":
        return "\n".join(p.get("text", "") for c in body.get("contents", []) for p in c.get("parts", []))
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def offered_tool(protocol: str, body: dict[str, Any]) -> str | None:
    """The name of the first tool a request offers, or None."""
    tools = body.get("tools") or []
    if not tools:
        return None
    if protocol == "openai":
        return (tools[0].get("function") or {}).get("name")
    if protocol == "gemini":
        return ((tools[0].get("functionDeclarations") or [{}])[0]).get("name")
    return tools[0].get("name")


def _tool_reply(protocol: str, name: str, arguments: dict[str, Any] | str, model: str,
                used: tuple[int, int]) -> dict[str, Any]:
    n_in, n_out = used
    if protocol == "openai":
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call = {"id": "call_fake", "type": "function", "function": {"name": name, "arguments": raw}}
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                             "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}}
    if protocol == "gemini":
        return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": name,
                                                                                      "args": arguments}}]},
                                "finishReason": "STOP", "index": 0}], "modelVersion": model,
                "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": n_out,
                                  "totalTokenCount": n_in + n_out}}
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "tool_use", "id": "toolu_fake", "name": name, "input": arguments}],
            "stop_reason": "tool_use", "usage": {"input_tokens": n_in, "output_tokens": n_out}}


def _split(text: str, n: int) -> list[str]:
    n = max(1, min(n, len(text)))
    size = -(-len(text) // n)
    return [text[i:i + size] for i in range(0, len(text), size)]


def count_tokens(text: str) -> int:
    """The fake's tokenizer: whitespace-separated words. Usage is reported with it in
    each provider's own ``usage`` fields, as the real APIs report theirs."""
    return len(text.split())


def prompt_tokens(protocol: str, body: dict[str, Any]) -> int:
    """Input tokens of a request: every message, the system prompt included."""
    if protocol == "openai":
        return sum(count_tokens(str(m.get("content", ""))) for m in body.get("messages", []))
    if protocol == "gemini":
        parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
        parts += (body.get("systemInstruction") or {}).get("parts", [])
        return sum(count_tokens(p.get("text", "")) for p in parts)
    return count_tokens(str(body.get("system", ""))) + sum(count_tokens(str(m.get("content", "")))
                                                          for m in body.get("messages", []))


def _complete(protocol: str, text: str, model: str, used: tuple[int, int]) -> dict[str, Any]:
    n_in, n_out = used
    if protocol == "openai":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": n_in, "completion_tokens": n_out, "total_tokens": n_in + n_out}}
    if protocol == "gemini":
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                                "index": 0}], "modelVersion": model,
                "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": n_out,
                                  "totalTokenCount": n_in + n_out}}
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": n_in, "output_tokens": n_out}}


def _stream_events(protocol: str, pieces: list[str], model: str, used: tuple[int, int],
                   include_usage: bool = False) -> tuple[list[str], str, str]:
    """(chunk events, in-stream error event, closing events) as raw SSE text. Usage
    comes as each API sends it: OpenAI's in a last chunk when the request asked for it
    (``stream_options.include_usage``), Gemini's cumulative on every chunk, Anthropic's
    input in ``message_start`` and output in ``message_delta``."""
    n_in, n_out = used
    def data(obj: Any, event: str | None = None) -> str:
        head = f"event: {event}\n" if event else ""
        return f"{head}data: {json.dumps(obj)}\n\n"

    if protocol == "openai":
        chunks = [data({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
                        "choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]})
                  for p in pieces]
        closing = data({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if include_usage:
            closing += data({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, "choices": [],
                             "usage": {"prompt_tokens": n_in, "completion_tokens": n_out,
                                       "total_tokens": n_in + n_out}})
        closing += "data: [DONE]\n\n"
        error = data({"error": {"message": "fake in-stream failure", "type": "server_error"}})
        return chunks, error, closing
    if protocol == "gemini":
        sent = 0
        chunks = []
        for p in pieces:
            sent += count_tokens(p)
            chunks.append(data({"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}, "index": 0}],
                                "modelVersion": model,
                                "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": sent}}))
        closing = data({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP",
                                        "index": 0}], "modelVersion": model,
                        "usageMetadata": {"promptTokenCount": n_in, "candidatesTokenCount": n_out,
                                          "totalTokenCount": n_in + n_out}})
        error = data({"error": {"code": 503, "message": "fake in-stream failure", "status": "UNAVAILABLE"}})
        return chunks, error, closing
    start = (data({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant",
                                                         "model": model, "content": [], "stop_reason": None,
                                                         "stop_sequence": None,
                                                         "usage": {"input_tokens": n_in, "output_tokens": 1}}},
                  "message_start")
             + data({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                    "content_block_start")
             + "event: ping\ndata: {\"type\": \"ping\"}\n\n")
    chunks = [data({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
                   "content_block_delta") for p in pieces]
    chunks[0] = start + chunks[0]
    closing = (data({"type": "content_block_stop", "index": 0}, "content_block_stop")
               + data({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                     "usage": {"output_tokens": n_out}}, "message_delta")
               + data({"type": "message_stop"}, "message_stop"))
    error = data({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error")
    return chunks, error, closing


def _handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection; a stream ends when it closes

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._json(400, {"error": {"message": "body is not JSON"}})
            server.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            protocol = server.protocol
            streaming = bool(body.get("stream")) or "streamGenerateContent" in self.path
            if not self._route_ok(protocol):
                return self._json(404, {"error": {"message": f"no route {self.path}"}})
            behaviour = server.next_behaviour()
            if isinstance(behaviour, Slow):
                time.sleep(behaviour.delay)
                behaviour = behaviour.then
            if isinstance(behaviour, Garbage):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(behaviour.body)))
                self.end_headers()
                self.wfile.write(behaviour.body)
                return None
            if isinstance(behaviour, Status):
                headers = {"Retry-After": behaviour.retry_after} if behaviour.retry_after is not None else {}
                return self._json(behaviour.code, {"error": {"message": behaviour.message, "code": behaviour.code}},
                                  headers)
            model = body.get("model") or self.path.split("models/")[-1].split(":")[0]
            if isinstance(behaviour, Drip | Huge):
                return self._flood(behaviour, protocol, model, streaming)
            tool = offered_tool(protocol, body)
            if tool is not None and behaviour.tool is not None and not streaming:
                arguments = behaviour.tool(body) if callable(behaviour.tool) else behaviour.tool
                used = (prompt_tokens(protocol, body), count_tokens(json.dumps(arguments)))
                return self._json(200, _tool_reply(protocol, tool, arguments, model, used))
            prompt = _prompt_text(protocol, body)
            text = behaviour.text(prompt) if callable(behaviour.text) else behaviour.text
            text = quote_first_source(prompt) if text is None else text
            used = (prompt_tokens(protocol, body), count_tokens(text))
            if not streaming:
                return self._json(200, _complete(protocol, text, model, used))
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks, error, closing = _stream_events(protocol, _split(text, behaviour.chunks), model, used,
                                                    include_usage)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for index, chunk in enumerate(chunks):
                if behaviour.break_after is not None and index >= behaviour.break_after:
                    return  # connection closes mid-stream
                self.wfile.write(chunk.encode())
                self.wfile.flush()
                if behaviour.error_event:
                    self.wfile.write(error.encode())
                    return
                if behaviour.chunk_delay:
                    time.sleep(behaviour.chunk_delay)
            self.wfile.write(closing.encode())

        def _flood(self, behaviour: Drip | Huge, protocol: str, model: str, streaming: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if streaming else "application/json")
            if isinstance(behaviour, Drip):
                self.end_headers()
                # SSE: one endless comment line; JSON: endless leading whitespace
                return server.spout.drip(self.wfile, behaviour.delay, byte=b":" if streaming else b" ")
            total = int(behaviour.megabytes * 1024 * 1024)
            if streaming:
                chunks, _, closing = _stream_events(protocol, ["lorem ipsum dolor sit amet " * 8] * 2, model, (1, 1))
                self.end_headers()
                return server.spout.pour(self.wfile, total, chunks[1].encode(), chunks[0].encode(), closing.encode())
            head, tail = json.dumps(_complete(protocol, "\x00", model, (1, 1))).split("\\u0000")
            self.send_header("Content-Length", str(len(head) + len(tail) + total // 27 * 27))
            self.end_headers()
            return server.spout.pour(self.wfile, total // 27 * 27 - 27, b"lorem ipsum dolor sit amet ",
                                     head.encode(), b"lorem ipsum dolor sit amet " + tail.encode())

        def _route_ok(self, protocol: str) -> bool:
            path = self.path.split("?")[0]
            if protocol == "openai":
                return path.endswith("/chat/completions")
            if protocol == "gemini":
                return bool(re.search(r"/models/[^/:]+:(generateContent|streamGenerateContent)$", path))
            return path.endswith("/messages")

        def _json(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler
