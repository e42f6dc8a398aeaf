"""The SQL the PostgreSQL searches compile: metadata filters; and keyword lexemes.

Filters: a parsed ``Filter`` → a parameterised condition over documents ``d`` and
chunks ``c``. Semantics are defined in ``filters`` and match ``sqlite.filters``;
user metadata is ``jsonb``.

jsonb makes typed equality cheap: ``'2020'::jsonb = '2020.0'::jsonb`` (numbers
compare by value) but never equals ``'"2020"'`` or ``'true'``, which is exactly
the grammar's rule. Ranges cast to ``numeric`` only inside a ``CASE`` that has
checked the value is a number, so a string value never raises a cast error.

Keyword search (``keywords``) stores ragline's analysed terms as lexemes, folded
here as FTS5 folds them, so no text-search parser re-tokenizes or re-stems them.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, overload

from ..filters import Condition, Filter
from ..sql.common import COMPARISONS, compile_conditions

MAX_LEXEME_BYTES = 2046  # longer terms are dropped (a btree row must fit a page; none is a real word)
K1, B = 1.2, 0.75  # FTS5's bm25() constants

_VALUE = "(d.metadata -> %s::text)"


def compile_postgres(conditions: Filter) -> tuple[str, list[Any]]:
    """``(" AND …", params)`` with ``%s`` placeholders; empty when there is no condition."""
    return compile_conditions(conditions, "%s", _meta)


def _meta(cond: Condition) -> tuple[str, list[Any]]:
    if cond.op == "in":
        return f"{_VALUE} = ANY(%s::jsonb[])", [cond.key, [_json(v) for v in cond.value]]
    if cond.op in COMPARISONS:
        sql = (f"(CASE WHEN jsonb_typeof({_VALUE}) = 'number' "
               f"THEN {_VALUE}::numeric {COMPARISONS[cond.op]} %s::numeric ELSE false END)")
        return sql, [cond.key, cond.key, cond.value]
    sql, params = _equals(cond.key, cond.value)
    if cond.op == "ne":
        return f"NOT coalesce({sql}, false)", params
    return sql, params


def _equals(key: str, value: Any) -> tuple[str, list[Any]]:
    if value is None:
        # Missing key (SQL NULL) and JSON null both count as null.
        return f"coalesce(jsonb_typeof({_VALUE}), 'null') = 'null'", [key]
    return f"{_VALUE} = %s::jsonb", [key, _json(value)]


def _json(value: Any) -> str:
    return json.dumps(value)


# -- keyword search ------------------------------------------------------------------
def query_lexemes(terms: list[str]) -> list[str]:
    """The lexemes a query's terms stand for in the postings (built from the same
    analyzed terms, in the collection's language; duplicates kept: FTS5 scores a
    repeated phrase twice)."""
    return [lex for lex in map(lexeme, terms) if lex is not None]


def lexeme(term: str) -> str | None:
    term = _fold(term)
    if not term or len(term.encode()) > MAX_LEXEME_BYTES or "\x00" in term:
        return None
    return term


def _fold(term: str) -> str:
    """Drop diacritics from Latin letters, as FTS5's unicode61 tokenizer does by
    default (``remove_diacritics``), so "café" and "cafe" meet as in SQLite."""
    if term.isascii():
        return term
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", term):
        if unicodedata.combining(ch) and out and out[-1] < "\u0250":
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@overload
def nul_free(value: str) -> str: ...
@overload
def nul_free(value: None) -> None: ...
@overload
def nul_free(value: str | None) -> str | None: ...


def nul_free(value: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL; U+FFFD keeps every offset where it was."""
    return value.replace("\x00", "\ufffd") if value and "\x00" in value else value
