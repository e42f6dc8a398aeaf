"""``ConversationStore`` on PostgreSQL: a mixin for ``PostgresStore`` (it uses the
store's ``_tx``, so every transaction is scoped for Row-Level Security), and the
schema migration (version 5) that adds its tables behind the same tenant wall.

Message search is exact cosine (``<=>``) over the owner's embedded messages,
found by an index seek on (tenant, owner, model): a user's history is small next
to a collection, so no ANN index is needed (10k messages: see ``bench/``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg.types.json import Jsonb

from ...errors import NotFoundError, StoreError
from ..conversations import (
    ConversationInfo,
    MessageInfo,
    NewMessage,
    StoredConversation,
    new_conversation_id,
    new_message_id,
    owner_key,
    owner_of,
)
from ..sql.common import one_row
from .filters import nul_free

if TYPE_CHECKING:
    from .conn import PostgresDatabase

_CONV = "id, tenant, owner, title, collections, created, updated, message_count"
_MSG = "id, conversation_id, tenant, owner, role, content, metadata, created, seq, embedding IS NOT NULL"


def _conversation(r: tuple) -> ConversationInfo:
    return ConversationInfo(id=r[0], tenant=r[1], owner=owner_of(r[2]), title=r[3], collections=list(r[4]),
                            created=r[5], updated=r[6], messages=r[7])


def _message(r: tuple) -> MessageInfo:
    return MessageInfo(id=r[0], conversation_id=r[1], tenant=r[2], owner=owner_of(r[3]), role=r[4], content=r[5],
                       metadata=dict(r[6]), created=r[7], seq=r[8], embedded=bool(r[9]))


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return nul_free(value)
    if isinstance(value, dict):
        return {nul_free(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class PostgresConversations:
    """Conversations and messages on PostgreSQL (the ``ConversationStore`` role)."""

    def __init__(self, db: PostgresDatabase) -> None:
        self.db = db

    def create_conversation(self, tenant: str, owner: str | None, *, title: str,
                            collections: list[str], conversation_id: str | None = None) -> ConversationInfo:
        cid, now = conversation_id or new_conversation_id(), time.time()
        with self.db.tx(tenant) as cur:
            cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (tenant, now))
            cur.execute(f"INSERT INTO conversations ({_CONV}) VALUES (%s, %s, %s, %s, %s, %s, %s, 0) "
                        "ON CONFLICT (id) DO NOTHING",
                        (cid, tenant, owner_key(owner), nul_free(title), Jsonb(list(collections)), now, now))
            if cur.rowcount == 0:
                raise StoreError(f"conversation id {cid} is taken")
        return ConversationInfo(cid, tenant, owner, nul_free(title), list(collections), now, now, 0)

    def list_conversations(self, tenant: str, owner: str | None, *, limit: int = 100) -> list[ConversationInfo]:
        with self.db.tx(tenant) as cur:
            cur.execute(f"SELECT {_CONV} FROM conversations WHERE tenant = %s AND owner = %s "
                        "ORDER BY updated DESC, id LIMIT %s", (tenant, owner_key(owner), int(limit)))
            return [_conversation(r) for r in cur.fetchall()]

    def get_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> ConversationInfo | None:
        with self.db.tx(tenant) as cur:
            cur.execute(f"SELECT {_CONV} FROM conversations WHERE tenant = %s AND owner = %s AND id = %s",
                        (tenant, owner_key(owner), conversation_id))
            row = cur.fetchone()
        return _conversation(row) if row else None

    def rename_conversation(self, tenant: str, owner: str | None, conversation_id: str,
                            title: str) -> ConversationInfo | None:
        with self.db.tx(tenant) as cur:
            cur.execute("UPDATE conversations SET title = %s WHERE tenant = %s AND owner = %s AND id = %s",
                        (nul_free(title), tenant, owner_key(owner), conversation_id))
        return self.get_conversation(tenant, owner, conversation_id)

    def delete_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> bool:
        with self.db.tx(tenant) as cur:
            cur.execute("DELETE FROM conversations WHERE tenant = %s AND owner = %s AND id = %s",
                        (tenant, owner_key(owner), conversation_id))
            return cur.rowcount > 0

    def add_messages(self, tenant: str, owner: str | None, conversation_id: str,
                     messages: list[NewMessage]) -> list[MessageInfo]:
        now, out = time.time(), []
        with self.db.tx(tenant) as cur:
            cur.execute("SELECT 1 FROM conversations WHERE tenant = %s AND owner = %s AND id = %s FOR UPDATE",
                        (tenant, owner_key(owner), conversation_id))
            if cur.fetchone() is None:
                raise NotFoundError(f"conversation {conversation_id!r} not found")
            for m in messages:
                mid, content, metadata = new_message_id(), nul_free(m.content), _clean(m.metadata)
                seq = one_row(cur, "INSERT INTO messages (id, conversation_id, tenant, owner, role, content, "
                              "metadata, created) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq",
                              (mid, conversation_id, tenant, owner_key(owner), m.role, content,
                               Jsonb(metadata, dumps=_dumps), now))[0]
                out.append(MessageInfo(mid, conversation_id, tenant, owner, m.role, content,
                                       _roundtrip(metadata), now, seq))
            cur.execute("UPDATE conversations SET updated = %s, message_count = message_count + %s WHERE id = %s",
                        (now, len(messages), conversation_id))
        return out

    def list_messages(self, tenant: str, owner: str | None, conversation_id: str, *,
                      last: int | None = None) -> list[MessageInfo]:
        with self.db.tx(tenant) as cur:
            cur.execute(f"SELECT {_MSG} FROM messages WHERE conversation_id = %s AND tenant = %s AND owner = %s "
                        "ORDER BY seq DESC LIMIT %s", (conversation_id, tenant, owner_key(owner), last))
            rows = cur.fetchall()
        return [_message(r) for r in reversed(rows)]

    def unembedded_messages(self, limit: int = 256, tenant: str | None = None) -> list[tuple[str, str, str]]:
        where, params = ("AND tenant = %s", [tenant]) if tenant is not None else ("", [])
        with self.db.tx(tenant) as cur:
            cur.execute(f"SELECT tenant, id, content FROM messages WHERE embedding IS NULL {where} "
                        "ORDER BY seq LIMIT %s", [*params, int(limit)])
            return [(r[0], r[1], r[2]) for r in cur.fetchall()]

    def set_message_embeddings(self, tenant: str, model_id: str, items: list[tuple[str, np.ndarray]]) -> int:
        done = 0
        with self.db.tx(tenant) as cur:
            for mid, vector in items:
                cur.execute("UPDATE messages SET embedding = %s, model_id = %s WHERE id = %s AND tenant = %s",
                            (np.asarray(vector, dtype=np.float32), model_id, mid, tenant))
                done += cur.rowcount
        return done

    def search_messages(self, tenant: str, owner: str | None, vector: np.ndarray, k: int, *, model_id: str,
                        exclude_conversation: str | None = None) -> list[tuple[MessageInfo, float]]:
        if k <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32)
        with self.db.tx(tenant) as cur:
            cur.execute(
                f"SELECT {_MSG}, 1 - (embedding <=> %s) AS score FROM messages "
                "WHERE tenant = %s AND owner = %s AND model_id = %s AND embedding IS NOT NULL "
                "AND conversation_id IS DISTINCT FROM %s AND vector_dims(embedding) = %s "
                "ORDER BY embedding <=> %s LIMIT %s",
                (q, tenant, owner_key(owner), model_id, exclude_conversation, int(q.shape[0]), q, int(k)))
            rows = cur.fetchall()
        return [(_message(r[:10]), float(r[10])) for r in rows]

    def get_answer_policy(self, tenant: str, collection: str) -> str | None:
        with self.db.tx(tenant) as cur:
            cur.execute("SELECT policy FROM answer_policies WHERE tenant = %s AND collection = %s",
                        (tenant, collection))
            row = cur.fetchone()
        return row[0] if row else None

    def set_answer_policy(self, tenant: str, collection: str, policy: str | None) -> None:
        with self.db.tx(tenant) as cur:
            if policy is None:
                cur.execute("DELETE FROM answer_policies WHERE tenant = %s AND collection = %s", (tenant, collection))
                return
            cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (tenant, time.time()))
            cur.execute("INSERT INTO answer_policies VALUES (%s, %s, %s) ON CONFLICT (tenant, collection) "
                        "DO UPDATE SET policy = excluded.policy", (tenant, collection, policy))

    def export_conversations(self, tenant: str) -> list[StoredConversation]:
        out = []
        with self.db.tx(tenant) as cur:
            cur.execute(f"SELECT {_CONV} FROM conversations WHERE tenant = %s ORDER BY created, id", (tenant,))
            convs = [_conversation(r) for r in cur.fetchall()]
            for conv in convs:
                cur.execute(f"SELECT {_MSG}, model_id, embedding FROM messages WHERE conversation_id = %s "
                            "AND tenant = %s ORDER BY seq", (conv.id, tenant))
                rows = cur.fetchall()
                out.append(StoredConversation(conv, [_message(m[:10]) for m in rows], {
                    m[0]: (m[10], np.asarray(m[11], dtype=np.float32)) for m in rows if m[11] is not None}))
        return out

    def import_conversation(self, stored: StoredConversation) -> bool:
        c = stored.conversation
        with self.db.tx(c.tenant) as cur:
            cur.execute("INSERT INTO tenants VALUES (%s, %s) ON CONFLICT DO NOTHING", (c.tenant, c.created))
            cur.execute(f"INSERT INTO conversations ({_CONV}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                        "ON CONFLICT (id) DO NOTHING",
                        (c.id, c.tenant, owner_key(c.owner), nul_free(c.title), Jsonb(list(c.collections)),
                         c.created, c.updated, len(stored.messages)))
            if cur.rowcount == 0:
                return False
            for m in stored.messages:
                model_id, vector = stored.embeddings.get(m.id, (None, None))
                cur.execute("INSERT INTO messages (id, conversation_id, tenant, owner, role, content, metadata, "
                            "created, model_id, embedding) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                            (m.id, c.id, c.tenant, owner_key(c.owner), m.role, nul_free(m.content),
                             Jsonb(_clean(m.metadata), dumps=_dumps), m.created, model_id,
                             None if vector is None else np.asarray(vector, dtype=np.float32)))
        return True


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, default=str)


def _roundtrip(value: Any) -> Any:
    import json

    return json.loads(_dumps(value))
