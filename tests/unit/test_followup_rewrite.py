"""The follow-up rewriter's output is a query, never the model's no-answer line."""

from __future__ import annotations


def test_a_rewrite_that_is_the_no_answer_line_is_no_query() -> None:
    from ragline.answer.prompt import NO_ANSWER
    from ragline.conversations.followup import clean_rewrite

    assert clean_rewrite(NO_ANSWER) is None
    assert clean_rewrite("Standalone query: overdraft fee for students") == "overdraft fee for students"
