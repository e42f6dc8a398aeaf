"""The checkable facts of a text: quantities (amounts, rates, durations, times of
day, dates, counts) normalised so that two ways of writing one value compare equal.

``quantities(text)`` finds them; ``Quantity.same(other)`` compares two:

- ``7.25%`` = ``7.25 percent`` = ``7,25 %`` = ``7.25 per cent``;
- ``Rs. 500`` = ``Rs 500`` = ``₹500`` = ``INR 500``; ``€5`` = ``5 euros`` = ``5,00 €``;
  ``1,000`` = ``1000``; ``Rs. 1.5 lakh`` = ``₹1,50,000``; ``1.200 €`` = ``€1,200``;
- ``two weeks`` = ``14 days``; ``1 year`` = ``12 months``; ``16:00`` = ``4 pm`` = ``16 h``;
- ``1 April 2026`` = ``2026-04-01`` = ``1 de abril de 2026``.

A bare number also matches a quantity of the same value (a table's column header
often carries the unit: "Charges (Rs.)" over "500"), but two quantities that both
carry a unit must agree on it (``₹500`` is not ``€500``; ``30 days`` is not
``30 months``). English and Spanish number writing are both read: a comma followed
by exactly three digits groups thousands, by one or two digits it is a decimal
comma; a dot followed by three digits groups thousands only in Spanish-style
amounts (``1.200 €``, ``1.200,50``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

Kind = str  # "percent" | "money" | "duration" | "time" | "date" | "number"

_WORD_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "ninety": 90, "hundred": 100,
    "uno": 1, "una": 1, "un": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "once": 11, "doce": 12, "quince": 15, "veinte": 20, "treinta": 30, "cuarenta": 40,
    "sesenta": 60, "noventa": 90, "cien": 100,
}
# Words that are numbers only before a unit ("one" alone is a pronoun, "once" an adverb).
_UNIT_ONLY_WORDS = {"one", "un", "una", "uno", "once"}

_CURRENCIES = [
    (r"₹|Rs\.?|INR|rupees?", "INR"),
    (r"€|EUR|euros?", "EUR"),
    (r"£|GBP|pounds?", "GBP"),
    (r"\$|USD|dollars?", "USD"),
]
_CURRENCY_RX = "|".join(f"(?:{p})" for p, _ in _CURRENCIES)
_MULTIPLIERS = {"lakh": Decimal(100_000), "lakhs": Decimal(100_000), "lac": Decimal(100_000),
                "crore": Decimal(10_000_000), "crores": Decimal(10_000_000), "million": Decimal(1_000_000),
                "millones": Decimal(1_000_000), "mil": Decimal(1000), "thousand": Decimal(1000), "k": Decimal(1000)}

# Duration units → (base unit, factor): days and weeks in days, months and years in
# months, seconds to hours in seconds (30 days is not a month; a year is 12 months).
_DURATIONS = {
    "second": ("s", 1), "segundo": ("s", 1), "sec": ("s", 1), "secs": ("s", 1),
    "minute": ("s", 60), "minuto": ("s", 60), "min": ("s", 60), "mins": ("s", 60),
    "hour": ("s", 3600), "hora": ("s", 3600), "hr": ("s", 3600), "hrs": ("s", 3600),
    "day": ("d", 1), "dia": ("d", 1), "día": ("d", 1),
    "week": ("d", 7), "semana": ("d", 7), "fortnight": ("d", 14),
    "month": ("m", 1), "mes": ("m", 1), "meses": ("m", 1),
    "year": ("m", 12), "año": ("m", 12), "ano": ("m", 12), "yr": ("m", 12),
}
_DURATION_RX = (r"(?:(?:business|working|calendar|banking|h[aá]biles|naturales)\s+)?"
                r"(?:seconds?|segundos?|secs?|minutes?|minutos?|mins?|hours?|horas?|hrs?|days?|d[ií]as?|weeks?|"
                r"semanas?|fortnights?|"
                r"months?|mes(?:es)?|years?|años?|anos?|yrs?)\b")

# Physical measures: unit as written → (dimension, factor to the base unit). Case
# matters ("5 A" is a current, "a 5" is not; "mA" is not "MA").
_MEASURES: dict[str, tuple[str, Decimal]] = {
    "mm": ("length", Decimal("0.001")), "cm": ("length", Decimal("0.01")), "m": ("length", Decimal(1)),
    "km": ("length", Decimal(1000)), "metres": ("length", Decimal(1)), "meters": ("length", Decimal(1)),
    "metre": ("length", Decimal(1)), "meter": ("length", Decimal(1)), "centimetres": ("length", Decimal("0.01")),
    "centimeters": ("length", Decimal("0.01")), "millimetres": ("length", Decimal("0.001")),
    "kilometres": ("length", Decimal(1000)), "kilometers": ("length", Decimal(1000)),
    "mg": ("mass", Decimal("0.001")), "g": ("mass", Decimal(1)), "kg": ("mass", Decimal(1000)),
    "grams": ("mass", Decimal(1)), "kilograms": ("mass", Decimal(1000)),
    "ms": ("time", Decimal("0.001")), "s": ("time", Decimal(1)),
    "m/s": ("speed", Decimal(1)), "cm/s": ("speed", Decimal("0.01")), "km/h": ("speed", Decimal(1) / Decimal("3.6")),
    "rad/s": ("angular", Decimal(1)), "deg/s": ("angular_deg", Decimal(1)),
    "mA": ("current", Decimal("0.001")), "A": ("current", Decimal(1)),
    "mV": ("voltage", Decimal("0.001")), "V": ("voltage", Decimal(1)), "kV": ("voltage", Decimal(1000)),
    "Hz": ("frequency", Decimal(1)), "kHz": ("frequency", Decimal(1000)), "MHz": ("frequency", Decimal(10) ** 6),
    "GHz": ("frequency", Decimal(10) ** 9), "mAh": ("charge", Decimal("0.001")), "Ah": ("charge", Decimal(1)),
    "W": ("power", Decimal(1)), "kW": ("power", Decimal(1000)), "kWh": ("energy", Decimal(1000)),
    "Wh": ("energy", Decimal(1)), "°": ("angle", Decimal(1)), "degrees": ("angle", Decimal(1)),
    "°C": ("temperature", Decimal(1)), "KB": ("data", Decimal(1000)), "MB": ("data", Decimal(10) ** 6),
    "GB": ("data", Decimal(10) ** 9), "TB": ("data", Decimal(10) ** 12), "kg·cm": ("torque", Decimal(1)),
    "kgcm": ("torque", Decimal(1)), "Nm": ("torque_nm", Decimal(1)), "C": ("c_rating", Decimal(1)),
}
_MEASURE_RX = "|".join(re.escape(u) for u in sorted(_MEASURES, key=len, reverse=True))

# A rate's period after an amount or a percentage ("€8.95 a month", "7% p.a.", "45 € al día").
_PER = (r"(?:\s*(?:/|an?|per|each|every|al|por|cada|la)\s*(?P<per>day|night|week|month|year|annum|hour|d[ií]a|noche|"
        r"semana|mes|año|ano|hora)\b|\s*(?P<pa>p\.\s?a\.|monthly|annually|yearly|daily|mensual(?:es)?|anual(?:es)?))?")
_PERIODS = {"day": "day", "dia": "day", "día": "day", "daily": "day", "night": "night", "noche": "night",
            "week": "week", "semana": "week", "month": "month", "mes": "month", "monthly": "month",
            "mensual": "month", "mensuales": "month", "year": "year", "annum": "year", "año": "year",
            "ano": "year", "annually": "year", "yearly": "year", "anual": "year", "anuales": "year",
            "p.a.": "year", "hour": "hour", "hora": "hour"}

_MONTHS = {name: i for i, names in enumerate([
    ("january", "jan", "enero"), ("february", "feb", "febrero"), ("march", "mar", "marzo"),
    ("april", "apr", "abril"), ("may", "mayo"), ("june", "jun", "junio"), ("july", "jul", "julio"),
    ("august", "aug", "agosto"), ("september", "sep", "sept", "septiembre", "setiembre"),
    ("october", "oct", "octubre"), ("november", "nov", "noviembre"), ("december", "dec", "diciembre")], 1)
    for name in names}
_MONTH_RX = "|".join(sorted(_MONTHS, key=len, reverse=True))

# A written number: digits with English or Spanish grouping and decimals, or a number word.
_NUM = (r"\d{1,3}(?:\.\d{3})+(?:,\d+)?(?!\d)|\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|"
        r"\d+(?:[.,]\d+)?")
_WORDS_RX = "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("date", re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+)?(?P<mon>{_MONTH_RX})\.?,?\s+(?:de\s+)?"
                        rf"(?P<y>(?:19|20)\d{{2}})\b", re.IGNORECASE)),
    ("date", re.compile(rf"\b(?P<mon>{_MONTH_RX})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d{{2}})\b",
                        re.IGNORECASE)),
    ("date", re.compile(r"\b(?P<y>(?:19|20)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")),
    ("date", re.compile(r"\b(?P<d>\d{1,2})[/.](?P<m>\d{1,2})[/.](?P<y>(?:19|20)\d{2})\b")),
    ("time", re.compile(r"\b(?P<h>[01]?\d|2[0-3])[:.](?P<min>[0-5]\d)\s*(?P<ampm>[ap]\.?\s?m\.?(?![a-z])|h\b|hrs\b)?",
                        re.IGNORECASE)),
    ("time", re.compile(r"\b(?P<h>1[0-2]|0?[1-9])\s*(?P<ampm>[ap]\.?\s?m\.?)(?![a-z])", re.IGNORECASE)),
    ("time", re.compile(r"\b(?P<h>[01]?\d|2[0-3])\s*h\b(?!\w)")),
    ("measure", re.compile(rf"(?<![\w.,])(?P<num>{_NUM})\s?(?P<unit>{_MEASURE_RX})(?![\w/])")),
    ("money", re.compile(rf"(?P<cur>{_CURRENCY_RX})\s?(?P<num>{_NUM})(?:\s*(?P<mult>lakhs?|lac|crores?|million|k)\b)?"
                         rf"{_PER}", re.IGNORECASE)),
    ("money", re.compile(rf"(?<![\w.,])(?P<num>{_NUM})(?:\s*(?P<mult>lakhs?|lac|crores?|million|millones|mil)\b)?"
                         rf"\s?(?P<cur>{_CURRENCY_RX})(?![a-z]){_PER}", re.IGNORECASE)),
    # "free of charge", "no fee", "gratis": an amount of nothing
    ("zero", re.compile(r"\bfree of charge\b|\bat no (?:extra )?(?:cost|charge)\b|\bno (?:\w+ ){0,3}(?:fees?|charges?)\b|"
                        r"\bgratis\b|\bgratuit[oa]s?\b|\bsin (?:coste|cargo|comisi[oó]n)\b|"
                        r"\b(?:is|are|be|remains?|stays?|costs?)\s+(?:completely\s+)?free\b", re.IGNORECASE)),
    ("percent", re.compile(rf"(?<![\w.,])(?P<num>{_NUM}|{_WORDS_RX})\s?(?:%|per\s?cent\b|percent\b|por\s?ciento\b)"
                           rf"{_PER}", re.IGNORECASE)),
    ("duration", re.compile(rf"(?<![\w.,])(?P<num>{_NUM}|{_WORDS_RX})\s*-?\s*(?P<unit>{_DURATION_RX})",
                            re.IGNORECASE)),
    ("number", re.compile(rf"(?<![\w.,/-])(?P<num>{_NUM})(?:\s*(?P<mult>lakhs?|lac|crores?|million|millones)\b)?"
                          r"(?![\w/]|[.,]\d)", re.IGNORECASE)),
]


@dataclass(frozen=True)
class Quantity:
    """A value as written (``text``) and normalised (``kind``, ``value``, ``unit``).

    ``unit`` is the currency for money ("INR", "EUR", … or "" when unknown), the base
    unit for a duration ("d", "m", "min"), "" otherwise. A time of day is minutes
    since midnight (``ambiguous`` when written "4:00" without am/pm: it also matches
    16:00); a date is its ordinal day."""

    kind: Kind
    value: Decimal
    unit: str
    text: str
    start: int
    end: int
    ambiguous: bool = False
    raw: Decimal | None = None  # the number as written, before any unit conversion (3 of "3 years")
    per: str = ""  # a rate's period: "month" of "€8.95 a month", "year" of "7% p.a."

    @property
    def written(self) -> Decimal:
        return self.value if self.raw is None else self.raw

    def same(self, other: Quantity) -> bool:
        """Do the two state the same value (see the module docstring)?"""
        if self.kind == "number" or other.kind == "number":
            if self.kind == other.kind or "date" not in (self.kind, other.kind):
                return (self.written == other.written or self.value == other.value or _twelve_hour(self, other)
                        or _twelve_hour(other, self))
            return False
        if self.kind != other.kind:
            return False
        if self.kind == "time":
            return self.value == other.value or _twelve_hour(self, other) or _twelve_hour(other, self)
        if self.kind in ("money", "duration", "measure") and self.unit and other.unit and self.unit != other.unit:
            return False
        if self.per and other.per and self.per != other.per:  # €8.95 a month is not €8.95 a year
            return False
        if self.kind == "measure":  # converted units: equal up to rounding (50 cm/s = 0.5 m/s)
            return abs(self.value - other.value) <= abs(other.value) * Decimal("1e-9")
        return self.value == other.value

    def __str__(self) -> str:
        return self.text


def _twelve_hour(a: Quantity, b: Quantity) -> bool:
    """``4:00`` (no am/pm) states 16:00 as well as 4:00."""
    return a.kind == "time" and a.ambiguous and b.kind in ("time", "number") and (a.value + 720) % 1440 == (
        b.value if b.kind == "time" else -1)


def parse_number(text: str) -> Decimal | None:
    """``1,000`` → 1000; ``7,25`` → 7.25; ``1.200`` (Spanish grouping) → 1200;
    ``10,00,000`` (Indian grouping) → 1000000; number words → their value."""
    raw = text.strip().lower()
    if raw in _WORD_NUMBERS:
        return Decimal(_WORD_NUMBERS[raw])
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", raw):  # 1.200 or 1.200,50
        raw = raw.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?", raw) or re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?",
                                                                                  raw):
        raw = raw.replace(",", "")
    elif re.fullmatch(r"\d+,\d{1,2}", raw):  # decimal comma
        raw = raw.replace(",", ".")
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def _currency(text: str) -> str:
    for pattern, code in _CURRENCIES:
        if re.fullmatch(pattern, text.strip(), re.IGNORECASE):
            return code
    return ""


def _duration_unit(text: str) -> tuple[str, int]:
    word = text.lower().split()[-1]
    for stem in sorted(_DURATIONS, key=len, reverse=True):
        if word.startswith(stem) or word.rstrip("s") == stem or word.rstrip("es") == stem:
            return _DURATIONS[stem]
    folded = word.replace("í", "i").replace("ñ", "n")
    for stem, unit in _DURATIONS.items():
        if folded.startswith(stem.replace("í", "i").replace("ñ", "n")):
            return unit
    return ("", 1)


def _build(kind: Kind, match: re.Match[str]) -> Quantity | None:
    groups = match.groupdict()
    text, start, end = match.group(0).strip(), match.start(), match.start() + len(match.group(0).rstrip())
    if kind == "date":
        month = _MONTHS.get((groups.get("mon") or "").lower().rstrip(".")) or int(groups.get("m") or 0)
        try:
            day = date(int(groups["y"]), month, int(groups["d"]))
        except ValueError:
            return None
        return Quantity("date", Decimal(day.toordinal()), "", text, start, end)
    if kind == "zero":
        return Quantity("money", Decimal(0), "", text, start, end)
    if kind == "time":
        hour, minute = int(groups["h"]), int(groups.get("min") or 0)
        ampm = (groups.get("ampm") or "").lower().replace(".", "").replace(" ", "")
        if ampm.startswith("p") and hour < 12:
            hour += 12
        elif ampm.startswith("a") and hour == 12:
            hour = 0
        ambiguous = not ampm and hour <= 12 and groups.get("min") is not None
        if not ampm and groups.get("min") is not None and "." in text and not groups.get("ampm"):
            return None  # "10.50" is a number, not ten to eleven
        return Quantity("time", Decimal(hour * 60 + minute), "", text, start, end, ambiguous)
    number = groups.get("num")
    if number is None:
        return None
    if kind != "duration" and number.lower() in _UNIT_ONLY_WORDS:
        return None
    value = parse_number(number)
    if value is None:
        return None
    mult = (groups.get("mult") or "").lower()
    if mult:
        value *= _MULTIPLIERS.get(mult, Decimal(1))
    per = _period(groups)
    if kind == "money":
        return Quantity("money", value, _currency(groups["cur"]), text, start, end, per=per)
    if kind == "duration":
        unit, factor = _duration_unit(groups["unit"])
        if not unit:
            return None
        return Quantity("duration", value * factor, unit, text, start, end, raw=value)
    if kind == "measure":
        dimension, scale = _MEASURES[groups["unit"]]
        return Quantity("measure", value * scale, dimension, text, start, end, raw=value)
    return Quantity(kind, value, "", text, start, end, per=per)


def _period(groups: dict[str, str | None]) -> str:
    word = (groups.get("per") or groups.get("pa") or "").lower().replace(" ", "")
    return _PERIODS.get(word, _PERIODS.get(word.rstrip("."), "")) if word else ""


def quantities(text: str) -> list[Quantity]:
    """Every quantity in ``text``, in order, without overlaps (the more specific
    reading wins: a date over its day number, an amount over its bare number)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            q = _build(kind, match)
            if q is None or any(q.start < b and a < q.end for a, b in taken):
                continue
            if kind == "number" and _is_name_number(text, q):
                continue
            found.append(q)
            taken.append((q.start, q.end))
    return sorted(found, key=lambda q: q.start)


def _is_name_number(text: str, q: Quantity) -> bool:
    """A number that is part of a name or a citation, not a quantity: ``[2]``,
    ``Nav2``, ``COVID-19``, a section number ``3.2``'s context is kept."""
    before = text[max(0, q.start - 1):q.start]
    after = text[q.end:q.end + 1]
    return before == "[" and after == "]"
