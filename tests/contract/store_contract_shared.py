"""What replicas share through the store besides the job queue: the request-rate
buckets (``draw_tokens``) and kept uploads (``put_upload``). Part of ``StoreContract``."""

from __future__ import annotations

import threading

import pytest

from ragline.models import Scope
from ragline.store import Store

from tests.contract_helpers import _Base


class SharedContract(_Base):
    def test_a_bucket_admits_its_capacity_then_refuses(self, store: Store) -> None:
        store.ensure_tenant("a")
        store.ensure_tenant("b")
        waits = [store.draw_tokens("a", "requests", 1, capacity=5, rate=5 / 60) for _ in range(7)]
        assert waits[:5] == [0.0] * 5 and all(w > 0 for w in waits[5:])
        assert 0 < waits[5] <= 12.1  # one token comes back in 12 s at 5 a minute
        # Another tenant's bucket, and another bucket of the same tenant, are their own.
        assert store.draw_tokens("b", "requests", 1, capacity=5, rate=5 / 60) == 0.0
        assert store.draw_tokens("a", "other", 1, capacity=5, rate=5 / 60) == 0.0

    def test_a_bucket_refills_at_its_rate(self, store: Store) -> None:
        store.ensure_tenant("a")
        assert store.draw_tokens("a", "requests", 1, capacity=1, rate=50.0) == 0.0
        assert store.draw_tokens("a", "requests", 1, capacity=1, rate=0.001) > 0  # empty (rate now tiny)
        import time
        time.sleep(0.1)
        assert store.draw_tokens("a", "requests", 1, capacity=1, rate=50.0) == 0.0  # 0.1 s × 50/s refilled it

    def test_debt_is_taken_and_paid_back(self, store: Store) -> None:
        store.ensure_tenant("a")
        assert store.draw_tokens("a", "bytes", 0, capacity=100, rate=10, debt=True) == 0.0
        wait = store.draw_tokens("a", "bytes", 150, capacity=100, rate=10, debt=True)
        assert 4.9 < wait < 5.2  # 50 in debt at 10 a second
        assert store.draw_tokens("a", "bytes", 0, capacity=100, rate=10, debt=True) > 0

    def test_processes_share_one_bucket(self, store: Store, make_store) -> None:
        """Two stores over the same data (two replicas) drawing at once take exactly the capacity."""
        store.ensure_tenant("a")
        other = make_store()
        taken: list[float] = []
        lock = threading.Lock()

        def draw(s: Store) -> None:
            for _ in range(15):
                wait = s.draw_tokens("a", "requests", 1, capacity=12, rate=12 / 3600)
                with lock:
                    taken.append(wait)

        threads = [threading.Thread(target=draw, args=(s,)) for s in (store, other, store, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        other.close()
        assert sum(w == 0 for w in taken) == 12 and len(taken) == 60

    def test_uploads_round_trip_in_parts(self, store: Store) -> None:
        scope = Scope("a", ("docs",), None)
        store.ensure_tenant("a")
        parts = [b"x" * 1000, b"y" * 10, b"\0z"]
        assert store.put_upload(scope, "d1", "f.txt", parts) == 1012
        assert b"".join(store.read_upload(scope, "d1", "f.txt") or []) == b"".join(parts)
        # Replaced whole by a new upload of the same name.
        store.put_upload(scope, "d1", "f.txt", [b"new"])
        assert b"".join(store.read_upload(scope, "d1", "f.txt") or []) == b"new"
        assert store.read_upload(scope, "d1", "other.txt") is None

    def test_uploads_are_scoped(self, store: Store) -> None:
        for tenant in ("a", "b"):
            store.ensure_tenant(tenant)
        mine = Scope("a", ("docs",), "ann")
        store.put_upload(mine, "d1", "f.txt", [b"ann's"])
        for other in (Scope("b", ("docs",), "ann"), Scope("a", ("other",), "ann"), Scope("a", ("docs",), None),
                      Scope("a", ("docs",), "bob")):
            assert store.read_upload(other, "d1", "f.txt") is None, other
        assert store.delete_uploads("b", collection="docs") == 0  # another tenant's delete touches nothing
        assert store.read_upload(mine, "d1", "f.txt") is not None

    def test_uploads_are_deleted_by_document_and_collection(self, store: Store) -> None:
        store.ensure_tenant("a")
        scope = Scope("a", ("docs",), None)
        for doc in ("d1", "d2"):
            store.put_upload(scope, doc, "f.txt", [b"1", b"2"])
        store.put_upload(scope, "d1", ".ragline-password", [b"secret"])
        assert store.delete_uploads("a", collection="docs", doc_id="d1", name=".ragline-password") == 1
        assert store.read_upload(scope, "d1", "f.txt") is not None
        assert store.delete_uploads("a", collection="docs", doc_id="d1") == 2
        assert store.read_upload(scope, "d1", "f.txt") is None and store.read_upload(scope, "d2", "f.txt") is not None
        assert store.delete_uploads("a", collection="docs") == 2
        assert store.read_upload(scope, "d2", "f.txt") is None

    def test_a_failed_upload_keeps_the_previous_one(self, store: Store) -> None:
        store.ensure_tenant("a")
        scope = Scope("a", ("docs",), None)
        store.put_upload(scope, "d1", "f.txt", [b"old"])

        def broken():
            yield b"new part"
            raise OSError("the client went away")

        with pytest.raises(OSError):
            store.put_upload(scope, "d1", "f.txt", broken())
        assert b"".join(store.read_upload(scope, "d1", "f.txt") or []) == b"old"
