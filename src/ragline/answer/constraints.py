"""The question's hard constraints, and whether the context holds them.

A near miss is a question on the right topic whose specific fact is not there:
"the interest rate on a 5-year fixed-term deposit" when the bank has only a 1-year
saver. Cosine relevance cannot tell the two apart (the savings passage is about the
question); the words can. Two kinds of terms in a question are constraints the
answer must meet, not just topic words:

- a number with a unit of time ("5-year", "2 years", "30 days"): the evidence must
  state the same number with that unit;
- a name: a run of capitalised words that does not start the sentence ("Premium
  Metal", "Western Union", "Maastricht"): the evidence must contain it.

``missing_constraints`` returns the constraints that no source meets, where a
source meets them when it holds every constraint *and* at least one of the
question's other content terms (so "5 years" in a privacy passage does not
answer a question about deposits). The answer step abstains when any is missing,
and also when the best source only just clears the relevance floor while the
sources hold under half of the question's terms (``term_coverage``).
Measured on the labelled answer set (bench/quality_answers.md, docs/answers.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..analyzer import STOPWORDS, stopwords
from ..embed.base import Embedder
from ..errors import ConfigError, EmbedderError
from .passages import fold
from .text import content_terms

_UNITS = "year|month|week|day|hour|minute"
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "twelve": "12"}
_DURATION = re.compile(rf"\b(\d+|{'|'.join(_NUMBER_WORDS)})\s*-?\s*({_UNITS})s?\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’&-]*|[.?!;:]")
# Capitalised words that are no names: question openers, pronouns and the like.
_NOT_NAMES = {"i", "i'm", "i've", "my", "what", "how", "is", "are", "can", "do", "does", "who", "when", "where",
              "which", "why", "will", "would", "should", "could", "the", "a", "an", "if", "please", "hi", "hello"}

# Words before a name that make it a destination or origin, not the thing asked about.
_PLACE_WORDS = {"to", "from", "outside", "within", "across", "into", "abroad"}


@dataclass(frozen=True)
class Constraint:
    """A term the evidence must contain: ``label`` as asked, ``pattern`` to find it."""

    label: str
    pattern: re.Pattern[str]
    # A name of several words is also met when each of them is there ("Premium Savings
    # Account" by a table row "Premium | … savings account"); each a pattern.
    words: tuple[re.Pattern[str], ...] = ()

    def met_by(self, text: str) -> bool:
        return bool(self.pattern.search(text)) or (bool(self.words) and all(w.search(text) for w in self.words))


def question_constraints(question: str) -> list[Constraint]:
    """The durations and names in ``question`` (see the module docstring)."""
    out: list[Constraint] = []
    for match in _DURATION.finditer(question):
        number = _NUMBER_WORDS.get(match.group(1).lower(), match.group(1))
        words = [w for w, digit in _NUMBER_WORDS.items() if digit == number]
        alternatives = "|".join([re.escape(number), *words])
        unit = match.group(2).lower()
        out.append(Constraint(match.group(0), re.compile(rf"\b(?:{alternatives})\s*-?\s*{unit}s?\b", re.IGNORECASE)))
    for name in _names(question):
        # A plural or possessive in the question still matches the singular ("Sundays" → "Sunday").
        stem = re.sub(r"(?:'s|’s|s)$", "", name) if len(name) > 4 else name
        parts = [re.sub(r"(?:'s|’s|s)$", "", w) if len(w) > 4 else w for w in stem.split()]
        each = tuple(re.compile(rf"\b{re.escape(w)}", re.IGNORECASE) for w in parts) if len(parts) > 1 else ()
        out.append(Constraint(name, re.compile(rf"\b{re.escape(stem)}", re.IGNORECASE), each))
    return out


def _or_alias(constraint: Constraint, alias: str | None) -> Constraint:
    if not alias:
        return constraint
    # The long form, or its last word: a page may say only "instalment" for an EMI.
    words = alias.split()
    whole = r"\W+".join(re.escape(w) for w in words)
    head = rf"|\b{re.escape(words[-1])}" if len(words[-1]) >= 5 else ""
    return Constraint(constraint.label, re.compile(rf"{constraint.pattern.pattern}|\b{whole}{head}", re.IGNORECASE),
                      constraint.words)


def _names(question: str) -> list[str]:
    """Runs of capitalised words that do not open a sentence, nor name where money
    goes or comes from ("to the United States", "from outside Europe"): a place of
    destination is usually covered by a general rule ("outside the euro area"),
    unlike the product, branch or provider a question asks about."""
    names: list[str] = []
    run: list[str] = []
    sentence_start, place = True, False
    previous: list[str] = []
    for token in _WORD.findall(question):
        if token in ".?!;:":
            sentence_start, run, previous = True, _flush(run, names, place), []
            continue
        capital = token[0].isupper() and token.lower() not in _NOT_NAMES and len(token) > 1
        if capital and not sentence_start:
            if not run:
                lead = [w.lower() for w in previous[-2:]]
                place = bool(lead) and (lead[-1] in _PLACE_WORDS or (lead[-1] == "the" and len(lead) == 2
                                                                      and lead[0] in _PLACE_WORDS))
            run.append(token)
        else:
            run = _flush(run, names, place)
        sentence_start = False
        previous.append(token)
    _flush(run, names, place)
    return names


def _flush(run: list[str], names: list[str], place: bool = False) -> list[str]:
    if run and not place:
        names.append(" ".join(run))
    return []


def missing_constraints(question: str, evidence: Sequence[str], aliases: Mapping[str, str] | None = None) -> list[str]:
    """Labels of the question's constraints that no single evidence text meets
    together with one of the question's other content terms; [] when all are met
    (or the question has none). ``aliases`` maps an abbreviation of the question to
    the long form the collection defines ("EMI" → "equated monthly instalment"):
    either meets the constraint."""
    constraints = [_or_alias(c, (aliases or {}).get(c.label)) for c in question_constraints(question)]
    if not constraints or not evidence:
        return []
    constrained = set().union(*(content_terms(c.label) for c in constraints))
    others = content_terms(question) - constrained
    best: list[str] | None = None
    names = [c for c in constraints if not _DURATION.fullmatch(c.label)]
    for text in evidence:
        missing = [c.label for c in constraints if not c.met_by(text)]
        # On topic: one of the question's other terms is there, or — when the question has
        # a single other term ("the current MCLR") — a name it asks for.
        on_topic = (not others or bool(others & content_terms(text))
                    or (len(others) <= 1 and any(c.met_by(text) for c in names)))
        if not on_topic:
            missing = [c.label for c in constraints]
        if best is None or len(missing) < len(best):
            best = missing
        if not best:
            return []
    return best or []


# A question whose best source only just clears the relevance floor is weak
# evidence; it is answered only when the sources hold at least this share of its
# content terms. Chosen on the odd half of the labelled answer set (docs/answers.md).
MIN_COVERAGE = 0.5
WEAK = "weak evidence"


def term_coverage(question: str, evidence: Sequence[str]) -> float:
    """Share of the question's content terms found anywhere in ``evidence`` (1.0 when it has none)."""
    wanted = content_terms(question)
    if not wanted:
        return 1.0
    found = set().union(*(content_terms(text) for text in evidence)) if evidence else set()
    return len(wanted & found) / len(wanted)


# What kind of fact a question asks for, and how a sentence that states one looks.
# The extractive generator uses it to drop padding: after a first sentence that
# states the asked kind of fact, further sentences must state one too. A kind that
# ``leads`` also reorders: a sentence close to the best that states it goes first
# (only where the question is specific enough: "what interest…" wants a rate).
@dataclass(frozen=True)
class AnswerType:
    states: re.Pattern[str]
    leads: bool = False

    def search(self, text: str) -> re.Match[str] | None:
        return self.states.search(text)


_ANSWER_TYPES: list[tuple[re.Pattern[str], AnswerType]] = [
    # Spanish first: "¿cuánto tiempo…?", "¿a qué hora…?", "¿cuántos…?", "¿cuánto cuesta…?"
    (re.compile(r"\bcu[aá]nto tiempo\b|\bcu[aá]ntos d[ií]as\b|\bplazo\b|\bcu[aá]ndo\b", re.IGNORECASE),
     AnswerType(re.compile(r"\d+\s*(?:d[ií]as?|semanas?|mes(?:es)?|años?|horas?|minutos?)\b|\binmediat",
                           re.IGNORECASE))),
    (re.compile(r"\ba qu[eé] hora\b|\bhorarios?\b|\bcerr[aá]is\b|\babr[ií]s\b", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*h\b|\bcerrad", re.IGNORECASE), leads=True)),
    (re.compile(r"\bcu[aá]nt[oa]s\b(?! d[ií]as)", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d+\b", re.IGNORECASE))),
    (re.compile(r"\bcu[aá]nto\b|\bprecio\b|\bcuesta\b|\bcobr[aá]is\b|\btarifa\b|\bgastos?\b", re.IGNORECASE),
     AnswerType(re.compile(r"€|\beuros?\b|\bgratis\b|\bgratuit|%", re.IGNORECASE), leads=True)),
    (re.compile(r"\bhow (?:long|fast|soon|quickly)\b|\bwhen will\b", re.IGNORECASE),
     AnswerType(re.compile(r"\d+\s*(?:(?:-|to)\s*\d+\s*)?(?:business\s+|calendar\s+|working\s+)?"
                           r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|"
                           r"\b(?:same|next)\s+(?:business\s+)?day\b|\bimmediate|\binstant|\bwithin\b",
                           re.IGNORECASE))),
    (re.compile(r"\bhow many\b", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d+\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|unlimited|no)\b",
                           re.IGNORECASE))),
    (re.compile(r"\bwhat time\b|\bopening hours\b|\bcut-?off\b|\bhours\b", re.IGNORECASE),
     AnswerType(re.compile(r"\b\d{1,2}[:.]\d{2}\b|\bclosed\b", re.IGNORECASE))),
    # "What interest is charged?": a rate answers it, an interest-free allowance does not.
    (re.compile(r"\binterest\b(?!-)(?!.*\bfree\b)|\binterest\s+rates?\b|\b(?:APR|EAR|AER)\b", re.IGNORECASE),
     AnswerType(re.compile(r"\d\s*%|\d\s*(?:per\s?cent|percent)\b|\b(?:APR|EAR|AER)\b", re.IGNORECASE),
                leads=True)),
    (re.compile(r"\bhow much\b|\bfees?\b|\bcosts?\b|\bcharges?\b|\bprice\b|\binterest\b|\brate\b|\bpay\b",
                re.IGNORECASE),
     AnswerType(re.compile(r"[€$£%]|\bEUR\b|\bper\s?cent\b|\bpercent\b|\bfree\b|\bno\s+(?:\w+\s+)?fee\b|"
                           r"\bnothing\b|\binterest-free\b", re.IGNORECASE))),
]


def answer_type(question: str) -> AnswerType | None:
    """The kind of fact ``question`` asks for (a duration, a count, a time of day,
    a rate, an amount), or None."""
    for asks, kind in _ANSWER_TYPES:
        if asks.search(question):
            return kind
    return None


# -- siblings: the asked product is not the one the documents cover ----------------
_QUESTION_WORDS = frozenset(["what", "whats", "which", "when", "where", "who", "whom", "whose", "why", "how", "much", "many", "long", "does", "do", "did", "is", "are", "can", "could", "would", "should", "will", "may", "might", "shall", "the", "a", "an", "my", "your", "our", "their", "its", "this", "that", "these", "those", "there", "here", "for", "from", "with", "without", "about", "into", "onto", "over", "under", "after", "before", "between", "during", "per", "and", "or", "not", "any", "some", "all", "each", "every", "than", "then", "cost", "costs", "price", "fee", "fees", "charge", "charges", "rate", "rates", "pay", "paid", "get", "got", "take", "need", "want", "know", "tell", "give", "please", "much", "que", "cual", "cuanto", "cuanta", "cuantos", "cuantas", "como", "donde", "cuando", "quien", "por", "para", "con", "sin", "sobre", "una", "uno", "unos", "unas", "los", "las", "el", "la", "del", "al", "de", "en", "y", "o", "mi", "mis", "tu", "tus", "su", "sus", "es", "son", "hay", "puedo", "puede", "tiene", "tienen", "cuesta", "cuestan", "precio"]) | STOPWORDS


# Prefixes that make another grade of a kind ("extra-large" beside "large").
_GRADES = frozenset("extra super ultra mini micro semi sub over under non".split())
# Adjectives that describe any product, never a kind of one ("a new card", "my current account"
# is a kind, but "current" alone before a noun the sources name otherwise is not).
_ANY_KIND = frozenset("""new old existing current latest first last next own other another different same additional
usual normal typical whole full main nuevo nueva nuevos nuevas viejo vieja otro otra mismo misma""".split())

_OPENERS = frozenset("""a an the my your our their his her its this that these those any each every some no for on of
per about with without un una unos unas el la los las mi mis tu tus su sus del al de en por para con sin sobre""".split())


@dataclass(frozen=True)
class Sibling:
    """The question asks about ``asked`` ("car loan"); the sources cover ``covered``
    ("personal loan") and never name the asked kind."""

    asked: str
    covered: str
    word: str  # the asked word no document holds ("car")


def _norm(word: str) -> str:
    word = fold(word)
    for suffix in ("es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _stopwords(language: str) -> frozenset[str]:
    try:
        return frozenset(fold(w) for w in stopwords(language))
    except ConfigError:  # a language without a list: the question words alone
        return frozenset()


def missing_sibling(question: str, evidence: Sequence[str], known: Callable[[str], bool],
                    language: str = "english",
                    alike: Callable[[str, list[str]], bool] | None = None) -> Sibling | None:
    """A kind of product the question asks about that no document names, set next
    to a noun the sources hold with other kinds: "car loan" over documents of
    "personal loan" and "home loan"; "extra-large locker" over small, medium and
    large ones. English puts the kind word before its noun, Spanish after
    ("bicicleta tándem").

    ``known(phrase)`` says whether any document of the collection holds the asked
    phrase itself; ``alike(word, kinds)`` whether the word means one of the kinds
    the sources name ("village" for "rural", "biggest" for "large": a paraphrase,
    not another product). A word that contains a named kind ("extra-large") is
    another kind all the same."""
    tokens = re.findall(r"[^\W_]+(?:-[^\W_]+)*", question)
    words = [_norm(t) for t in tokens]
    originals = [re.findall(r"[^\W_]+(?:-[^\W_]+)*", text) for text in evidence]
    texts = [[_norm(t) for t in text] for text in originals]
    vocabulary = {w for text in texts for w in text}
    step = 1 if language == "spanish" else -1  # where the kind word sits from its head: English before, Spanish after
    common = _QUESTION_WORDS | _stopwords(language) | _ANY_KIND
    for i, word in enumerate(words):
        if (word in common or len(word) < 3 or word in vocabulary or any(c.isdigit() for c in word)
                or (language == "english" and word.endswith(("ly", "ed", "est")))
                or (len(word) >= 6 and any(v.startswith(word[:6]) for v in vocabulary))):  # "withdraw": withdrawal
            continue
        head_at = i - step
        if (not 0 <= head_at < len(words) or words[head_at] in common or len(words[head_at]) < 3
                or words[head_at] not in vocabulary):
            continue
        head = words[head_at]
        kinds: Counter[str] = Counter()
        for text, original in zip(texts, originals):
            for j, w in enumerate(text):
                k = j + step
                if w == head and 0 <= k < len(text) and text[k] not in _QUESTION_WORDS and len(text[k]) > 2 \
                        and not any(c.isdigit() for c in text[k]):
                    kinds[original[k].lower()] += 1
        # A family of products: two kinds of the head, or one named again and again
        # ("personal loan" throughout), not a word that once stood before it.
        if not kinds or (len(kinds) < 2 and max(kinds.values()) < 2):
            continue
        # Named as a thing: a determiner or preposition opens the phrase ("a car loan",
        # "for your recurring deposit", "una bicicleta tándem"), not a verb's subject.
        phrase_start = min(i, head_at)
        if not any(0 <= j < len(words) and words[j] in _OPENERS for j in (phrase_start - 1, phrase_start - 2)):
            continue
        pair = (tokens[i], tokens[head_at]) if step == -1 else (tokens[head_at], tokens[i])
        asked = " ".join(pair).lower()
        # "extra-large" is another size than "large"; "fixed-term" is still "fixed".
        parts = word.split("-")
        graded = len(parts) > 1 and parts[0] in _GRADES and any(_norm(k) in parts[1:] for k in kinds)
        if not graded and alike is not None and alike(tokens[i].lower(), list(kinds)):
            continue
        if len(parts) > 1 and not graded and any(_norm(k) in parts for k in kinds):
            continue
        if known(asked):
            continue
        kind = kinds.most_common(1)[0][0]
        covered = (kind, tokens[head_at]) if step == -1 else (tokens[head_at], kind)
        return Sibling(asked, " ".join(covered).lower(), tokens[i])
    return None


def kind_terms(question: str, evidence: Sequence[str], language: str = "english") -> dict[str, set[str]]:
    """The question's kind words that tell the sources' products apart, each with its
    siblings: {"home": {"personal"}} for "penalty on a home loan" when the sources
    speak of home loans and personal loans. An answer must come from where that kind
    is meant, not from a sibling's."""
    tokens = [_norm(t) for t in re.findall(r"[^\W_]+(?:-[^\W_]+)*", question)]
    texts = [[_norm(t) for t in re.findall(r"[^\W_]+(?:-[^\W_]+)*", text)] for text in evidence]
    step = 1 if language == "spanish" else -1
    # The words beside each word of the evidence, read once: looking them up per question
    # word made a 10,000-character question cost its words × the evidence's (40 ms a question).
    beside: dict[str, set[str]] = {}
    for text in texts:
        for j, w in enumerate(text):
            if 0 <= j + step < len(text) and text[j + step] not in _QUESTION_WORDS:
                beside.setdefault(w, set()).add(text[j + step])
    out: dict[str, set[str]] = {}
    for i, word in enumerate(tokens):
        head_at = i - step
        if word in _QUESTION_WORDS or len(word) < 3 or not 0 <= head_at < len(tokens):
            continue
        head = tokens[head_at]
        if head in _QUESTION_WORDS or len(head) < 3:
            continue
        kinds = beside.get(head, set())
        if word in kinds and len(kinds) >= 2:
            out[word] = {k for k in kinds - {word} if len(k) > 2 and k not in _ANY_KIND}
    return out


# A kind word this close (cosine) to a kind the sources name means that kind.
ALIKE = 0.5


def alike(embedder: Embedder, word: str, kinds: list[str]) -> bool:
    try:
        vectors = embedder.embed_documents([word, *kinds])
    except EmbedderError:
        return False
    return bool(np.max(vectors[1:] @ vectors[0]) >= ALIKE)


def plural(phrase: str, language: str = "english") -> str:
    """The kind phrase as a plural: "car loan" → "car loans"; in Spanish the noun and
    its adjective agree: "tarjeta digital" → "tarjetas digitales", "bicicleta
    eléctrica" → "bicicletas eléctricas"."""
    words = phrase.split()
    if language != "spanish":
        words[-1] = words[-1] if words[-1].endswith("s") else words[-1] + "s"
        return " ".join(words)
    # The noun, and the words after it that read as adjectives (which agree); a noun in
    # apposition stays as it is ("niveles oro", "bicicletas tándem").
    return " ".join(_plural_es(w) if i == 0 or _ADJECTIVE_ES.search(w) else w for i, w in enumerate(words))


_ADJECTIVE_ES = re.compile(r"(?:al|ble|ic[oa]|iv[oa]|ad[oa]|id[oa]|ante|ente|il|ar|os[oa]|ari[oa]|er[oa])$")


def _plural_es(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("z"):
        return word[:-1] + "ces"
    return word + ("s" if word[-1] in "aeiouáéíóú" else "es")
