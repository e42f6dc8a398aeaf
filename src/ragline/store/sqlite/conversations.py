"""``ConversationStore`` on the embedded store: a mixin for ``SQLiteStore`` (it uses
the store's ``_write``/``_read``). Message search is exact cosine over the owner's
embedded messages, read by an index seek on (tenant, owner)."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict

import numpy as np

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
from .conn import SQLiteDatabase

SCHEMA_CONVERSATIONS = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    owner TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL,
    collections TEXT NOT NULL DEFAULT '[]',
    created REAL NOT NULL,
    updated REAL NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS conversations_owner ON conversations (tenant, owner, updated);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    model_id TEXT,
    embedding BLOB
);
CREATE INDEX IF NOT EXISTS messages_conversation ON messages (conversation_id, seq);
CREATE INDEX IF NOT EXISTS messages_owner ON messages (tenant, owner, model_id);
CREATE INDEX IF NOT EXISTS messages_pending ON messages (seq) WHERE embedding IS NULL;
CREATE TABLE IF NOT EXISTS message_versions (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant, owner)
);
CREATE TABLE IF NOT EXISTS answer_policies (
    tenant TEXT NOT NULL REFERENCES tenants(name) ON DELETE CASCADE,
    collection TEXT NOT NULL,
    policy TEXT NOT NULL,
    PRIMARY KEY (tenant, collection)
);
"""

_CONV = "id, tenant, owner, title, collections, created, updated, message_count"
_MSG = "id, conversation_id, tenant, owner, role, content, metadata, created, seq, embedding IS NOT NULL"


def _conversation(r: tuple) -> ConversationInfo:
    return ConversationInfo(id=r[0], tenant=r[1], owner=owner_of(r[2]), title=r[3], collections=json.loads(r[4]),
                            created=r[5], updated=r[6], messages=r[7])


def _message(r: tuple) -> MessageInfo:
    return MessageInfo(id=r[0], conversation_id=r[1], tenant=r[2], owner=owner_of(r[3]), role=r[4], content=r[5],
                       metadata=json.loads(r[6]), created=r[7], seq=r[8], embedded=bool(r[9]))


CACHE_ROWS = 5_000  # an owner with at least this many embedded messages keeps a matrix in memory
CACHE_OWNERS = 4  # … for this many owners at most (least recently used dropped)
_BUMP = ("INSERT INTO message_versions VALUES (?, ?, 1) ON CONFLICT (tenant, owner) "
         "DO UPDATE SET version = version + 1")


class SQLiteConversations:
    """Conversations and messages on SQLite (the ``ConversationStore`` role). A large
    owner's embedded messages are kept as a matrix in memory, checked against the
    owner's version (one row, bumped in the transaction of every change to its embedded
    messages), so another process's write is seen at the next search."""

    def __init__(self, db: SQLiteDatabase) -> None:
        self.db = db
        self._msg_cache: tuple[threading.Lock, OrderedDict] = (threading.Lock(), OrderedDict())

    def _message_cache(self) -> tuple[threading.Lock, OrderedDict]:
        return self._msg_cache

    def create_conversation(self, tenant: str, owner: str | None, *, title: str,
                            collections: list[str], conversation_id: str | None = None) -> ConversationInfo:
        cid, now = conversation_id or new_conversation_id(), time.time()
        with self.db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO tenants VALUES (?, ?)", (tenant, now))
            exists = conn.execute("SELECT 1 FROM conversations WHERE id = ?", (cid,)).fetchone()
            if exists:
                raise StoreError(f"conversation id {cid} is taken")
            conn.execute(f"INSERT INTO conversations ({_CONV}) VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                         (cid, tenant, owner_key(owner), title, json.dumps(list(collections)), now, now))
        return ConversationInfo(cid, tenant, owner, title, list(collections), now, now, 0)

    def list_conversations(self, tenant: str, owner: str | None, *, limit: int = 100) -> list[ConversationInfo]:
        rows = self.db.read(f"SELECT {_CONV} FROM conversations WHERE tenant = ? AND owner = ? "
                          "ORDER BY updated DESC, id LIMIT ?", (tenant, owner_key(owner), int(limit)))
        return [_conversation(r) for r in rows]

    def get_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> ConversationInfo | None:
        rows = self.db.read(f"SELECT {_CONV} FROM conversations WHERE tenant = ? AND owner = ? AND id = ?",
                          (tenant, owner_key(owner), conversation_id))
        return _conversation(rows[0]) if rows else None

    def rename_conversation(self, tenant: str, owner: str | None, conversation_id: str,
                            title: str) -> ConversationInfo | None:
        with self.db.write() as conn:
            conn.execute("UPDATE conversations SET title = ? WHERE tenant = ? AND owner = ? AND id = ?",
                         (title, tenant, owner_key(owner), conversation_id))
        return self.get_conversation(tenant, owner, conversation_id)

    def delete_conversation(self, tenant: str, owner: str | None, conversation_id: str) -> bool:
        with self.db.write() as conn:
            cur = conn.execute("DELETE FROM conversations WHERE tenant = ? AND owner = ? AND id = ?",
                               (tenant, owner_key(owner), conversation_id))
            if cur.rowcount:
                conn.execute(_BUMP, (tenant, owner_key(owner)))
            return cur.rowcount > 0

    def add_messages(self, tenant: str, owner: str | None, conversation_id: str,
                     messages: list[NewMessage]) -> list[MessageInfo]:
        now, out = time.time(), []
        with self.db.write() as conn:
            found = conn.execute("SELECT 1 FROM conversations WHERE tenant = ? AND owner = ? AND id = ?",
                                 (tenant, owner_key(owner), conversation_id)).fetchone()
            if found is None:
                raise NotFoundError(f"conversation {conversation_id!r} not found")
            for m in messages:
                mid = new_message_id()
                m = NewMessage(m.role, m.content.replace("\x00", "\ufffd"), m.metadata)  # as PostgreSQL stores it
                cur = conn.execute(
                    "INSERT INTO messages (id, conversation_id, tenant, owner, role, content, metadata, created) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (mid, conversation_id, tenant, owner_key(owner), m.role, m.content,
                     json.dumps(m.metadata, default=str), now))
                seq = cur.lastrowid
                assert seq is not None  # an INSERT sets it: the new row's rowid, which is its seq
                out.append(MessageInfo(mid, conversation_id, tenant, owner, m.role, m.content,
                                       json.loads(json.dumps(m.metadata, default=str)), now, seq))
            conn.execute("UPDATE conversations SET updated = ?, message_count = message_count + ? WHERE id = ?",
                         (now, len(messages), conversation_id))
        return out

    def list_messages(self, tenant: str, owner: str | None, conversation_id: str, *,
                      last: int | None = None) -> list[MessageInfo]:
        limit = -1 if last is None else int(last)
        rows = self.db.read(f"SELECT {_MSG} FROM messages WHERE conversation_id = ? AND tenant = ? AND owner = ? "
                          "ORDER BY seq DESC LIMIT ?", (conversation_id, tenant, owner_key(owner), limit))
        return [_message(r) for r in reversed(rows)]

    def unembedded_messages(self, limit: int = 256, tenant: str | None = None) -> list[tuple[str, str, str]]:
        where, params = ("AND tenant = ?", [tenant]) if tenant is not None else ("", [])
        rows = self.db.read(f"SELECT tenant, id, content FROM messages WHERE embedding IS NULL {where} "
                          "ORDER BY seq LIMIT ?", [*params, int(limit)])
        return [(r[0], r[1], r[2]) for r in rows]

    def set_message_embeddings(self, tenant: str, model_id: str, items: list[tuple[str, np.ndarray]]) -> int:
        done, owners = 0, set()
        with self.db.write() as conn:
            for mid, vector in items:
                row = conn.execute("UPDATE messages SET embedding = ?, model_id = ? WHERE id = ? AND tenant = ? "
                                   "RETURNING owner",
                                   (np.ascontiguousarray(vector, dtype=np.float32).tobytes(), model_id, mid,
                                    tenant)).fetchone()
                if row is not None:
                    done += 1
                    owners.add(row[0])
            for owner in owners:
                conn.execute(_BUMP, (tenant, owner))
        return done

    def search_messages(self, tenant: str, owner: str | None, vector: np.ndarray, k: int, *, model_id: str,
                        exclude_conversation: str | None = None) -> list[tuple[MessageInfo, float]]:
        if k <= 0:
            return []
        seqs, convs, matrix = self._owner_matrix(tenant, owner_key(owner), model_id)
        if exclude_conversation is not None and len(seqs):
            keep = convs != exclude_conversation
            seqs, convs, matrix = seqs[keep], convs[keep], matrix[keep]
        if not len(seqs):
            return []
        q = np.asarray(vector, dtype=np.float32)
        if matrix.shape[1] != q.shape[0]:
            raise StoreError(f"message embeddings have dimension {matrix.shape[1]}, the query {q.shape[0]}")
        scores = matrix @ q
        top = np.argpartition(-scores, k - 1)[:k] if len(seqs) > k else np.arange(len(seqs))
        top = top[np.argsort(-scores[top], kind="stable")]
        wanted = [int(seqs[i]) for i in top]
        marks = ",".join("?" * len(wanted))
        found = {r[8]: _message(r) for r in self.db.read(
            f"SELECT {_MSG} FROM messages WHERE tenant = ? AND owner = ? AND seq IN ({marks})",
            [tenant, owner_key(owner), *wanted])}
        return [(found[int(seqs[i])], float(scores[i])) for i in top if int(seqs[i]) in found]

    def _owner_matrix(self, tenant: str, owner: str, model_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(seqs, conversation ids, vectors) of the owner's embedded messages by ``model_id``."""
        lock, cache = self._message_cache()
        versions = self.db.read("SELECT version FROM message_versions WHERE tenant = ? AND owner = ?", (tenant, owner))
        version = versions[0][0] if versions else 0
        key = (tenant, owner, model_id)
        with lock:
            hit = cache.get(key)
            if hit is not None and hit[0] == version:
                cache.move_to_end(key)
                return hit[1]
        rows = self.db.read("SELECT seq, conversation_id, embedding FROM messages WHERE tenant = ? AND owner = ? "
                          "AND model_id = ? AND embedding IS NOT NULL ORDER BY seq", (tenant, owner, model_id))
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, object), np.zeros((0, 0), np.float32)
        dims = {len(r[2]) for r in rows}
        if len(dims) > 1:
            raise StoreError(f"messages embedded by {model_id} have several dimensions")
        entry = (np.fromiter((r[0] for r in rows), np.int64, len(rows)), np.array([r[1] for r in rows], dtype=object),
                 np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), -1))
        if len(rows) >= CACHE_ROWS:
            with lock:
                cache[key] = (version, entry)
                cache.move_to_end(key)
                while len(cache) > CACHE_OWNERS:
                    cache.popitem(last=False)
        return entry

    def get_answer_policy(self, tenant: str, collection: str) -> str | None:
        rows = self.db.read("SELECT policy FROM answer_policies WHERE tenant = ? AND collection = ?", (tenant, collection))
        return rows[0][0] if rows else None

    def set_answer_policy(self, tenant: str, collection: str, policy: str | None) -> None:
        with self.db.write() as conn:
            if policy is None:
                conn.execute("DELETE FROM answer_policies WHERE tenant = ? AND collection = ?", (tenant, collection))
                return
            conn.execute("INSERT OR IGNORE INTO tenants VALUES (?, ?)", (tenant, time.time()))
            conn.execute("INSERT INTO answer_policies VALUES (?, ?, ?) ON CONFLICT (tenant, collection) "
                         "DO UPDATE SET policy = excluded.policy", (tenant, collection, policy))

    def export_conversations(self, tenant: str) -> list[StoredConversation]:
        out = []
        for r in self.db.read(f"SELECT {_CONV} FROM conversations WHERE tenant = ? ORDER BY created, id", (tenant,)):
            conv = _conversation(r)
            rows = self.db.read(f"SELECT {_MSG}, model_id, embedding FROM messages WHERE conversation_id = ? "
                              "AND tenant = ? ORDER BY seq", (conv.id, tenant))
            out.append(StoredConversation(conv, [_message(m[:10]) for m in rows], {
                m[0]: (m[10], np.frombuffer(m[11], dtype=np.float32)) for m in rows if m[11] is not None}))
        return out

    def import_conversation(self, stored: StoredConversation) -> bool:
        c = stored.conversation
        with self.db.write() as conn:
            if conn.execute("SELECT 1 FROM conversations WHERE id = ?", (c.id,)).fetchone():
                return False
            conn.execute("INSERT OR IGNORE INTO tenants VALUES (?, ?)", (c.tenant, c.created))
            conn.execute(f"INSERT INTO conversations ({_CONV}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (c.id, c.tenant, owner_key(c.owner), c.title, json.dumps(c.collections), c.created,
                          c.updated, len(stored.messages)))
            for m in stored.messages:
                model_id, vector = stored.embeddings.get(m.id, (None, None))
                conn.execute("INSERT INTO messages (id, conversation_id, tenant, owner, role, content, metadata, "
                             "created, model_id, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (m.id, c.id, c.tenant, owner_key(c.owner), m.role, m.content,
                              json.dumps(m.metadata, default=str), m.created, model_id,
                              None if vector is None else np.ascontiguousarray(vector, np.float32).tobytes()))
            conn.execute(_BUMP, (c.tenant, owner_key(c.owner)))
        return True
