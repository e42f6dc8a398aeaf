"""The server's tables in the embedded store (API keys, the job table) and the
``make run`` demo key: concurrency, tenant scoping and crash recovery."""

from __future__ import annotations

import threading
from pathlib import Path

from ragline.demo import KEY_FILE, demo_key
from ragline.engine import Engine
from ragline.models import Scope
from ragline.settings import Settings
from ragline.store.sqlite import SQLiteStore


def _store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "ragline.sqlite")
    for tenant in ("a", "b", "c"):
        store.ensure_tenant(tenant)
    return store


def test_concurrent_workers_claim_each_job_exactly_once(tmp_path: Path) -> None:
    store = _store(tmp_path)
    created = {store.create_job(Scope(t, ("docs",)), doc_id=f"{t}-{i}", source=f"{i}.txt", kind="file",
                                path=f"/x/{t}/{i}").id for t in ("a", "b", "c") for i in range(15)}
    claimed: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        while (job := store.claim_job()) is not None:
            with lock:
                claimed.append(job.id)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(created)  # all claimed, none twice
    assert store.job_counts() == {"queued": 0, "parsing": 45, "embedding": 0, "indexed": 0, "failed": 0}


def test_one_document_is_never_ingested_by_two_workers_at_once(tmp_path: Path) -> None:
    store = _store(tmp_path)
    scope = Scope("a", ("docs",))
    first = store.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/1")
    assert store.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/2").id == first.id  # reused
    assert store.claim_job().id == first.id
    second = store.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/3")
    assert second.id != first.id and store.claim_job() is None  # d1 is being ingested
    store.update_job("a", first.id, state="indexed")
    assert store.claim_job().id == second.id


def test_job_reads_and_writes_are_scoped_by_tenant(tmp_path: Path) -> None:
    store = _store(tmp_path)
    job = store.create_job(Scope("a", ("docs",), "ann"), doc_id="d", source="s", kind="text", path="/p")
    assert store.get_job("b", job.id) is None and store.get_job("a", job.id).owner == "ann"
    assert store.update_job("b", job.id, state="failed") is False
    assert store.requeue_job("b", job.id) is False
    assert store.list_jobs("b") == [] and [j.id for j in store.list_jobs("a")] == [job.id]
    assert store.delete_jobs("b", collection="docs") == 0 and store.get_job("a", job.id) is not None
    assert store.job_counts("b")["queued"] == 0 and store.job_counts("a")["queued"] == 1


def test_resume_unfinished_requeues_what_was_running(tmp_path: Path) -> None:
    store = _store(tmp_path)
    jobs = [store.create_job(Scope("a", ("docs",)), doc_id=f"d{i}", source=f"{i}", kind="file", path="/p")
            for i in range(3)]
    store.claim_job()
    running = store.claim_job()
    store.update_job("a", running.id, state="embedding", done=5, total=9)
    reopened = SQLiteStore(tmp_path / "ragline.sqlite")  # as a new process would
    assert reopened.resume_unfinished() == 2
    states = {j.id: (j.state, j.done, j.tries) for j in reopened.list_jobs("a")}
    assert states[running.id] == ("queued", 0, 1) and all(s[0] == "queued" for s in states.values())
    assert len(jobs) == 3


def test_api_keys_are_stored_hashed_and_revocable(tmp_path: Path) -> None:
    store = _store(tmp_path)
    info, secret = store.create_api_key("a", "ci")
    assert store.verify_api_key(secret).tenant == "a"
    assert store.verify_api_key(secret + "x") is None and store.verify_api_key("") is None
    dump = "\n".join(store._conn().iterdump())
    assert secret not in dump and secret[10:] not in dump
    assert [k.id for k in store.list_api_keys("a")] == [info.id] and store.list_api_keys("b") == []
    assert store.revoke_api_key("b", info.id) is False  # not b's key
    assert store.revoke_api_key("a", info.id) is True and store.verify_api_key(secret) is None


def test_demo_key_is_kept_and_replaced_when_revoked(tmp_path: Path) -> None:
    engine = Engine(Settings(home=tmp_path / "home"))
    try:
        key = demo_key(engine)
        assert demo_key(engine) == key  # the printed key stays valid across runs
        assert (tmp_path / "home" / KEY_FILE).stat().st_mode & 0o077 == 0  # owner-only
        info = engine.store.verify_api_key(key)
        engine.store.revoke_api_key("demo", info.id)
        fresh = demo_key(engine)
        assert fresh != key and engine.store.verify_api_key(fresh).tenant == "demo"
    finally:
        engine.close()
