"""A deterministic stand-in "model" for the LLM planner (``records.llm_planner``),
served by the fake LLM server (``tests/fakes/llm.py``) as a tool call.

It is never told the answer: it reads only the prompt ragline sends — the lines
``Today:``, ``Your categories:``, ``Your merchants:``, ``Your accounts:``, ``Your
currencies:`` and ``Question:`` — and plans the question with ragline's own offline
parser over what it read back. So a figure measured through it says that the LLM
path (prompt, tool call over HTTP, schema check, execution) carries everything the
plan needs; it says nothing of how well a real model reads questions.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from ragline.records.parser import RuleParser
from ragline.records.plan import Vocabulary


def _line(prompt: str, name: str) -> str:
    m = re.search(rf"^{re.escape(name)}: (.*)$", prompt, re.MULTILINE)
    return m[1].strip() if m else ""


def _names(text: str) -> tuple[str, ...]:
    return () if not text or text.startswith("(none") else tuple(n.strip() for n in text.split(", ") if n.strip())


def plan_from_prompt(prompt: str) -> dict[str, Any]:
    """The plan's JSON for the question in ``prompt`` (``{}`` when it is no money question:
    then the schema check fails and ragline keeps its own plan)."""
    today = date.fromisoformat(_line(prompt, "Today").split(" ")[0])
    merchants = _names(_line(prompt, "Your merchants"))
    vocabulary = Vocabulary(today=today, categories=_names(_line(prompt, "Your categories")),
                            merchants=merchants, descriptions=merchants,  # the only statement words it is shown
                            accounts=_names(_line(prompt, "Your accounts")),
                            currencies=_names(_line(prompt, "Your currencies")))
    planned = RuleParser().plan(_line(prompt, "Question"), vocabulary)
    if planned.plan is None:
        return {"metric": "not a plan"}
    data = planned.plan.to_dict()
    for period in data["periods"]:  # a model names periods in words as often as in days
        period.pop("label", None)
    return data
