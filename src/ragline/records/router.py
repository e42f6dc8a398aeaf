"""Is a question about the asker's own money, and which kind: a rule-based router.

A money question (totals, top categories or merchants, largest transactions,
month-over-month change, recurring payments, income versus spending) goes to the
records, where it is answered exactly; anything else goes to normal retrieval.
Questions about a bank's terms ("How much is the overdraft fee?") are money
questions too, but not about the asker's transactions: they go to retrieval unless
the asker plainly talks about their own spending ("How much did I pay in fees?").

Rules, not a model: each decision names the rule that made it (``MoneyRoute.reason``),
and ``bench/router_accuracy.py`` measures them on a labelled set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from .periods import MONTHS, NUMBERS, Period, months_named, parse_period

INTENTS = ("recurring", "income_vs_spending", "month_over_month", "top_categories", "top_merchants", "largest",
           "total_spend")


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_TERMS = _rx(r"\b(fees?|charges?|charged for|rates?|interest|polic(y|ies)|limits?|allowance|allowed|reimburs\w*|"
             r"claim|can i|i can|how (do|can) i|how to|what is an?|what's an?|what happens|cost to|protected|"
             r"notice|add-on|accepted|rewards?|cost per month|does the bank)\b")
"""Words of a question about terms, fees and how-tos rather than one's own transactions."""

_MINE = _rx(r"\b(did|have|do|am|was|were|had) (i|we)\b.*\b(spen[dt]|spending|pay|paid|buy|bought|earn\w*|"
            r"save|saving|get paid|receive)\b|\bmy (spending|expenses|outgoings|income|transactions|purchases|"
            r"payments|subscriptions|direct debits|money|budget|bills|salary|savings)\b|"
            r"\bi (spent|paid|bought|earned|made|saved|spend)\b|\bcost me\b|\bhow much (did|have|do) i\b")
"""The asker plainly talks about their own money (wins over ``_TERMS``)."""

_PERSONAL = _rx(r"\b(i|i'm|i've|me|my|mine|we|our)\b")
_RECORD_NOUNS = _rx(r"\b(spending|spent|transactions?|outgoings|merchants?|income|expenses|payments|purchases|"
                    r"subscriptions|money in|money out|came in|went out)\b")

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("recurring", _rx(r"\b(recurring|subscriptions?|direct debits?|standing orders?|regular (payments?|bills?|"
                      r"charges?)|repeat\w*)\b|\bpay\w*\b.*\b(every|each) month\b")),
    ("income_vs_spending", _rx(r"\b(income|earn\w*|salary|get paid|got paid|net cash ?flow|cash ?flow|"
                               r"sav(e|ed|ing)|money in (vs|versus|and|against)|came in)\b")),
    ("month_over_month", _rx(r"\b(compar\w*|month[- ]over[- ]month|month to month|per month|monthly|trend|"
                             r"chang(e|ed|ing)|increas\w*|decreas\w*|going (up|down)|(more|less) than last|"
                             r"(more|less) (in|this) \w+ than)\b")),
    ("top_categories", _rx(r"\b(categor\w*|break ?down|by category)\b")),
    ("top_merchants", _rx(r"\b(merchants?|shops?|stores?|retailers?|compan(y|ies)|vendors?|who (do|did) i pay|"
                          r"who got|by merchant)\b")),
    ("largest", _rx(r"\b(largest|biggest|most expensive|highest|costliest)\b.*\b(transactions?|purchases?|"
                    r"payments?|expenses?|things?|amounts?|charges?)\b|\bsingle purchase\b|\bcost me the most\b")),
    ("top_categories", _rx(r"\b(spend\w*|money)\b.*\bmost\b|\bmost\b.*\b(spend\w*|money)\b|"
                           r"\bwhere (does|did|do) (all )?my money go|\beating up\b|\btakes? up most\b")),
    ("total_spend", _rx(r"\bhow much\b|\btotal\b|\bspen[dt]\b|\bspending\b|\boutgoings\b|\bexpenses\b|"
                        r"\bhow many times\b|\bcost me\b")),
]
"""(intent, pattern), tried in order: the first that matches decides."""

_STOP = {"last", "this", "past", "previous", "month", "months", "year", "years", "week", "weeks", "day", "days",
         "in", "since", "during", "the", "my", "a", "so", "far", "today", "yesterday", "between", "from", "and",
         "to", "per", "each", "every", "of", "over", "quarter", "spring", "summer", "autumn", "fall", "winter",
         "money", "things", "stuff", "average", "me", "it", "total", "most", "by", "merchant", "category"}
_PHRASE = _rx(r"\b(?:on|at|for|with|pay|paid|to)\s+([a-z0-9&'.\- ]+)")


@dataclass(frozen=True)
class MoneyRoute:
    """Where a question goes and why; for the records, what it asks for."""

    target: str  # "records" or "retrieval"
    reason: str
    intent: str | None = None
    period: Period | None = None
    category: str | None = None
    merchant: str | None = None
    text: str | None = None
    limit: int | None = None
    months: tuple[tuple[int, int], ...] = field(default=())
    this_month: bool = False  # a comparison that includes the month going on ("this month vs last month")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.target, "reason": self.reason}
        if self.target == "records":
            out.update(intent=self.intent, period=self.period.to_dict() if self.period else None,
                       category=self.category, merchant=self.merchant, text=self.text, limit=self.limit)
        return out


def classify(question: str) -> tuple[str | None, str]:
    """(intent or None, the reason): the routing decision alone, without the details."""
    q = " ".join(question.split())
    mine = _MINE.search(q)
    terms = _TERMS.search(q)
    if terms and not mine:
        return None, f"about terms or how-tos ({terms[0]!r}), not your transactions"
    for intent, pattern in _PATTERNS:
        found = pattern.search(q)
        if found:
            if mine or _PERSONAL.search(q) or _RECORD_NOUNS.search(q):
                return intent, f"money question: {intent.replace('_', ' ')} (matched {found[0][:40]!r})"
            return None, f"matched {found[0][:40]!r} but nothing says it is about your money"
    return None, "not a question about amounts of your money"


def route(question: str, *, categories: Iterable[str] = (), merchants: Iterable[str] = (),
          today: date | None = None) -> MoneyRoute:
    """The route for ``question``; ``categories`` and ``merchants`` are the asker's own
    (so "groceries" or "Tesco" in the question become filters), ``today`` anchors
    relative periods."""
    intent, reason = classify(question)
    if intent is None:
        return MoneyRoute("retrieval", reason)
    today = today or date.today()
    q = " ".join(question.split())
    category = _known(q, categories)
    merchant = None if category else _known(q, merchants)
    named = category or merchant
    if named and re.search(re.escape(named), q, re.IGNORECASE):  # "Shop 1", "Money Shop": names, not intents
        masked_intent, masked_reason = classify(re.sub(re.escape(named), "it", q, flags=re.IGNORECASE))
        if masked_intent is not None:
            intent, reason = masked_intent, masked_reason
    text = None if category or merchant or intent in ("top_categories", "top_merchants", "recurring") else _phrase(q)
    return MoneyRoute("records", reason, intent=intent, period=parse_period(q, today), category=category,
                 merchant=merchant, text=text, limit=_limit(q), months=tuple(months_named(q, today)),
                 this_month=bool(re.search(r"\bthis month\b|\b(than|to|with) last month\b", q, re.IGNORECASE)))


def _stem(word: str) -> str:
    word = word.casefold()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _words(text: str) -> list[str]:
    return [_stem(w) for w in re.findall(r"[\w&']+", text)]


def _known(q: str, names: Iterable[str]) -> str | None:
    """The longest of ``names`` the question mentions (word for word, plurals aside)."""
    words = " " + " ".join(_words(q)) + " "
    found = [n for n in names if n and f" {' '.join(_words(n))} " in words]
    return max(found, key=len) if found else None


def _phrase(q: str) -> str | None:
    """What follows "on", "at", "for"… up to a period word: a description to look for."""
    for m in _PHRASE.finditer(q.lower()):
        kept: list[str] = []
        for word in m[1].split():
            word = word.strip(".'")
            if word in _STOP or word in NUMBERS or word in MONTHS or word.isdigit():
                if kept:
                    break
                continue
            kept.append(word)
        if kept:
            return " ".join(kept)
    return None


def _limit(q: str) -> int | None:
    m = re.search(r"\btop (\d+|three|five|ten)\b|\b(\d+|three|five|ten) (largest|biggest|most)\b", q, re.IGNORECASE)
    if not m:
        return None
    word = (m[1] or m[2]).lower()
    return max(1, min(50, int(word) if word.isdigit() else NUMBERS[word]))

