"""The MCP ``ask`` tool numbers citations 1, 2, … in the order its answer cites them
(issue 30): the engine numbers them by the context's sources, so an answer could
open with [2] and list its citations as 2, 1."""

from __future__ import annotations

import re

import pytest

from ragline import Engine, Scope, Settings
from ragline.demo import SAMPLE_DIR
from ragline.server.mcp.operations import Operations, renumber, renumbering
from ragline.store.types import ApiKeyInfo

QUESTIONS = ["How much is the overdraft fee?", "What are the fees for international transfers?",
             "How do I report a lost card and what does a replacement cost?"]


def _firsts(text: str) -> list[int]:
    seen: list[int] = []
    for marker in re.finditer(r"\[(\d+(?:\s*,\s*\d+)*)\]", text):
        seen += [int(n) for n in marker.group(1).split(",") if int(n) not in seen]
    return seen


def test_renumbering_follows_the_text_and_leaves_other_brackets() -> None:
    order = renumbering("Fee €5 [3]. Capped [1, 3]. Since [2020].", [1, 3, 4])
    assert order == {3: 1, 1: 2, 4: 3}
    assert renumber("Fee €5 [3]. Capped [1, 3]. Since [2020].", order) == "Fee €5 [1]. Capped [2, 1]. Since [2020]."


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory):
    engine = Engine(Settings(home=tmp_path_factory.mktemp("mcp-order") / "home"))
    engine.ingest([SAMPLE_DIR], Scope("demo", ("bank",)))
    yield engine
    engine.close()


def test_ask_cites_in_order(sample: Engine) -> None:
    ops = Operations(sample)
    who = ApiKeyInfo(id="k", tenant="demo", label=None, prefix="", created=0.0)
    for question in QUESTIONS:
        raw = sample.ask(question, Scope("demo", ("bank",))).to_dict()  # type: ignore[union-attr]
        answer = ops.ask(who, question, None, None)
        numbers = [c["n"] for c in answer["citations"]]
        assert numbers == list(range(1, len(numbers) + 1)), (question, numbers)
        assert _firsts(answer["answer"]) == numbers[:len(_firsts(answer["answer"]))], answer["answer"]
        # The same passages behind the same sentences: only the numbers changed.
        by_chunk = {c["chunk_id"]: c["n"] for c in raw["citations"]}
        assert sorted(by_chunk) == sorted(c["chunk_id"] for c in answer["citations"])
        assert renumber(raw["answer"], {by_chunk[c["chunk_id"]]: c["n"] for c in answer["citations"]}) == answer["answer"]
