"""Clearing old tool results: markers, what stays, and an input left alone."""

from __future__ import annotations

import copy

import pytest
from conversations import (
    LONG,
    TOOL,
    anthropic_day,
    assistant,
    call,
    cleared_count,
    result_block,
    results,
    user,
)

from context_budget import (
    Message,
    clear_old_tool_results,
    estimate_tokens,
    tool_message,
    validate_history,
)

MARKER = "[tool result cleared to save context: {} tokens]"


def test_clearing_all_but_the_last_two_of_the_long_day_clears_six() -> None:
    original = copy.deepcopy(LONG)
    out = clear_old_tool_results(LONG, 2)
    assert cleared_count(out) == 6
    assert original == LONG


def test_clearing_keeps_every_message_role_and_order() -> None:
    out = clear_old_tool_results(LONG, 2)
    assert [m["role"] for m in out] == [m["role"] for m in LONG]
    changed = [i for i, (old, new) in enumerate(zip(LONG, out, strict=True)) if old != new]
    assert changed == [1, 4, 7, 10, 13, 16]  # the first six tool messages, nothing else


def test_keep_last_beyond_the_count_clears_nothing() -> None:
    assert cleared_count(clear_old_tool_results(LONG, 99)) == 0
    assert clear_old_tool_results(LONG, 99) == LONG


def test_keep_last_zero_clears_every_result() -> None:
    assert cleared_count(clear_old_tool_results(LONG, 0)) == 8


def test_the_marker_gives_the_old_size_in_tokens() -> None:
    out = clear_old_tool_results(LONG, 2)
    assert out[1] == {**TOOL, "content": MARKER.format(estimate_tokens(TOOL["content"]))}
    assert out[1]["name"] == "stock_level"  # the call's trace stays


def test_the_marker_uses_the_counter_it_is_given() -> None:
    out = clear_old_tool_results(LONG, 7, counter=len)  # one token a character
    assert out[1]["content"] == MARKER.format(len(LONG[1]["content"]))


def test_a_result_is_never_cleared_into_a_bigger_marker() -> None:
    # break 9: the CLI cleared these and reported negative savings; now the
    # rule lives here, so every caller gets it
    small = [user("q"), tool_message("stock", {"v": 1}), tool_message("stock", {"v": 2})]
    assert clear_old_tool_results(small, 0) == small
    assert clear_old_tool_results(LONG, 7, counter=lambda text: 999) == LONG


def test_clearing_twice_changes_nothing_more() -> None:
    once = clear_old_tool_results(LONG, 2)
    assert clear_old_tool_results(once, 2) == once
    # an already-cleared result is never re-marked, even with a different counter
    assert clear_old_tool_results(once, 0, counter=lambda text: 1)[1] == once[1]


def test_anthropic_tool_result_blocks_are_cleared_and_calls_kept() -> None:
    day = anthropic_day(4)
    original = copy.deepcopy(day)
    out = clear_old_tool_results(day, 1)
    results_before = [m for m in day if m["role"] == "user" and isinstance(m["content"], list)]
    results_after = [m for m in out if m["role"] == "user" and isinstance(m["content"], list)]
    old_size = estimate_tokens(results_before[0]["content"][0]["content"])
    for block_message in results_after[:3]:
        block = block_message["content"][0]
        assert block["content"] == MARKER.format(old_size)
        assert block["type"] == "tool_result" and block["tool_use_id"].startswith("t")
    assert results_after[3] == results_before[3]
    assert [m for m in out if m["role"] == "assistant"] == [
        m for m in day if m["role"] == "assistant"
    ]
    assert validate_history(out) == []
    assert day == original


def test_each_block_is_one_result_and_only_the_oldest_go() -> None:
    day = [user("q"), call("t1", "t2", "t3"), results("t1", "t2", "t3")]
    out = clear_old_tool_results(day, 2)
    blocks = out[2]["content"]
    assert blocks[0]["content"].startswith("[tool result cleared")
    assert blocks[1] == day[2]["content"][1] and blocks[2] == day[2]["content"][2]


def test_an_error_result_is_never_cleared_and_does_not_use_up_keep_last() -> None:
    day = [
        user("q"),
        call("t1"),
        results("t1"),
        call("t2"),
        results("t2", is_error=True),
        call("t3"),
        results("t3"),
    ]
    out = clear_old_tool_results(day, 1)
    assert out[4] == day[4]  # the error stays, although it is not among the last 1
    assert out[6] == day[6]  # the last ordinary result is the one kept
    assert out[2]["content"][0]["content"].startswith("[tool result cleared")
    assert clear_old_tool_results(day, 0)[4] == day[4]


def test_a_shorthand_error_is_never_cleared() -> None:
    failing = {**tool_message("stock_level", {"error": "timeout"}), "is_error": True}
    day = [failing, TOOL, TOOL]
    assert clear_old_tool_results(day, 0)[0] == failing


def test_tool_result_with_text_blocks_or_no_content() -> None:
    blocks = [{"type": "text", "text": "x" * 80}, {"type": "text", "text": "y" * 80}]
    day: list[Message] = [
        user("q"),
        call("t1", "t2"),
        {
            "role": "user",
            "content": [result_block("t1", blocks), {"type": "tool_result", "tool_use_id": "t2"}],
        },
        assistant("a"),
    ]
    out = clear_old_tool_results(day, 0)
    assert out[2]["content"][0]["content"] == MARKER.format(
        estimate_tokens("x" * 80 + "\n" + "y" * 80)
    )
    assert "content" not in out[2]["content"][1]  # nothing to clear; a marker would add


def test_the_input_is_never_mutated_and_unchanged_messages_are_equal() -> None:
    day = anthropic_day(5) + LONG
    snapshot = copy.deepcopy(day)
    out = clear_old_tool_results(day, 3)
    assert day == snapshot
    for old, new in zip(day, out, strict=True):
        if new != old:  # a changed message is a new dict with a new content list
            assert new is not old and new["content"] is not old["content"]


def test_bad_keep_last_is_named() -> None:
    with pytest.raises(ValueError, match="keep_last must be >= 0, got -1"):
        clear_old_tool_results(LONG, -1)
    with pytest.raises(TypeError, match="keep_last must be an int, got '2'"):
        clear_old_tool_results(LONG, "2")  # type: ignore[arg-type]


def test_a_tool_message_with_list_content_is_one_result_cleared_whole() -> None:
    # break 5: clearing reached inside such a message, clearing an error result
    # and deleting a call; now the message is one result and its blocks are results' blocks
    listed = {"role": "tool", "name": "stock", "content": [{"type": "text", "text": "x" * 400}]}
    failed = {**listed, "is_error": True}
    day: list[Message] = [user("q"), listed, failed, assistant("a"), user("q2"), listed]
    out = clear_old_tool_results(day, 1)
    assert out[1]["content"] == MARKER.format(estimate_tokens("x" * 400))
    assert out[2] == failed and out[5] == listed  # the error stays; the last is kept
    stray = {"role": "tool", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}
    with pytest.raises(ValueError, match="message 1, block 0 has type 'tool_use'"):
        clear_old_tool_results([user("q"), stray], 0)


def test_a_result_beside_other_blocks_is_cleared_only_if_its_message_shrinks() -> None:
    # found by make soak: the marker (12 tokens) is smaller than the result
    # (13), but with the empty text block beside it the message stays 13 tokens
    text = "closing 7 pm\nA-4817: 20 tubs\nvanilla 12 tubs\nmint"
    answer = {"role": "user", "content": [result_block("t1", text), {"type": "text", "text": ""}]}
    day: list[Message] = [user("q"), call("t1"), answer]
    assert clear_old_tool_results(day, 0) == day
