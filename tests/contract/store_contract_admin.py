"""The admin half of the store contract: API keys and the job queue (leases,
fairness, caps, parallel claimers). Part of ``StoreContract``."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from ragline.errors import ConfigError
from ragline.models import Scope
from ragline.store import Store
from ragline.store.types import (
    FAILED,
    INDEXED,
    JOB_STATES,
    QUEUED,
    ApiKeyInfo,
    StoredKey,
    hash_key,
)

from tests.contract_helpers import _Base, claim_in_parallel


# -- admin: keys and jobs ---------------------------------------------------------------
class KeyContract(_Base):
    def test_keys(self, store: Store) -> None:
        for tenant in ("a", "b"):
            store.catalog.ensure_tenant(tenant)
        info, secret = store.admin.create_api_key("a", "ci")
        assert secret.startswith("rl-") and store.admin.verify_api_key(secret).tenant == "a"
        assert store.admin.verify_api_key(secret + "x") is None and store.admin.verify_api_key("") is None
        assert [k.id for k in store.admin.list_api_keys("a")] == [info.id] and store.admin.list_api_keys("b") == []
        assert all(secret not in str(k) for k in store.admin.export_keys("a"))
        assert store.admin.revoke_api_key("b", info.id) is False
        assert store.admin.revoke_api_key("a", info.id) is True and store.admin.verify_api_key(secret) is None
        assert store.admin.list_api_keys("a") == [] and len(store.admin.export_keys("a")) == 1

    def test_owner_bound_keys(self, store: Store) -> None:
        store.catalog.ensure_tenant("a")
        bound, secret = store.admin.create_api_key("a", "browser", owner="ann")
        plain, plain_secret = store.admin.create_api_key("a")
        assert bound.owner == "ann" and plain.owner is None
        assert store.admin.verify_api_key(secret).owner == "ann"
        assert store.admin.verify_api_key(plain_secret).owner is None
        assert {k.id: k.owner for k in store.admin.list_api_keys("a")} == {bound.id: "ann", plain.id: None}
        assert {k.info.id: k.info.owner for k in store.admin.export_keys("a")} == {bound.id: "ann", plain.id: None}
        # An imported key keeps its owner (ragline migrate).
        imported = "rl-imported-secret"
        info = ApiKeyInfo(id="key_imported", tenant="a", label=None, prefix=imported[:10], created=1.0, owner="bob")
        assert store.admin.import_key(StoredKey(info=info, hash=hash_key(imported), revoked=None)) is True
        assert store.admin.verify_api_key(imported).owner == "bob"

    def test_verify_is_a_read_and_uses_are_touched_later(self, store: Store) -> None:
        store.catalog.ensure_tenant("a")
        info, secret = store.admin.create_api_key("a")
        assert store.admin.verify_api_key(secret).last_used is None  # verifying never writes
        (listed,) = store.admin.list_api_keys("a")
        assert listed.last_used is None
        store.admin.touch_api_keys({info.id: 1000.0, "key_unknown": 5.0})
        store.admin.touch_api_keys({info.id: 500.0})  # older: last_used only moves forward
        store.admin.touch_api_keys({})
        assert store.admin.list_api_keys("a")[0].last_used == 1000.0
        # The facade notes uses in memory and writes them in the background (or on close).
        assert store.verify_api_key(secret).id == info.id
        assert store.list_api_keys("a")[0].last_used > 1000.0  # pending uses already show
        assert store.key_usage.flush() is True
        assert store.admin.list_api_keys("a")[0].last_used > 1000.0


class JobContract(_Base):
    LEASE = 30.0

    @pytest.fixture
    def admin(self, store: Store):
        for tenant in ("a", "b"):
            store.catalog.ensure_tenant(tenant)
        return store.admin

    def test_create_reuses_queued_job(self, admin) -> None:
        scope = Scope("a", ("docs",))
        first = admin.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/1")
        assert first.state == QUEUED and first.tries == 0
        assert admin.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/2").id == first.id
        assert admin.claim_job("w1", self.LEASE, 3).id == first.id
        second = admin.create_job(scope, doc_id="d1", source="x.txt", kind="file", path="/x/3")
        assert second.id != first.id and admin.claim_job("w2", self.LEASE, 3) is None  # d1 is being ingested
        admin.update_job("a", first.id, state=INDEXED)
        claimed = admin.claim_job("w2", self.LEASE, 3)
        assert claimed.id == second.id and claimed.path == "/x/3" and claimed.worker == "w2"

    def test_jobs_are_scoped_by_tenant(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",), "ann"), doc_id="d", source="s", kind="text", path="/p")
        assert admin.get_job("b", job.id) is None and admin.get_job("a", job.id).owner == "ann"
        assert admin.update_job("b", job.id, state=FAILED) is False
        assert admin.requeue_job("b", job.id) is False
        assert admin.list_jobs("b") == [] and [j.id for j in admin.list_jobs("a")] == [job.id]
        assert admin.delete_jobs("b", collection="docs") == 0 and admin.get_job("a", job.id) is not None
        assert admin.job_counts("b")[QUEUED] == 0 and admin.job_counts("a")[QUEUED] == 1
        assert set(admin.job_counts()) == set(JOB_STATES)

    def test_list_filters(self, admin) -> None:
        shared = admin.create_job(Scope("a", ("docs",)), doc_id="d1", source="1", kind="file", path="/1")
        admin.claim_job("w", self.LEASE, 3)
        admin.update_job("a", shared.id, state=INDEXED)
        again = admin.create_job(Scope("a", ("docs",)), doc_id="d1", source="1", kind="file", path="/1b")
        private = admin.create_job(Scope("a", ("hr",), "ann"), doc_id="d2", source="2", kind="file", path="/2")
        assert [j.id for j in admin.list_jobs("a", latest_per_document=True, collection="docs")] == [again.id]
        assert {j.id for j in admin.list_jobs("a", all_owners=False)} == {shared.id, again.id}
        assert {j.id for j in admin.list_jobs("a", all_owners=False, owner="ann")} == {shared.id, again.id, private.id}
        assert [j.id for j in admin.list_jobs("a", state=INDEXED)] == [shared.id]
        assert [j.id for j in admin.list_jobs("a", doc_id="d2")] == [private.id]
        assert len(admin.list_jobs("a", limit=1)) == 1
        assert admin.delete_jobs("a", collection="docs", doc_id="d1") == 2

    def test_update_and_requeue(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        with pytest.raises(ConfigError, match="unknown job fields"):
            admin.update_job("a", job.id, collection="other")
        assert admin.requeue_job("a", job.id) is False  # only finished jobs
        admin.claim_job("w", self.LEASE, 3)
        admin.update_job("a", job.id, state="embedding", done=5, total=9)
        got = admin.get_job("a", job.id)
        assert (got.state, got.done, got.total, got.tries) == ("embedding", 5, 9, 1)
        admin.update_job("a", job.id, state=FAILED, error="boom", finished=time.time())
        got = admin.get_job("a", job.id)
        assert (got.worker, got.lease_until) == ("w", None)
        assert admin.requeue_job("a", job.id) is True
        got = admin.get_job("a", job.id)
        assert (got.state, got.tries, got.error, got.worker) == (QUEUED, 0, None, None)

    def test_not_before_delays_a_claim(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        admin.update_job("a", job.id, not_before=time.time() + 60)
        assert admin.claim_job("w", self.LEASE, 3) is None

    def test_expired_lease_is_claimed_again(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        assert admin.claim_job("dead", 1.0, 3).id == job.id
        assert admin.claim_job("alive", self.LEASE, 3) is None  # leased
        time.sleep(1.1)
        again = admin.claim_job("alive", self.LEASE, 3)
        assert (again.id, again.tries, again.worker) == (job.id, 2, "alive")
        assert admin.renew_lease("a", job.id, "dead", self.LEASE) is False
        assert admin.renew_lease("a", job.id, "alive", self.LEASE) is True

    def test_a_running_job_without_a_lease_is_claimable(self, admin) -> None:
        # Left running by a version without leases, or copied in by `ragline migrate`.
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        admin.update_job("a", job.id, state="embedding")
        legacy = replace(admin.get_job("a", job.id), id="legacy", doc_id="d2", worker=None, lease_until=None)
        assert admin.import_job(legacy)
        admin.delete_jobs("a", collection="docs", doc_id="d")
        claimed = admin.claim_job("w", self.LEASE, 3)
        assert claimed is not None and claimed.id == "legacy" and claimed.worker == "w"

    def test_renewed_lease_is_kept(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        admin.claim_job("w", 1.0, 3)
        for _ in range(4):  # 1.2 s in all: past the first lease, held by renewals
            time.sleep(0.3)
            assert admin.renew_lease("a", job.id, "w", 1.0)
        assert admin.claim_job("other", self.LEASE, 3) is None

    def test_a_job_that_kills_its_worker_fails_for_good(self, admin) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        for _ in range(2):
            assert admin.claim_job("w", 0.05, 2).id == job.id
            time.sleep(0.1)
        assert admin.claim_job("w", 0.05, 2) is None
        got = admin.get_job("a", job.id)
        assert got.state == FAILED and "stopped 2 times" in got.error

    def test_parallel_claims_take_each_job_once(self, admin, make_store) -> None:
        for i in range(30):
            admin.create_job(Scope("a" if i % 2 else "b", ("docs",)), doc_id=f"d{i}", source=str(i), kind="file",
                             path="/p")
        claimed = [job.id for job in claim_in_parallel(make_store, 4)]
        assert len(claimed) == 30 == len(set(claimed))

    def test_fair_claims_across_tenants(self, admin) -> None:
        """Tenant a queues 20 jobs, then b queues 1: b's job is among the first claims,
        whether workers run a's jobs in parallel or finish each before the next claim."""
        for i in range(20):
            admin.create_job(Scope("a", ("docs",)), doc_id=f"a{i}", source=str(i), kind="file", path="/p")
        late = admin.create_job(Scope("b", ("docs",)), doc_id="b0", source="b", kind="file", path="/p")
        first = admin.claim_job("w1", self.LEASE, 3)
        second = admin.claim_job("w2", self.LEASE, 3)  # a has one running, b none: b goes next
        assert (first.tenant, second.id) == ("a", late.id)
        admin.update_job("b", late.id, state=INDEXED)
        later = admin.create_job(Scope("b", ("docs",)), doc_id="b1", source="b1", kind="file", path="/p")
        admin.update_job("a", first.id, state=INDEXED)  # one worker: nothing running when it claims again
        third = admin.claim_job("w1", self.LEASE, 3)
        assert third.tenant == "a"  # b was served more recently than a
        admin.update_job("a", third.id, state=INDEXED)
        assert admin.claim_job("w1", self.LEASE, 3).id == later.id  # round robin, not a's queue first

    def test_running_jobs_are_capped_per_tenant(self, admin) -> None:
        for i in range(4):
            admin.create_job(Scope("a", ("docs",)), doc_id=f"a{i}", source=str(i), kind="file", path="/p")
        claims = [admin.claim_job(f"w{n}", self.LEASE, 3, max_running=2) for n in range(3)]
        assert [j.tenant for j in claims[:2]] == ["a", "a"] and claims[2] is None
        b = admin.create_job(Scope("b", ("docs",)), doc_id="b", source="b", kind="file", path="/p")
        assert admin.claim_job("w3", self.LEASE, 3, max_running=2).id == b.id  # others are not held back
        assert admin.claim_job("w4", self.LEASE, 3, max_running=2, max_running_for={"a": 3}).tenant == "a"
        assert admin.claim_job("w5", self.LEASE, 3, max_running=2, max_running_for={"a": 3}) is None
        assert admin.claim_job("w5", self.LEASE, 3, max_running=1, max_running_for={"a": None}).tenant == "a"
        admin.update_job("a", claims[0].id, state=INDEXED)  # a finished job frees a place
        assert admin.claim_job("w6", self.LEASE, 3, max_running=1, max_running_for={"a": 4}) is None  # none left

    def test_cap_holds_when_claimers_race(self, admin, make_store) -> None:
        for i in range(12):
            admin.create_job(Scope("a", ("docs",)), doc_id=f"d{i}", source=str(i), kind="file", path="/p")
        claimed = [job.id for job in claim_in_parallel(make_store, 4, rounds=3, max_running=3)]
        assert len(claimed) == 3 == len(set(claimed))

    def test_export_import(self, admin, make_store) -> None:
        job = admin.create_job(Scope("a", ("docs",)), doc_id="d", source="s", kind="file", path="/p")
        (exported,) = admin.export_jobs("a")
        assert exported == admin.get_job("a", job.id)
        assert admin.import_job(exported) is False  # already there
