"""Tenant isolation through the API, randomized: many tenants with overlapping
collection names and private (owner) documents; no tenant may see another's
collections, documents, jobs, chunks, search hits or answers, or touch them."""

from __future__ import annotations

import os
import random

import pytest

from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

SEED = int(os.environ.get("RAGLINE_TEST_SEED", random.randrange(1 << 30)))
WORDS = ["ledger", "invoice", "branch", "transfer", "refund", "savings", "mortgage", "deposit", "cheque", "audit"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    """Tenants with random collections and documents, each document carrying a token
    unique to (tenant, collection, owner, document)."""
    rng = random.Random(SEED)
    settings = Settings(home=tmp_path_factory.mktemp("iso") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=2))
    with LiveServer(settings) as server:
        tenants: dict[str, dict] = {}
        for t in range(rng.randint(4, 6)):
            name = f"tenant{t}"
            key = create_tenant(server, name)
            collections = rng.sample(["docs", "shared-name", "kb", f"own{t}"], k=rng.randint(1, 3))
            docs = []  # (collection, owner, token)
            with server.client(key) as client:
                jobs = []
                for collection in collections:
                    for d in range(rng.randint(1, 4)):
                        owner = rng.choice([None, None, "alice", "bob"])
                        token = f"zq{t}x{collections.index(collection)}x{d}x{owner or 'none'}"
                        text = f"{' '.join(rng.choices(WORDS, k=8))} {token} {' '.join(rng.choices(WORDS, k=5))}"
                        if rng.random() < 0.5:
                            files = [("files", (f"doc{d}.txt", text.encode()))]
                            response = client.post(f"/v1/collections/{collection}/documents", files=files,
                                                   data={"owner": owner} if owner else {})
                        else:
                            body = {"documents": [{"text": text, "source": f"doc{d}"}], "owner": owner}
                            response = client.post(f"/v1/collections/{collection}/documents/text", json=body)
                        assert response.status_code == 202, response.text
                        jobs += [j["id"] for j in response.json()["jobs"]]
                        docs.append((collection, owner, token))
                finished = wait_for_jobs(client, jobs)
                assert all(j["state"] == "indexed" for j in finished), finished
                tenants[name] = {"key": key, "collections": collections, "docs": docs, "jobs": jobs}
        yield server, tenants


def _visible_tokens(tenant: dict, collection: str, owner: str | None) -> set[str]:
    return {tok for c, o, tok in tenant["docs"] if c == collection and (o is None or o == owner)}


def test_each_tenant_sees_only_its_own(world) -> None:
    server, tenants = world
    for name, tenant in tenants.items():
        with server.client(tenant["key"]) as client:
            collections = {c["name"] for c in client.get("/v1/collections").json()["collections"]}
            assert collections == set(tenant["collections"]), f"seed {SEED}"
            assert {m["id"] for m in client.get("/v1/models").json()["data"]} == collections
            listed: set[str] = set()
            for owner in (None, "alice", "bob"):  # jobs follow document visibility: shared + own
                jobs = client.get("/v1/jobs", params={"limit": 1000, **({"owner": owner} if owner else {})}).json()
                assert all(j["owner"] in (None, owner) for j in jobs["jobs"]), f"seed {SEED}"
                listed |= {j["id"] for j in jobs["jobs"]}
            assert listed == set(tenant["jobs"]), f"seed {SEED}"
            for collection in tenant["collections"]:
                for owner in (None, "alice", "bob"):
                    expected = _visible_tokens(tenant, collection, owner)
                    params = {"owner": owner} if owner else {}
                    docs = client.get(f"/v1/collections/{collection}/documents", params=params).json()["documents"]
                    assert len(docs) == len(expected), f"seed {SEED}: {name}/{collection}/{owner}"
                    body = {"query": " ".join(WORDS), "collection": collection, "owner": owner, "k": 100,
                            "mode": "keyword"}
                    hits = client.post("/v1/search", json=body).json()["hits"]
                    seen = {tok for h in hits for tok in h["text"].split() if tok.startswith("zq")}
                    assert seen == expected, f"seed {SEED}: {name}/{collection}/{owner}"


def test_no_tenant_can_reach_anothers_resources(world) -> None:
    server, tenants = world
    rng = random.Random(SEED + 1)
    names = list(tenants)
    # Everything each tenant owns, gathered through its own key.
    owned: dict[str, dict[str, list]] = {}
    for name in names:
        with server.client(tenants[name]["key"]) as client:
            docs, chunks = [], []
            for collection in tenants[name]["collections"]:
                for owner in ("alice", "bob"):
                    listed = client.get(f"/v1/collections/{collection}/documents", params={"owner": owner}).json()
                    docs += [(d["id"], owner) for d in listed["documents"]]
                    hits = client.post("/v1/search", json={"query": " ".join(WORDS), "collection": collection,
                                                           "owner": owner, "k": 100, "mode": "keyword"}).json()
                    chunks += [(h["doc_id"], h["chunk_id"], owner) for h in hits["hits"]]
            owned[name] = {"docs": docs, "chunks": chunks, "jobs": tenants[name]["jobs"]}
    for name in names:
        others = [n for n in names if n != name]
        with server.client(tenants[name]["key"]) as client:
            for other in rng.sample(others, k=min(3, len(others))):
                for doc_id, owner in rng.sample(owned[other]["docs"], k=min(4, len(owned[other]["docs"]))):
                    params = {"owner": owner}
                    assert client.get(f"/v1/documents/{doc_id}", params=params).status_code == 404
                    assert client.post(f"/v1/documents/{doc_id}/reingest", params=params).status_code == 404
                    assert client.delete(f"/v1/documents/{doc_id}", params=params).status_code == 404
                for doc_id, chunk_id, owner in owned[other]["chunks"][:4]:
                    url = f"/v1/documents/{doc_id}/chunks/{chunk_id}"
                    assert client.get(url, params={"owner": owner}).status_code == 404
                for job_id in owned[other]["jobs"][:4]:
                    assert client.get(f"/v1/jobs/{job_id}").status_code == 404
                    assert client.post(f"/v1/jobs/{job_id}/retry").status_code == 404
                foreign = [tok for _, _, tok in tenants[other]["docs"]]
                for collection in tenants[name]["collections"]:
                    body = {"query": " ".join(foreign), "collection": collection, "owner": "alice", "k": 100}
                    hits = client.post("/v1/search", json=body).json()["hits"]
                    assert not any(tok in h["text"] for h in hits for tok in foreign), f"seed {SEED}"
    # The attempted deletes changed nothing: every tenant still has all its documents.
    for name in names:
        with server.client(tenants[name]["key"]) as client:
            count = sum(len(client.get(f"/v1/collections/{c}/documents", params={"owner": o}).json()["documents"])
                        for c in tenants[name]["collections"] for o in ("alice", "bob"))
            assert count == len(owned[name]["docs"]), f"seed {SEED}"


def test_answers_use_only_the_tenants_documents(world) -> None:
    server, tenants = world
    cited = 0
    for name, tenant in tenants.items():
        foreign = {tok for other, t in tenants.items() if other != name for _, _, tok in t["docs"]}
        with server.client(tenant["key"]) as client:
            for collection in tenant["collections"]:
                body = {"question": "ledger invoice refund audit deposit", "collection": collection, "owner": "alice"}
                response = client.post("/v1/ask", json=body)
                assert response.status_code == 200, response.text
                answer = response.json()
                assert not any(tok in response.text for tok in foreign), f"seed {SEED}"
                cited += len(answer["citations"])
                for citation in answer["citations"]:  # every cited passage is the tenant's own
                    url = f"/v1/documents/{citation['doc_id']}/chunks/{citation['chunk_id']}"
                    assert client.get(url, params={"owner": "alice"}).status_code == 200, f"seed {SEED}"
    assert cited > 0, "no answer cited anything: the test would prove nothing"
