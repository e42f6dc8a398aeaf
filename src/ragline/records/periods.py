"""Periods named in a question ("last month", "in March", "since January", "last
spring", "between March and May", "in the last 30 days", "2024"), resolved against
a given today into days, both ends inclusive. A named month without a year is the
latest one not after today; seasons are the northern meteorological ones."""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = {name: n for n, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")], start=1) for name in names}
SEASON_MONTHS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "twelve": 12, "a few": 3, "few": 3}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?(?:\s+(\d{4}))?"
_UNITS = {"day": 1, "week": 7}


@dataclass(frozen=True)
class Period:
    """Days from ``start`` to ``end`` (inclusive), and how to say it."""

    start: date
    end: date
    label: str

    def to_dict(self) -> dict[str, str]:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(), "label": self.label}


def month_period(year: int, month: int, label: str | None = None) -> Period:
    return Period(date(year, month, 1), date(year, month, monthrange(year, month)[1]),
                  label or f"in {date(year, month, 1):%B %Y}")


def add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + delta
    return index // 12, index % 12 + 1


def named_month(name: str, year: str | None, today: date) -> tuple[int, int]:
    """A month name (and optional year) → (year, month); without a year, the latest
    such month not after today."""
    month = MONTHS[name.lower()]
    if year:
        return int(year), month
    return (today.year, month) if month <= today.month else (today.year - 1, month)


def months_named(text: str, today: date) -> list[tuple[int, int]]:
    """Every month named in ``text``, in order (for comparisons)."""
    q = text.lower()
    return [named_month(m[1], m[2], today) for m in re.finditer(r"\b" + _MONTH, q)
            if m[1] != "may" or m[2] or re.search(r"\b(in|and|to|vs|versus|with|than)\s+may\b", q[:m.end()])]


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def parse_period(text: str, today: date) -> Period | None:
    """The period ``text`` names, or None."""
    q = " ".join(text.lower().split())
    q = re.sub(r"\b(?:the )?(?:start|beginning) of (?=" + _MONTH[1:], "", q)  # "since the start of September"
    for parse in (_relative, _range, _since, _season, _month, _year):
        found = parse(q, today)
        if found is not None:
            return found
    return None


def _relative(q: str, today: date) -> Period | None:
    if re.search(r"\btoday\b", q):
        return Period(today, today, "today")
    if re.search(r"\byesterday\b", q):
        day = today - timedelta(days=1)
        return Period(day, day, "yesterday")
    m = re.search(r"\b(?:last|past|previous)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|few)"
                  r"\s+(day|week|month|year)s?\b", q)
    if m:
        n, unit = _count(m[1]), m[2]
        if unit in _UNITS:
            return Period(today - timedelta(days=n * _UNITS[unit] - 1), today, f"in the last {n} {unit}s")
        if unit == "month":
            year, month = add_months(today.year, today.month, -(n - 1))
            return Period(date(year, month, 1), today, f"in the last {n} months")
        return Period(date(today.year - n + 1, 1, 1), today, f"in the last {n} years")
    m = re.search(r"\b(this|last|previous|past)\s+(week|month|quarter|year)\b", q)
    if m:
        return _calendar(m[1], m[2], today)
    return None


def _calendar(which: str, unit: str, today: date) -> Period:
    back = which != "this"
    if unit == "week":
        start = today - timedelta(days=today.weekday()) - timedelta(days=7 * back)
        return Period(start, start + timedelta(days=6) if back else today, f"{'last' if back else 'this'} week")
    if unit == "month":
        if not back:
            return Period(today.replace(day=1), today, "this month")
        year, month = add_months(today.year, today.month, -1)
        return month_period(year, month, f"last month ({date(year, month, 1):%B %Y})")
    if unit == "quarter":
        first = (today.month - 1) // 3 * 3 + 1
        year, month = add_months(today.year, first, -3 * back)
        end = month_period(*add_months(year, month, 2)).end
        return Period(date(year, month, 1), end if back else today, f"{'last' if back else 'this'} quarter")
    if not back:
        return Period(date(today.year, 1, 1), today, f"this year ({today.year})")
    return Period(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), f"last year ({today.year - 1})")


def _range(q: str, today: date) -> Period | None:
    m = re.search(r"\b(?:between|from)\s+" + _MONTH + r"\s+(?:and|to|until|till)\s+" + _MONTH, q)
    if not m:
        return None
    start = named_month(m[1], m[2] or m[4], today)
    end = named_month(m[3], m[4] or m[2], today)
    if end < start and not m[2]:  # "from November to February": the November before
        start = (start[0] - 1, start[1])
    first, last = month_period(*start), month_period(*end)
    return Period(first.start, last.end, f"from {first.start:%B %Y} to {last.end:%B %Y}")


def _since(q: str, today: date) -> Period | None:
    m = re.search(r"\bsince\s+" + _MONTH, q)
    if not m:
        return None
    year, month = named_month(m[1], m[2], today)
    return Period(date(year, month, 1), today, f"since {date(year, month, 1):%B %Y}")


def _season(q: str, today: date) -> Period | None:
    m = re.search(r"\b(?:(this|last)\s+)?(spring|summer|autumn|fall|winter)\b(?:\s+(\d{4}))?", q)
    if not m:
        return None
    first = SEASON_MONTHS[m[2]]
    year = int(m[3]) if m[3] else today.year if date(today.year, first, 1) <= today else today.year - 1
    end = month_period(*add_months(year, first, 2)).end
    if m[1] == "last" and not m[3] and today <= end:  # the season is still going on: the one before
        year -= 1
        end = month_period(*add_months(year, first, 2)).end
    return Period(date(year, first, 1), end, f"in {m[2]} {year}" + (f"/{year + 1}" if first == 12 else ""))


def _month(q: str, today: date) -> Period | None:
    m = re.search(r"\b(?:in|during|for|of|on)?\s*" + _MONTH, q)
    if not m or (m[1] == "may" and not re.search(r"\b(in|during|for|of)\s+may\b|\bmay\s+\d{4}", q)):
        return None  # "may" is mostly a verb
    return month_period(*named_month(m[1], m[2], today))


def _year(q: str, today: date) -> Period | None:
    m = re.search(r"\b(?:in|during|for|of)?\s*((?:19|20)\d{2})\b", q)
    if not m:
        return None
    year = int(m[1])
    return Period(date(year, 1, 1), date(year, 12, 31), f"in {year}")
