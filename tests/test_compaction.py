"""Compaction: Unit A's grade cases, the cut of step 2, errors and cost."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from conversations import (
    LONG,
    PINNED,
    SMALL,
    SYSTEM,
    anthropic_day,
    assistant,
    call,
    cleared_count,
    result_block,
    results,
    user,
)

from context_budget import (
    SUMMARY_PREFIX,
    ContextOverflowError,
    Layers,
    Message,
    budget_report,
    clear_old_tool_results,
    compact,
    estimate_tokens,
    forget_everything,
    keep_numbers,
    validate_history,
)
from context_budget.compaction import compact_with_record

LAYERS = Layers(SYSTEM, PINNED, LONG)


def total(layers: Layers) -> int:
    return budget_report(layers)["total"]


class Recorder:
    """A summarizer that remembers what it was given."""

    def __init__(self, text: str = "") -> None:
        self.calls: list[list[Message]] = []
        self.text = text

    def __call__(self, messages: list[Message]) -> str:
        self.calls.append(copy.deepcopy(messages))
        return self.text


# Unit A's grade cases


def test_a_context_that_fits_is_returned_unchanged() -> None:
    layers = Layers("s", ["rule"], SMALL)
    out = compact(layers, 10_000, forget_everything)
    assert out == layers
    assert out.conversation is not layers.conversation and out.pinned is not layers.pinned


def test_step_one_alone_when_it_is_enough() -> None:
    budget = total(Layers(SYSTEM, PINNED, clear_old_tool_results(LONG, 2)))
    summarize = Recorder()
    out = compact(LAYERS, budget, summarize)
    assert len(out.conversation) == len(LONG)
    assert cleared_count(out.conversation) == 6
    assert out.conversation == clear_old_tool_results(LONG, 2)
    assert summarize.calls == []


def test_summarizes_up_to_the_latest_question() -> None:
    out = compact(LAYERS, 250, forget_everything)
    assert [m["content"] for m in out.conversation[-3:]] == ["q7", LONG[-2]["content"], "a7"]
    assert out.conversation[0] == {"role": "user", "content": SUMMARY_PREFIX}
    assert len(out.conversation) == 4
    assert total(out) <= 250


def test_pinned_records_and_system_are_untouched() -> None:
    out = compact(LAYERS, 250, forget_everything)
    assert out.pinned == PINNED and out.system == SYSTEM


def test_pinned_records_over_the_budget_raise() -> None:
    with pytest.raises(ContextOverflowError) as caught:
        compact(Layers("s", ["x" * 4000], SMALL), 100, forget_everything)
    assert str(caught.value) == "budget 100 tokens, system and pinned alone are 1011 tokens"
    assert (caught.value.budget, caught.value.size) == (100, 1011)


def test_a_latest_turn_over_the_budget_raises() -> None:
    with pytest.raises(ContextOverflowError, match="budget 100 tokens"):
        compact(Layers("s", [], [user("y" * 4000)]), 100, forget_everything)


# step 2 in detail


def test_the_summarizer_gets_the_cleared_messages_before_the_question() -> None:
    summarize = Recorder("kept 12 tubs")
    out = compact(LAYERS, 250, summarize)
    assert summarize.calls == [clear_old_tool_results(LONG, 2)[:21]]
    assert out.conversation[0]["content"] == SUMMARY_PREFIX + "kept 12 tubs"


def test_keep_numbers_keeps_digits_and_loses_words() -> None:
    day = [user("Never order mango."), assistant("We close at 7 pm."), user("And now?")]
    out = compact(Layers("", [], day), 26, keep_numbers)
    assert out.conversation == [
        {"role": "user", "content": SUMMARY_PREFIX + "We close at 7 pm."},
        user("And now?"),
    ]


def test_a_summary_that_still_does_not_fit_raises_with_both_sizes() -> None:
    with pytest.raises(ContextOverflowError) as caught:
        compact(LAYERS, 160, Recorder("z" * 400))
    error = caught.value
    assert error.budget == 160 and error.size > 160
    assert str(error).startswith(f"budget 160 tokens, the compacted context is still {error.size}")


def test_nothing_older_to_summarize_raises() -> None:
    day = [user("q"), assistant("x" * 4000)]
    with pytest.raises(ContextOverflowError, match="nothing older"):
        compact(Layers("", [], day), 100, forget_everything)


def test_a_conversation_without_a_question_raises() -> None:
    day = [assistant("x" * 400), assistant("y" * 400)]
    with pytest.raises(ContextOverflowError, match="nothing older"):
        compact(Layers("", [], day), 100, forget_everything)


def test_a_turn_of_only_tool_results_is_not_the_latest_question() -> None:
    day = [user("q0"), assistant("x" * 400), user("q1"), call("t1"), results("t1")]
    summarize = Recorder()
    out = compact(Layers("", [], day), 100, summarize)
    assert out.conversation[1:] == day[2:]
    assert len(summarize.calls[0]) == 2


def test_a_question_that_answers_a_call_keeps_the_call() -> None:
    day = [*anthropic_day(3), call("t9"), results("t9", text="And mint?"), assistant("7 tubs.")]
    out = compact(Layers("", [], day), 100, forget_everything)
    assert out.conversation[1:] == day[-3:]  # the call stays with its result
    assert validate_history(day) == [] and validate_history(out.conversation) == []


def test_the_cut_moves_back_as_far_as_the_oldest_kept_call() -> None:
    # not a valid history (t1 is answered late), but the call must still stay
    day = [user("q0" * 100), call("t1"), assistant("no result yet")]
    day += [call("t2"), results("t2", "t1", text="q1")]
    out = compact(Layers("", [], day), 180, forget_everything)
    assert out.conversation[1:] == day[1:]


def test_thinking_blocks_in_the_kept_tail_are_sent_back_exactly() -> None:
    thinking = {"type": "thinking", "thinking": "Mint is in freezer 2.", "signature": "abc=="}
    turn = {"role": "assistant", "content": [thinking, *call("t9")["content"]]}
    day = [*anthropic_day(4), turn, results("t9", text="q9")]
    out = compact(Layers("", [], day), 120, forget_everything)
    assert out.conversation[1] == turn and out.conversation[1]["content"][0] == thinking


def test_the_input_is_never_mutated() -> None:
    day = anthropic_day(6) + LONG
    layers = Layers(SYSTEM, list(PINNED), day)
    snapshot = copy.deepcopy(layers)
    for budget in (10_000, 1_000, 250, 100):
        with contextlib.suppress(ContextOverflowError):
            compact(layers, budget, keep_numbers)
    assert layers == snapshot


def test_a_custom_counter_decides_what_fits() -> None:
    def one_per_text(text: str) -> int:
        return 1 if text else 0

    out = compact(LAYERS, 200, forget_everything, counter=one_per_text)
    assert budget_report(out, counter=one_per_text)["total"] <= 200 < total(LAYERS)
    assert out.conversation == LONG  # counted this way the day is small and fits as it is


def test_each_message_is_counted_a_bounded_number_of_times() -> None:
    # linear cost: no recount of the conversation after each dropped message
    day = anthropic_day(500)  # 2,000 messages, 500 tool results
    counted: list[int] = []

    def counting(text: str) -> int:
        counted.append(1)
        return estimate_tokens(text)

    compact(Layers("s", PINNED, day), 300, forget_everything, counter=counting)
    # system, pinned, summary, every message once, and twice more per cleared result
    assert len(counted) <= 3 + len(day) + 2 * 500


# bad input


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ((LAYERS, -1, forget_everything), ValueError, "budget must be >= 0 tokens, got -1"),
        ((LAYERS, 250.0, forget_everything), TypeError, "got 250.0"),
        ((LAYERS, True, forget_everything), TypeError, "got True"),
        ((LAYERS, 250, "forget"), TypeError, "summarize must be callable.*'forget'"),
        ((LONG, 250, forget_everything), TypeError, "layers must be a Layers, got list"),
        ((LAYERS, 250, lambda messages: None), TypeError, "must return a str, got NoneType"),
        ((LAYERS, 250, lambda messages: ["x"]), TypeError, r"got list: \['x'\]"),
    ],
)
def test_bad_arguments_are_named(
    arguments: tuple[Any, ...], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        compact(*arguments)


@pytest.mark.parametrize("text", ["\ud800", "ok \udcff then"])
def test_a_summary_holding_a_lone_surrogate_is_refused_by_compact(text: str) -> None:
    """It used to come back inside the compacted layers, which the next `budget_report`
    (or the API) then refused with no word of the summarizer."""
    with pytest.raises(ValueError, match=r"^summarize returned text the API cannot carry: .*U\+D"):
        compact(LAYERS, 250, lambda messages: text)


@pytest.mark.parametrize("flag", ["no", 0, None])
def test_single_task_must_be_a_bool(flag: object) -> None:
    """`single_task="no"` once switched single-task mode on (any truthy value did)."""
    with pytest.raises(TypeError, match=r"^single_task must be True or False, got "):
        compact(LAYERS, 250, forget_everything, single_task=flag)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ((None, 250, forget_everything), TypeError, "layers must be a Layers, got NoneType"),
        ((LAYERS, "250", forget_everything), TypeError, "budget must be an int number of tokens"),
        ((LAYERS, 250, None), TypeError, "summarize must be callable"),
        ((LAYERS, 250, forget_everything, "four"), TypeError, "counter must be callable"),
    ],
    ids=["layers", "budget", "summarize", "counter"],
)
def test_compact_with_record_names_a_bad_argument(
    arguments: tuple[Any, ...], error: type[Exception], match: str
) -> None:
    """Its arguments were trusted, so a bad one failed deep inside (an AttributeError on
    `None.conversation`, a comparison of an int with a str)."""
    with pytest.raises(error, match=match):
        compact_with_record(*arguments)


def test_compact_with_record_counts_with_the_estimate_when_given_no_counter() -> None:
    record = compact_with_record(LAYERS, 10**6, forget_everything, None)
    assert (record.step, record.size) == (0, total(LAYERS))


def test_step_one_never_replaces_a_result_with_a_bigger_marker() -> None:
    # six calls answered "ok" (1 token each): a marker would cost more than the result
    day = [user("x" * 2_000), assistant("a"), user("latest")]
    for number in range(6):
        answer = {"role": "user", "content": [result_block(f"t{number}", content="ok")]}
        day += [call(f"t{number}"), answer]
    day.append(assistant("done"))
    layers = Layers("", [], day)
    summary_and_tail = Layers("", [], [{"role": "user", "content": SUMMARY_PREFIX}, *day[2:]])
    budget = budget_report(summary_and_tail)["total"]
    out = compact(layers, budget, forget_everything)
    assert out.conversation == summary_and_tail.conversation  # no marker anywhere
    assert budget_report(out)["total"] <= budget


def test_a_summarizer_that_edits_its_messages_changes_neither_input_nor_result() -> None:
    day = anthropic_day(4)
    layers = Layers("s", ["rule"], day)
    snapshot = copy.deepcopy(layers)

    def vandal(messages: list[Message]) -> str:
        for message in messages:
            message["content"] = "x" * 10_000  # edits every dict it was given
        return ""

    budget = budget_report(Layers("s", ["rule"], clear_old_tool_results(day, 2)))["total"] - 1
    out = compact(layers, budget, vandal)
    assert layers == snapshot
    assert budget_report(out)["total"] <= budget


# a single-task run: one task, then nothing but tool rounds


def single_task_run(rounds: int) -> list[Message]:
    day: list[Message] = [user("Fix the failing test in shop.py")]
    for n in range(rounds):
        day += [call(f"t{n}", text=f"step {n}"), results(f"t{n}")]
    return day


def test_the_default_cannot_summarize_a_single_task_run() -> None:
    layers = Layers("s", [], single_task_run(6))
    with pytest.raises(ContextOverflowError, match="nothing older than the latest question"):
        compact(layers, 150, forget_everything)


def test_single_task_keeps_the_task_and_the_latest_whole_rounds() -> None:
    day = single_task_run(6)
    layers = Layers("s", [], day)
    out = compact(layers, 200, keep_numbers, single_task=True)
    assert budget_report(out)["total"] <= 200
    task, summary, *tail = out.conversation
    assert task == day[0]
    assert summary["content"].startswith(SUMMARY_PREFIX)
    assert tail[0]["role"] == "assistant" and len(tail) % 2 == 0  # whole rounds
    assert validate_history(out.conversation) == []
    # the tail is the cleared conversation's end, as many rounds as fit
    cleared = clear_old_tool_results(day, 2)
    assert tail == cleared[len(cleared) - len(tail) :]
    more = compact(layers, 250, keep_numbers, single_task=True)
    assert len(more.conversation) > len(out.conversation)


def test_single_task_with_no_round_between_task_and_the_last_raises() -> None:
    layers = Layers("s", [], single_task_run(1))
    with pytest.raises(ContextOverflowError, match="no whole round between the task"):
        compact(layers, 10, forget_everything, single_task=True)


def test_single_task_retries_with_the_latest_round_when_the_summary_is_long() -> None:
    layers = Layers("s", [], single_task_run(6))
    calls: list[int] = []

    def wordy(messages: list[Message]) -> str:
        calls.append(len(messages))
        return "x" * 200 if len(calls) == 1 else ""

    out = compact(layers, 250, wordy, single_task=True)
    assert len(calls) == 2 and calls[1] > calls[0]  # the second summary covers more
    assert len(out.conversation) == 4  # task, summary, the latest call and its result
    assert budget_report(out)["total"] <= 250


def test_still_is_said_only_when_the_context_was_bigger_before() -> None:
    # the summary of a tiny history can make it bigger than it was
    day = [user("a"), assistant("b"), user("c" * 40)]
    layers = Layers("", [], day)
    with pytest.raises(ContextOverflowError) as caught:
        compact(layers, 20, lambda messages: "y" * 100)
    assert "is still" not in str(caught.value) and caught.value.size > total(layers)
    with pytest.raises(ContextOverflowError, match="is still"):
        compact(
            Layers("", [], [user("x" * 400), assistant("b"), user("c" * 40)]), 20, forget_everything
        )


def test_a_summarizer_cannot_reach_nested_dicts_of_the_input() -> None:
    # break 2: the copy was one level deep; cache_control, an image's source,
    # image items in a result and extra message keys were shared
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
    }
    day: list[Message] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
                image,
            ],
            "meta": {"n": [1]},
        },
        call("t1"),
        {
            "role": "user",
            "content": [result_block("t1", [image, {"type": "text", "text": "x" * 400}])],
        },
        assistant("a"),
        user("and now?"),
    ]
    layers = Layers("", [], day)
    snapshot = copy.deepcopy(layers)

    def vandal(messages: list[Message]) -> str:
        stack: list[Any] = list(messages)
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
                value["vandal"] = True
            elif isinstance(value, list):
                stack.extend(value)
                value.append("vandal")
        return ""

    out = compact(layers, 60, vandal)
    assert layers == snapshot
    assert "vandal" not in repr(out)
