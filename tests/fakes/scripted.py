"""A scripted "model" for the fake LLM server (``tests/fakes/llm.py``): it replies
with a text written in advance that cites its sources by key (``[S1]``, ``[S2]``, …),
each key rewritten to the number the prompt gave that source.

The prompt numbers its sources ``[n] <source n="n" label="Title — place" …>``
(``ragline.answer.prompt``). A key is matched to a prompt source by the source's
place (the document's ``source`` name ends with ``-S1``, as the adversarial runner
stores them) or else by its title. A key whose source is not in the prompt is
rewritten to a number the prompt does not use, so the citation points nowhere, as a
model's mistaken citation would.

    Reply(text=scripted("A 3-year deposit earns 8.4% [S1].", {"S1": "Fixed deposits"}))

The same text comes back for every request (a stubborn model: asked again with its
failed claims named, it says the same thing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

_SOURCE = re.compile(r'^\[(\d+)\] <source n="\d+" label="([^"]*)"', re.MULTILINE)
_KEY = re.compile(r"\[(S\d+)\]")


def prompt_sources(prompt: str) -> list[tuple[int, str]]:
    """The prompt's numbered sources as (n, label), in order."""
    return [(int(m.group(1)), m.group(2)) for m in _SOURCE.finditer(prompt)]


def key_numbers(prompt: str, titles: Mapping[str, str]) -> dict[str, int]:
    """Which prompt number each source key got (keys absent from the prompt are left out)."""
    found: dict[str, int] = {}
    sources = prompt_sources(prompt)
    for key, title in titles.items():
        by_place = [n for n, label in sources if re.search(rf"-{re.escape(key)}\b(?!-)", label.rpartition(" — ")[2])]
        by_title = [n for n, label in sources if label.partition(" — ")[0].strip() == title.replace('"', "'").strip()]
        chosen = by_place or by_title
        if chosen:
            found[key] = chosen[0]
    return found


def scripted(reply: str, titles: Mapping[str, str]) -> Callable[[str], str]:
    """The fake server's reply function for ``reply`` (module docstring); ``titles``
    maps each source key to its title."""

    def answer(prompt: str) -> str:
        numbers = key_numbers(prompt, titles)
        used = {n for n, _ in prompt_sources(prompt)}
        nowhere = next(n for n in range(9, 100) if n not in used)
        return _KEY.sub(lambda m: f"[{numbers.get(m.group(1), nowhere)}]", reply)

    return answer
