"""Who may read and who may change a row that has an owner: the one definition of
the rule, which every backend renders into its own query language (``sql.common``
for SQLite and PostgreSQL, ``qdrant.filters`` for Qdrant, the SQLite search's
in-memory owner masks) and the server asks (``may_see``) instead of re-stating it.

A row (document, chunk, job) is shared (owner None) or belongs to one owner, a user
inside the tenant. A scope reads the shared rows plus its own owner's; an owner-less
scope reads shared rows only. Writes and deletes touch exactly the scope's owner's
rows (shared ones for an owner-less scope), so a user never changes shared rows or
another user's. Conversations are stricter (private, never shared): see
``conversations``.
"""

from __future__ import annotations

Owners = tuple["str | None", ...]
"""Row owners a scope may touch; None stands for shared rows."""


def visible_owners(owner: str | None) -> Owners:
    """The row owners a scope with ``owner`` may read: shared rows, plus its own."""
    return (None,) if owner is None else (None, owner)


def changeable_owners(owner: str | None) -> Owners:
    """The row owners a scope with ``owner`` may change or delete: exactly its own."""
    return (owner,)


def may_see(row_owner: str | None, owner: str | None) -> bool:
    """Whether a scope with ``owner`` may read a row of ``row_owner``."""
    return row_owner in visible_owners(owner)
