"""Prometheus metrics: requests and latency per route, stage timings, jobs by state.

Each app gets its own registry, so several apps in one process (tests) never
share or collide on metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ..store.types import JOB_STATES

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
_STAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# Label values must come from small fixed sets: every distinct value is a series kept
# for the life of the process, and anyone can send any method or path.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"
UNMATCHED_ROUTE = "(unmatched)"


def method_label(method: str) -> str:
    """The method as a metrics label: a standard one, or ``other``."""
    return method if method in METHODS else OTHER_METHOD


class _JobsCollector(Collector):
    """Reads jobs by state from the store at scrape time (no counter to drift)."""

    def __init__(self, engine: Callable[[], Any]) -> None:
        self.engine = engine

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily("ragline_jobs", "Ingestion jobs by state", labels=["state"])
        try:
            counts = self.engine().job_counts()
        except Exception:  # noqa: BLE001 — a scrape must not fail because the store is down
            counts = {}
        for state in JOB_STATES:
            family.add_metric([state], counts.get(state, 0))
        yield family


class Metrics:
    def __init__(self, engine: Callable[[], Any]) -> None:
        """``engine`` returns the engine when called (its store may be down at scrape time)."""
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("ragline_requests", "HTTP requests", ["method", "route", "status"],
                                registry=self.registry)
        self.latency = Histogram("ragline_request_seconds", "HTTP request latency", ["method", "route"],
                                 buckets=_LATENCY_BUCKETS, registry=self.registry)
        self.stages = Histogram("ragline_stage_seconds", "Time spent per pipeline stage", ["route", "stage"],
                                buckets=_STAGE_BUCKETS, registry=self.registry)
        self.jobs_finished = Counter("ragline_jobs_finished", "Ingestion job runs by outcome", ["state"],
                                     registry=self.registry)
        self.job_seconds = Histogram("ragline_job_seconds", "Ingestion job run time", ["state"],
                                     buckets=_LATENCY_BUCKETS, registry=self.registry)
        self.registry.register(_JobsCollector(engine))

    def observe_request(self, method: str, route: str, status: int, seconds: float,
                        stages_ms: dict[str, float] | None) -> None:
        """Count one request. ``route`` is a route template (or ``UNMATCHED_ROUTE``),
        never a raw path; an unknown method is counted as ``other``."""
        method = method_label(method)
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)
        for stage, ms in (stages_ms or {}).items():
            if isinstance(ms, (int, float)):
                self.stages.labels(route, stage).observe(ms / 1000.0)

    def job_finished(self, state: str, seconds: float) -> None:
        self.jobs_finished.labels(state).inc()
        self.job_seconds.labels(state).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
