"""Is a question about the asker's own money, and which part of it: rules.

A money question (totals, counts, averages, the largest payments, balances,
comparisons, recurring costs, income and savings) goes to the records, where it is
planned (``records.parser``, or an LLM) and answered exactly; anything else goes to
the documents. Questions about a bank's terms ("How much is the overdraft fee?")
are money questions too, but not about the asker's transactions: they go to the
documents unless the asker plainly talks about their own money ("How much did I
pay in fees?"). A question that does both ("How much did I spend at Tesco in
September, and what is the fee for paying abroad?") is split (``split``): the
money half is answered from the records and the rest is handed on.

``vocabulary`` words (the owner's merchants and kinds of spending, ``records.kinds``)
make a question without "my" a money question ("how much went on takeaways last
month"). Each decision names the rule that made it; ``bench/router_accuracy.py``
measures them on a labelled set.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

INTENTS = ("recurring", "income_vs_spending", "month_over_month", "top_categories", "top_merchants", "largest",
           "total_spend", "balance", "count", "average")


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


TERMS = _rx(r"\b(fees?|charges?|charged for|rates?|interest|polic(y|ies)|limits?|allowance|allowed|reimburs\w*|"
            r"claim|can i|i can|how (do|can|long|does) (i|a|an|the|it|my)\b|how to|what is an?|what's an?|"
            r"what happens|cost to|protected|notice|add-on|accepted|rewards?|does the bank|terms|conditions|"
            r"tariff|price list|eligible|minimum|maximum|opening hours|apply|explain|what does .* mean|"
            r"how much does (a|an|the|it)\b(?!.*\bme\b)|is there an?\b|do you (charge|offer)|does it cost)\b")
"""Words of a question about terms, fees and how-tos rather than one's own transactions."""

HOW_TO = _rx(r"\bhow (do|can|should|would) (i|we)\b(?! (spend|pay|earn|save)\w* (so|that|more|less))|"
             r"\b(do|would|will) (i|we) need to\b|\b(am|are) (i|we) allowed\b|\bhow (do|does) [\w ]+ work\b|"
             r"\bhow long does\b")
"""A how-to or a rule ("How do I earn rewards points?"): never one's own transactions, even with "I"."""

MINE = _rx(r"\b(did|have|do|am|was|were|had|will) (i|we)\b.*\b(spen[dt]|spending|pay|paid|buy|bought|earn\w*|"
           r"save|saved|saving|get paid|got paid|receive|received|transfer\w*|move|moved|put|go|went|use|used|"
           r"withdr[ae]w\w*|take out|took out|visit\w*|order\w*|eat|ate|drink|drank)\b|"
           r"\b(my|our) (spending|expenses|outgoings|income|transactions|purchases|payments|subscriptions|"
           r"direct debits|money|budget|bills|salary|savings|balance|account|accounts|wages|pay|card|"
           r"current account|standing orders|regular|monthly|biggest|largest|average|total)\b|"
           r"\b(i|we) (spent|paid|bought|earned|made|saved|spend|pay|moved|transferred|put|received|got)\b|"
           r"\bcost (me|us)\b|\bhow much (did|have|do|am|was) (i|we)\b|\bhave i got\b|\bdo i have\b|"
           r"\bwas i (paid|charged)\b|\bpaid me\b|\b(charged?|billed?) (me|us)\b|\bhow much did (the|my|our|that) [\w' -]+ (cost|come to)\b|"
           r"\bwhat did (the|my|our|that) [\w' -]+ cost\b")
"""The asker plainly talks about their own money (wins over ``TERMS``)."""

PERSONAL = _rx(r"\b(i|i'm|i've|i'd|me|my|mine|we|our|us)\b")
RECORD_NOUNS = _rx(r"\b(spending|spent|spend|transactions?|outgoings|merchants?|income|expenses|payments|purchases|"
                   r"subscriptions|money in|money out|came in|went out|went on|goes on|go on|balance|salary|"
                   r"savings|earnings|outgoing|incoming|direct debits?|budget|pots?|accounts?|expense)\b")
PERIOD = _rx(r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
             r"last (week|month|year)|this (week|month|year)|yesterday|today|since|summer|winter|spring|autumn)\b")
"""A period named: "food shopping in october" is a total asked for, though it asks nothing."""
SPENT = _rx(r"\b(cost|costs|spent|spend|paid|pay|charged|bought|come to|came to|comes to)\b")
AMOUNT = _rx(r"\bhow much\b|\bhow many\b|\bhow often\b|\btotal\b|\bsum\b|\baverage\b|\bspen[dt]\b|\bspending\b|"
             r"\bcost\b|\bbalance\b|\bbiggest\b|\blargest\b|\bmost\b|\bcompare\b|\bvs\b|\bversus\b|\bper month\b|"
             r"\ba month\b|\bmonthly\b|\bbreak ?down\b|\blist\b|\bshow\b|\bwhich\b|\bwhere\b|\bwhat\b")

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("balance", _rx(r"\bbalance\b|\bhow much (money )?(do|have) (i|we) (have|got)\b|\bhow much (money )?(is|was) "
                    r"(left )?in (my|our|the)\b.*\b(account|pots?|savings|saver|isa|bank)\b|"
                    r"\bmoney (do i have|have i got) (left|in)\b|\bhow much (money )?is left\b|"
                    r"\bwhat(?:'s| is| was) in (my|our|the)\b.*\b(account|savings|pots?|saver|isa)\b|"
                    r"\bhow much (is|was) in (my|our) pots?\b")),
    ("recurring", _rx(r"\b(recurring|subscriptions?|direct debits?|standing orders?|regular (payments?|bills?|"
                      r"charges?)|repeat\w*|memberships?)\b|\bpay\w*\b.*\b(every|each) month\b")),
    ("income_vs_spending", _rx(r"\b(income|earn\w*|salary|wages|get paid|got paid|paid me|was i paid|net|"
                               r"cash ?flow|sav(e|ed|ing)|money in (vs|versus|and|against)|came in|"
                               r"received|refunds?|transfer\w*|moved)\b")),
    ("month_over_month", _rx(r"\b(compar\w*|month[- ]over[- ]month|month to month|per month|monthly|trend|"
                             r"chang(e|ed|ing)|increas\w*|decreas\w*|go(ing|ne)? (up|down)|went (up|down)|(more|less) than last|"
                             r"(more|less) (in|this|at|on) \w+ than)\b")),
    ("top_categories", _rx(r"\b(categor\w*|break ?down|by category)\b")),
    ("top_merchants", _rx(r"\b(merchants?|shops?|stores?|retailers?|compan(y|ies)|vendors?|who (do|did) (i|we) pay|"
                          r"who got|by merchant|shop the most|suppliers?|providers?|landlord|employer|"
                          r"letting agent)\b|^\s*who\b|\bwho('s| is| are| do| did| does| pays)\b|"
                          r"\bwhat (was|is|were) the [\w ]+ called\b|\bwhere did (i|we) (buy|get|book|order)\b")),
    ("largest", _rx(r"\b(largest|biggest|most expensive|highest|costliest|priciest|smallest|cheapest)\b.*"
                    r"\b(transactions?|purchases?|payments?|expenses?|things?|amounts?|charges?|bills?|spend)\b|"
                    r"\bsingle purchase\b|\bcost me the most\b|\bmost expensive\b")),
    ("top_categories", _rx(r"\b(spend\w*|money)\b.*\bmost\b|\bmost\b.*\b(spend\w*|money)\b|"
                           r"\bwhere (does|did|do) (all )?my money go|\beating up\b|\btakes? up most\b")),
    ("count", _rx(r"\bhow many (times|payments|transactions|purchases|visits|trips|orders|refunds|transfers|"
                  r"subscriptions|direct debits|standing orders|card payments|withdrawals|coffees|takeaways)\b|"
                  r"\bhow often\b|\bnumber of (times|payments|transactions|purchases)\b")),
    ("average", _rx(r"\baverage\b|\btypical(ly)?\b|\bon average\b")),
    ("total_spend", _rx(r"\bhow much\b|\btotal\b|\bspen[dt]\b|\bspending\b|\boutgoings\b|\bexpenses\b|"
                        r"\bcost (me|us)\b|\bwhat did (i|we) (pay|spend)\b|\bwent on\b|\bgo(es)? on\b|\bcost\b|"
                        r"\bpaid\b")),
]
"""(intent, pattern), tried in order: the first that matches names the kind of money question."""


def classify(question: str, vocabulary_hit: str | None = None) -> tuple[str | None, str]:
    """(intent or None, the reason): whether ``question`` is about the asker's own money.
    ``vocabulary_hit`` is a merchant or kind of spending of the asker's that the
    question names (a question without "my" is then about their money too)."""
    q = " ".join(question.replace("’", "'").split())
    mine = MINE.search(q) if not HOW_TO.search(q) else None
    terms = TERMS.search(q) or HOW_TO.search(q)
    if terms and not mine:
        return None, f"about terms or how-tos ({terms[0]!r}), not your transactions"
    for intent, pattern in _PATTERNS:
        found = pattern.search(q)
        if found:
            if mine or PERSONAL.search(q) or RECORD_NOUNS.search(q):
                return intent, f"money question: {intent.replace('_', ' ')} (matched {found[0][:40]!r})"
            if vocabulary_hit and (AMOUNT.search(q) or SPENT.search(q)):
                return intent, (f"money question: {intent.replace('_', ' ')} (matched {found[0][:40]!r}; "
                                f"names your {vocabulary_hit!r})")
            return None, f"matched {found[0][:40]!r} but nothing says it is about your money"
    if vocabulary_hit and ((AMOUNT.search(q) and (mine or PERSONAL.search(q))) or SPENT.search(q)
                           or PERIOD.search(q)):
        return "total_spend", f"money question: names your {vocabulary_hit!r}"
    return None, "not a question about amounts of your money"


_JOINS = _rx(r"\s*(?:[?;.!]+\s+|,?\s+(?:and|also|plus|but)\s+(?:also\s+)?(?=(?:how|what|what's|which|is|are|"
             r"does|do|can|could|would|will|when|where|why|who|tell|give|show)\b))")


@dataclass(frozen=True)
class Split:
    """A question cut in two: the part about one's own money and the rest."""

    money: str
    rest: str


def split(question: str, is_money: Callable[[str], bool]) -> Split | None:
    """Cut a mixed question where one clause is a money question about the asker's own
    transactions and another is not (``is_money(clause) -> bool``); None when it is
    not mixed."""
    q = " ".join(question.split())
    pieces = [p.strip(" ,") for p in _JOINS.split(q) if p and p.strip(" ,?.;!")]
    if len(pieces) < 2:
        return None
    verdicts = [(p, is_money(p)) for p in pieces]
    money = [p for p, m in verdicts if m]
    rest = [p for p, m in verdicts if not m]
    if not money or not rest:
        return None
    return Split(" ".join(_question(p) for p in money), " ".join(_question(p) for p in rest))


def _question(piece: str) -> str:
    piece = piece.strip()
    piece = piece[0].upper() + piece[1:] if piece else piece
    return piece if piece.endswith(("?", ".", "!")) else piece + "?"
