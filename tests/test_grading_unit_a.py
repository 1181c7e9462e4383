"""The Unit A grader (`grading.unit_a`): our library passes it, the starters fail it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from context_budget.clearing import clear_old_tool_results
from context_budget.compaction import compact
from context_budget.cuts import transfer_filter
from context_budget.errors import ContextOverflowError
from context_budget.grading import contract_status, format_grade
from context_budget.grading.unit_a import TRANSFER_CASES, grade_unit, run_transfer
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message

CASES = [
    "clears all but the last two",
    "keeps every message and the order",
    "keep_last beyond the count clears nothing",
    "a context that fits is unchanged",
    "step one alone when it is enough",
    "summarizes up to the latest question",
    "pinned records are untouched",
    "pinned records over the budget raise",
    "a latest turn over the budget raises",
]


def statuses(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    return {row["case"]: row["status"] for row in rows}


def failing(rows: Sequence[dict[str, Any]]) -> list[str]:
    return [row["case"] for row in rows if row["status"] != "PASS"]


# Unit A's starters, written as a learner finds them.
def starter_clear(messages: list[Message], keep_last: int) -> list[Message]:
    return [dict(m) for m in messages]


def starter_compact(layers: Layers, budget: int, summarize: Callable[..., str]) -> Layers:
    conversation = list(layers.conversation)
    while (
        conversation
        and budget_report(Layers(layers.system, layers.pinned, conversation))["total"] > budget
    ):
        conversation.pop(0)
    return Layers(layers.system, list(layers.pinned), conversation)


def starter_transfer(text: str, needle: str, budget: int) -> str:
    raise NotImplementedError("keep the most recent matching lines")


# --- the reference passes ------------------------------------------------------------


def test_our_library_passes_every_visible_case() -> None:
    rows = grade_unit(clear_old_tool_results, compact)
    assert [row["case"] for row in rows] == CASES
    assert failing(rows) == []
    assert contract_status(rows) == "PASSED"


def test_our_library_reports_the_seeds_observed_values() -> None:
    observed = {row["case"]: row["observed"] for row in grade_unit(clear_old_tool_results, compact)}
    assert observed["clears all but the last two"] == 6
    assert observed["keeps every message and the order"] == 24
    assert observed["keep_last beyond the count clears nothing"] == 0
    assert observed["summarizes up to the latest question"] == "Summary of the earlier convers"
    assert observed["pinned records over the budget raise"] == "ContextOverflowError"


def test_our_transfer_filter_passes_every_transfer_case() -> None:
    rows = run_transfer(transfer_filter, TRANSFER_CASES)
    assert [row["passed"] for row in rows] == [True] * 4
    assert contract_status(rows) == "PASSED"


def test_transfer_cases_are_the_four_visible_cases() -> None:
    labels = [label for label, _, _ in TRANSFER_CASES]
    assert labels == [
        "every match fits",
        "only the most recent fit",
        "no match",
        "a zero budget keeps none",
    ]
    assert [arguments[1:] for _, arguments, _ in TRANSFER_CASES] == [
        ["pistachio", 100],
        ["pistachio", 14],
        ["mango", 100],
        ["mint", 0],
    ]
    assert TRANSFER_CASES[2][2] == "[kept 0 of 0 matching lines; 5 lines in total]"


# --- the starters fail, and only where they should -----------------------------------


def test_a_clear_that_copies_fails_only_the_clearing_case() -> None:
    rows = grade_unit(starter_clear, compact)
    assert failing(rows) == ["clears all but the last two"]
    assert rows[0]["observed"] == 0
    assert contract_status(rows) == "NEEDS_WORK"


def test_a_compact_that_drops_the_oldest_messages_fails_the_compaction_cases() -> None:
    rows = grade_unit(clear_old_tool_results, starter_compact)
    assert failing(rows) == [
        "step one alone when it is enough",
        "summarizes up to the latest question",
        "pinned records over the budget raise",
        "a latest turn over the budget raises",
    ]
    assert statuses(rows)["a context that fits is unchanged"] == "PASS"


def test_both_starters_together_need_work_without_crashing_the_grader() -> None:
    rows = grade_unit(starter_clear, starter_compact)
    assert len(rows) == 9
    assert contract_status(rows) == "NEEDS_WORK"
    assert len(format_grade(rows).splitlines()) == 9


def test_an_unfinished_transfer_is_observed_not_raised() -> None:
    rows = run_transfer(starter_transfer, TRANSFER_CASES)
    assert [row["observed"] for row in rows] == [{"unfinished": True}] * 4
    assert [row["status"] for row in rows] == ["FAIL"] * 4
    assert contract_status(rows) == "NEEDS_WORK"


def test_a_transfer_that_raises_is_observed_by_its_exception_name() -> None:
    rows = run_transfer(lambda text, needle, budget: text[budget * 1000], TRANSFER_CASES)
    assert rows[0]["observed"] == {"raises": "IndexError"}
    assert not rows[0]["passed"]


# --- mutating the input fails ------------------------------------------------------


def test_a_clear_that_edits_messages_in_place_fails() -> None:
    def clear_in_place(messages: list[Message], keep_last: int) -> list[Message]:
        tools = [m for m in messages if m["role"] == "tool"]
        for message in tools[: len(tools) - keep_last]:
            message["content"] = "[tool result cleared to save context: 133 tokens]"
        return messages

    rows = grade_unit(clear_in_place, compact)
    assert rows[0] == {
        "case": "clears all but the last two",
        "observed": "changed its input",
        "status": "FAIL",
    }


def test_a_compact_that_edits_its_layers_in_place_fails() -> None:
    def compact_in_place(layers: Layers, budget: int, summarize: Callable[..., str]) -> Layers:
        out = compact(layers, budget, summarize)
        layers.conversation[:] = out.conversation
        return out

    rows = grade_unit(clear_old_tool_results, compact_in_place)
    assert statuses(rows)["step one alone when it is enough"] == "FAIL"
    assert statuses(rows)["summarizes up to the latest question"] == "FAIL"
    observed = {row["case"]: row["observed"] for row in rows}
    assert observed["summarizes up to the latest question"] == "changed its input"


def test_a_compact_that_changes_the_pinned_records_fails() -> None:
    def compact_dropping_pins(layers: Layers, budget: int, summarize: Callable[..., str]) -> Layers:
        out = compact(layers, budget, summarize)
        layers.pinned.clear()
        return out

    rows = grade_unit(clear_old_tool_results, compact_dropping_pins)
    assert statuses(rows)["pinned records are untouched"] == "FAIL"
    assert statuses(rows)["a context that fits is unchanged"] == "FAIL"


def test_a_transfer_that_changes_its_arguments_fails() -> None:
    def consume(lines: list[str]) -> str:
        return lines.pop()

    rows = run_transfer(consume, [("pops", [["a", "b"]], "b")])
    assert rows[0]["observed"] == "b"
    assert rows[0]["status"] == "FAIL"


# --- the grader never raises ----------------------------------------------------------


def test_candidates_that_raise_become_observed_exception_names() -> None:
    def broken(*arguments: object) -> Any:
        raise RuntimeError("boom")

    rows = grade_unit(broken, broken)
    assert [row["observed"] for row in rows] == ["RuntimeError"] * 9
    assert contract_status(rows) == "NEEDS_WORK"


def test_a_candidate_raising_a_subclass_of_the_overflow_error_still_counts() -> None:
    class Overflow(ContextOverflowError):
        pass

    def strict(layers: Layers, budget: int, summarize: Callable[..., str]) -> Layers:
        try:
            return compact(layers, budget, summarize)
        except ContextOverflowError as error:
            raise Overflow(str(error), budget=error.budget, size=error.size) from None

    assert failing(grade_unit(clear_old_tool_results, strict)) == []


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


@given(_JSONISH, _JSONISH)
def test_any_returned_value_is_graded_without_raising(cleared: object, compacted: object) -> None:
    rows = grade_unit(lambda *a: copy.deepcopy(cleared), lambda *a: copy.deepcopy(compacted))
    assert [row["case"] for row in rows] == CASES
    assert {row["status"] for row in rows} <= {"PASS", "FAIL"}
    assert contract_status(rows) == "NEEDS_WORK"


# --- the notebook helpers -------------------------------------------------------------


def test_format_grade_prints_one_line_per_row_with_multiline_outputs_escaped() -> None:
    rows = run_transfer(transfer_filter, TRANSFER_CASES[:1])
    (line,) = format_grade(rows).splitlines()
    assert line.startswith("PASS  every match fits -> '10:05 | Pistachio | 1 tubs\\n")


def test_save_work_refuses_an_unknown_edition(tmp_path: Path) -> None:
    import pytest

    from context_budget.grading.unit_a import save_work

    assert save_work("student", "handoff", {"x": 1}, tmp_path).endswith(
        "/unit-a-student-handoff-v1.json"
    )
    with pytest.raises(ValueError, match=r"one of \('student', 'worked'\), got 'teacher'"):
        save_work("teacher", "handoff", {}, tmp_path)


class _Uncomparable:
    """A value whose comparison raises, like a NumPy array's truth value."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("the truth value is ambiguous")

    __hash__ = None  # type: ignore[assignment]


def test_a_transfer_value_that_cannot_be_compared_fails_its_row_without_raising() -> None:
    value = _Uncomparable()
    rows = run_transfer(lambda text, needle, budget: value, TRANSFER_CASES[:2])
    assert [(row["observed"] is value, row["passed"], row["status"]) for row in rows] == [
        (True, False, "FAIL"),
        (True, False, "FAIL"),
    ]


def test_the_transfer_status_needs_every_row_and_at_least_one() -> None:
    from context_budget.grading.unit_a import transfer_status

    passing = run_transfer(transfer_filter, TRANSFER_CASES)
    one_wrong = run_transfer(
        lambda text, needle, budget: (
            "" if needle == "mango" else transfer_filter(text, needle, budget)
        ),
        TRANSFER_CASES,
    )
    assert [row["passed"] for row in one_wrong].count(False) == 1
    assert transfer_status(passing) == "PASS"
    assert transfer_status(one_wrong) == "NEEDS_WORK"
    assert transfer_status([]) == "NEEDS_WORK"


def test_the_course_report_summarizes_the_session_for_a_known_edition() -> None:
    import pytest

    from context_budget.grading.unit_a import course_report

    rows = run_transfer(transfer_filter, TRANSFER_CASES)
    assert course_report("worked", "PASSED", rows, "fresh") == {
        "unit": "unit-a",
        "edition": "worked",
        "visible_contract": "PASSED",
        "transfer_passed": True,
        "starting_evidence": "fresh",
    }
    assert course_report("student", "NEEDS_WORK", [], "resumed")["transfer_passed"] is False
    with pytest.raises(ValueError, match="edition must be one of"):
        course_report("teacher", "PASSED", rows, "fresh")
