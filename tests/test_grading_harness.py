"""The Part III checkers: right answers pass, each kind of wrong one says what is wrong."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from context_budget import (
    append_tool_results,
    compact_history,
    content_blocks,
    response_field,
    should_compact,
    track_usage,
)
from context_budget.fakes import ScriptedClient
from context_budget.grading import harness as grader
from context_budget.notes import NotesFile
from context_budget.scenarios import race_fix

RIGHT = {"turn": 4, "counter_at_trigger": 4_700, "after_reset": 0, "after_next_call": 400}


def test_the_computed_answer_is_the_seed_s() -> None:
    # 6,000 x 0.75 = 4,500; 900, 2,000, 3,200, 4,700; then 0 and 300 + 100
    assert grader.threshold_answer() == RIGHT


def test_the_exercise_turns_grow_as_a_loop_s_do() -> None:
    """Each turn of a loop that does not compact sends the one before it and more: its
    input + output cannot fall below the previous turn's (the exercise once had 1,500
    then 900)."""
    assert all(later >= earlier for earlier, later in itertools.pairwise(grader.TURNS))


def test_the_right_answer_passes() -> None:
    verdict = grader.check_threshold(RIGHT)
    assert verdict.status == "PASS"
    assert [row["status"] for row in verdict.rows] == ["PASS"] * 4
    assert verdict.hints == {}
    assert str(verdict).startswith("PASS\nPASS  the turn that triggers compaction -> 4")


@pytest.mark.parametrize(
    ("wrong", "case", "hint"),
    [
        ({"turn": 3}, "the turn that triggers compaction", "3,200, still below"),
        ({"turn": 5}, "the turn that triggers compaction", "before that turn"),
        ({"turn": "four"}, "the turn that triggers compaction", "from 1 to 4"),
        ({"counter_at_trigger": 1_100}, "the counter when it triggers", "every turn's"),
        ({"after_reset": 4_700}, "the counter after the reset", "new window"),
        ({"after_next_call": 5_100}, "the counter after the first call", "reset is missing"),
        ({"after_next_call": 300}, "the counter after the first call", "input and output"),
    ],
)
def test_a_wrong_value_fails_its_row_with_a_hint(
    wrong: dict[str, object], case: str, hint: str
) -> None:
    verdict = grader.check_threshold({**RIGHT, **wrong})
    assert verdict.status == "NEEDS_WORK"
    failed = [row for row in verdict.rows if row["status"] == "FAIL"]
    assert len(failed) == 1 and failed[0]["case"].startswith(case)
    assert hint in verdict.hints[failed[0]["case"]]


def test_an_empty_answer_fails_every_row_without_raising() -> None:
    verdict = grader.check_threshold({})
    assert [row["status"] for row in verdict.rows] == ["FAIL"] * 4


def _loop(reset: bool) -> Any:
    def loop(client: ScriptedClient, notes: NotesFile) -> str:
        impls = race_fix.tool_impls(notes)
        messages: list[dict[str, Any]] = [{"role": "user", "content": race_fix.TASK}]
        request = {"model": "claude-sonnet-5", "max_tokens": 1024, "tools": race_fix.TOOLS}
        response = client.messages.create(**request, messages=messages)
        tokens_used = track_usage(0, response)
        while response_field(response, "stop_reason") == "tool_use":
            messages = append_tool_results(messages, response, impls)
            if should_compact(tokens_used, grader.STORM_WINDOW, grader.STORM_RATIO):
                messages = compact_history(client, messages, notes)
                if reset:
                    tokens_used = 0
            response = client.messages.create(**request, messages=messages)
            tokens_used = track_usage(tokens_used, response)
        return "".join(b["text"] for b in content_blocks(response) if b["type"] == "text")

    return loop


def test_the_storm_is_counted_against_the_fixed_loop() -> None:
    broken, reference = grader.storm_counts(_loop(reset=False))
    fixed, _ = grader.storm_counts(_loop(reset=True))
    assert fixed == reference >= 1
    assert broken > 2 * reference


def test_the_fix_passes_and_the_broken_loop_as_a_fix_does_not() -> None:
    assert grader.check_storm(_loop(reset=False), _loop(reset=True)).status == "PASS"
    verdict = grader.check_storm(_loop(reset=False), _loop(reset=False))
    assert verdict.status == "NEEDS_WORK"
    assert "tokens_used = 0" in verdict.hints["the fixed loop compacts as often as run_agent"]


def test_a_loop_that_appends_the_restart_fails_the_restart_row() -> None:
    def appending(client: ScriptedClient, notes: NotesFile) -> str:
        impls = race_fix.tool_impls(notes)
        messages: list[dict[str, Any]] = [{"role": "user", "content": race_fix.TASK}]
        request = {"model": "claude-sonnet-5", "max_tokens": 1024, "tools": race_fix.TOOLS}
        response = client.messages.create(**request, messages=messages)
        tokens_used = track_usage(0, response)
        while response_field(response, "stop_reason") == "tool_use":
            messages = append_tool_results(messages, response, impls)
            if should_compact(tokens_used, grader.STORM_WINDOW, grader.STORM_RATIO):
                messages = messages + compact_history(client, messages, notes)
                tokens_used = 0
            response = client.messages.create(**request, messages=messages)
            tokens_used = track_usage(tokens_used, response)
        return race_fix.REPLY

    verdict = grader.check_storm(_loop(reset=False), appending)
    assert (
        "assign what compact_history returns"
        in verdict.hints["each compaction restarts from one message"]
    )


def test_a_loop_that_raises_is_reported_not_raised() -> None:
    def crashing(client: ScriptedClient, notes: NotesFile) -> str:
        raise KeyError("stop_reason")

    verdict = grader.check_storm(crashing, crashing)
    assert verdict.status == "NEEDS_WORK"
    assert (
        verdict.hints["the fixed loop compacts as often as run_agent"] == "the loop raised KeyError"
    )
    assert verdict.hints["the loop without the reset compacts more often than run_agent"] == (
        "the loop raised KeyError"
    )
