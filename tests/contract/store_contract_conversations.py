"""The store contract for conversations and messages (issue 10): every backend
(SQLite; PostgreSQL; Qdrant with its catalog) keeps them per tenant and owner,
stores both turns atomically, embeds in the background and searches an owner's
embedded messages only. A backend's test module mixes ``ConversationContract``
into its ``StoreContract`` subclass."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragline.errors import NotFoundError
from ragline.store import Store
from ragline.store.conversations import NewMessage

from tests.contract_helpers import _Base

MODEL = "test/model"
D = 8


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=D).astype(np.float32)
    return v / np.linalg.norm(v)


def exchange(store: Store, tenant: str, owner: str | None, cid: str, question: str, answer: str,
             citations: list | None = None) -> list:
    return store.conversations.add_messages(tenant, owner, cid, [
        NewMessage("user", question), NewMessage("assistant", answer, {"citations": citations or []})])


class ConversationContract(_Base):
    def test_create_list_get_rename_delete(self, store: Store) -> None:
        conv = store.conversations
        a = conv.create_conversation("acme", "alice", title="Overdrafts", collections=["kb"])
        b = conv.create_conversation("acme", "alice", title="Cards", collections=["kb", "hr"])
        assert a.id != b.id and a.id.startswith("conv_")
        exchange(store, "acme", "alice", a.id, "What is an overdraft?", "A limit [1].", [{"n": 1, "doc_id": "d1"}])
        listed = conv.list_conversations("acme", "alice")
        assert [c.id for c in listed] == [a.id, b.id]  # most recently updated first
        assert listed[0].messages == 2 and listed[1].collections == ["kb", "hr"]
        got = conv.get_conversation("acme", "alice", a.id)
        assert (got.title, got.owner, got.tenant) == ("Overdrafts", "alice", "acme")
        renamed = conv.rename_conversation("acme", "alice", a.id, "Überziehung — fees")
        assert renamed is not None and renamed.title == "Überziehung — fees"
        messages = conv.list_messages("acme", "alice", a.id)
        assert [(m.role, m.content) for m in messages] == [("user", "What is an overdraft?"),
                                                         ("assistant", "A limit [1].")]
        assert messages[1].metadata["citations"] == [{"n": 1, "doc_id": "d1"}] and not messages[0].embedded
        assert [m.content for m in conv.list_messages("acme", "alice", a.id, last=1)] == ["A limit [1]."]
        assert conv.delete_conversation("acme", "alice", a.id)
        assert not conv.delete_conversation("acme", "alice", a.id)
        assert conv.get_conversation("acme", "alice", a.id) is None
        assert conv.list_messages("acme", "alice", a.id) == []
        assert [c.id for c in conv.list_conversations("acme", "alice")] == [b.id]

    def test_tenant_and_owner_walls(self, store: Store) -> None:
        conv = store.conversations
        mine = conv.create_conversation("acme", "alice", title="mine", collections=["kb"])
        exchange(store, "acme", "alice", mine.id, "q", "a")
        shared = conv.create_conversation("acme", None, title="no owner", collections=["kb"])
        for tenant, owner in (("acme", "bob"), ("acme", None), ("other", "alice")):
            assert conv.get_conversation(tenant, owner, mine.id) is None
            assert conv.list_messages(tenant, owner, mine.id) == []
            assert conv.rename_conversation(tenant, owner, mine.id, "stolen") is None
            assert not conv.delete_conversation(tenant, owner, mine.id)
            with pytest.raises(NotFoundError):
                exchange(store, tenant, owner, mine.id, "inject", "x")
        assert [c.id for c in conv.list_conversations("acme", None)] == [shared.id]  # never "shared plus own"
        assert conv.list_conversations("acme", "bob") == [] and conv.list_conversations("other", "alice") == []
        assert conv.get_conversation("acme", "alice", mine.id).title == "mine"
        assert len(conv.list_messages("acme", "alice", mine.id)) == 2

    def test_messages_are_searchable_only_once_embedded(self, store: Store) -> None:
        conv = store.conversations
        c = conv.create_conversation("acme", "alice", title="t", collections=["kb"])
        first = exchange(store, "acme", "alice", c.id, "my savings goal is a boat", "noted")
        assert conv.search_messages("acme", "alice", vec(1), 5, model_id=MODEL) == []
        pending = conv.unembedded_messages(10)
        assert [(t, m) for t, m, _ in pending] == [("acme", first[0].id), ("acme", first[1].id)]
        assert pending[0][2] == "my savings goal is a boat"
        assert conv.set_message_embeddings("acme", MODEL, [(first[0].id, vec(1))]) == 1
        assert conv.set_message_embeddings("other", MODEL, [(first[1].id, vec(2))]) == 0  # another tenant's id
        found = conv.search_messages("acme", "alice", vec(1), 5, model_id=MODEL)
        assert [(m.id, m.embedded) for m, _ in found] == [(first[0].id, True)]
        assert found[0][1] == pytest.approx(1.0, abs=1e-5)
        assert conv.search_messages("acme", "alice", vec(1), 5, model_id="other/model") == []
        assert conv.search_messages("acme", "alice", vec(1), 5, model_id=MODEL, exclude_conversation=c.id) == []
        assert [m for _, m, _ in conv.unembedded_messages(10)] == [first[1].id]
        assert [m for _, m, _ in conv.unembedded_messages(10, tenant="other")] == []

    def test_randomized_owner_isolation_of_message_search(self, store: Store) -> None:
        """Many owners in two tenants with interleaved messages: every search returns
        the searching owner's messages only, ranked by exact cosine."""
        conv, rng = store.conversations, random.Random(10)
        owners = [("acme", "alice"), ("acme", "bob"), ("acme", None), ("beta", "alice")]
        ids: dict[tuple, list[str]] = {o: [] for o in owners}
        vectors: dict[str, np.ndarray] = {}
        convs = {o: conv.create_conversation(o[0], o[1], title="t", collections=["kb"]).id for o in owners}
        for i in range(60):
            o = rng.choice(owners)
            m = conv.add_messages(o[0], o[1], convs[o], [NewMessage(rng.choice(["user", "assistant"]), f"m{i}")])[0]
            vectors[m.id] = vec(1000 + i)
            ids[o].append(m.id)
            conv.set_message_embeddings(o[0], MODEL, [(m.id, vectors[m.id])])
        for _ in range(20):
            o = rng.choice(owners)
            q = vec(rng.randrange(1 << 30))
            found = conv.search_messages(o[0], o[1], q, 5, model_id=MODEL)
            assert {m.id for m, _ in found} <= set(ids[o])
            assert all(m.owner == o[1] and m.tenant == o[0] for m, _ in found)
            expected = sorted(ids[o], key=lambda mid: -float(vectors[mid] @ q))[:5]
            assert [m.id for m, _ in found] == expected

    def test_deleting_a_conversation_removes_its_messages_from_search(self, store: Store) -> None:
        conv = store.conversations
        c = conv.create_conversation("acme", "alice", title="t", collections=["kb"])
        m = exchange(store, "acme", "alice", c.id, "forget me", "ok")
        conv.set_message_embeddings("acme", MODEL, [(x.id, vec(5)) for x in m])
        assert len(conv.search_messages("acme", "alice", vec(5), 5, model_id=MODEL)) == 2
        conv.delete_conversation("acme", "alice", c.id)
        assert conv.search_messages("acme", "alice", vec(5), 5, model_id=MODEL) == []
        assert conv.unembedded_messages(10) == []

    def test_text_survives_the_round_trip(self, store: Store) -> None:
        conv = store.conversations
        c = conv.create_conversation("acme", "alice", title="日本語 \N{GRINNING FACE}", collections=[])
        text = "Zürich → 東京 | a | b |\n| --- |\nnul:\x00end"
        conv.add_messages("acme", "alice", c.id, [NewMessage("user", text, {"query": "x\x00y", "n": 1})])
        stored = conv.list_messages("acme", "alice", c.id)[0]
        assert stored.content == text.replace("\x00", "\ufffd")  # NUL kept as U+FFFD on every backend
        assert stored.metadata["n"] == 1 and conv.get_conversation("acme", "alice", c.id).title.startswith("日本語")

    def test_answer_policy_per_collection(self, store: Store) -> None:
        conv = store.conversations
        assert conv.get_answer_policy("acme", "kb") is None
        conv.set_answer_policy("acme", "kb", "general")
        conv.set_answer_policy("acme", "kb", "general")  # idempotent
        assert conv.get_answer_policy("acme", "kb") == "general"
        assert conv.get_answer_policy("acme", "hr") is None and conv.get_answer_policy("other", "kb") is None
        conv.set_answer_policy("acme", "kb", None)
        assert conv.get_answer_policy("acme", "kb") is None

    def test_export_and_import_keep_ids_times_and_embeddings(self, store: Store) -> None:
        conv = store.conversations
        c = conv.create_conversation("acme", "alice", title="moved", collections=["kb"])
        written = exchange(store, "acme", "alice", c.id, "to be moved", "ok [1]", [{"n": 1, "doc_id": "d"}])
        conv.set_message_embeddings("acme", MODEL, [(written[0].id, vec(7))])
        [stored] = [s for s in conv.export_conversations("acme") if s.conversation.id == c.id]
        assert [m.id for m in stored.messages] == [m.id for m in written] and set(stored.embeddings) == {written[0].id}
        assert not conv.import_conversation(stored)  # the id exists: nothing inserted
        conv.delete_conversation("acme", "alice", c.id)
        assert conv.import_conversation(stored)
        back = conv.list_messages("acme", "alice", c.id)
        assert [(m.id, m.content, m.created) for m in back] == [(m.id, m.content, m.created) for m in written]
        assert back[1].metadata["citations"] == [{"n": 1, "doc_id": "d"}]
        found = conv.search_messages("acme", "alice", vec(7), 5, model_id=MODEL)
        assert [m.id for m, _ in found] == [written[0].id]
        assert conv.get_conversation("acme", "alice", c.id).messages == 2
        assert conv.export_conversations("other") == []
