"""Tenant isolation, randomized: many tenants and owners; every search, listing and
fetch only ever returns what its scope may see."""

from __future__ import annotations

import random

import pytest

from ragline.models import Block, Document, Scope

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike"]


def _doc(tenant: str, collection: str, owner: str | None, i: int, rng: random.Random) -> Document:
    # Every document shares vocabulary with every other, so only the scope can separate them.
    body = " ".join(rng.choice(WORDS) for _ in range(30))
    marker = f"{tenant}|{collection}|{owner or '-'}|{i}"
    return Document(source=f"{marker}.txt", blocks=[Block(f"{body} secret-{marker}")], metadata={"marker": marker})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_randomized_isolation(engine, seed: int) -> None:
    rng = random.Random(seed)
    tenants = [f"t{i}" for i in range(5)]
    collections = ["kb", "hr"]
    owners = [None, "ann", "bob"]
    truth: dict[tuple[str, str, str | None], set[str]] = {}
    for tenant in tenants:
        for collection in collections:
            for owner in owners:
                docs = [_doc(tenant, collection, owner, i, rng) for i in range(rng.randint(1, 4))]
                engine.add_documents(docs, Scope(tenant, (collection,), owner))
                truth[(tenant, collection, owner)] = {d.source for d in docs}

    def visible(scope: Scope) -> set[str]:
        allowed = set()
        for collection in scope.collections:
            allowed |= truth[(scope.tenant, collection, None)]
            if scope.owner:
                allowed |= truth[(scope.tenant, collection, scope.owner)]
        return allowed

    for _ in range(60):
        scope = Scope(rng.choice(tenants), tuple(rng.sample(collections, rng.randint(1, 2))), rng.choice(owners))
        allowed = visible(scope)
        query = " ".join(rng.sample(WORDS, 3)) + " secret " + rng.choice(tenants)
        for mode in ("dense", "keyword", "hybrid"):
            hits = engine.search(query, scope, mode=mode, k=100).hits
            sources = {h.source for h in hits}
            assert sources <= allowed, (scope, mode, sources - allowed)
        listed = {d.source for d in engine.store.list_documents(scope)}
        assert listed == allowed
        # Asking the store for another scope's chunk ids by name yields nothing.
        other = Scope(rng.choice([t for t in tenants if t != scope.tenant]), scope.collections, scope.owner)
        foreign = [(h.chunk_id, 1.0) for h in engine.search(query, other, mode="keyword", k=100).hits]
        assert {h.source for h in engine.store.get_hits(scope, foreign)} <= allowed
        # Deleting another tenant's document ids through this scope deletes nothing.
        foreign_docs = [d.id for d in engine.store.list_documents(other)]
        assert engine.delete(scope, foreign_docs) == 0


def test_same_source_for_two_owners_stays_separate(engine) -> None:
    ann, bob = Scope("t", ("kb",), "ann"), Scope("t", ("kb",), "bob")
    engine.add_documents([Document("notes.txt", [Block("ann private salary note")])], ann)
    engine.add_documents([Document("notes.txt", [Block("bob private medical note")])], bob)
    assert [h.text for h in engine.search("note", ann, k=10).hits] == ["ann private salary note"]
    assert [h.text for h in engine.search("note", bob, k=10).hits] == ["bob private medical note"]
    assert engine.search("note", Scope("t", ("kb",)), k=10).hits == []


def test_scope_requires_tenant_and_collection() -> None:
    with pytest.raises(ValueError):
        Scope("", ("kb",))
    with pytest.raises(ValueError):
        Scope("t", ())
