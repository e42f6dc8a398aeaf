"""An exact answer as an ``Answer``: the template sentences and table without an LLM;
with one, the LLM phrases the computed figures (given as numbered sources, under
the usual grounded prompt), and its text is kept only when

- it keeps the headline amount, and for a comparison or several things named each
  one's (it may reword, never drop them),
- every number in it is one of those figures (or in the question, or a citation), and
- every figure sits with its own label: a clause that names one category, merchant,
  month or account of the answer and states a figure states one of *that* label's
  figures ("Groceries 120.00 GBP", never "Groceries 80.00 GBP" when 80.00 is Lidl's);
- and it still says what was computed: if it names none of the plan's labels, the
  plan in words is put in front ("Spending at Thames Water in September 2026: …").

Otherwise, or when the provider fails, the template stands and ``fallback_reason``
says why.
"""

from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from typing import Any

from ..answer.context import RAGContext, Source
from ..answer.generators import GenerationRequest, Generator
from ..answer.prompt import build_prompt
from ..answer.types import Answer, Citation
from ..errors import GeneratorError
from ..models import Hit
from ..settings import GeneratorSettings
from .exact import ExactAnswer, Figure
from .matching import fold

TEMPLATE = "records"
"""``Answer.generator`` of an answer phrased by the template (no model)."""

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?%?")
_CLAUSE = re.compile(r"(?<=[.;!?])\s+|\n+|,\s+(?=(?:and|but|while|whereas)\b)|\s+(?:while|whereas)\s+")


def records_answer(question: str, exact: ExactAnswer, route: dict[str, Any], generator: Generator | None,
                   settings: GeneratorSettings) -> Answer:
    citations = [Citation(n=s.n, chunk_id="", doc_id="", source=s.label, page=None, score=1.0,
                          transaction_ids=list(s.transaction_ids)) for s in exact.sources]
    answer = Answer(question=question, answer=exact.text, citations=citations, abstained=False, generator=TEMPLATE,
                    context=RAGContext(enabled=False), route=route, records=exact.to_dict())
    if generator is None or generator.name == "extractive" or not exact.sources:
        return answer
    context = figures_context(exact)
    request = GenerationRequest(question=question, context=context, prompt=build_prompt(question, context),
                                temperature=settings.temperature, max_output_tokens=settings.max_output_tokens)
    try:
        text = generator.generate(request).strip()
    except Exception as exc:  # noqa: BLE001 — any provider failure: the template answer stands
        answer.fallback_reason = str(exc) if isinstance(exc, GeneratorError) else f"{generator.name}: {exc}"
        return answer
    if request.usage.reported:
        answer.usage = {"model": getattr(generator, "model", None) or generator.name,
                        "input_tokens": request.usage.input_tokens, "output_tokens": request.usage.output_tokens,
                        "reported": True}
    if re.search(r"</?source\b", text):
        answer.fallback_reason = (f"{generator.name} echoed the prompt's source markup; "
                                  f"the computed answer is shown instead")
        return answer
    strays = stray_numbers(text, context, question)
    if strays:
        answer.fallback_reason = (f"{generator.name} stated figures that were not computed "
                                  f"({', '.join(strays[:5])}); the computed answer is shown instead")
        return answer
    left_out = missing_figures(text, exact)
    if left_out:
        answer.fallback_reason = (f"{generator.name} left out computed figures ({', '.join(left_out[:5])}); "
                                  f"the computed answer is shown instead")
        return answer
    swapped = mispaired(text, exact.figures)
    if swapped:
        answer.fallback_reason = (f"{generator.name} put a figure with the wrong label ({swapped}); "
                                  f"the computed answer is shown instead")
        return answer
    if not names_the_plan(text, exact):
        text = f"{exact.text.split(':')[0]}: {text}"
    answer.answer, answer.generator = text, generator.name
    return answer


def figures_context(exact: ExactAnswer) -> RAGContext:
    """The computed figures as numbered sources: one per cited aggregate or
    transaction, then the whole table, then the plan in words."""
    texts = [(s.n, s.label, f"{s.label}: {s.count} transactions" + (f", total {s.total} {s.currency}" if s.total
                                                                    is not None else ""))
             for s in exact.sources]
    table = "\n".join([" | ".join(exact.columns)] + [" | ".join(str(c) for c in row) for row in exact.rows])
    words = re.sub(r" ?\[\d+\]", "", exact.text)
    summary = f"{exact.stated} (the answer's table):\n{table}\nIn words: {words}"
    texts.append((len(texts) + 1, "table", summary))
    sources = [Source(n=n, hit=Hit(chunk_id=f"records-{n}", doc_id="records", source=label, score=1.0, text=text),
                      text=text, tokens=0) for n, label, text in texts]
    return RAGContext(context="\n\n".join(s.text for s in sources), sources=sources)


def _value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").lstrip("+").rstrip("%")).normalize()
    except InvalidOperation:
        return None


def stray_numbers(text: str, context: RAGContext, question: str) -> list[str]:
    """Numbers in ``text`` that are neither a computed figure, nor in the question,
    nor a citation mark, nor a count of the sources."""
    allowed: set[Any] = {_value(m[0]) for m in _NUMBER.finditer(context.context + " " + question)}
    allowed |= {v.copy_abs() for v in allowed if v is not None}
    allowed |= {Decimal(n) for n in range(len(context.sources) + 1)}
    cleaned = re.sub(r"\[\d+\]", " ", text)
    return [m[0] for m in _NUMBER.finditer(cleaned) if _value(m[0]) not in allowed]


def missing_figures(text: str, exact: ExactAnswer) -> list[str]:
    """Figures asked for that ``text`` does not state: the headline amount, and for a
    comparison or several things named, each one's (a phrasing may reword, never drop them)."""
    said = {_value(m[0]) for m in _NUMBER.finditer(re.sub(r"\[\d+\]", " ", text))}
    said |= {v.copy_abs() for v in said if v is not None}
    amounts = [m[0] for m in _NUMBER.finditer(re.sub(r"\[\d+\]|\(Assumed:[^)]*\)", " ", exact.text))
               if "." in m[0] and not m[0].endswith("%")]
    wanted = amounts[:1]
    plan = exact.plan
    if plan is not None and (plan.group_by == "name" or exact.metric == "compare"):
        wanted += [f.value for f in exact.figures if f.label not in ("all", "difference") and "." in f.value
                   and not f.value.endswith("%")]
    return [w for w in dict.fromkeys(wanted) if (_value(w) or Decimal(0)).copy_abs() not in said]


def mispaired(text: str, figures: list[Figure]) -> str | None:
    """The first "label figure" pairing in ``text`` that the table does not have (a
    clause naming exactly one label and a figure that is another label's only), or None."""
    by_label: dict[str, set[Decimal]] = defaultdict(set)
    owners: dict[Decimal, set[str]] = defaultdict(set)
    for f in figures:
        value = _value(f.value)
        if value is None:
            continue
        by_label[f.label].add(value.copy_abs())
        owners[value.copy_abs()].add(f.label)
    labels = [lab for lab in by_label if fold(lab) and fold(lab) not in ("all", "net", "difference")]
    for clause in _CLAUSE.split(re.sub(r"\[\d+\]", " ", text)):
        folded = f" {fold(clause)} "
        named = [lab for lab in labels if f" {fold(lab)} " in folded]
        named = [lab for lab in named if not any(lab != o and fold(lab) in fold(o) for o in named)]
        if len(named) != 1:
            continue
        label = named[0]
        for m in _NUMBER.finditer(clause):
            value = _value(m[0])
            if value is None or value.copy_abs() not in owners:
                continue
            if value.copy_abs() not in by_label[label] and not owners[value.copy_abs()] & {"all", "net", "difference"}:
                return f"{label} with {m[0]}, which is {', '.join(sorted(owners[value.copy_abs()]))}'s"
    return None


def names_the_plan(text: str, exact: ExactAnswer) -> bool:
    """Whether ``text`` names something of what was computed: a filter, a group or the period."""
    plan = exact.plan
    if plan is None:
        return True
    folded = f" {fold(text)} "
    names = [*plan.filters.categories, *plan.filters.merchants, *plan.filters.text, *plan.filters.accounts]
    names += [f.label for f in exact.figures]
    if exact.period is not None:
        names += [exact.period.label.removeprefix("in ").split(" (")[0]]
    return any(fold(n) and f" {fold(n)} " in folded for n in names if fold(n) not in ("all", "net", "difference"))
