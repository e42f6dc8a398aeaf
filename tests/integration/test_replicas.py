"""Issue 31, replicas that share everything: two API replicas over one PostgreSQL
admit together what one would (the request rate is a bucket in the store), keep
uploads in the catalog so a worker with another home (another machine) ingests
them, and say in /readyz which dependency is missing. Each replica is a real
server (``LiveServer``) with its own engine, as two processes would be."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from ragline.settings import EmbedderSettings, QuotaSettings, ServerSettings, Settings, StoreSettings, TenantQuota

from tests.pg_server import pg_url  # noqa: F401  (fixture)
from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

RPM = 6


def _settings(home: Path, url: str, *, workers: int = 0, **server: object) -> Settings:
    return Settings(home=home, embedder=EmbedderSettings(name="hashing"), store=StoreSettings(url=url),
                    server=ServerSettings(admin_key=ADMIN_KEY, job_workers=workers, job_process=False, **server),
                    quotas=QuotaSettings(tenants={"acme": TenantQuota(requests_per_minute=RPM)}))


def _admitted_by_two_replicas(tmp_path: Path, url: str, shared: bool | None) -> tuple[int, float]:
    """Requests of one tenant sent at once through two replicas: (admitted, seconds taken)."""
    settings = [_settings(tmp_path / name, url) for name in ("one", "two")]
    for s in settings:
        s.quotas.rate_shared = shared
    with ExitStack() as stack:
        one, two = (stack.enter_context(LiveServer(s)) for s in settings)
        key = create_tenant(one, "acme")
        clients = [stack.enter_context(server.client(key)) for server in (one, two)]
        started = time.monotonic()
        with ThreadPoolExecutor(16) as pool:
            codes = list(pool.map(lambda n: clients[n % 2].get("/v1/collections").status_code, range(4 * RPM)))
        elapsed = time.monotonic() - started
    assert set(codes) <= {200, 429}, codes
    return codes.count(200), elapsed


def test_two_replicas_admit_what_one_would(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    admitted, elapsed = _admitted_by_two_replicas(tmp_path, pg_url, shared=None)  # the default on PostgreSQL
    refilled = int(elapsed * RPM / 60)  # a token comes back every 10 s
    assert RPM <= admitted <= RPM + refilled, (admitted, elapsed)


def test_counted_per_process_two_replicas_admit_twice_the_rate(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """What the shared bucket fixes (and what ``rate_shared=false`` still does)."""
    admitted, _ = _admitted_by_two_replicas(tmp_path, pg_url, shared=False)
    assert admitted >= 2 * RPM
