"""Part I's checkers (`grading.budget`): right answers pass, wrong ones say what is wrong."""

from __future__ import annotations

import math
from typing import Any

import pytest

from context_budget import (
    Layers,
    budget_report,
    estimate_tokens,
    message_tokens,
    tokens_read,
)
from context_budget.grading import PASS, budget
from context_budget.grading.budget import (
    QUESTIONS,
    STABLE_RULES,
    check_breakpoints,
    check_minimums,
    check_timestamp_moved,
)


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


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


def test_the_total_read_names_the_usual_mistakes() -> None:
    assert budget.check_total_read(tokens_read(24, growth=1_875, start=2_000)) == PASS
    _wrong(budget.check_total_read(47_000), "last call")
    _wrong(budget.check_total_read(tokens_read(24, growth=1_875) + 2_000), "re-reads")
    _wrong(budget.check_total_read(1), "not 1")


@pytest.mark.parametrize("answer", ["35", 35.0, True, None, [35]])
def test_answers_of_the_wrong_type_are_named(answer: object) -> None:
    for check in (budget.check_total_read, budget.check_doubling_steps):
        _wrong(check(answer), "whole number", repr(answer)[:10])


def test_doubling_is_not_twice_the_steps() -> None:
    assert budget.check_doubling_steps(35) == PASS
    _wrong(budget.check_doubling_steps(48), "3.8 times", "square")
    _wrong(budget.check_doubling_steps(34), "a few more")
    _wrong(budget.check_doubling_steps(0), "at least one call")


def test_message_size_counts_the_framing() -> None:
    assert budget.check_message_size(message_tokens(budget.QUESTION)) == PASS
    text_only = estimate_tokens(str(budget.QUESTION["content"]))
    _wrong(budget.check_message_size(text_only), "framing", str(text_only))


def test_the_layer_order_is_most_stable_first() -> None:
    assert budget.check_layer_order(("system", "pinned", "conversation")) == PASS
    _wrong(budget.check_layer_order(["conversation", "pinned", "system"]), "least stable")
    _wrong(budget.check_layer_order(["pinned", "system", "conversation"]), "system prompt")
    _wrong(budget.check_layer_order(["system", "tools"]), "three names")


def test_a_rule_costs_its_text_and_its_framing() -> None:
    cost = budget_report(Layers("", [budget.RULE], []))["total"]
    assert budget.check_rule_cost(cost) == PASS
    _wrong(budget.check_rule_cost(estimate_tokens(budget.RULE)), "framing")


def test_a_loop_that_adds_every_call_passes_and_one_that_misses_a_call_does_not() -> None:
    def by_loop(steps: int, growth: int, start: int) -> int:
        return sum(start + k * growth for k in range(1, steps + 1))

    def one_short(steps: int, growth: int, start: int) -> int:
        return sum(start + k * growth for k in range(1, steps))

    assert budget.check_read_so_far(by_loop) == PASS
    _wrong(budget.check_read_so_far(one_short), "expected", "got")


def test_an_estimate_that_rounds_down_fails_on_a_named_text() -> None:
    assert budget.check_estimate(lambda text: math.ceil(len(text) / 4)) == PASS
    _wrong(budget.check_estimate(lambda text: len(text) // 4), "'abc' (3 characters)")
    _wrong(budget.check_estimate(lambda text: len(text.encode()) // 4 + 1), "cases wrong")


def test_the_digit_aware_counter() -> None:
    def digit_aware(text: str) -> int:
        digits = sum(c.isdigit() for c in text)
        return digits + estimate_tokens("".join(c for c in text if not c.isdigit()))

    assert budget.check_digit_aware(digit_aware) == PASS
    _wrong(budget.check_digit_aware(estimate_tokens), "'2026'")


def test_a_report_missing_a_layer_fails() -> None:
    assert budget.check_budget_report(budget_report) == PASS

    def no_framing(layers: Layers) -> dict[str, int]:
        report = dict(budget_report(layers))
        report["total"] -= 1
        return report

    _wrong(budget.check_budget_report(no_framing), "total")


def test_a_case_that_raises_is_named_with_the_exception() -> None:
    def divides(text: str) -> int:  # right on "", raises on "abc"
        return len(text) // (len(text) - 3)

    verdict = budget.check_estimate(divides)
    _wrong(verdict, "first, 'abc' (3 characters): raised ZeroDivisionError: integer division")
    assert not verdict.startswith("NEEDS_WORK: 6 of 6")  # the empty text passed


def test_a_function_that_changes_its_input_is_caught_even_when_its_answer_is_right() -> None:
    def appends(layers: Layers) -> dict[str, int]:
        report = dict(budget_report(layers))
        layers.pinned.append("a rule of my own")
        return report

    assert budget.check_budget_report(appends) == (
        "NEEDS_WORK: 4 of 4 cases wrong; first, empty layers: changed its input"
    )


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


def _every_provider(marked: bool, *, moved: bool = True) -> Any:
    from context_budget.grading.budget import LONG_RULES, QUESTIONS

    def make_request(turn: int, now: str) -> dict[str, Any]:
        rules: dict[str, Any] = {"type": "text", "text": LONG_RULES}
        if marked:
            rules["cache_control"] = {"type": "ephemeral"}
        question = f"Current time: {now}. {QUESTIONS[turn]}"
        if not moved:  # the time at the end of the system prompt instead
            rules["text"], question = f"{LONG_RULES}\n{now}", QUESTIONS[turn]
        return {
            "system": [rules],
            "messages": [{"role": "user", "content": question}],
            "cache_control": {"type": "ephemeral"},
        }

    return make_request


def test_the_every_provider_checker_names_the_caches_a_request_without_a_marker_misses() -> None:
    from context_budget.grading.budget import check_every_provider

    unmarked = check_every_provider(_every_provider(marked=False))
    assert unmarked.startswith("NEEDS_WORK: the rules were not read from the cache")
    for label in ("Anthropic Opus 5", "OpenAI GPT-5.6 Sol", "Gemini 3.1 Pro, explicit"):
        assert f"{label} read 0 of its 4,244 on turn 1" in unmarked
    assert unmarked.endswith("OpenAI GPT-5.5, DeepSeek V4 Flash kept them")
    assert "its cache holds only what a marker ends" in unmarked
    assert check_every_provider(_every_provider(marked=True)) == (
        "PASS: every provider read at least 4,224 tokens on turns 1-5"
    )
    stamped = check_every_provider(_every_provider(marked=False, moved=False))
    assert "kept them" not in stamped  # the time in the system prompt: every cache misses


def test_the_every_provider_checker_reports_a_crash_and_a_dropped_rule() -> None:
    from context_budget.grading.budget import check_every_provider

    def crash(turn: int, now: str) -> dict[str, Any]:
        raise KeyError(turn)

    def no_rules(turn: int, now: str) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": f"{now} {budget.QUESTIONS[turn]}"}]}

    assert check_every_provider(crash) == "NEEDS_WORK: turn 0 raised KeyError: 0"
    assert check_every_provider(no_rules) == "NEEDS_WORK: turn 0: the request dropped LONG_RULES"
