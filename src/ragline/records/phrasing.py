"""An exact answer as an ``Answer``: the template sentence and table without an LLM;
with one, the LLM phrases the computed figures (given as numbered sources, under
the usual grounded prompt), and its text is kept only if every number in it is
one of those figures. Otherwise, or when the provider fails, the template stands
and ``fallback_reason`` says why."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from ..answer.context import RAGContext, Source
from ..answer.generators import GenerationRequest, Generator
from ..answer.prompt import build_prompt
from ..answer.types import Answer, Citation
from ..errors import GeneratorError
from ..models import Hit
from ..settings import GeneratorSettings
from .exact import ExactAnswer
from .router import MoneyRoute

TEMPLATE = "records"
"""``Answer.generator`` of an answer phrased by the template (no model)."""

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")


def records_answer(question: str, exact: ExactAnswer, routed: MoneyRoute, generator: Generator | None,
                   settings: GeneratorSettings) -> Answer:
    citations = [Citation(n=s.n, chunk_id="", doc_id="", source=s.label, page=None, score=1.0) for s in exact.sources]
    answer = Answer(question=question, answer=exact.text, citations=citations, abstained=False, generator=TEMPLATE,
                    context=RAGContext(enabled=False), route=routed.to_dict(), records=exact.to_dict())
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
    strays = stray_numbers(text, context, question)
    if strays:
        answer.fallback_reason = (f"{generator.name} stated figures that were not computed "
                                  f"({', '.join(strays[:5])}); the computed answer is shown instead")
        return answer
    answer.answer, answer.generator = text, generator.name
    return answer


def figures_context(exact: ExactAnswer) -> RAGContext:
    """The computed figures as numbered sources: one per cited aggregate or
    transaction, then the whole table."""
    texts = [(s.n, s.label, f"{s.label}: {s.count} transactions" + (f", total {s.total} {s.currency}" if s.total
                                                                    is not None else ""))
             for s in exact.sources]
    table = "\n".join([" | ".join(exact.columns)] + [" | ".join(str(c) for c in row) for row in exact.rows])
    words = re.sub(r" ?\[\d+\]", "", exact.text)
    summary = f"{exact.intent.replace('_', ' ')} (the answer's table):\n{table}\nIn words: {words}"
    texts.append((len(texts) + 1, "table", summary))
    sources = [Source(n=n, hit=Hit(chunk_id=f"records-{n}", doc_id="records", source=label, score=1.0, text=text),
                      text=text, tokens=0) for n, label, text in texts]
    return RAGContext(context="\n\n".join(s.text for s in sources), sources=sources)


def _value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").lstrip("+")).normalize()
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
