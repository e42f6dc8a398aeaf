"""A key checked in the last second is admitted without a store read (``KeyCache``):
revoked through the API it stops at once, revoked elsewhere (the CLI, another
replica) within the cache's lifetime; a wrong key is never remembered, and a cached
use still moves the key's ``last_used``."""

from __future__ import annotations

import time

import pytest

from ragline.server.auth import KeyCache
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant


@pytest.fixture
def server(tmp_path):
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as live:
        live.app.state.key_cache = KeyCache(ttl=0.5)
        yield live


def _key_id(server: LiveServer, tenant: str) -> str:
    with server.client(ADMIN_KEY) as admin:
        return admin.get(f"/v1/tenants/{tenant}/keys").json()["keys"][0]["id"]


def test_a_key_revoked_elsewhere_stops_within_the_cache_lifetime(server) -> None:
    key = create_tenant(server, "acme")
    with server.client(key) as client:
        assert client.post("/v1/search", json={"query": "x", "collection": "kb"}).status_code in (200, 404)
        server.app.state.engine.revoke_api_key("acme", _key_id(server, "acme"))  # as `ragline key revoke` does
        time.sleep(0.6)
        refused = client.post("/v1/search", json={"query": "x", "collection": "kb"})
        assert refused.status_code == 401 and "revoked" in refused.json()["error"]["message"]


def test_a_key_revoked_through_the_api_stops_at_once(server) -> None:
    key = create_tenant(server, "acme")
    server.app.state.key_cache = KeyCache(ttl=3600)
    with server.client(key) as client:
        assert client.get("/v1/me").status_code == 200
        assert client.post("/v1/search", json={"query": "x", "collection": "kb"}).status_code in (200, 404)
        with server.client(ADMIN_KEY) as admin:
            assert admin.delete(f"/v1/tenants/acme/keys/{_key_id(server, 'acme')}").status_code == 204
        assert client.post("/v1/search", json={"query": "x", "collection": "kb"}).status_code == 401


def test_wrong_keys_are_not_remembered_and_cached_uses_are_recorded(server) -> None:
    key = create_tenant(server, "acme")
    cache = server.app.state.key_cache
    with server.client("rl_wrong") as wrong:
        assert wrong.post("/v1/search", json={"query": "x", "collection": "kb"}).status_code == 401
    assert cache.get("rl_wrong") is None
    with server.client(key) as client:
        client.post("/v1/search", json={"query": "x", "collection": "kb"})
        assert cache.get(key) is not None  # checked once: the next request stays on the event loop
        first = server.app.state.engine.list_api_keys("acme")[0].last_used
        time.sleep(0.05)
        client.post("/v1/search", json={"query": "x", "collection": "kb"})
        assert server.app.state.engine.list_api_keys("acme")[0].last_used > first


def test_the_cache_is_bounded_and_expires() -> None:
    from ragline.store.types import ApiKeyInfo

    cache = KeyCache(ttl=0.05, size=3)
    infos = [ApiKeyInfo(id=f"k{i}", tenant="t", label=None, prefix="p", created=0.0) for i in range(5)]
    for i, info in enumerate(infos):
        cache.put(f"secret{i}", info)
    assert len(cache._keys) <= 3 and cache.get("secret4") is infos[4]
    time.sleep(0.06)
    assert cache.get("secret4") is None
    assert KeyCache(ttl=0).get("anything") is None
