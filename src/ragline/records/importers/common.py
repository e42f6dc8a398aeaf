"""What every importer shares: options, the result with its row errors, text
decoding, and the deterministic id of a transaction whose source has none."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ...errors import LoaderError
from ...models import stable_id
from ...models.records import Balance, Transaction


@dataclass(frozen=True)
class ImportOptions:
    """How to read a file where it does not say: the account and currency to use when
    it has no such column, CSV column names for fields (``{"timestamp": "Booking
    date"}``), the decimal separator (``","`` or ``"."``; None: detected), and day
    order in numeric dates (``"dmy"``, ``"mdy"``, ``"ymd"``; None: detected).
    ``default_currency`` (``records.currency``) is used last, when the file's own cells
    do not tell the currency either."""

    account_id: str | None = None
    currency: str | None = None
    columns: dict[str, str] = field(default_factory=dict)
    decimal: str | None = None
    date_order: str | None = None
    default_currency: str | None = None


@dataclass(frozen=True)
class RowError:
    """A malformed row, skipped: its line in the file (1-based) and what was wrong."""

    line: int
    error: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "error": self.error}


@dataclass
class ImportResult:
    """The transactions a file held, the rows that could not be read, and the account
    balances it stated (an OFX ledger balance, a CSV running balance's latest row)."""

    format: str
    transactions: list[Transaction] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    balances: list[Balance] = field(default_factory=list)


def decode(data: bytes, source: str) -> str:
    """Text of a statement file: UTF-8 (with or without BOM), else Windows-1252, which
    many bank exports still use."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise LoaderError(source, "not UTF-8 or Windows-1252 text")


class IdMaker:
    """Ids for transactions a file gives none for: a hash of account, day, amount and
    description, plus how many identical rows came before in the same file (two
    £2.50 bus fares on one day are two transactions). Re-importing the same export,
    or an overlapping later one, gives the same ids."""

    def __init__(self) -> None:
        self._seen: Counter[tuple[str, ...]] = Counter()

    def __call__(self, account: str, day: str, amount: Decimal, description: str) -> str:
        parts = (account, day, str(amount.normalize()), description.casefold())
        self._seen[parts] += 1
        return "gen-" + stable_id(*parts, str(self._seen[parts]))[:24]
