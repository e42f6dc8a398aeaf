"""Issue 29, owners inside a tenant: an owner-bound key reads and writes its own data
only, and what it sees is computable from what it may read.

Through a real server (``LiveServer``): tenant-wide changes (creating a collection,
its answer policy, re-ingesting a shared document) need a key without an owner;
``/v1/usage/matches`` naming another owner is 403 as on every route; collection
counts for an owner-bound key count the shared documents and its owner's only.
Keyword statistics per owner are in the store contract
(``tests/contract/store_contract.py``)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_tenant_keys_and_quotas import _add, _bound_key, _settings
from tests.server_harness import LiveServer, create_tenant, wait_for_jobs


def _forbidden(response) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "forbidden"


def test_an_owner_bound_key_cannot_make_tenant_wide_changes(tmp_path: Path) -> None:
    with LiveServer(_settings(tmp_path / "home")) as server:
        tenant_key = create_tenant(server, "acme")
        ann_key = _bound_key(server, "acme", "ann")
        with server.client(tenant_key) as tenant, server.client(ann_key) as ann:
            jobs = [_add(tenant, "kb", "shared handbook zebra", "shared"),
                    _add(ann, "kb", "ann's private zebra diary", "ann-diary")]
            assert all(j["state"] == "indexed" for j in wait_for_jobs(tenant, jobs))
            docs = {d["source"]: d["id"] for d in ann.get("/v1/collections/kb/documents").json()["documents"]}

            _forbidden(ann.post("/v1/collections", json={"name": "annex"}))
            _forbidden(ann.put("/v1/collections/kb/answer-policy", json={"policy": "general"}))
            _forbidden(ann.post(f"/v1/documents/{docs['shared']}/reingest"))
            assert ann.get("/v1/collections/kb/answer-policy").json()["policy"] == "abstain"  # reading is fine
            assert [c["name"] for c in tenant.get("/v1/collections").json()["collections"]] == ["kb"]

            assert ann.post(f"/v1/documents/{docs['ann-diary']}/reingest").status_code == 202  # its own
            assert tenant.post(f"/v1/documents/{docs['shared']}/reingest").status_code == 202
            assert tenant.put("/v1/collections/kb/answer-policy", json={"policy": "general"}).status_code == 200
            assert tenant.post("/v1/collections", json={"name": "annex"}).status_code == 201


def test_usage_matches_naming_another_owner_is_forbidden(tmp_path: Path) -> None:
    with LiveServer(_settings(tmp_path / "home")) as server:
        tenant_key = create_tenant(server, "acme")
        bob_key = _bound_key(server, "acme", "bob")
        with server.client(tenant_key) as tenant, server.client(bob_key) as bob:
            assert all(j["state"] == "indexed" for j in wait_for_jobs(tenant, [_add(tenant, "kb", "zebra", "s")]))
            _forbidden(bob.get("/v1/usage/matches", params={"collection": "kb", "owner": "ann"}))
            assert bob.get("/v1/usage/matches", params={"collection": "kb", "owner": "bob"}).status_code == 200
            assert bob.get("/v1/usage/matches", params={"collection": "kb"}).status_code == 200
            assert tenant.get("/v1/usage/matches", params={"collection": "kb", "owner": "ann"}).status_code == 200


def test_collection_counts_for_an_owner_bound_key_are_of_what_it_may_read(tmp_path: Path) -> None:
    with LiveServer(_settings(tmp_path / "home")) as server:
        tenant_key = create_tenant(server, "acme")
        ann_key = _bound_key(server, "acme", "ann")
        with server.client(tenant_key) as tenant, server.client(ann_key) as ann:
            jobs = [_add(tenant, "kb", "shared handbook zebra", "shared"),
                    _add(ann, "kb", "ann's private zebra diary", "ann-diary")]
            jobs += [_add(tenant, "kb", f"bob's private zebra note {i}", f"bob-{i}", owner="bob") for i in range(3)]
            assert all(j["state"] == "indexed" for j in wait_for_jobs(tenant, jobs))
            readable = ann.get("/v1/collections/kb/documents").json()["documents"]
            expected = {"documents": len(readable), "chunks": sum(d["chunks"] for d in readable)}
            assert expected["documents"] == 2
            for seen in (ann.get("/v1/collections/kb").json(), ann.get("/v1/collections").json()["collections"][0]):
                assert {k: seen[k] for k in expected} == expected
            assert tenant.get("/v1/collections/kb").json()["documents"] == 5  # a tenant key reads every owner's
