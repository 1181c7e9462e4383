"""Part II's checkers (`grading.spending`): right answers pass, typical wrong ones do not."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from context_budget import (
    Layers,
    budget_report,
    clear_old_tool_results,
    head,
)
from context_budget.experiment import cost_floor, run_strategy
from context_budget.fakes.simulated import SimulatedModel
from context_budget.grading import PASS, spending
from context_budget.grading.spending import check_guard_predictions, check_restart
from context_budget.messages import Message


def _wrong(verdict: str, *words: str) -> None:
    assert verdict.startswith("NEEDS_WORK: "), verdict
    for word in words:
        assert word in verdict, (word, verdict)


def _size(layers: Layers, rest: list[Any]) -> int:
    return budget_report(replace(layers, conversation=rest))["total"]


def _first_text(history: list[Message]) -> str:
    return str(history[0]["content"])


def test_the_count_at_400_is_without_pinned_records() -> None:
    assert spending.check_visible_at_400(5) == PASS
    _wrong(spending.check_visible_at_400(9), "pinned")
    _wrong(spending.check_visible_at_400(11), "drop something")


def test_cuts_against_the_package() -> None:
    assert spending.check_head(head) == PASS
    _wrong(spending.check_head(lambda text, budget: text[: budget * 4]), "a budget of 30")
    _wrong(spending.check_tail(head), "lines left out")


def test_clearing_reports_the_failing_case() -> None:
    assert spending.check_clearing(clear_old_tool_results) == PASS
    _wrong(
        spending.check_clearing(lambda messages, keep_last: messages[:1]),
        "keeps every message and the order",
    )


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

    assert spending.check_safe_trim(safely) == PASS
    _wrong(spending.check_safe_trim(drop_oldest), "orphan result")
    _wrong(spending.check_safe_trim(too_eager), "messages where")
    _wrong(spending.check_safe_trim(lambda layers, budget: layers), "it keeps")


def test_a_function_that_edits_its_input_fails() -> None:
    def edits(layers: Layers, budget: int) -> Layers:
        layers.conversation.clear()
        return layers

    _wrong(spending.check_safe_trim(edits), "changed the layers")

    def pops(text: str, budget: int) -> str:
        return text

    assert spending.check_head(head) == PASS and spending.check_head(pops).startswith("NEEDS")


def test_a_trim_that_raises_returns_junk_or_keeps_an_old_message_is_named() -> None:
    def crashes(layers: Layers, budget: int) -> Layers:
        raise ValueError("no budget")

    def junk(layers: Layers, budget: int) -> Any:
        return list(layers.conversation)

    def keeps_the_first(layers: Layers, budget: int) -> Layers:
        return replace(layers, conversation=layers.conversation[:1])

    assert spending.check_safe_trim(crashes) == (
        "NEEDS_WORK: at a budget of 0 tokens it raised ValueError"
    )
    assert spending.check_safe_trim(junk) == (
        "NEEDS_WORK: it returned no readable Layers (AttributeError)"
    )
    assert spending.check_safe_trim(keeps_the_first) == (
        "NEEDS_WORK: at a budget of 0 tokens it kept more than the newest messages"
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


def test_the_guard_prediction_checker_names_a_missing_strategy() -> None:
    verdict = check_guard_predictions({"append": "append", "server_clear": "append"})
    assert verdict == "NEEDS_WORK: no prediction for 'client_clear'"


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


def test_the_graders_pass_right_answers_and_name_wrong_ones() -> None:
    from context_budget.grading.spending import (
        check_cheapest_of_three,
        check_floor_ratio,
        check_rereads,
    )

    assert check_cheapest_of_three("everything").startswith("NEEDS_WORK: answer one of")
    assert check_rereads(lambda run: run.rereads).startswith("PASS")
    assert check_rereads(lambda run: len(run.reads)).startswith("NEEDS_WORK: clear with notes")
    assert "ZeroDivisionError" in check_rereads(lambda run: 1 // 0)
    assert check_floor_ratio(lambda run: run.cost_usd / cost_floor()).startswith("NEEDS_WORK")
    assert "KeyError" in check_floor_ratio(lambda run: {}[run])
    assert check_floor_ratio(lambda run: float("nan")).endswith("got nan")  # it passed
    assert check_cheapest_of_three("clear").startswith("NEEDS_WORK: clear costs")
    assert check_cheapest_of_three("compact").startswith("PASS: compact costs")
    assert check_floor_ratio(
        lambda run: run.cost_usd / cost_floor(output_tokens=run.output_tokens)
    ).startswith("PASS")


def test_the_reads_per_step_checker_passes_the_measured_count_and_names_it_otherwise() -> None:
    from context_budget.grading.spending import check_reads_per_step

    steps = run_strategy("naive", simulated=SimulatedModel(reads_per_step=3)).steps
    assert check_reads_per_step(3, steps).startswith("PASS")
    wrong = check_reads_per_step(3, steps - 1)
    assert wrong.startswith("NEEDS_WORK") and f"takes {steps} calls" in wrong
    assert "int from 1 to 6" in check_reads_per_step(0, steps)
    assert "must be an int" in check_reads_per_step(3, "eleven")
