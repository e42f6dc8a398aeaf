"""The SQL the PostgreSQL searches compile: metadata filters and BM25 keyword queries.

Filters: a parsed ``Filter`` → a parameterised condition over documents ``d`` and
chunks ``c``. Semantics are defined in ``filters`` and match ``sqlite.filters``;
user metadata is ``jsonb``.

jsonb makes typed equality cheap: ``'2020'::jsonb = '2020.0'::jsonb`` (numbers
compare by value) but never equals ``'"2020"'`` or ``'true'``, which is exactly
the grammar's rule. Ranges cast to ``numeric`` only inside a ``CASE`` that has
checked the value is a number, so a string value never raises a cast error.

Keyword search: BM25 in SQL, term for term FTS5's ``bm25()`` (k1 = 1.2, b = 0.75,
idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, document length = number of
terms), over tsvectors built from ragline's analyzed terms as literals, so no
text-search parser re-tokenizes or re-stems them and term frequencies are exact.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, overload

from ..filters import Condition, Filter
from ..sql.common import COMPARISONS, compile_conditions

MAX_LEXEME_BYTES = 2046  # PostgreSQL refuses longer tsvector/tsquery lexemes
MAX_POSITION = 16383  # largest tsvector position
MAX_POSITIONS = 256  # positions kept per lexeme: term frequencies are exact up to this
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
BM25_SQL = """
WITH q AS (
    SELECT t.lexeme, t.query FROM unnest(%s::text[], %s::tsquery[]) AS t(lexeme, query)
), stats AS ({stats}
), idf AS MATERIALIZED (  -- once per term; FTS5: idf = ln((N - n + 0.5) / (n + 0.5)), at least 1e-6
    SELECT q.lexeme, greatest(ln((s.n - h.hits + 0.5) / (h.hits + 0.5)), 1e-6) AS idf
    FROM q CROSS JOIN stats s
    CROSS JOIN LATERAL (SELECT count(*)::float8 AS hits FROM chunks x
                        WHERE x.collection_id = {cid} AND x.tsv @@ q.query{seen}) h
), matched AS (
    SELECT c.id, c.tsv, c.length FROM chunks c{join}
    WHERE c.collection_id = {cid} AND c.tenant = %s{owner}{where} AND c.tsv @@ %s::tsquery
)
SELECT m.id, sum(i.idf * (f.tf * (%(k1)s + 1)) / (f.tf + %(k1)s * (1 - %(b)s + %(b)s * m.length / s.avgdl))) AS score
FROM matched m CROSS JOIN stats s
CROSS JOIN LATERAL (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf
                    FROM unnest(m.tsv) u) f
JOIN idf i ON i.lexeme = f.lexeme
GROUP BY m.id ORDER BY score DESC, m.id LIMIT %s
""".replace("%(k1)s", f"{K1!r}::float8").replace("%(b)s", f"{B!r}::float8")

WHOLE_STATS = """
    SELECT chunk_total::float8 AS n, greatest(length_total, 1)::float8 / greatest(chunk_total, 1) AS avgdl
    FROM collections WHERE id = {cid}"""
"""BM25's N and average length over the whole collection (kept up to date on writes)."""

SEEN_STATS = """
    SELECT count(*)::float8 AS n, greatest(sum(x.length), 1)::float8 / greatest(count(*), 1) AS avgdl
    FROM chunks x WHERE x.collection_id = {cid} AND x.tenant = %s{seen}"""
"""The same over the rows a scope with an owner may read (``{seen}``: its visibility
clause on ``x``): an owner's scores are then computable from what it may read, and
other owners' private chunks no longer move them (issue 29). Counted per query."""


def tsvector_literal(terms: str) -> tuple[str, int]:
    """ragline's analyzed terms (space-separated) → (a tsvector literal with positions,
    the number of terms). No text-search parser touches the terms, so term
    frequencies are exact (up to ``MAX_POSITIONS`` per term and chunk)."""
    words = terms.split()
    positions: dict[str, list[int]] = {}
    for i, word in enumerate(words, 1):
        lexeme = _lexeme(word)
        if lexeme is not None:
            positions.setdefault(lexeme, []).append(i)
    # Positions past PostgreSQL's limit would collapse into one; renumber so counts survive.
    renumber = len(words) > MAX_POSITION
    parts = []
    for lexeme, pos in positions.items():
        kept = range(1, min(len(pos), MAX_POSITIONS) + 1) if renumber else pos[:MAX_POSITIONS]
        parts.append(quoted(lexeme) + ":" + ",".join(map(str, kept)))
    return " ".join(parts), len(words)


def query_lexemes(terms: list[str]) -> list[str]:
    """The lexemes a query's terms stand for in the tsvectors (built from the same
    analyzed terms, in the collection's language; duplicates kept: FTS5 scores a
    repeated phrase twice)."""
    return [lex for lex in map(_lexeme, terms) if lex is not None]


def _lexeme(term: str) -> str | None:
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


def quoted(lexeme: str) -> str:
    """A lexeme quoted for tsvector/tsquery input: taken literally, whatever it holds."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@overload
def nul_free(value: str) -> str: ...
@overload
def nul_free(value: None) -> None: ...
@overload
def nul_free(value: str | None) -> str | None: ...


def nul_free(value: str | None) -> str | None:
    """PostgreSQL text cannot hold NUL; U+FFFD keeps every offset where it was."""
    return value.replace("\x00", "\ufffd") if value and "\x00" in value else value
