"""Categories when the bank gives none, in Monzo's taxonomy (``TAXONOMY``).

Who decides a transaction's category, first match wins:

1. the user: a correction of this transaction, or of its merchant
   (``category_source`` ``user``);
2. the bank: a category the file or API gave (``bank``; a taxonomy code such as
   Starling's ``EATING_OUT`` is shown as the taxonomy's label);
3. inference (``inferred``): a known merchant (``merchants.KNOWN``), then keyword
   rules (``RULES``: cash machines, salaries, rent, "parking"…), then the local
   embedding model: the description's nearest labelled examples
   (``category_examples.EXAMPLES`` plus the user's own corrected merchants, so a
   correction also teaches similar merchants), ``general`` when nothing is close.

Money in is ``income`` unless it names a shop (a refund keeps the shop's
category) or a move between one's own accounts. Inference never fails an import:
without a working embedder it stops at the rules.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError, RaglineError
from ..models.records import Transaction, flow_of, key
from .category_examples import EXAMPLES
from .merchants import fold, known_merchant, normalise_merchant

if TYPE_CHECKING:
    from ..embed import Embedder

log = logging.getLogger(__name__)

TAXONOMY: dict[str, str] = {
    "groceries": "Groceries", "eating_out": "Eating out", "transport": "Transport", "bills": "Bills",
    "entertainment": "Entertainment", "shopping": "Shopping", "personal_care": "Personal care",
    "holidays": "Holidays", "cash": "Cash", "general": "General", "income": "Income", "transfers": "Transfers",
    "savings": "Savings", "charity": "Charity", "family": "Family", "gifts": "Gifts", "finances": "Finances",
    "expenses": "Expenses",
}
"""Monzo's categories: id → the label stored and shown."""

MONEY_IN = frozenset({"income", "transfers", "savings"})  # what money in may be without naming a shop

RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((category, re.compile(pattern)) for category, pattern in (
    ("cash", r"\b(atm|cash withdrawal|cashpoint|cash machine|link atm|geldautomat|bargeld|cash wdl)\b"),
    ("savings", r"\b(savings?|save the change|isa|moneybox|round ?ups?|premium bonds|ns i|vault|pot)\b"),
    ("transfers", r"\b(transfer|tfr|trf|own account|to a c|from a c|internal|between accounts|revolut|wise|"
                  r"monzo|starling|top up|topup)\b"),
    ("income", r"\b(salary|salaries|sal|wages|payroll|pay ?slip|pension|dividend|benefit|hmrc refund|tax refund|"
               r"interest paid|gross interest|bonus|child benefit|universal credit)\b"),
    ("finances", r"\b(credit card|card repayment|loan|overdraft|interest charge|account fee|monthly fee|"
                 r"klarna|clearpay|paypal credit|amex|american express|barclaycard|hmrc|tax payment|"
                 r"investment|invest|vanguard|trading 212|coinbase|non sterling|foreign fee|fx fee)\b"),
    ("bills", r"\b(rent|lettings?|landlord|mortgage|council tax|water|energy|electric(ity)?|gas|power|broadband|"
              r"fibre|internet|mobile|phone|insurance|tv licen[cs]e|utilities|strom|service charge)\b"),
    ("charity", r"\b(donation|donate|charity|charitable|hospice|foundation|fundraising|gofundme|justgiving)\b"),
    ("family", r"\b(nursery|childcare|child care|school|pocket money|kids|toys?|baby|babysit\w*|creche)\b"),
    ("gifts", r"\b(gifts?|florists?|flowers|presents?|greeting cards?)\b"),
    ("holidays", r"\b(hotels?|hostel|airlines?|airways|air|airport|flights?|resort|holidays?|travel agent|"
                 r"car hire|duty free|villa|cottages?|campsite|ski)\b"),
    ("transport", r"\b(parking|car park|fuel|petrol|pfs|diesel|service station|railways?|rail|trains?|bus(es)?|"
                  r"coach|taxis?|cabs?|tram|metro|underground|ev charg\w*|toll|dvla|tyres?|garage|mot)\b"),
    ("eating_out", r"\b(restaurants?|cafe|caffe|coffee|espresso|bar|pub|inn|tavern|brewery|pizza|pizzeria|"
                   r"burgers?|grill|kitchen|bistro|brasserie|diner|takeaway|sushi|kebab|noodles?|ramen|"
                   r"curry|tandoori|chippy|bakery|baeckerei|backerei|patisserie|deli|canteen|food truck)\b"),
    ("groceries", r"\b(supermarkets?|grocer(y|ies)?|food store|foodstore|butchers?|fishmonger|convenience|"
                  r"greengrocer|farm shop|markt|supermercado|supermarche)\b"),
    ("personal_care", r"\b(pharmacy|chemist|apotheke|pharmacie|hair|hairdress\w*|barbers?|salon|beauty|nails?|"
                      r"spa|massage|gym|fitness|leisure centre|dental|dentist|optician|opticians|physio\w*|"
                      r"yoga|pilates|clinic)\b"),
    ("entertainment", r"\b(cinema|theatre|theater|museum|gallery|tickets?|concert|gig|games?|gaming|bowling|"
                      r"zoo|festival|streaming|music|books? club|comedy|stadium)\b"),
    ("shopping", r"\b(clothing|fashion|shoes?|boutique|books?|bookshop|electronics|furniture|homeware|diy|"
                 r"hardware|garden centre|department store|outlet|jewell?ers?|retail|shop)\b"),
    ("expenses", r"\b(expenses?|reimburs\w*|co ?working)\b"),
))
"""Keyword rules over the folded description, in order: the first that matches wins."""

_REFUND = re.compile(r"\b(refund|refunded|return|returned|reversal|chargeback|cashback)\b")

SIMILAR_ENOUGH = 0.45  # cosine below which the nearest examples say nothing: ``general``
NEIGHBOURS = 5


def category_id(label: str | None) -> str | None:
    """The taxonomy id a category label (or code) stands for: ``"Eating out"``,
    ``"EATING_OUT"`` and ``"eating out"`` → ``eating_out``; None when it is not one."""
    if not label:
        return None
    text = (key(label) or "").replace("_", " ").replace("&", "and")
    ident = "_".join(text.split())
    return ident if ident in TAXONOMY else None


def bank_label(category: str) -> str:
    """A bank's category as stored: a taxonomy code (``EATING_OUT``) becomes its label,
    anything else is kept as the bank wrote it."""
    ident = category_id(category)
    return TAXONOMY[ident] if ident is not None and "_" in category else category


@dataclass
class Inferred:
    """A category inferred for one transaction, and how (``merchant``, ``rule``,
    ``nearest``, ``default``)."""

    category: str  # a TAXONOMY id
    how: str


@dataclass
class Categorizer:
    """Infers categories (see the module docstring). ``embedder``: the engine's
    (None: rules only). The examples' vectors are computed once per model."""

    embedder: Embedder | None = None
    _vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def infer(self, transactions: Sequence[Transaction],
              learned: Iterable[tuple[str, str]] = ()) -> list[Inferred]:
        """A category for each transaction; ``learned``: (merchant, category id) pairs
        the user taught by correcting, used as examples."""
        out: list[Inferred | None] = []
        pending: list[int] = []
        for i, tx in enumerate(transactions):
            found = _by_rules(tx)
            out.append(found)
            if found is None:
                pending.append(i)
        if pending:
            nearest = self._nearest([_text(transactions[i]) for i in pending], list(learned))
            for i, guess in zip(pending, nearest):
                tx = transactions[i]
                if guess is not None and tx.amount > 0 and guess.category not in MONEY_IN and not _refund(tx):
                    guess = None  # money in that does not say it is a refund: income, below
                out[i] = guess or Inferred("income" if tx.amount > 0 else "general", "default")
        return [o for o in out if o is not None]

    def _nearest(self, texts: list[str], learned: list[tuple[str, str]]) -> list[Inferred | None]:
        if self.embedder is None or not texts:
            return [None] * len(texts)
        try:
            examples = self._examples()
            labels = [c for _, c in EXAMPLES]
            if learned:
                taught = self.embedder.embed_documents([m.lower() for m, _ in learned])
                examples = np.vstack([examples, np.asarray(taught, dtype=np.float32)])
                labels += [c for _, c in learned]
            queries = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
        except RaglineError as exc:  # the model cannot run: the rules' answer stands
            log.warning("category inference without the embedding model: %s", exc)
            return [None] * len(texts)
        scores = queries @ examples.T
        out: list[Inferred | None] = []
        for row in scores:
            best = np.argsort(-row)[:NEIGHBOURS]
            if row[best[0]] < SIMILAR_ENOUGH:
                out.append(None)
                continue
            votes: dict[str, float] = {}
            for j in best:
                if row[j] >= SIMILAR_ENOUGH:
                    votes[labels[j]] = votes.get(labels[j], 0.0) + float(row[j])
            out.append(Inferred(max(votes, key=lambda c: votes[c]), "nearest"))
        return out

    def _examples(self) -> np.ndarray:
        assert self.embedder is not None
        model = self.embedder.model_id
        if model not in self._vectors:
            vectors = self.embedder.embed_documents([text.lower() for text, _ in EXAMPLES])
            self._vectors[model] = np.asarray(vectors, dtype=np.float32)
        return self._vectors[model]


def _text(tx: Transaction) -> str:
    """What the model reads: the merchant and the description, without payment noise."""
    merchant = tx.merchant_name or normalise_merchant(tx.description)
    parts = [merchant] + ([tx.description] if fold(tx.description) != fold(merchant) else [])
    return " ".join(p for p in parts if p).lower()


def _refund(tx: Transaction) -> bool:
    return bool(_REFUND.search(fold(tx.description)))


def _by_rules(tx: Transaction) -> Inferred | None:
    """A known merchant or a keyword rule; money in only as a refund from a shop, a
    salary or a move of one's own money."""
    text = fold(" ".join(filter(None, (tx.merchant_name, tx.description))))
    known = known_merchant(tx.merchant_name or "") or known_merchant(tx.description)
    if known is not None and (tx.amount <= 0 or _refund(tx)):
        return Inferred(known[1], "merchant")
    for category, pattern in RULES:
        if pattern.search(text):
            if category == "income" and tx.amount < 0:
                continue
            if tx.amount > 0 and category not in MONEY_IN and not _refund(tx):
                continue
            return Inferred(category, "rule")
    return None


def apply(tx: Transaction, category_id_: str, source: str) -> Transaction:
    """``tx`` with this taxonomy category (its label) from ``source``."""
    return _set(tx, TAXONOMY.get(category_id_, category_id_), source)


def with_merchant(tx: Transaction) -> Transaction:
    """``tx`` with a merchant normalised from its description when it has none."""
    if tx.merchant_name or not tx.description:
        return tx
    name = normalise_merchant(tx.description)
    return replace(tx, merchant_name=name) if name else tx


def user_label(category: str) -> str:
    """A category a user typed, as stored: the taxonomy's label when it names one
    (``eating_out``, ``eating out`` → ``Eating out``), else their own words."""
    text = " ".join(str(category).split())
    if not text or len(text) > 200:
        raise ConfigError("a category is 1–200 characters")
    ident = category_id(text)
    return TAXONOMY[ident] if ident is not None else text


def categorise(transactions: Sequence[Transaction], rules: dict[tuple[str, str], str],
               categorizer: Categorizer) -> list[Transaction]:
    """Each transaction with a merchant (normalised from its description when the bank
    gave none) and a category with its source, in the order the module docstring says."""
    out: list[Transaction] = []
    pending: list[int] = []
    taught = {target: label for (kind, target), label in rules.items() if kind == "learned"}
    for tx in transactions:
        tx = with_merchant(tx)
        merchant = key(tx.merchant_name) or ""
        user = rules.get(("transaction", tx.transaction_id)) or rules.get(("merchant", merchant))
        if user is not None:
            tx = _set(tx, user, "user")
        elif tx.transaction_category:
            label = bank_label(tx.transaction_category)
            if label != tx.transaction_category or tx.category_source != "bank":
                tx = _set(tx, label, tx.category_source or "bank")
        elif merchant in taught:
            tx = _set(tx, taught[merchant], "inferred")
        else:
            pending.append(len(out))
        out.append(tx)
    if pending:
        learned = [(target, category_id(label) or label) for (kind, target), label in rules.items()
                   if kind in ("merchant", "learned")]
        for i, inferred in zip(pending, categorizer.infer([out[i] for i in pending], learned)):
            out[i] = apply(out[i], inferred.category, "inferred")
    return out


def _set(tx: Transaction, label: str, source: str) -> Transaction:
    """``tx`` with ``label`` from ``source``: a flow the source set explicitly is kept, a
    derived one follows the new category."""
    derived = tx.flow == flow_of(tx.amount, tx.transaction_category)
    return replace(tx, transaction_category=label, category_source=source, flow="" if derived else tx.flow)
