"""Adversarial tenant- and owner-isolation probes against a real server (uvicorn in a
thread, real SQLite, real kept uploads): ids, names, filters and parameters taken
from one tenant or owner must never reach another's data, and must fail exactly
as a missing id does (no existence oracle)."""

from __future__ import annotations

import sqlite3
import uuid

import httpx
import pytest

from ragline.models import Scope
from ragline.settings import AnswerSettings, EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant, wait_for_jobs

SHARED = "The overdraft fee is five euro per day zqshared."
ALICE = "Alice salary slip shows overdraft fee refunds zqalice."
BOB = "Bob diagnosis letter mentions the overdraft fee zqbob."
BETA = "Beta tenant overdraft fee policy zqbeta."


def _text(client: httpx.Client, collection: str, source: str, text: str, owner: str | None = None) -> dict:
    body = {"documents": [{"text": text, "source": source}], "owner": owner}
    response = client.post(f"/v1/collections/{collection}/documents/text", json=body)
    assert response.status_code == 202, response.text
    return response.json()["jobs"][0]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(home=tmp_path_factory.mktemp("audit") / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY, job_workers=1),
                        answer=AnswerSettings(neighbours=2))
    with LiveServer(settings) as server:
        alpha, beta = create_tenant(server, "alpha"), create_tenant(server, "beta")
        with server.client(alpha) as a, server.client(beta) as b:
            jobs = {"shared": _text(a, "docs", "shared-note", SHARED),
                    "alice": _text(a, "docs", "alice-salary", ALICE, owner="alice"),
                    "bob": _text(a, "docs", "bob-diagnosis", BOB, owner="bob")}
            wait_for_jobs(a, [j["id"] for j in jobs.values()])
            beta_job = _text(b, "docs", "beta-policy", BETA)
            wait_for_jobs(b, [beta_job["id"]])
            alice_hits = a.post("/v1/search", json={"query": "salary", "collection": "docs", "owner": "alice",
                                                    "mode": "keyword"}).json()["hits"]
            alice_chunk = next(h["chunk_id"] for h in alice_hits if "zqalice" in h["text"])
        yield server, {"alpha": alpha, "beta": beta, "jobs": jobs, "alice_chunk": alice_chunk}


def _sources(jobs: list[dict]) -> set[str]:
    return {j["source"] for j in jobs}


# -- jobs: owner semantics (the leak this audit found) ------------------------
def test_job_list_without_owner_shows_only_shared_jobs(world) -> None:
    server, w = world
    with server.client(w["alpha"]) as a:
        listed = a.get("/v1/jobs", params={"limit": 1000}).json()["jobs"]
        assert _sources(listed) == {"shared-note"}, "private jobs (source names, owners) listed without an owner"
        in_collection = a.get("/v1/jobs", params={"collection": "docs"}).json()["jobs"]
        assert _sources(in_collection) == {"shared-note"}


def test_job_list_with_owner_shows_shared_and_own(world) -> None:
    server, w = world
    with server.client(w["alpha"]) as a:
        alice = a.get("/v1/jobs", params={"owner": "alice"}).json()["jobs"]
        assert _sources(alice) == {"shared-note", "alice-salary"}
        assert {j["owner"] for j in alice} == {None, "alice"}
        # limit counts visible jobs only, so a private job never crowds a visible one out
        assert _sources(a.get("/v1/jobs", params={"owner": "bob", "limit": 2}).json()["jobs"]) == \
            {"shared-note", "bob-diagnosis"}


# -- another tenant's ids look exactly like missing ones ----------------------
def _error(response: httpx.Response, hide: str) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["message"].replace(hide, "ID")


def test_foreign_tenant_ids_are_indistinguishable_from_missing(world) -> None:
    server, w = world
    doc_id, job_id, chunk_id = w["jobs"]["shared"]["document_id"], w["jobs"]["shared"]["id"], w["alice_chunk"]
    alice_doc = w["jobs"]["alice"]["document_id"]
    missing = uuid.uuid4().hex
    with server.client(w["beta"]) as b:
        for owner in (None, "alice"):
            params = {"owner": owner} if owner else {}
            for method, template in (("GET", "/v1/documents/{}"), ("POST", "/v1/documents/{}/reingest"),
                                     ("DELETE", "/v1/documents/{}")):
                for foreign in (doc_id, alice_doc):
                    got = b.request(method, template.format(foreign), params=params)
                    want = b.request(method, template.format(missing), params=params)
                    assert got.status_code == 404 and _error(got, foreign) == _error(want, missing)
            got = b.get(f"/v1/documents/{alice_doc}/chunks/{chunk_id}", params=params)
            assert got.status_code == 404
        for method, template in (("GET", "/v1/jobs/{}"), ("POST", "/v1/jobs/{}/retry")):
            got, want = b.request(method, template.format(job_id)), b.request(method, template.format(missing))
            assert got.status_code == 404 and _error(got, job_id) == _error(want, missing)
        # beta has a "docs" collection of its own: it must answer from beta's data only
        hits = b.post("/v1/search", json={"query": "overdraft fee", "collection": "docs", "k": 50}).json()["hits"]
        assert {tok for h in hits for tok in h["text"].split() if tok.startswith("zq")} == {"zqbeta."}
        chat = b.post("/v1/chat/completions", json={"model": "docs", "user": "alice",
                                                     "messages": [{"role": "user", "content": "overdraft fee?"}]})
        assert chat.status_code == 200 and "zqalice" not in chat.text and "zqshared" not in chat.text
        assert b.post("/v1/chat/completions", json={"model": "nope", "messages": [
            {"role": "user", "content": "hi"}]}).status_code == 404
    with server.client(w["alpha"]) as a:  # everything survived beta's attempts
        assert a.get(f"/v1/documents/{doc_id}").status_code == 200
        assert a.get(f"/v1/documents/{alice_doc}", params={"owner": "alice"}).status_code == 200


def test_other_owners_private_document_is_unreachable(world) -> None:
    server, w = world
    alice_doc, chunk_id = w["jobs"]["alice"]["document_id"], w["alice_chunk"]
    with server.client(w["alpha"]) as a:
        for params in ({}, {"owner": "bob"}):
            assert a.get(f"/v1/documents/{alice_doc}", params=params).status_code == 404
            assert a.get(f"/v1/documents/{alice_doc}/chunks/{chunk_id}", params=params).status_code == 404
            assert a.post(f"/v1/documents/{alice_doc}/reingest", params=params).status_code == 404
            assert a.delete(f"/v1/documents/{alice_doc}", params=params).status_code == 404
            # filters only ever narrow the scope
            for filters in ({"owner": "alice"}, {"doc_id": alice_doc}, {"owner": {"ne": "nobody"}}):
                body = {"query": "salary overdraft fee", "collection": "docs", "filters": filters, "k": 50,
                        **({"owner": params["owner"]} if params else {})}
                for mode in ("keyword", "dense", "hybrid"):
                    hits = a.post("/v1/search", json={**body, "mode": mode}).json()["hits"]
                    assert all("zqalice" not in h["text"] for h in hits), (params, filters, mode)
            ask = a.post("/v1/ask", json={"question": "What does the salary slip show?", "collection": "docs",
                                          **({"owner": params["owner"]} if params else {})}).json()
            assert "zqalice" not in str(ask)
        assert a.get(f"/v1/documents/{alice_doc}", params={"owner": "alice"}).status_code == 200


def test_neighbour_expansion_and_stored_vectors_stay_in_scope(world) -> None:
    server, w = world
    store, answerer = server.app.state.engine.store, server.app.state.engine.answerer
    alice_doc = w["jobs"]["alice"]["document_id"]
    hit = store.get_hits(Scope("alpha", ("docs",), "alice"), [(w["alice_chunk"], 1.0)])[0]
    for scope in (Scope("alpha", ("docs",)), Scope("alpha", ("docs",), "bob"), Scope("beta", ("docs",), "alice")):
        assert store.chunk_vectors(scope, alice_doc) == {}
        assert answerer._doc_chunks(scope, hit) == []


def test_metrics_and_readiness_name_no_tenant_data(world) -> None:
    server, w = world
    with server.client() as anonymous:
        exposed = anonymous.get("/metrics").text + anonymous.get("/readyz").text
    for secret in ("alpha", "beta", "alice", "bob", "shared-note", "zqalice", w["jobs"]["alice"]["document_id"]):
        assert secret not in exposed


def test_embedding_cache_holds_only_model_hash_and_vector(world) -> None:
    server, _ = world
    path = server.app.state.settings.home / "embedding-cache.sqlite"
    with sqlite3.connect(path) as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(vectors)")]
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        texts = conn.execute("SELECT count(*) FROM vectors WHERE CAST(vector AS TEXT) LIKE '%zq%'").fetchone()[0]
    assert tables == ["vectors"] and columns == ["model", "hash", "vector"] and texts == 0


# -- kept uploads on disk -------------------------------------------------------
def test_encoded_tenant_names_never_share_an_upload_directory(world) -> None:
    """A tenant whose name is outside the safe pattern (possible from the CLI:
    ``ragline ingest --tenant "Acme Corp"`` then ``ragline key create``) must not share
    its upload directory with an API tenant named like its encoding: deleting the
    latter's collection would delete the former's kept uploads."""
    server, _ = world
    uploads, engine = server.app.state.uploads, server.app.state.engine
    odd = "Acme Corp"
    engine.ensure_tenant(odd)
    _, odd_key = engine.create_api_key(odd, "cli-made")
    lookalike = "x-" + odd.encode("utf-8").hex()
    long_a, long_b = "Tenant " + "n" * 70 + " A", "Tenant " + "n" * 70 + " B"
    assert uploads.collection_dir(odd, "docs") != uploads.collection_dir(lookalike, "docs")
    assert uploads.collection_dir(long_a, "docs") != uploads.collection_dir(long_b, "docs")
    lookalike_key = create_tenant(server, lookalike)
    with server.client(odd_key) as odd_client, server.client(lookalike_key) as other:
        job = _text(odd_client, "docs", "acme-note", "Acme kept upload zqacme.")
        assert wait_for_jobs(odd_client, [job["id"]])[0]["state"] == "indexed"
        other_job = _text(other, "docs", "other-note", "Lookalike text zqother.")
        wait_for_jobs(other, [other_job["id"]])
        assert other.delete("/v1/collections/docs").status_code == 204
        again = odd_client.post(f"/v1/documents/{job['document_id']}/reingest")
        assert again.status_code == 202, again.text
        finished = wait_for_jobs(odd_client, [job["id"]])[0]
        assert finished["state"] == "indexed", f"the other tenant's delete removed this tenant's upload: {finished}"


def test_an_owner_cannot_delete_shared_or_others_documents(world) -> None:
    server, w = world
    with server.client(w["alpha"]) as a:
        shared_doc = w["jobs"]["shared"]["document_id"]
        bob_doc = w["jobs"]["bob"]["document_id"]
        fake = uuid.uuid4().hex
        missing = a.delete(f"/v1/documents/{fake}", params={"owner": "alice"})
        as_alice = a.delete(f"/v1/documents/{shared_doc}", params={"owner": "alice"})
        assert as_alice.status_code == missing.status_code == 404
        assert as_alice.json()["error"]["message"].replace(shared_doc, "X") == \
            missing.json()["error"]["message"].replace(fake, "X")
        assert a.delete(f"/v1/documents/{bob_doc}", params={"owner": "alice"}).status_code == 404
        assert a.delete(f"/v1/documents/{bob_doc}").status_code == 404
        assert a.get(f"/v1/documents/{shared_doc}").status_code == 200  # still there
