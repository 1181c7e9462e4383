"""The chapter exercises' checkers: right answers pass, wrong ones say what is wrong."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import (
    Layers,
    budget_report,
    clear_old_tool_results,
    estimate_tokens,
    head,
    message_tokens,
    tokens_read,
)
from context_budget.grading import chapters
from context_budget.grading.chapters import PASS


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


# --- answers --------------------------------------------------------------------------


def test_the_total_read_names_the_usual_mistakes() -> None:
    assert chapters.check_total_read(tokens_read(24, growth=1_875, start=2_000)) == PASS
    _wrong(chapters.check_total_read(47_000), "last call")
    _wrong(chapters.check_total_read(tokens_read(24, growth=1_875) + 2_000), "re-reads")
    _wrong(chapters.check_total_read(1), "not 1")


@pytest.mark.parametrize("answer", ["35", 35.0, True, None, [35]])
def test_answers_of_the_wrong_type_are_named(answer: object) -> None:
    for check in (chapters.check_total_read, chapters.check_doubling_steps):
        _wrong(check(answer), "whole number", repr(answer)[:10])


def test_doubling_is_not_twice_the_steps() -> None:
    assert chapters.check_doubling_steps(35) == PASS
    _wrong(chapters.check_doubling_steps(48), "3.8 times", "square")
    _wrong(chapters.check_doubling_steps(34), "a few more")
    _wrong(chapters.check_doubling_steps(0), "at least one call")


def test_message_size_counts_the_framing() -> None:
    assert chapters.check_message_size(message_tokens(chapters.QUESTION)) == PASS
    text_only = estimate_tokens(str(chapters.QUESTION["content"]))
    _wrong(chapters.check_message_size(text_only), "framing", str(text_only))


def test_the_layer_order_is_most_stable_first() -> None:
    assert chapters.check_layer_order(("system", "pinned", "conversation")) == PASS
    _wrong(chapters.check_layer_order(["conversation", "pinned", "system"]), "least stable")
    _wrong(chapters.check_layer_order(["pinned", "system", "conversation"]), "system prompt")
    _wrong(chapters.check_layer_order(["system", "tools"]), "three names")


def test_a_rule_costs_its_text_and_its_framing() -> None:
    cost = budget_report(Layers("", [chapters.RULE], []))["total"]
    assert chapters.check_rule_cost(cost) == PASS
    _wrong(chapters.check_rule_cost(estimate_tokens(chapters.RULE)), "framing")


def test_the_count_at_400_is_without_pinned_records() -> None:
    assert chapters.check_visible_at_400(5) == PASS
    _wrong(chapters.check_visible_at_400(9), "pinned")
    _wrong(chapters.check_visible_at_400(11), "drop something")


# --- functions ------------------------------------------------------------------------


def test_a_loop_that_adds_every_call_passes_and_one_that_misses_a_call_does_not() -> None:
    def by_loop(steps: int, growth: int, start: int) -> int:
        return sum(start + k * growth for k in range(1, steps + 1))

    def one_short(steps: int, growth: int, start: int) -> int:
        return sum(start + k * growth for k in range(1, steps))

    assert chapters.check_read_so_far(by_loop) == PASS
    _wrong(chapters.check_read_so_far(one_short), "expected", "got")


def test_an_estimate_that_rounds_down_fails_on_a_named_text() -> None:
    assert chapters.check_estimate(lambda text: math.ceil(len(text) / 4)) == PASS
    _wrong(chapters.check_estimate(lambda text: len(text) // 4), "'abc' (3 characters)")
    _wrong(chapters.check_estimate(lambda text: len(text.encode()) // 4 + 1), "cases wrong")


def test_the_digit_aware_counter() -> None:
    def digit_aware(text: str) -> int:
        digits = sum(c.isdigit() for c in text)
        return digits + estimate_tokens("".join(c for c in text if not c.isdigit()))

    assert chapters.check_digit_aware(digit_aware) == PASS
    _wrong(chapters.check_digit_aware(estimate_tokens), "'2026'")


def test_a_report_missing_a_layer_fails() -> None:
    assert chapters.check_budget_report(budget_report) == PASS

    def no_framing(layers: Layers) -> dict[str, int]:
        report = dict(budget_report(layers))
        report["total"] -= 1
        return report

    _wrong(chapters.check_budget_report(no_framing), "total")


def test_cuts_against_the_package() -> None:
    assert chapters.check_head(head) == PASS
    _wrong(chapters.check_head(lambda text, budget: text[: budget * 4]), "a budget of 30")
    _wrong(chapters.check_tail(head), "lines left out")


def test_clearing_reports_the_failing_case() -> None:
    assert chapters.check_clearing(clear_old_tool_results) == PASS
    _wrong(
        chapters.check_clearing(lambda messages, keep_last: messages[:1]),
        "keeps every message and the order",
    )


def _size(layers: Layers, rest: list[Any]) -> int:
    return budget_report(replace(layers, conversation=rest))["total"]


def test_a_trim_that_can_orphan_a_result_is_caught_and_the_safe_one_passes() -> None:
    def drop_oldest(layers: Layers, budget: int) -> Layers:
        rest = list(layers.conversation)
        while rest and _size(layers, rest) > budget:
            rest = rest[1:]
        return replace(layers, conversation=rest)

    def safely(layers: Layers, budget: int) -> Layers:
        rest = list(layers.conversation)

        def question(message: Any) -> bool:
            blocks = message["content"] if isinstance(message["content"], list) else []
            return message["role"] == "user" and not any(b["type"] == "tool_result" for b in blocks)

        while rest and not (_size(layers, rest) <= budget and question(rest[0])):
            rest = rest[1:]
        return replace(layers, conversation=rest)

    def too_eager(layers: Layers, budget: int) -> Layers:
        return replace(layers, conversation=[])

    assert chapters.check_safe_trim(safely) == PASS
    _wrong(chapters.check_safe_trim(drop_oldest), "orphan result")
    _wrong(chapters.check_safe_trim(too_eager), "messages where")
    _wrong(chapters.check_safe_trim(lambda layers, budget: layers), "it keeps")


def test_a_function_that_edits_its_input_fails() -> None:
    def edits(layers: Layers, budget: int) -> Layers:
        layers.conversation.clear()
        return layers

    _wrong(chapters.check_safe_trim(edits), "changed the layers")

    def pops(text: str, budget: int) -> str:
        return text

    assert chapters.check_head(head) == PASS and chapters.check_head(pops).startswith("NEEDS")


@pytest.mark.parametrize(
    "check",
    [
        chapters.check_read_so_far,
        chapters.check_estimate,
        chapters.check_digit_aware,
        chapters.check_budget_report,
        chapters.check_head,
        chapters.check_tail,
        chapters.check_safe_trim,
    ],
)
def test_an_unwritten_starter_is_not_yet_written(check: Any) -> None:
    def starter(*arguments: object) -> Any:
        raise NotImplementedError

    _wrong(check(starter), "not written yet")


@given(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers())))
def test_a_function_returning_anything_gets_a_verdict_not_an_exception(value: object) -> None:
    for check in (chapters.check_estimate, chapters.check_head, chapters.check_budget_report):
        assert check(lambda *arguments: value).startswith(("PASS", "NEEDS_WORK: "))


@pytest.mark.parametrize("answer", ["16", 16.0, False, None])
def test_the_other_number_answers_also_refuse_a_wrong_type(answer: object) -> None:
    for check in (
        chapters.check_message_size,
        chapters.check_rule_cost,
        chapters.check_visible_at_400,
    ):
        assert check(answer) == f"NEEDS_WORK: answer with a whole number (an int), got {answer!r}"


def test_a_wrong_number_gets_a_hint_not_a_pass() -> None:
    _wrong(chapters.check_message_size(0), "not 0", "per-message framing")
    _wrong(chapters.check_rule_cost(0), "not 0", "costs what the same text costs as a message")
    _wrong(chapters.check_visible_at_400(3), "not 3", "keep_numbers")


def test_a_case_that_raises_is_named_with_the_exception() -> None:
    def divides(text: str) -> int:  # right on "", raises on "abc"
        return len(text) // (len(text) - 3)

    verdict = chapters.check_estimate(divides)
    _wrong(verdict, "first, 'abc' (3 characters): raised ZeroDivisionError: integer division")
    assert not verdict.startswith("NEEDS_WORK: 6 of 6")  # the empty text passed


def test_a_function_that_changes_its_input_is_caught_even_when_its_answer_is_right() -> None:
    def appends(layers: Layers) -> dict[str, int]:
        report = dict(budget_report(layers))
        layers.pinned.append("a rule of my own")
        return report

    assert chapters.check_budget_report(appends) == (
        "NEEDS_WORK: 4 of 4 cases wrong; first, empty layers: changed its input"
    )


def test_a_trim_that_raises_returns_junk_or_keeps_an_old_message_is_named() -> None:
    def crashes(layers: Layers, budget: int) -> Layers:
        raise ValueError("no budget")

    def junk(layers: Layers, budget: int) -> Any:
        return list(layers.conversation)

    def keeps_the_first(layers: Layers, budget: int) -> Layers:
        return replace(layers, conversation=layers.conversation[:1])

    assert chapters.check_safe_trim(crashes) == (
        "NEEDS_WORK: at a budget of 0 tokens it raised ValueError"
    )
    assert chapters.check_safe_trim(junk) == (
        "NEEDS_WORK: it returned no readable Layers (AttributeError)"
    )
    assert chapters.check_safe_trim(keeps_the_first) == (
        "NEEDS_WORK: at a budget of 0 tokens it kept more than the newest messages"
    )


def test_the_keep_the_task_trim_checker_fails_a_recount_a_dropped_task_and_a_crash() -> None:
    from context_budget.grading.chapters import check_first_kept_trim

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
