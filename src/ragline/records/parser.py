"""The offline planner: a money question in a user's own words → a ``QueryPlan``, by
rules, with no model.

It reads, in turn: whether the question is about the asker's own money and which
half of a mixed question is (``records.router``); the periods it names
(``records.periods``, two for a comparison); which money (spending, income,
refunds, transfers, savings, net); what was bought — the owner's own merchants,
categories and accounts, found fuzzily (``records.matching``), kinds of spending in
everyday words (``records.kinds``) and other words the statements print (a place,
"Munich" for "MUENCHEN"); the metric; the grouping. Where the question leaves
something open it assumes, and the plan's ``assumptions`` say so.
"""

from __future__ import annotations

import re
from datetime import date

from .kinds import BY_KEY, kinds_in, phrase_table
from .matching import fold, mentioned, name_matches, words
from .periods import MONTHS, NUMBERS, Period, add_months, month_period, months_named, parse_period
from .plan import PeriodRef, PlanFilters, Planned, QueryPlan, Vocabulary
from .router import classify, split


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# -- which money --------------------------------------------------------------------
NET = _rx(r"\bnet\b|\bcash ?flow\b|\bleft over\b|\bsurplus\b|\bdeficit\b|\bearn\w* more than\b|"
          r"\bspen[dt]\w* more than (i )?(earn|make|made|get)|\bincome (vs|versus|and|against|minus|compared)\b|"
          r"\bmoney in (vs|versus|and|against|compared)\b|\bcame in and\b|\bin vs out\b|\bincome .* expenses\b")
SAVE_NET = _rx(r"\bhow much (did|have|do|am) (i|we) (sav\w*|manag\w* to save)\b|\bam i saving\b|"
               r"\bdid i save\b|\bhave i saved\b")
SAVINGS = _rx(r"\b(in ?to|to|towards?) (my |the )?(savings?|saver|isa|pot|vault|rainy day|emergency fund)\b|"
              r"\bsavings? (account|pot|transfers?|contributions?|deposits?)\b|\bput (away|aside)\b|"
              r"\bset aside\b|\bsaved away\b|\bmoved? .*\bsavings\b|\btransferr?\w* .*\bsavings\b|"
              r"\bsavings\b(?! account interest)")
INCOME = _rx(r"\b(income|earn\w*|salary|salaries|wages?|pay ?check|pay ?cheque|payslip|got paid|get paid|"
             r"paid me|was i paid|were we paid|received|receive|came in|come in|comes in|money in|incoming|"
             r"dividends?|interest (earned|received|paid to me)|pay ?day|bonus|pension|benefits?|"
             r"credited|deposits?|child benefit|universal credit|refund(ed)? from hmrc|tax refund)\b")
REFUNDS = _rx(r"\brefund(s|ed)?\b|\bmoney back\b|\breimburse\w*\b|\bcashback\b")
TRANSFER_OUT = _rx(r"\btransfer(s|red)?\b|\bmoved\b|\bsent\b|\bpaid (over )?to (my )?(credit card|own)\b")
TRANSFER_IN = _rx(r"\btransfer(s|red)? (in|from)\b|\bfrom (my )?(savings|other account|joint)\b|\bmoved .* from\b|"
                  r"\bin from\b")

# -- which metric ---------------------------------------------------------------------
BALANCE = _rx(r"\bbalances?\b|\bhow much (money )?(do|have) (i|we) (have|got)\b|\bhow much (money )?is (left )?"
              r"in (my|our)\b|\bmoney (do i have|have i got)\b|\bhow much (money )?is left\b|\bin the bank\b|"
              r"\bam i (in|into) (my )?overdraft\b|\bhow much do i have\b|\bkontostand\b")
COUNT = _rx(r"\bhow many\b|\bhow often\b|\bnumber of\b|\bcount\b|\bhow frequently\b")
AVERAGE = _rx(r"\baverage\b|\bon average\b|\btypical(ly)?\b|\busually\b|\bnormally\b|\bmean\b|\bavg\b")
PER = _rx(r"\b(?:per|a|each|every|by the|in an? (?:average|typical|normal)) (month|week|day|year)\b|"
          r"\b(monthly|weekly|daily|yearly|annually|annual)\b")
MAX = _rx(r"\b(biggest|largest|most expensive|highest|priciest|costliest|maximum|max|single largest|"
          r"largest single|biggest single|most i (spent|paid))\b|\bcost me the most\b")
MIN = _rx(r"\b(smallest|cheapest|lowest|least expensive|minimum|tiniest)\b")
LIST = _rx(r"^\s*(list|show|itemi[sz]e|give me (a list|all)|what were (all )?(the|my)|which (transactions|"
           r"payments|purchases))\b|\blist (of )?(all )?(my )?(the )?(transactions|payments|purchases)\b|"
           r"\bwhat did i buy\b|\bshow (me )?(all|every|each)\b|\beach (payment|transaction)\b|\ball (the|my) "
           r"(transactions|payments|purchases)\b")
COMPARE = _rx(r"\bcompar\w*|\bvs\.?\b|\bversus\b|\bmore than\b|\bless than\b|\bfewer than\b|\bdifference\b|"
              r"\bchang(e|ed|es)\b|\bup or down\b|\bincreas\w*|\bdecreas\w*|\bagainst\b|\bthan (in|at|on|last|"
              r"the)\b|\bor (at|on|in)\b|\bmore (at|on|in) \w+ or\b|\bwhich .* more\b")
SHARE = _rx(r"\bpercent(age)?\b|\bshare\b|\bproportion\b|\bfraction\b|\bwhat part of\b|\bhow much of my\b|%")
RECURRING = _rx(r"\b(recurring|subscriptions?|direct debits?|standing orders?|regular (payments?|bills?|"
                r"charges?|outgoings)|repeat\w*|memberships?|fixed costs?)\b|\b(pay|paying)\b.*\b(every|each) "
                r"month\b")
COSTS_ME = _rx(r"\b(cost|costs|costing) (me|us)\b(?!.* (in total|altogether|so far|this year|last year))|"
               r"\bwhat (do|does) .* cost\b|\bhow much (is|are) (my|the|our) .* (a|per) month\b|"
               r"\bhow much (do|does) .* cost (me|us)?\b")
PAST_SUM = _rx(r"\b(did|have|has|had) (i|we)\b|\bspent\b|\bpaid\b|\bin total\b|\baltogether\b|\bso far\b|"
               r"\bwent\b|\blast (month|year|week)\b")
TOP = _rx(r"\bwhere (do|did|does|am|was) (all )?(my |i |the )?(money )?(go|going|spending|spend|went)\b|"
          r"\b(most|top|biggest|largest|main|highest)\b.*\b(categor\w*|merchants?|shops?|stores?|retailers?|"
          r"compan(y|ies)|places?|payees?|expenses?|outgoings?)\b|\bwhich (categor\w*|merchants?|shops?|stores?|"
          r"retailers?|compan(y|ies)|places?|payees?)\b|\bwho (do|did) (i|we) pay\b|\bwho got\b|"
          r"\bwhat (do|did) (i|we) spend (the )?most\b|\bspend(ing)? (the )?most\b|\bshop the most\b|"
          r"\bbreak ?down\b|\bby (category|merchant|shop|store|month|account)\b|\beating up\b|"
          r"\btakes? up most\b|\bcategori[sz]e\b|\btop \d+\b|\btop (three|five|ten)\b|\bmost money\b|"
          r"\bmost of my\b|\bwhere does my money go\b")
MERCHANT_WORDS = _rx(r"\b(merchants?|shops?|stores?|retailers?|compan(y|ies)|places?|payees?|vendors?|who (do|did) "
                     r"(i|we) pay|who got|shop the most|where did i shop)\b")
BY_MONTH = _rx(r"\b(each|every|per|by|a) month\b|\bmonth by month\b|\bmonth[- ]over[- ]month\b|"
               r"\bmonth to month\b|\bmonthly (spending|trend|breakdown)\b|\btrend\b|\bover the last (few|\d+|"
               r"two|three|four|five|six) months\b")

# Words a statement prints that are never a merchant or a place to look for.
_QUESTION_WORDS = set("""a an the i me my mine we our us you your it its this that these those what whats which who
whom whose how much many often did do does done doing have has had having was were is are am be been being will
would could should can may might shall spend spent spending pay paid paying payment payments cost costs costing
buy bought buying on at in for to from of with by and or vs versus than more less most least total totals sum
all any some each every per month months monthly week weeks weekly year years yearly day days daily last this next
past previous so far since until till between during over under about around across get got money go went gone
going transactions transaction purchase purchases expenses expense outgoings bills bill much amount amounts
compared compare comparison difference average typical usually normally biggest largest smallest cheapest highest
lowest single one two three four five six seven eight nine ten twelve twenty thirty first second time times
trip trips visit visits shop shopping store stores merchant merchants place places category categories altogether
overall together both either ago recently lately currently now today yesterday tomorrow also just only really
quite total spend did there then when where why which out up down off back left right again still ever never yet
not no yes please tell show list give let know want need see find look like make made use used put take took
number count show me balance account accounts current savings saving save saved income earn earned salary
received refund refunds transfer transfers transferred moved net charged charge charges fee fees cash card
bank""".split())
_PLACE_CUE = _rx(r"\b(in|at|from|to|near|around)\s+([A-Z][\w'’&.-]+(?:\s+[A-Z][\w'’&.-]+)*)")
_LIMIT = _rx(r"\btop (\d+|three|five|ten|two|four)\b|\b(\d+|three|five|ten|two|four) (largest|biggest|most "
             r"expensive|smallest|cheapest|highest|most)\b|\b(largest|biggest|last|latest|first) (\d+|three|five|ten|"
             r"two|four)\b")


class RuleParser:
    """The offline planner (``records.plan.Planner``)."""

    name = "rules"

    def plan(self, question: str, vocabulary: Vocabulary) -> Planned:
        q = " ".join(question.replace("’", "'").split())
        hit = self._vocabulary_hit(q, vocabulary)
        intent, reason = classify(q, hit)
        if intent is None:
            halves = split(q, lambda part: classify(part, self._vocabulary_hit(part, vocabulary))[0] is not None)
            if halves is None:
                return Planned(None, reason, self.name)
            plan = self.build(halves.money, vocabulary)
            return Planned(plan, f"a mixed question: the money half from your transactions ({halves.money!r}), "
                                 f"the rest handed on ({halves.rest!r})", self.name, rest=halves.rest,
                           question=halves.money)
        halves = split(q, lambda part: classify(part, self._vocabulary_hit(part, vocabulary))[0] is not None)
        if halves is not None:
            plan = self.build(halves.money, vocabulary)
            return Planned(plan, f"a mixed question: the money half from your transactions ({halves.money!r}), "
                                 f"the rest handed on ({halves.rest!r})", self.name, rest=halves.rest,
                           question=halves.money)
        return Planned(self.build(q, vocabulary), reason, self.name)

    @staticmethod
    def _vocabulary_hit(q: str, vocabulary: Vocabulary) -> str | None:
        kinds = kinds_in(q)
        if kinds:
            return kinds[0][1]
        found = mentioned(q, [*vocabulary.merchants, *vocabulary.categories])
        return found[0] if found else None

    # -- the plan -------------------------------------------------------------------------
    def build(self, q: str, vocab: Vocabulary) -> QueryPlan:
        today = vocab.today
        assumptions: list[str] = []
        filters, spans = self._filters(q, vocab)
        masked = _mask(q, spans)
        periods = _periods(masked, today)
        flow = self._flow(masked, vocab, assumptions)
        metric, group_by, per, limit = self._metric(masked, q, filters, flow, periods, vocab)
        if metric == "compare" and len(periods) < 2 and group_by is None:
            if len(_named(filters)) >= 2:
                group_by = "name"
            else:
                periods, assumed = _default_pair(masked, periods, today)
                if assumed:
                    assumptions.append(assumed)
        if metric == "sum" and group_by is None and len(_named(filters)) >= 2 and _both(masked):
            group_by = "name"  # "Tesco and Lidl": each, and the total
        if not periods and metric not in ("balance", "recurring"):
            assumptions.append("no period was named, so all your transactions are counted")
        if flow == "net" and metric not in ("sum", "average", "compare"):
            metric = "sum"
        if metric == "average" and per is None:
            per = "transaction"
        if metric != "average":
            per = None
        refs = tuple(PeriodRef.of(p) for p in periods)
        return QueryPlan(metric=metric, flow=flow, filters=filters, periods=refs,  # type: ignore[arg-type]
                         group_by=group_by, per=per, limit=limit,  # type: ignore[arg-type]
                         assumptions=tuple(assumptions)).checked()

    def _flow(self, q: str, vocab: Vocabulary, assumptions: list[str]) -> str:
        if NET.search(q):
            return "net"
        if SAVE_NET.search(q) and not SAVINGS.search(q.replace("save", "")):
            assumptions.append("\"save\" read as income minus spending; ask about money moved into savings for "
                               "your transfers to savings")
            return "net"
        if SAVINGS.search(q) and not re.search(r"\binterest\b", q, re.IGNORECASE):
            if TRANSFER_IN.search(q) and re.search(r"\bfrom (my )?savings\b", q, re.IGNORECASE):
                return "transfers_in"
            return "savings"
        if REFUNDS.search(q):
            return "refunds"
        if TRANSFER_IN.search(q) and TRANSFER_OUT.search(q):
            return "transfers_in"
        if TRANSFER_OUT.search(q) and not re.search(r"\b(spen[dt]|bought|buy)\b", q, re.IGNORECASE):
            return "transfers_out"
        if INCOME.search(q) and not re.search(r"\b(spen[dt]|spending|bought|buy|cost)\b", q, re.IGNORECASE):
            return "income"
        return "spend"

    def _metric(self, masked: str, q: str, filters: PlanFilters, flow: str, periods: list[Period],
                vocab: Vocabulary) -> tuple[str, str | None, str | None, int | None]:
        limit = _limit(masked)
        per_match = PER.search(masked)
        per = _per(per_match[0]) if per_match else None
        if BALANCE.search(masked) and not re.search(r"\b(spen[dt]|paid|cost)\b", masked, re.IGNORECASE):
            return "balance", None, None, None
        if SHARE.search(masked) and _named(filters):
            return "share", None, None, None
        recurring_subject = any(k in ("subscriptions", "gym", "bills", "phone", "energy", "water", "rent",
                                      "insurance") for k in filters.kinds) or bool(filters.merchants)
        if RECURRING.search(masked) or (COSTS_ME.search(q) and recurring_subject and not PAST_SUM.search(masked)):
            if not (COUNT.search(masked) or (PAST_SUM.search(masked) and periods and not per)):
                return "recurring", None, None, None
        if COUNT.search(masked):
            return "count", _group(masked, filters, periods), None, None
        if len(periods) >= 2:
            return "compare", None, None, None
        if AVERAGE.search(masked) or (per and per != "year" and not BY_MONTH.search(masked.replace(per_match[0], "")
                                                                                     if per_match else masked)
                                      and not RECURRING.search(masked) and _asks_amount(masked)):
            return "average", None, per if per in ("month", "week", "day") else None, None
        if MIN.search(masked):
            return "min", None, None, limit
        top = TOP.search(masked)
        if MAX.search(masked) and not top:
            return "max", None, None, limit
        if COMPARE.search(masked) and (len(_named(filters)) >= 2 or _compares_time(masked)):
            return "compare", ("name" if len(_named(filters)) >= 2 else None), None, None
        if BY_MONTH.search(masked) and flow != "net":
            return "sum", "month", None, None
        if top and flow != "net":
            by = "merchant" if MERCHANT_WORDS.search(masked) else "category"
            return "sum", by, None, limit or (1 if re.search(r"\b(the )?(most|biggest|largest|main|top)\b "
                                                               r"(categor\w*|merchant|shop|store|place|payee)\b(?!s)",
                                                               masked, re.IGNORECASE) else None)
        if LIST.search(masked):
            return "list", None, None, limit
        return "sum", None, None, None

    # -- what was bought -----------------------------------------------------------------
    def _filters(self, q: str, vocab: Vocabulary) -> tuple[PlanFilters, list[str]]:
        spans: list[str] = []
        merchants = [m for m in mentioned(q, vocab.merchants) if not _period_word(m) and fold(m) not in _QUESTION_WORDS
                     and not _kind_phrase(m)]
        rest = _mask(q, merchants)
        text: list[str] = []
        for phrase in self._printed_words(rest, vocab):
            if len(phrase.split()) == 1 and _kind_phrase(phrase):
                continue  # "coffee", "cinema": the kind finds more than the word
            payees = [m for m in vocab.merchants if fold(m).startswith(fold(phrase))]
            if payees:
                merchants.append(phrase if any(c.isupper() for c in phrase) else phrase.title())
            else:
                text.append(phrase)
        spans += merchants + text
        rest = _mask(rest, text + merchants)
        categories = [c for c in mentioned(rest, vocab.categories) if fold(c) not in _QUESTION_WORDS]
        kinds: list[str] = []
        for key, phrase in kinds_in(rest):
            kind = BY_KEY[key]
            same = [c for c in categories if fold(c) in {fold(x) for x in kind.categories}]
            if key == "fees" and not re.search(r"\b(i|my|me)\b", q, re.IGNORECASE):
                continue
            if not same:
                kinds.append(key)
            spans.append(phrase)
        spans += categories
        rest = _mask(rest, [*categories, *(p for _, p in kinds_in(rest))])
        accounts = self._accounts(rest, vocab)
        if merchants and (kinds or categories) and not re.search(r"\b(and|or|vs|versus|plus)\b", q, re.IGNORECASE):
            kinds, categories = [], []  # "coffee at Pret": Pret is the filter
        return PlanFilters(categories=tuple(categories), merchants=tuple(merchants), kinds=tuple(kinds),
                           text=tuple(text), accounts=tuple(accounts), currency=_currency(q, vocab)), spans

    @staticmethod
    def _accounts(q: str, vocab: Vocabulary) -> list[str]:
        out = []
        for account in vocab.accounts:
            if name_matches(account, q):
                out.append(account)
        m = re.search(r"\b(savings|current|joint|credit card|checking|business|everyday|isa)\s+(account|card)\b",
                      q, re.IGNORECASE)
        if m and not out:
            wanted = m[1].lower()
            matching = [a for a in vocab.accounts if wanted.split()[0][:4] in fold(a)]
            out += matching or ([] if wanted in ("current", "checking", "everyday") else [])
        return out

    @staticmethod
    def _printed_words(q: str, vocab: Vocabulary) -> list[str]:
        """Words of the question (a place, a payee the owner's merchant list lacks) that the
        owner's statements print, fuzzily."""
        if not vocab.descriptions:
            return []
        tokens = [w for w in re.findall(r"[\w'&.-]+", q) if fold(w) and fold(w) not in _QUESTION_WORDS
                  and fold(w).strip(".") not in MONTHS and fold(w) not in NUMBERS and not fold(w).isdigit()
                  and len(fold(w)) >= 3]
        found: list[str] = []
        i = 0
        while i < len(tokens):
            best = None
            for j in range(min(len(tokens), i + 3), i, -1):
                phrase = " ".join(tokens[i:j])
                if any(name_matches(phrase, d) for d in vocab.descriptions):
                    best = (phrase, j)
                    break
            if best:
                found.append(best[0].strip(".'"))
                i = best[1]
            else:
                i += 1
        return found


# -- pure helpers -------------------------------------------------------------------------
def _mask(q: str, spans: list[str]) -> str:
    """``q`` with the named things blanked (their words must not read as cues: "Three", "Next")."""
    out = q
    for span in sorted(spans, key=len, reverse=True):
        forms = [span, *span.split()] if len(span.split()) > 1 else [span]
        for form in forms[:1]:
            out = re.sub(r"(?<![\w])" + re.escape(form) + r"(?![\w])", " it ", out, flags=re.IGNORECASE)
    return " ".join(out.split())


def _kind_phrase(text: str) -> bool:
    return any(phrase == fold(text) for phrase, _ in phrase_table())


def _period_word(name: str) -> bool:
    return fold(name) in MONTHS or fold(name) in {"today", "yesterday"}


def _named(filters: PlanFilters) -> list[str]:
    return [*filters.categories, *filters.merchants, *filters.kinds, *filters.text]


def _both(q: str) -> bool:
    return bool(re.search(r"\b(each|both|separately|respectively|individually|per|and)\b", q, re.IGNORECASE))


def _asks_amount(q: str) -> bool:
    return bool(re.search(r"\bhow much\b|\bspend\b|\bspending\b|\bcost\b|\bpay\b|\bwhat (do|does)\b", q,
                          re.IGNORECASE))


def _compares_time(q: str) -> bool:
    return bool(re.search(r"\bthan (last|the previous|before|in|the month before|usual|normal)\b|"
                          r"\b(more|less) (this|last) (month|year|week)\b|\bchang|\bincreas|\bdecreas|\bup or down\b",
                          q, re.IGNORECASE))


def _per(word: str) -> str:
    w = word.lower()
    for unit in ("month", "week", "day", "year"):
        if unit in w:
            return unit
    return {"annually": "year", "annual": "year", "daily": "day"}.get(w.split()[-1], "month")


def _limit(q: str) -> int | None:
    m = _LIMIT.search(q)
    if not m:
        return None
    word = (m[1] or m[2] or m[4] or "").lower()
    return max(1, min(50, int(word) if word.isdigit() else NUMBERS.get(word, 5)))


def _group(q: str, filters: PlanFilters, periods: list[Period]) -> str | None:
    if BY_MONTH.search(q):
        return "month"
    if len(_named(filters)) >= 2:
        return "name"
    return None


def _currency(q: str, vocab: Vocabulary) -> str | None:
    m = re.search(r"\b(in|of) (euros?|eur|€|pounds?|gbp|£|dollars?|usd|\$|swiss francs?|chf)\b", q, re.IGNORECASE)
    if not m:
        return None
    word = m[2].lower()
    code = ("EUR" if word.startswith(("eur", "€")) else "GBP" if word.startswith(("pound", "gbp", "£"))
            else "USD" if word.startswith(("dollar", "usd", "$")) else "CHF")
    return code if code in vocab.currencies else None


def _periods(q: str, today: date) -> list[Period]:
    """The periods a question names: two (or more) for a comparison, else one or none."""
    low = q.lower()
    pairs = [(r"\bthis month\b", r"\blast month\b", ("this", "month"), ("last", "month")),
             (r"\bthis year\b", r"\blast year\b", ("this", "year"), ("last", "year")),
             (r"\bthis week\b", r"\blast week\b", ("this", "week"), ("last", "week"))]
    for a, b, first, second in pairs:
        if re.search(a, low) and re.search(b, low):
            pa, pb = parse_period(" ".join(first), today), parse_period(" ".join(second), today)
            found = [p for p in (pa, pb) if p is not None]
            return found if re.search(a, low).start() < re.search(b, low).start() else found[::-1]  # type: ignore[union-attr]
    named = months_named(low, today)
    if len(set(named)) >= 2 and not re.search(r"\b(between|from)\b.*\b(and|to|until|till)\b", low):
        return [month_period(y, m) for y, m in dict.fromkeys(named)]
    before = re.search(r"\blast month\b.*\b(the month before|the previous month|the month prior)\b", low)
    if before:
        last = month_period(*add_months(today.year, today.month, -1))
        earlier = month_period(*add_months(today.year, today.month, -2))
        return [Period(last.start, last.end, f"last month ({last.start:%B %Y})"), earlier]
    years = re.findall(r"\b(20\d\d)\b", low)
    if len(set(years)) >= 2 and not re.search(r"\b(between|from)\b", low):
        return [Period(date(int(y), 1, 1), date(int(y), 12, 31), f"in {y}") for y in dict.fromkeys(years)]
    single = parse_period(low, today)
    return [single] if single else []


def _default_pair(q: str, periods: list[Period], today: date) -> tuple[list[Period], str | None]:
    """A comparison with one period or none: that period (or this month) against the one before."""
    if len(periods) == 1:
        p = periods[0]
        if p.start.day == 1 and (p.end - p.start).days < 31:
            y, m = add_months(p.start.year, p.start.month, -1)
            before = month_period(y, m)
            return [p, before], f"compared with the month before ({before.start:%B %Y})"
        return periods, None
    this = parse_period("this month", today)
    last = parse_period("last month", today)
    if this is None or last is None:
        return periods, None
    if today.day < 28:  # a month still going on is compared only when asked for: the two last complete ones
        before = month_period(*add_months(today.year, today.month, -2))
        return [last, before], (f"the last complete month ({last.start:%B %Y}) compared with the one before "
                                f"({before.start:%B %Y})")
    return [this, last], "this month so far compared with last month"


def words_of(q: str) -> list[str]:  # re-exported for the LLM planner's prompt checks
    return words(q)
