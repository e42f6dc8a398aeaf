"""Fake embedding providers: a real HTTP server on a 127.0.0.1 thread speaking the
wire formats of OpenAI ``/embeddings`` (float and base64 encodings, ``dimensions``,
Azure's ``api-key`` header), Gemini ``:batchEmbedContents`` / ``:embedContent``
(task types, ``outputDimensionality``) and Ollama ``/api/embed``.

Vectors are the hashing embedder's (words and trigrams), so texts sharing words
are near: retrieval through a fake provider behaves like a (weak) real model. The
server checks what a real one checks: the key, the model name, the batch limit;
it returns the provider's own error shapes. Faults on demand: ``fail_next`` HTTP
statuses (with ``Retry-After``), ``nan`` vectors, a ``wrong_dimension``, and a
``flood``: ``("drip", seconds)`` a 200 whose body comes a byte at a time and never
ends, ``("huge", megabytes)`` a body that large (``spout.sent`` counts the bytes).

    with FakeEmbeddingServer("openai", models={"text-embedding-3-small": 1536}) as server:
        OpenAIEmbedder(name="openai", base_url=server.base_url, model="text-embedding-3-small", api_key=server.key)
"""

from __future__ import annotations

import base64
import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from ragline.embed.hashing import HashingEmbedder
from tests.fakes.flood import Spout

LIMITS = {"openai": 2048, "gemini": 100, "ollama": 10_000}


@dataclass
class EmbedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def texts(self) -> list[str]:
        if "requests" in self.body:
            return [r["content"]["parts"][0]["text"] for r in self.body["requests"]]
        if "content" in self.body:
            return [self.body["content"]["parts"][0]["text"]]
        raw = self.body.get("input")
        return [raw] if isinstance(raw, str) else list(raw or [])


class FakeEmbeddingServer:
    """A fake provider on ``127.0.0.1:<port>``; use as a context manager."""

    def __init__(self, protocol: str, *, models: dict[str, int] | None = None, key: str | None = "test-key",
                 max_batch: int | None = None) -> None:
        self.protocol = protocol
        self.models = models or {"embed-model": 64}  # model name → native dimension
        self.key = key
        self.max_batch = max_batch or LIMITS[protocol]
        self.requests: list[EmbedRequest] = []
        self.fail_next: list[tuple[int, str | None]] = []  # (status, Retry-After) for the next requests
        self.nan = False
        self.wrong_dimension: int | None = None
        self.flood: tuple[str, float] | None = None
        self.spout = Spout()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True

    @property
    def base_url(self) -> str:
        suffix = {"openai": "/v1", "gemini": "/v1beta", "ollama": ""}[self.protocol]
        return f"http://127.0.0.1:{self._server.server_address[1]}{suffix}"

    @property
    def texts_embedded(self) -> int:
        return sum(len(r.texts) for r in self.requests)

    def vectors(self, texts: list[str], model: str, dimensions: int | None) -> np.ndarray:
        width = self.wrong_dimension or dimensions or self.models[model]
        out = HashingEmbedder(width).embed_documents(texts).astype(np.float64)
        if self.nan:
            out[:, 0] = np.nan
        return out

    def __enter__(self) -> FakeEmbeddingServer:  # noqa: PYI034
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(fake: FakeEmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._error(400, "body is not JSON")
            request = EmbedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with fake._lock:
                fake.requests.append(request)
                failure = fake.fail_next.pop(0) if fake.fail_next else None
            if failure is not None:
                return self._error(failure[0], "fake failure", {"Retry-After": failure[1]} if failure[1] else None)
            if fake.flood is not None:
                return self._flood(*fake.flood)
            route = getattr(self, f"_{fake.protocol}")
            route(request)

        # -- OpenAI ------------------------------------------------------------------
        def _openai(self, request: EmbedRequest) -> None:
            if not request.path.split("?")[0].endswith("/embeddings"):
                return self._error(404, f"no route {request.path}")
            sent = request.headers.get("api-key") or request.headers.get("authorization", "").removeprefix("Bearer ")
            if fake.key is not None and sent != fake.key:
                return self._error(401, f"Incorrect API key provided: {sent[:4]}***")
            body = request.body
            model = body.get("model")
            if model not in fake.models:
                return self._error(404, f"The model `{model}` does not exist or you do not have access to it.")
            texts = request.texts
            if len(texts) > fake.max_batch:
                return self._error(400, f"'input' must have at most {fake.max_batch} items")
            vectors = fake.vectors(texts, model, body.get("dimensions"))
            base64_wanted = body.get("encoding_format") == "base64"
            data = [{"object": "embedding", "index": i,
                     "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode() if base64_wanted else v.tolist()}
                    for i, v in enumerate(vectors)]
            self._json(200, {"object": "list", "data": list(reversed(data)), "model": model,  # out of order on purpose
                             "usage": {"prompt_tokens": 8 * len(texts), "total_tokens": 8 * len(texts)}})

        # -- Gemini ------------------------------------------------------------------
        def _gemini(self, request: EmbedRequest) -> None:
            match = re.search(r"/models/([^/:]+):(batchEmbedContents|embedContent)$", request.path.split("?")[0])
            if not match:
                return self._error(404, f"no route {request.path}")
            if fake.key is not None and request.headers.get("x-goog-api-key") != fake.key:
                return self._error(400, "API key not valid. Please pass a valid API key.", status="INVALID_ARGUMENT")
            model, method = match.groups()
            if model not in fake.models:
                return self._error(404, f"models/{model} is not found for API version v1beta, or is not supported "
                                        "for embedContent.", status="NOT_FOUND")
            items = request.body.get("requests") if method == "batchEmbedContents" else [request.body]
            if len(items) > fake.max_batch:
                return self._error(400, f"at most {fake.max_batch} requests can be in one batch",
                                   status="INVALID_ARGUMENT")
            dims = {i.get("outputDimensionality") for i in items}
            vectors = fake.vectors(request.texts, model, dims.pop() if len(dims) == 1 else None)
            if method == "embedContent":
                return self._json(200, {"embedding": {"values": vectors[0].tolist()}})
            self._json(200, {"embeddings": [{"values": v.tolist()} for v in vectors]})

        # -- Ollama ------------------------------------------------------------------
        def _ollama(self, request: EmbedRequest) -> None:
            if request.path != "/api/embed":
                return self._error(404, "404 page not found")
            model = request.body.get("model")
            if model not in fake.models and f"{model}:latest" not in fake.models:
                return self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            vectors = fake.vectors(request.texts, model, request.body.get("dimensions"))
            self._json(200, {"model": model, "embeddings": vectors.tolist(), "total_duration": 1000,
                             "prompt_eval_count": 8 * len(request.texts)})

        # -- replies -----------------------------------------------------------------
        def _flood(self, kind: str, amount: float) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            if kind == "drip":
                return fake.spout.drip(self.wfile, amount)
            return fake.spout.pour(self.wfile, int(amount * 1024 * 1024), b"0.1234567, " * 100,
                                   b'{"data": [{"embedding": [', b"0]}]}")

        def _error(self, code: int, message: str, headers: dict[str, str] | None = None, status: str = "") -> None:
            error: dict[str, Any] = {"message": message, "code": code}
            if fake.protocol == "gemini":
                error["status"] = status or "UNAVAILABLE"
            elif fake.protocol == "openai":
                error.update(type="invalid_request_error", param=None)
            self._json(code, {"error": message} if fake.protocol == "ollama" else {"error": error}, headers)

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
