"""OpenTelemetry spans for each stage, recorded by the SDK's in-memory exporter:
in the library (ingest, search, ask), in the server (a request's span tree, a job's),
off by default, and exported by OTLP/HTTP to a collector when an endpoint is set."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragline import Engine, Scope, tracing
from ragline.client import Client
from ragline.errors import ConfigError
from ragline.settings import EmbedderSettings, ServerSettings, Settings, TracingSettings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

FEES = "# Fees\n\nThe overdraft fee is 5 EUR per day, capped at 30 EUR a month.\n"
CARDS = "# Cards\n\nReport a lost card in the app at any time.\n"
QUESTION = "How much is the overdraft fee per day?"


@pytest.fixture
def provider() -> Iterator[TracerProvider]:
    """The application's tracer provider, which ragline's spans are sent to."""
    provider = TracerProvider()
    tracing.use(provider)
    yield provider
    tracing.use(None)


@pytest.fixture
def spans(provider: TracerProvider) -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text(FEES)
    (docs / "cards.md").write_text(CARDS)
    return docs


def _settings(home: Path, **extra: object) -> Settings:
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"), **extra)  # type: ignore[arg-type]


def _once_ended(spans: InMemorySpanExporter, name: str, path: str | None = None) -> tuple[ReadableSpan, ...]:
    """The finished spans once one named ``name`` (for ``path``) is among them: the
    server ends its outer span just after the client has its answer."""
    def ended() -> bool:
        return any(s.name == name and (path is None or s.attributes.get("ragline.path") == path)
                   for s in spans.get_finished_spans())

    deadline = time.monotonic() + 10
    while not ended() and time.monotonic() < deadline:
        time.sleep(0.01)
    return spans.get_finished_spans()


def _tree(finished: tuple[ReadableSpan, ...]) -> set[tuple[str, str | None]]:
    """(span, parent span) name pairs."""
    by_id = {s.context.span_id: s.name for s in finished}
    return {(s.name, by_id.get(s.parent.span_id) if s.parent else None) for s in finished}


def test_off_unless_configured(folder: Path, tmp_path: Path) -> None:
    tracing.use(None)
    engine = Engine(_settings(tmp_path / "home"))  # default settings: nothing turns it on
    try:
        engine.ingest([folder], Scope("acme", ("kb",)))
        with tracing.span("anything") as current:
            assert current is None
    finally:
        engine.close()


def test_library_stages_form_a_tree(provider: TracerProvider, spans: InMemorySpanExporter, folder: Path,
                                    tmp_path: Path) -> None:
    engine = Engine(_settings(tmp_path / "home"))
    scope = Scope("acme", ("kb",))
    try:
        engine.ingest([folder], scope)
        ingest = _tree(spans.get_finished_spans())
        assert ingest == {("ragline.ingest", None), ("ragline.parse", "ragline.ingest"),
                          ("ragline.chunk", "ragline.ingest"), ("ragline.embed", "ragline.ingest"),
                          ("ragline.store", "ragline.ingest")}
        assert [s.name for s in spans.get_finished_spans()].count("ragline.parse") == 2
        spans.clear()

        with provider.get_tracer("app").start_as_current_span("app.question"):  # the application's own span
            answer = engine.ask(QUESTION, scope)
        assert answer.citations
        asked = _tree(spans.get_finished_spans())
        assert {("ragline.search", "app.question"), ("ragline.embed", "ragline.search"),
                ("ragline.dense", "ragline.search"), ("ragline.keyword", "ragline.search"),
                ("ragline.fuse", "ragline.search"), ("ragline.context", "app.question"),
                ("ragline.generate", "app.question")} <= asked
        generate = next(s for s in spans.get_finished_spans() if s.name == "ragline.generate")
        assert generate.attributes["ragline.generator"] == "extractive"
    finally:
        engine.close()


def test_server_requests_and_jobs_are_traced(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    settings = _settings(tmp_path / "home", server=ServerSettings(admin_key=ADMIN_KEY, job_process=False))
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        with Client(server.url, key) as client:
            client.upload([("fees.md", FEES.encode())], collection="kb", wait=True)
            job = _tree(_once_ended(spans, "ragline.job"))
            assert {("ragline.parse", "ragline.job"), ("ragline.ingest", "ragline.job"),
                    ("ragline.embed", "ragline.ingest"), ("ragline.store", "ragline.ingest")} <= job
            spans.clear()
            events = list(client.ask_stream(QUESTION, collection="kb"))
    assert events
    asked = _tree(_once_ended(spans, "ragline.request", "/v1/ask"))
    assert {("ragline.search", "ragline.request"), ("ragline.dense", "ragline.search"),
            ("ragline.context", "ragline.request"), ("ragline.generate", "ragline.request")} <= asked
    request = next(s for s in spans.get_finished_spans() if s.name == "ragline.request"
                   and s.attributes["ragline.path"] == "/v1/ask")
    assert request.attributes["ragline.method"] == "POST" and request.attributes["ragline.request_id"]


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[ExportTraceServiceRequest]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        message = ExportTraceServiceRequest()
        message.ParseFromString(body)
        _Collector.received.append(message)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_an_endpoint_exports_by_otlp(folder: Path, tmp_path: Path) -> None:
    collector = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{collector.server_address[1]}/v1/traces"
    engine = Engine(_settings(tmp_path / "home", tracing=TracingSettings(endpoint=endpoint, service_name="kb-api")))
    try:
        engine.ingest([folder], Scope("acme", ("kb",)))
        tracing.flush()
    finally:
        engine.close()
        tracing.use(None)
        collector.shutdown()
    exported = [(resource.resource, span.name) for message in _Collector.received
                for resource in message.resource_spans for scoped in resource.scope_spans for span in scoped.spans]
    assert {name for _, name in exported} >= {"ragline.ingest", "ragline.parse", "ragline.embed", "ragline.store"}
    service = {a.value.string_value for resource, _ in exported for a in resource.attributes if a.key == "service.name"}
    assert service == {"kb-api"}


def test_configured_without_the_extra_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # as if opentelemetry-sdk were missing
    with pytest.raises(ConfigError, match=re.escape("pip install 'ragline[otel]'")):
        tracing.configure(TracingSettings(endpoint="http://127.0.0.1:9/v1/traces", service_name="missing-sdk"))
