"""The offline planner: a money question in a user's own words → a ``QueryPlan``, by
rules, with no model.

It reads, in turn: whether the question is about the asker's own money and which
half of a mixed question is (``records.router``); what to leave out ("apart from
the rent"); which accounts ("on the joint account", "each account"); what was bought
— the owner's own merchants and categories, found fuzzily (``records.matching``),
words the statements print, a name after "at" even when the statements never print
it (so "at Costa" is answered "none", not with all spending), places ("in Munich"),
kinds of spending in everyday words (``records.kinds``); the periods (two for a
comparison, ``records.periods``); which money (spending, income, money in, refunds,
transfers, savings, net); the metric; the grouping. Where the question leaves
something open it assumes, and the plan's ``assumptions`` say so.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from .kinds import BY_KEY, kinds_in, phrase_table
from .matching import fold, mentioned, name_matches
from .merchants import PLACE_ALIASES
from .periods import MONTHS, NUMBERS, Period, add_months, month_period, months_named, parse_period
from . import phrases as heard
from .plan import PeriodRef, PlanFilters, Planned, QueryPlan, Vocabulary
from .router import classify, split


class RuleParser:
    """The offline planner (``records.plan.Planner``)."""

    name = "rules"

    def plan(self, question: str, vocabulary: Vocabulary) -> Planned:
        q = " ".join(question.replace("’", "'").split())
        intent, reason = classify(q, self._vocabulary_hit(q, vocabulary))
        halves = split(q, lambda part: classify(part, self._vocabulary_hit(part, vocabulary))[0] is not None)
        if halves is not None:
            plan = self.build(halves.money, vocabulary)
            rest = _self_contained(halves.rest, halves.money)
            return Planned(plan, f"a mixed question: the money half from your transactions ({halves.money!r}), "
                                 f"the rest handed on ({rest!r})", self.name, rest=rest, question=halves.money)
        if intent is None:
            return Planned(None, reason, self.name)
        return Planned(self.build(q, vocabulary), reason, self.name)

    @staticmethod
    def _vocabulary_hit(q: str, vocabulary: Vocabulary) -> str | None:
        kinds = kinds_in(q)
        if kinds:
            return kinds[0][1]
        found = mentioned(q, [*vocabulary.merchants, *vocabulary.categories])
        found = [f for f in found if fold(f) not in heard.QUESTION_WORDS]
        return found[0] if found else None

    # -- the plan -------------------------------------------------------------------------
    def build(self, q: str, vocab: Vocabulary) -> QueryPlan:
        today = vocab.today
        assumptions: list[str] = []
        exclude, q_rest = _exclusions(q)
        accounts, group_accounts, q_rest = self._accounts(q_rest, vocab)
        filters, spans = self._filters(q_rest, vocab, original=q)
        excluded = self._excluded_names(exclude, vocab)
        if heard.PURCHASES.search(q) and "cash" not in filters.kinds and "cash" not in excluded:
            excluded.append("cash")  # a purchase is paid for: cash from a machine is not one
        filters = PlanFilters(categories=filters.categories, merchants=filters.merchants, kinds=filters.kinds,
                              text=tuple(t for t in filters.text if not any(_same_name(t, m) or name_matches(t, m)
                                                                            for m in filters.merchants)),
                              places=filters.places, exclude=tuple(excluded), accounts=tuple(accounts),
                              currency=_currency(q, vocab), fees=bool(heard.WITH_FEES.search(q)))
        masked = _mask(q_rest, spans)
        flow = self._flow(q, masked, filters, assumptions)
        if flow == "income" and not (filters.kinds or filters.merchants or filters.text or filters.categories) and \
                re.search(r"\b(salary|my pay|our pay|get paid|got paid|paid in total|wages|paycheck|payslip)\b",
                          q, re.IGNORECASE):
            filters = _with(filters, kinds=("salary",))
        periods = _periods(masked, today)
        metric, group_by, per, limit = self._metric(masked, q, filters, flow, periods)
        if metric == "balance":
            periods = _balance_day(q, today, periods)
            flow = "spend"
        if group_accounts and metric not in ("balance",):
            group_by = "account"
        if metric == "compare" and len(periods) == 1 and group_by is None and \
                (periods[0].end - periods[0].start).days > 31 and not len(_named(filters)) >= 2:
            metric, group_by = "sum", "month"  # "how has my spending changed over the last few months"
        if metric == "compare" and len(periods) < 2 and group_by is None:
            if len(_named(filters)) >= 2:
                group_by = "name"
            else:
                periods, assumed = _default_pair(masked, periods, today)
                if assumed:
                    assumptions.append(assumed)
        if metric in ("sum", "count") and group_by is None and len(_named(filters)) >= 2 and _both(masked):
            group_by = "name"  # "Tesco and Lidl": each, and the total
        if flow == "net" and metric not in ("sum", "average", "compare"):
            metric = "sum"
        if metric == "average" and per is None:
            per = "transaction"
        if metric != "average":
            per = None
        dropped = _unread(masked, filters, metric)
        if dropped:  # a thing named that no filter took: say what the figure is of instead
            assumptions.append(f"“{' '.join(dropped)}” not recognised in your transactions; this is "
                               f"{'all of them' if flow == 'spend' else 'every ' + flow + ' transaction'}")
        refs = tuple(PeriodRef.of(p) for p in periods)
        return QueryPlan(metric=metric, flow=flow, filters=filters, periods=refs,  # type: ignore[arg-type]
                         group_by=group_by, per=per, limit=limit,  # type: ignore[arg-type]
                         assumptions=tuple(assumptions)).checked()

    def _flow(self, q: str, masked: str, filters: PlanFilters, assumptions: list[str]) -> str:
        if heard.NET.search(q):
            return "net"
        if heard.SAVINGS_NET.search(q):
            return "savings_net"
        if heard.SAVINGS_OUT.search(q):
            return "savings_out"
        if "interest" in filters.kinds:
            return "income"
        if heard.SAVE_NET.search(q) and not heard.SAVINGS.search(re.sub(r"\bsav\w*", "", q)):
            assumptions.append("\"save\" read as income minus spending; ask about money moved into savings for "
                               "your transfers to savings")
            return "net"
        if heard.SAVINGS.search(q) or re.search(r"\bsaved\b", q, re.IGNORECASE):
            if heard.TRANSFER_IN.search(q) and re.search(r"\bfrom (my )?savings\b", q, re.IGNORECASE):
                return "savings_out"
            return "savings"
        if heard.IN.search(q):
            return "in"
        if heard.REFUNDS.search(q) and "tax" not in filters.kinds:
            return "refunds"
        if heard.TRANSFER_IN.search(q) and heard.TRANSFER_OUT.search(q):
            return "transfers_in"
        if heard.TRANSFER_OUT.search(q) and not re.search(r"\b(spen[dt]|bought|buy)\b", q, re.IGNORECASE):
            return "transfers_out"
        if heard.INCOME.search(q) and not re.search(r"\b(spen[dt]|spending|bought|buy|cost)\b", q, re.IGNORECASE):
            return "income"
        if any(k in ("salary", "interest", "tax") for k in filters.kinds):
            return "income"
        return "spend"

    def _metric(self, masked: str, q: str, filters: PlanFilters, flow: str, periods: list[Period]
                ) -> tuple[str, str | None, str | None, int | None]:
        limit = _limit(masked)
        per_match = heard.PER.search(masked)
        per = _per(per_match[0]) if per_match else None
        spentish = re.search(r"\b(spen[dt]|paid|cost|bought|buy)\b", masked, re.IGNORECASE)
        if heard.BALANCE.search(q) and not spentish:
            return "balance", None, None, None
        if heard.SHARE.search(masked) and _named(filters):
            return "share", None, None, None
        recurring_subject = any(k in heard.RECURRING_KINDS for k in filters.kinds) or bool(filters.merchants) or \
            flow in ("savings",)
        rose = re.search(r"\b(go(ne)? up|went up|gone down|go down|went down|ris(e|en)|rose|increas\w*|"
                         r"decreas\w*|chang\w*)\b", masked, re.IGNORECASE)
        if rose and not periods and (recurring_subject or flow == "income" or "salary" in filters.kinds):
            return "recurring", None, None, None  # "by how much did my pay go up?": the amount before and now
        recurring = heard.RECURRING.search(q) or (heard.COSTS_ME.search(q) and recurring_subject
                                            and not heard.PAST_SUM.search(masked) and not periods)
        past, now = heard.PAST_SUM.search(masked), heard.NOW.search(masked)
        if recurring and (per or now or heard.RECURRING.search(q) or not past):
            if heard.COUNT.search(masked) or not (past and periods and not per and not now):
                return "recurring", None, None, None
        if heard.WHO.search(q):
            return "sum", "merchant", None, limit or 3
        if heard.COUNT.search(masked):
            return "count", _group(masked, filters), None, None
        if re.search(r"\bwhich month\b", masked, re.IGNORECASE):
            return "sum", "month", None, 1
        if len(periods) >= 2:
            return "compare", None, None, None
        if heard.MAX.search(masked) and not (heard.TOP.search(masked) and heard.MERCHANT_WORDS.search(q)) and \
                not re.search(r"\bcategor", masked, re.IGNORECASE):
            return "max", None, None, limit
        if heard.MIN.search(masked):
            return "min", None, None, limit
        if heard.AVERAGE.search(masked) or (per and per != "year" and not heard.BY_MONTH.search(masked)
                                      and not heard.RECURRING.search(masked) and _asks_amount(masked)):
            if per is None and re.search(r"\ba (day|week)\b", masked, re.IGNORECASE):
                per = _per(re.search(r"\ba (day|week)\b", masked, re.IGNORECASE)[0])  # type: ignore[index]
            return "average", None, per if per in ("month", "week", "day") else None, None
        top = heard.TOP.search(masked)
        if heard.COMPARE.search(masked) and (len(_named(filters)) >= 2 or _compares_time(masked)):
            return "compare", ("name" if len(_named(filters)) >= 2 else None), None, None
        if heard.BY_MONTH.search(masked) and flow != "net":
            return "sum", "month", None, None
        if re.search(r"\b(each|every|per|by) (supermarket|shop|store|merchant|place|payee|company)\b", q,
                     re.IGNORECASE):
            return "sum", "merchant", None, 20
        if top and flow != "net":
            by = "merchant" if heard.MERCHANT_WORDS.search(q) else "category"
            return "sum", by, None, limit or (1 if re.search(r"\b(the )?(most|biggest|largest|main|top)\b "
                                                               r"(categor\w*|merchant|shop|store|place|payee)\b(?!s)",
                                                               masked, re.IGNORECASE) else None)
        if heard.LIST.search(masked):
            return "list", None, None, limit
        return "sum", None, None, None

    # -- what was bought -----------------------------------------------------------------
    def _filters(self, q: str, vocab: Vocabulary, original: str = "") -> tuple[PlanFilters, list[str]]:
        spans: list[str] = []
        merchants = [self._longer(m, q, vocab) for m in mentioned(q, vocab.merchants)
                     if _nameable(m) and not _kind_phrase(m)]
        rest = _mask(q, merchants)
        places = self._places(rest, vocab)
        rest = _mask(rest, places)
        text: list[str] = []
        kind_spans = [p for _, p in kinds_in(rest)]
        for phrase in self._printed_words(rest, vocab):
            if len(phrase.split()) == 1 and _kind_phrase(phrase):
                continue  # "coffee", "cinema": the kind finds more than the word
            if any(fold(phrase) in fold(k).split() or fold(phrase) == fold(k) for k in kind_spans) and \
                    not any(len(phrase) > len(k) and fold(k) in fold(phrase) for k in kind_spans):
                continue  # "eat" in "eat out": the kind's word, not a payee
            payees = [m for m in vocab.merchants if fold(m).startswith(fold(phrase))]
            if len(phrase.split()) == 1 and self._place_like(phrase, vocab):
                places.append(phrase[0].upper() + phrase[1:])
            elif payees:
                merchants.append(phrase if any(c.isupper() for c in phrase) else phrase.title())
            else:
                text.append(phrase)
        rest = _mask(rest, text + merchants)
        categories = [c for c in mentioned(rest, vocab.categories) if fold(c) not in heard.QUESTION_WORDS]
        kinds: list[str] = []
        found_kinds = kinds_in(rest)
        for key, phrase in found_kinds:
            kind = BY_KEY[key]
            same = [c for c in categories if fold(c) in {fold(x) for x in kind.categories}]
            if key == "fees" and not re.search(r"\b(i|my|me|we|our|us)\b", q, re.IGNORECASE):
                continue
            if same:
                continue
            kinds.append(key)
        rest = _mask(rest, [*categories, *(p for _, p in found_kinds)])
        asked = original or q
        money_in = bool(heard.IN.search(asked) or heard.INCOME.search(asked))
        for name in self._unknown_names(rest, vocab, money_in=money_in):
            if name not in merchants:
                merchants.append(name)
        spans += merchants + text + places + categories + [p for _, p in found_kinds]
        if merchants and (kinds or categories) and not re.search(r"\b(and|or|vs|versus|plus)\b", q, re.IGNORECASE):
            kinds, categories = [], []  # "coffee at Pret", "Ryanair flights": the merchant is the filter
        return PlanFilters(categories=tuple(categories), merchants=tuple(merchants), kinds=tuple(kinds),
                           text=tuple(text), places=tuple(places)), spans

    @staticmethod
    def _longer(merchant: str, q: str, vocab: Vocabulary) -> str:
        """The merchant as the question names it, when more of its name follows and the
        statements print that ("Tesco Express" rather than all of Tesco)."""
        m = re.search(re.escape(merchant) + r"\s+([A-Za-z][\w'&-]*)", q, re.IGNORECASE)
        if not m or fold(m[1]) in heard.QUESTION_WORDS or fold(m[1]) in MONTHS or _kind_phrase(m[1]):
            return merchant
        longer = f"{merchant} {m[1]}"
        return longer if any(name_matches(longer, d) for d in vocab.descriptions) else merchant

    @staticmethod
    def _accounts(q: str, vocab: Vocabulary) -> tuple[list[str], bool, str]:
        """(accounts named, whether asked per account, the question without them). An
        account that is not one of the owner's ("to the joint account" from the current
        account) stays in the question: a counterparty its lines print."""
        each = bool(heard.EACH_ACCOUNT.search(q))
        out: list[str] = []
        rest = q
        for m in heard.ACCOUNT_PHRASE.finditer(q):
            phrase = (m[1] or m[2] or "").lower()
            word = phrase.split()[0]
            if word in ("savings", "saving", "saver", "isa", "easy") and not re.search(
                    r"\b(balance|in|left|account)\b", q, re.IGNORECASE):
                continue  # "put into my savings": the money's flow, not the account
            name = {"saving": "savings", "easy": "savings", "saver": "savings", "isa": "savings"}.get(word, word)
            matches = [a for a in vocab.accounts if fold(name) in fold(a) or name_matches(name, a)]
            if name in ("current", "everyday", "monzo") and not matches:
                matches = [a for a in vocab.accounts if not re.search(r"sav|joint", a, re.IGNORECASE)][:1] \
                    if len(vocab.accounts) > 1 else []
            chosen = matches[0] if len(matches) == 1 else name
            if not (matches or name == "savings"):
                continue  # not an account of the owner's: a counterparty, left in the question
            if chosen not in out:
                out.append(chosen)
            rest = rest.replace(m[0], " ")
        rest = heard.EACH_ACCOUNT.sub(" ", rest)
        if re.search(r"\bpots?\b", q, re.IGNORECASE) and heard.BALANCE.search(q):
            pot = re.search(r"\b(?:my|our|the)\s+(\w+)\s+pot\b", q, re.IGNORECASE)
            out.append(f"{pot[1]} pot" if pot and pot[1].lower() not in ("my", "our") else "pots")
        if each:
            out = []
        return out, each, " ".join(rest.split())

    @staticmethod
    def _excluded_names(phrases: list[str], vocab: Vocabulary) -> list[str]:
        out: list[str] = []
        for phrase in phrases:
            kinds = [k for k, _ in kinds_in(phrase)]
            merchants = mentioned(phrase, vocab.merchants)
            names = kinds + [m for m in merchants if _nameable(m)]
            if not names:
                words = [w for w in re.findall(r"[\w'&.-]+", phrase) if fold(w) not in heard.QUESTION_WORDS]
                names = [" ".join(words)] if words else []
            out += [n for n in names if n and n not in out]
        return out

    @staticmethod
    def _places(q: str, vocab: Vocabulary) -> list[str]:
        """Towns and countries: a capitalised word after "in", a known place's English name,
        or a word the statements print that follows "in"."""
        out: list[str] = []
        for m in heard.PLACE_AFTER.finditer(q):
            phrase = m[1].strip(".'")
            first = fold(phrase.split()[0])
            if first in heard.QUESTION_WORDS or first in MONTHS or first in NUMBERS or first.isdigit() or \
                    _kind_phrase(phrase) or first in {fold(c) for c in vocab.categories}:
                continue
            if fold(phrase) in PLACE_ALIASES or phrase[0].isupper() or RuleParser._place_like(phrase, vocab):
                if not any(fold(phrase) == fold(m) for m in vocab.merchants):
                    out.append(phrase[0].upper() + phrase[1:])
        for word in re.findall(r"[A-Za-z][\w'-]+", q):
            if fold(word) in PLACE_ALIASES and not any(fold(word) == fold(p) for p in out):
                out.append(word[0].upper() + word[1:])
        return out

    @staticmethod
    def _unknown_names(q: str, vocab: Vocabulary, *, money_in: bool = False) -> list[str]:
        """A name after "at", "to", "pay"… (or capitalised) that is nothing the owner has:
        kept, so the answer says there is none rather than counting everything."""
        out: list[str] = []
        candidates = [m[1] for m in heard.NAME_AFTER.finditer(q)] + \
            [m[1] for m in heard.CAPITALISED.finditer(q) if not re.match(r"^(I|I'm|I've|I'd)$", m[1])]
        subjects = {m[1] for m in re.finditer(r"\b(?:did|does|has|have|had|will|would|can|could)\s+([A-Z]\w+)\b", q)}
        subjects |= {m[1] for m in re.finditer(r"\b([A-Z]\w+)(?:'s| and (?:I|me)\b)", q)}
        for raw in candidates:
            if raw.split()[0] in subjects and not money_in:
                continue  # "did Sam take out": who did it, not whom they paid ("has Sam paid in": the payer)
            words = [w for w in raw.split() if fold(w) not in heard.QUESTION_WORDS and fold(w) not in MONTHS
                     and fold(w).strip(".") not in MONTHS and not fold(w).isdigit() and fold(w)]
            if not words:
                continue
            name = " ".join(words).strip(".'?")
            if len(fold(name)) < 2 or _kind_phrase(name) or any(fold(name) == fold(p) for p, _ in phrase_table()) \
                    or fold(name) in {fold(a) for a in vocab.accounts} or fold(name) in ("it",):
                continue
            if name not in out:
                out.append(name)
        return out

    @staticmethod
    def _printed_words(q: str, vocab: Vocabulary) -> list[str]:
        """Words of the question that the owner's statements print, fuzzily: a payee the
        merchant list lacks ("dishoom"), a line's own words ("monthly account fees", "council
        tax") — a phrase of several words only when it is specific (printed in at most a
        quarter of the descriptions)."""
        if not vocab.descriptions:
            return []
        raw = [w for w in re.findall(r"[\w'&.-]+", q)]
        limit = max(1, len(vocab.descriptions) // 4)

        def usable(word: str) -> bool:
            f = fold(word)
            return bool(f) and f.strip(".") not in MONTHS and f not in NUMBERS and not f.isdigit() and f != "it"

        found: list[str] = []
        i = 0
        while i < len(raw):
            best = None
            for j in range(min(len(raw), i + 4), i, -1):
                words = raw[i:j]
                if not all(usable(w) for w in words):
                    continue
                edge = {fold(words[0]), fold(words[-1])}
                if j - i == 1:
                    if fold(words[0]) in heard.QUESTION_WORDS or len(fold(words[0])) < 3:
                        continue
                elif edge & heard.EDGE_WORDS or all(fold(w) in heard.QUESTION_WORDS for w in words) and j - i < 3:
                    continue
                phrase = " ".join(words)
                hits = sum(1 for d in vocab.descriptions if name_matches(phrase, d))
                if hits and (j - i == 1 or hits <= limit):
                    best = (phrase.strip(".'"), j)
                    break
            if best:
                found.append(best[0])
                i = best[1]
            else:
                i += 1
        return found

    @staticmethod
    def _place_like(word: str, vocab: Vocabulary) -> bool:
        """A word the statements print after a payee's name (its town: "PRET A MANGER LEEDS
        GBR"), in two payees' lines or more."""
        target = fold(word)
        where = {d.split()[0].casefold() for d in vocab.descriptions
                 if target in fold(d).split()[1:] and fold(d).split()[0] != target}
        return len(where) >= 2


# -- pure helpers -------------------------------------------------------------------------
def _with(filters: PlanFilters, **changes: object) -> PlanFilters:
    from dataclasses import replace

    return replace(filters, **changes)  # type: ignore[arg-type]


def _exclusions(q: str) -> tuple[list[str], str]:
    """The things a question leaves out ("apart from the rent", "not counting the train"),
    and the question without those phrases."""
    found = [m[1].strip() for m in heard.EXCLUDE.finditer(q)]
    rest = heard.EXCLUDE.sub(" ", q)
    return found, " ".join(rest.split())


def _self_contained(rest: str, money: str) -> str:
    """The half handed on, able to stand alone: a short one ("what's the rate?") takes the
    money half's fee or charge along ("what's the rate for non-sterling transaction fees?")."""
    content = [w for w in re.findall(r"[\w'%-]+", rest) if fold(w) not in heard.QUESTION_WORDS]
    if len(content) >= 3:
        return rest
    subject = re.search(r"((?:[\w-]+ ){0,3}(?:fees?|charges?|rates?|interest))\b", money, re.IGNORECASE)
    if subject is None:
        return rest
    words = [w for w in subject[1].split() if fold(w) not in heard.EDGE_WORDS and fold(w) not in ("including", "incl")]
    return f"{rest.rstrip('?')} for {' '.join(words)}?" if words else rest


_GENERIC = frozenset("""earn earned earning earnings income salary wage wages pay paid received receive came in
out saved save saving savings transfer transfers transferred sent send moved balance left overall altogether
in total grand now currently today yesterday tomorrow again ago recent recently lately so far summer winter spring
autumn christmas weekend weekday weekends weekdays morning evening night things stuff""".split())


def _unread(masked: str, filters: PlanFilters, metric: str) -> list[str]:
    """Content words of a question whose plan names no thing at all: what the figure
    silently left out ("presents and cards" read as all spending). [] when the plan
    filters on something, or asks for a balance."""
    if metric == "balance" or any((filters.categories, filters.merchants, filters.kinds, filters.text,
                                   filters.places, filters.accounts)):
        return []
    words = [w for w in re.findall(r"[a-z][a-z'’+&-]*", fold(masked))
             if len(w) > 2 and w not in heard.QUESTION_WORDS and w not in _GENERIC
             and w.rstrip("s") not in heard.QUESTION_WORDS
             and not any(w.startswith(m[:3]) for m in MONTHS)]
    return list(dict.fromkeys(words))[:4]


def _mask(q: str, spans: list[str]) -> str:
    """``q`` with the named things blanked (their words must not read as cues: "Three", "Next")."""
    out = q
    for span in sorted((s for s in spans if s), key=len, reverse=True):
        out = re.sub(r"(?<![\w])" + re.escape(span) + r"(?![\w])", " it ", out, flags=re.IGNORECASE)
    return " ".join(out.split())


def _same_name(a: str, b: str) -> bool:
    """One name written two ways ("non-sterling transaction fees", "Non-Sterling Transaction Fee")."""
    return fold(a).rstrip("s") == fold(b).rstrip("s")


def _kind_phrase(text: str) -> bool:
    return any(phrase == fold(text) for phrase, _ in phrase_table())


def _nameable(name: str) -> bool:
    return fold(name) not in heard.QUESTION_WORDS and fold(name) not in MONTHS and fold(name) not in ("today",
                                                                                                   "yesterday")


def _named(filters: PlanFilters) -> list[str]:
    return [*filters.categories, *filters.merchants, *filters.kinds, *filters.text]


def _both(q: str) -> bool:
    return bool(re.search(r"\b(each|both|separately|respectively|individually|per|and|or|vs|versus)\b", q,
                          re.IGNORECASE))


def _asks_amount(q: str) -> bool:
    return bool(re.search(r"\bhow much\b|\bspend\b|\bspending\b|\bcost\b|\bpay\b|\bwhat (do|does)\b", q,
                          re.IGNORECASE))


def _compares_time(q: str) -> bool:
    return bool(re.search(r"\bthan (last|the previous|before|in|the month before|usual|normal)\b|"
                          r"\b(more|less) (this|last) (month|year|week)\b|\bchang|\bincreas|\bdecreas|\bup or down\b|"
                          r"\bgo(ne|ing)? (up|down)\b|\bwent (up|down)\b", q, re.IGNORECASE))


def _per(word: str) -> str:
    w = word.lower()
    for unit in ("month", "week", "day", "year"):
        if unit in w:
            return unit
    return {"annually": "year", "annual": "year", "daily": "day"}.get(w.split()[-1], "month")


def _limit(q: str) -> int | None:
    m = heard.LIMIT.search(q)
    if not m:
        return None
    word = (m[1] or m[2] or m[4] or "").lower()
    return max(1, min(50, int(word) if word.isdigit() else NUMBERS.get(word, 5)))


def _group(q: str, filters: PlanFilters) -> str | None:
    if re.search(r"\b(each|every|per|by) month\b|\bmonth by month\b", q, re.IGNORECASE):
        return "month"
    if len(_named(filters)) >= 2 and _both(q):
        return "name"
    return None


def _currency(q: str, vocab: Vocabulary) -> str | None:
    m = re.search(r"\b(in|of|how many) (euros?|eur|€|pounds?|gbp|£|sterling|quid|dollars?|usd|\$|swiss francs?|chf)\b",
                  q, re.IGNORECASE)
    if not m:
        return None
    word = m[2].lower()
    return ("EUR" if word.startswith(("eur", "€")) else "GBP" if word.startswith(("pound", "gbp", "£", "sterl", "quid"))
            else "USD" if word.startswith(("dollar", "usd", "$")) else "CHF")


def _balance_day(q: str, today: date, periods: list[Period]) -> list[Period]:
    """The day a balance is asked for: "at the start of June" is the end of 31 May; "at the
    end of June" the end of 30 June; "now" (or nothing) today."""
    m = heard.BALANCE_DAY.search(q)
    if m:
        edge, month = (m[1], m[2]) if m[1] else (m[3], m[4])
        named = months_named(month, today)
        if named:
            whole = month_period(*named[0])
            day = whole.start - timedelta(days=1) if edge.lower() in ("start", "beginning") else whole.end
            return [Period(day, day, f"on {day:%-d %B %Y}")]
    if periods:
        last = periods[-1]
        return [Period(last.end, last.end, f"on {last.end:%-d %B %Y}")]
    return []


def _periods(q: str, today: date) -> list[Period]:
    """The periods a question names: two (or more) for a comparison, else one or none."""
    low = q.lower()
    pairs = [(r"\bthis month\b", r"\blast month\b", "this month", "last month"),
             (r"\bthis year\b", r"\blast year\b", "this year", "last year"),
             (r"\bthis week\b", r"\blast week\b", "this week", "last week")]
    for a, b, first, second in pairs:
        ma, mb = re.search(a, low), re.search(b, low)
        if ma and mb:
            found = [p for p in (parse_period(first, today), parse_period(second, today)) if p is not None]
            return found if ma.start() < mb.start() else found[::-1]
    named = months_named(low, today)
    ranged = re.search(r"\b(between|from)\b.*\b(and|to|until|till)\b", low)
    if len(set(named)) >= 2 and (not ranged or heard.COMPARE.search(low)):
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
