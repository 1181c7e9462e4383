"""Part IV's checkers (`grading.measured`): right answers pass, wrong ones say what is wrong."""

from __future__ import annotations

from typing import Any


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


def test_the_keep_the_task_trim_checker_fails_a_recount_a_dropped_task_and_a_crash() -> None:
    from context_budget.grading.measured import check_first_kept_trim

    def one_pass(messages: list[Any], budget: int, count: Any) -> list[Any]:
        sizes = [count(m) for m in messages]
        total, start = sum(sizes), 1
        while start < len(sizes) and total > budget:
            total -= sizes[start]
            start += 1
        return messages[:1] + messages[start:]

    def drops_the_task(messages: list[Any], budget: int, count: Any) -> list[Any]:
        sizes = [count(m) for m in messages]
        total, start = sum(sizes), 0
        while start < len(sizes) and total > budget:
            total -= sizes[start]
            start += 1
        return messages[start:]

    def crashes(messages: list[Any], budget: int, count: Any) -> list[Any]:
        raise KeyError("content")

    assert check_first_kept_trim(one_pass) == "PASS"
    assert "expected" in check_first_kept_trim(drops_the_task)
    assert "raised KeyError" in check_first_kept_trim(crashes)
