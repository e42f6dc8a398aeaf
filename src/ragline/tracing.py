"""OpenTelemetry spans for ragline's stages: ``ragline.parse``, ``.chunk``, ``.embed``,
``.store`` (ingestion), ``.search``, ``.embed``, ``.dense``, ``.keyword``, ``.fuse``
(retrieval), ``.context``, ``.generate`` (answers); ``.ingest`` around an ingest run,
``.request`` around each HTTP request of the server and ``.job`` around each job.

Off unless configured, and then nothing is imported: ``span()`` is a no-op. The
Engine calls ``configure(settings.tracing)``:

- ``tracing.endpoint`` (``RAGLINE_TRACING__ENDPOINT=http://collector:4318/v1/traces``):
  spans are exported by OTLP/HTTP there, batched, by a tracer provider of ragline's own;
- ``tracing.enabled``: spans go to the application's global tracer provider (an
  application that set up OpenTelemetry itself).

``use(provider)`` sets the provider directly (tests; ``None`` switches tracing off).
Needs ``pip install 'ragline[otel]'`` once configured."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .errors import ConfigError
from .version import __version__

if TYPE_CHECKING:
    from .settings import TracingSettings

P = ParamSpec("P")
R = TypeVar("R")
_tracer: Any = None  # an opentelemetry Tracer while tracing is on


def use(provider: Any) -> None:
    """Send ragline's spans to this ``TracerProvider`` (None: tracing off)."""
    global _tracer
    _tracer = provider.get_tracer("ragline", __version__) if provider is not None else None


def configure(settings: TracingSettings) -> None:
    """Turn tracing on as the settings say; never off (another Engine of the process
    may have turned it on)."""
    if settings.endpoint:
        use(_otlp_provider(settings.endpoint, settings.service_name))
    elif settings.enabled:
        trace = _import("opentelemetry.trace")
        use(trace.get_tracer_provider())


def flush(timeout_s: float = 5.0) -> None:
    """Export the spans still buffered by ragline's own OTLP providers."""
    for provider in _PROVIDERS.values():
        provider.force_flush(int(timeout_s * 1000))


_PROVIDERS: dict[tuple[str, str], Any] = {}  # one batching provider per (endpoint, service name)


def _otlp_provider(endpoint: str, service_name: str) -> Any:
    """The process's OTLP/HTTP provider for this endpoint and service name."""
    if (endpoint, service_name) not in _PROVIDERS:
        sdk_trace = _import("opentelemetry.sdk.trace")
        export = _import("opentelemetry.sdk.trace.export")
        resources = _import("opentelemetry.sdk.resources")
        otlp = _import("opentelemetry.exporter.otlp.proto.http.trace_exporter")
        provider = sdk_trace.TracerProvider(resource=resources.Resource.create({"service.name": service_name}))
        provider.add_span_processor(export.BatchSpanProcessor(otlp.OTLPSpanExporter(endpoint=endpoint)))
        _PROVIDERS[(endpoint, service_name)] = provider
    return _PROVIDERS[(endpoint, service_name)]


def _import(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"tracing is configured (settings.tracing) but {module} is not installed: install the "
                          "otel extra, pip install 'ragline[otel]'") from exc


@contextmanager
def span(name: str, *, yields: bool = False, **attributes: Any) -> Iterator[Any]:
    """A span named ``ragline.<name>`` around the block (the span, or None when off).
    A block that yields (inside a generator) passes ``yields=True``: its span is a
    child of the current one but not made current itself, since a generator resumed
    in another thread's context could not restore the context it changed."""
    tracer = _tracer
    if tracer is None:
        yield None
        return
    attrs = {f"ragline.{k}": v for k, v in attributes.items() if v is not None}
    if not yields:
        with tracer.start_as_current_span(f"ragline.{name}", attributes=attrs) as current:
            yield current
        return
    detached = tracer.start_span(f"ragline.{name}", attributes=attrs)
    try:
        yield detached
    except GeneratorExit:  # the consumer stopped reading: not an error of ours
        raise
    except BaseException as exc:
        detached.record_exception(exc)
        trace = _import("opentelemetry.trace")
        detached.set_status(trace.Status(trace.StatusCode.ERROR))
        raise
    finally:
        detached.end()


def traced(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``span(name)`` around every call of the decorated function (not a generator)."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with span(name):
                return function(*args, **kwargs)

        return wrapper

    return decorate
