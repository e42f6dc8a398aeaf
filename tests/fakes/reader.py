"""A deterministic stand-in "reader" for the fake LLM server (``tests/fakes/llm.py``).

It is never told the answer: it sees only the prompt ragline sends (the system and
user messages of a chat completion) and answers from the prompt's numbered sources:

1. It parses the sources the prompt delimits (``[n] <source n="n" label="…" tag="T">``
   … ``</source tag="T">``) and the line ``Question: …``.
2. Question words: lower-cased words of 3+ letters minus a small stopword list,
   each cut to its first 5 letters (a crude stem: "withdrawals" ~ "withdraw").
3. Every sentence of every source (split after ``.``, ``!``, ``?`` or a line break)
   scores the share of question words found in it or in its source's label (the
   label carries the title and the section heading, as a reader would see them).
4. When the best score is below ``min_overlap`` (default 0.5) it replies with
   ragline's no-answer line, exactly as the system prompt asks; otherwise it
   replies with the best sentence and its citation, ``"<sentence> [n]."``, ties
   going to the earlier source.

So an LLM column measured with it reflects ragline's side — which sources reach
the prompt, how the reply's citations and no-answer line are handled — and not a
real model's skill at reading.
"""

from __future__ import annotations

import re

NO_ANSWER = "The provided sources do not contain the answer to this question."
_SOURCE = re.compile(r'^\[(\d+)\] <source n="\d+" label="([^"]*)" tag="([0-9a-f]+)">\n(.*?)\n</source tag="\3">',
                     re.DOTALL | re.MULTILINE)
_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)
_STOP = {"the", "and", "for", "are", "was", "were", "you", "your", "our", "with", "from", "that", "this", "what",
         "which", "who", "whom", "how", "why", "when", "where", "does", "did", "can", "could", "would", "should",
         "will", "have", "has", "had", "not", "any", "all", "there", "their", "them", "they", "about", "into", "out",
         "its", "it's", "tell", "give", "much", "many", "long", "get", "got", "use", "may", "might", "must", "than",
         "then", "also", "just", "please", "need", "want", "know", "mean"}


def words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3 and w not in _STOP}


def read_answer(prompt: str, *, min_overlap: float = 0.5) -> str:
    """The reply to ``prompt`` (see the module docstring)."""
    question = _QUESTION.search(prompt)
    wanted = words(question.group(1)) if question else set()
    best: tuple[float, int, str] | None = None
    for match in _SOURCE.finditer(prompt):
        n, label, text = int(match.group(1)), match.group(2), match.group(4)
        label_words = words(label)
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
            sentence = " ".join(sentence.split()).strip(" -*|")
            if len(sentence.split()) < 3 or not wanted:
                continue
            score = len(wanted & (words(sentence) | label_words)) / len(wanted)
            if best is None or score > best[0]:
                best = (score, n, sentence)
    if best is None or best[0] < min_overlap:
        return NO_ANSWER
    sentence = best[2].rstrip(".!?")
    return f"{sentence} [{best[1]}]."
