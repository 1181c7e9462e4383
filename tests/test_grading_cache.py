"""The exercise checkers of the cache chapters: a right answer passes, typical wrong ones do not."""

from __future__ import annotations

from typing import Any

from context_budget.grading.cache import (
    QUESTIONS,
    STABLE_RULES,
    check_breakpoints,
    check_guard_predictions,
    check_minimums,
    check_restart,
    check_timestamp_moved,
)
from context_budget.messages import Message

EPHEMERAL = {"type": "ephemeral"}


def timestamp_in_system(turn: int, now: str) -> dict[str, Any]:
    question = {"role": "user", "content": QUESTIONS[turn]}
    return {
        "system": f"{STABLE_RULES}\nNow: {now}",
        "messages": [question],
        "cache_control": EPHEMERAL,
    }


def timestamp_in_message(turn: int, now: str) -> dict[str, Any]:
    system = [{"type": "text", "text": STABLE_RULES, "cache_control": EPHEMERAL}]
    return {
        "system": system,
        "messages": [{"role": "user", "content": f"It is {now}. {QUESTIONS[turn]}"}],
    }


def test_the_timestamp_checker_fails_the_trap_and_passes_the_fix() -> None:
    assert check_timestamp_moved(timestamp_in_system).startswith("NEEDS_WORK: turn 1 read 0")
    assert check_timestamp_moved(timestamp_in_message).startswith("PASS")


def test_the_timestamp_checker_catches_dropping_the_time_and_a_crash() -> None:
    def no_clock(turn: int, now: str) -> dict[str, Any]:
        return timestamp_in_message(turn, "sometime")

    def crash(turn: int, now: str) -> dict[str, Any]:
        raise KeyError(turn)

    assert "no longer tells the model the time" in check_timestamp_moved(no_clock)
    assert check_timestamp_moved(crash) == "NEEDS_WORK: turn 0 raised KeyError: 0"


def test_the_breakpoint_checker_wants_a_mark_within_reach_of_the_last_write() -> None:
    assert check_breakpoints(lambda previous, end: [end]).startswith("NEEDS_WORK: after 15 blocks")
    assert check_breakpoints(
        lambda previous, end: [previous, end] if previous else [end]
    ).startswith("PASS")
    assert "1 to 4 positions" in check_breakpoints(lambda previous, end: list(range(1, 7)))


def test_the_minimum_checker_names_each_wrong_model() -> None:
    answer = check_minimums({"claude-haiku-4-5", "claude-opus-5", "claude-sonnet-4-6"})
    assert answer == (
        "NEEDS_WORK: claude-haiku-4-5 does not cache it (minimum 4,096 tokens); "
        "missed claude-opus-4-7 (minimum 2,048 tokens)"
    )
    assert check_minimums({"claude-opus-4-7", "claude-opus-5", "claude-sonnet-4-6"}).startswith(
        "PASS"
    )


def test_the_guard_prediction_checker_compares_with_the_runs() -> None:
    right = {
        "append": "append",
        "client_clear": "edited",
        "server_clear": "append",
        "restart": "replaced",
    }
    assert check_guard_predictions(right).startswith("PASS")
    wrong = {**right, "server_clear": "edited"}
    assert check_guard_predictions(wrong).startswith("NEEDS_WORK: server_clear: you said 'edited'")


def test_the_restart_checker_refuses_keeping_the_first_message_and_editing_after_it() -> None:
    def keep_first(history: list[Message], summary: str) -> list[Message]:
        return [history[0], {"role": "assistant", "content": summary}]

    def in_place(history: list[Message], summary: str) -> list[Message]:
        history[1:] = []
        history[0] = {"role": "user", "content": history[0]["content"] + summary}
        return history

    def fresh(history: list[Message], summary: str) -> list[Message]:
        return [{"role": "user", "content": f"{history[0]['content']}\n\nSo far: {summary}"}]

    assert check_restart(keep_first).startswith("NEEDS_WORK: the guard says edited at message 1")
    assert check_restart(in_place).startswith("NEEDS_WORK: restart changed the history")
    assert check_restart(fresh).startswith("PASS: replaced")
