"""The exercise checkers of the cache chapters: a right answer passes, typical wrong ones do not."""

from __future__ import annotations

import re
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


def test_the_timestamp_checker_wants_the_question_and_the_rules_in_every_request() -> None:
    def no_question(turn: int, now: str) -> dict[str, Any]:
        request = timestamp_in_message(turn, now)
        request["messages"] = [{"role": "user", "content": f"It is {now}."}]
        return request

    def short_rules(turn: int, now: str) -> dict[str, Any]:
        request = timestamp_in_message(turn, now)
        request["system"] = [
            {"type": "text", "text": STABLE_RULES[:500], "cache_control": EPHEMERAL}
        ]
        return request

    assert check_timestamp_moved(no_question) == (
        "NEEDS_WORK: turn 0: the request does not ask 'Which report is newest?'"
    )
    assert (
        check_timestamp_moved(short_rules) == "NEEDS_WORK: turn 0: the request dropped STABLE_RULES"
    )


def test_the_timestamp_checker_passes_a_request_with_numbers_and_flags_in_it() -> None:
    def with_options(turn: int, now: str) -> dict[str, Any]:
        return {**timestamp_in_message(turn, now), "max_tokens": 512, "temperature": 0.0}

    assert check_timestamp_moved(with_options) == check_timestamp_moved(timestamp_in_message)
    assert check_timestamp_moved(with_options).startswith("PASS: turns 1-5")


def test_the_breakpoint_checker_reports_a_crash_with_its_arguments() -> None:
    def crash(previous: int, end: int) -> list[int]:
        return [end // previous]

    assert check_breakpoints(crash) == "NEEDS_WORK: breakpoints(0, 10) raised ZeroDivisionError"


def test_the_minimum_checker_refuses_a_model_outside_the_exercise() -> None:
    answer = check_minimums({"claude-opus-5", "gpt-5", "claude-2"})
    assert answer == "NEEDS_WORK: not one of the exercise's models: claude-2, gpt-5"


def test_the_guard_prediction_checker_names_a_missing_strategy() -> None:
    verdict = check_guard_predictions({"append": "append", "server_clear": "append"})
    assert verdict == "NEEDS_WORK: no prediction for 'client_clear'"


def _first_text(history: list[Message]) -> str:
    return str(history[0]["content"])


def test_the_restart_checker_reports_a_crash_and_a_malformed_history() -> None:
    def crash(history: list[Message], summary: str) -> list[Message]:
        raise RuntimeError("no summary model")

    def no_content(history: list[Message], summary: str) -> list[Message]:
        return [{"role": "user", "text": _first_text(history) + summary}]

    assert check_restart(crash) == "NEEDS_WORK: restart raised RuntimeError: no summary model"
    assert check_restart(no_content) == (
        "NEEDS_WORK: the new history is malformed: message 0 has no 'content'"
    )


def test_the_restart_checker_refuses_a_broken_pair_a_lost_summary_and_no_saving() -> None:
    def orphan(history: list[Message], summary: str) -> list[Message]:
        text = f"{_first_text(history)}\n\n{summary}"
        block = {"type": "tool_result", "tool_use_id": "toolu_gone", "content": text}
        return [{"role": "user", "content": [block]}]

    def forgets(history: list[Message], summary: str) -> list[Message]:
        return [{"role": "user", "content": f"{_first_text(history)}\n\nSo far: nothing."}]

    def everything(history: list[Message], summary: str) -> list[Message]:
        text = "\n".join(str(message["content"]) for message in history)
        return [{"role": "user", "content": f"{text}\n\n{summary}"}]

    broken = check_restart(orphan)
    assert broken.startswith("NEEDS_WORK: the new history breaks a tool call: "), broken
    assert "toolu_gone" in broken
    assert check_restart(forgets) == (
        "NEEDS_WORK: the new history must carry both the task and the summary"
    )
    big = re.fullmatch(
        r"NEEDS_WORK: the new history is ([\d,]+) tokens; the old one was ([\d,]+)",
        check_restart(everything),
    )
    assert big is not None
    new, old = (int(figure.replace(",", "")) for figure in big.groups())
    assert old < new * 2  # not under half the old size
