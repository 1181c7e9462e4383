"""The rule of 2026: the guard that spots an edit anywhere but the end of the history."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import (
    EmulatedClient,
    MiddleEditError,
    PrefixGuard,
    PrefixReport,
    PromptCache,
    clear_old_tool_results,
)


def run(count: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Count the tubs."}]
    for i in range(count):
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": "stock", "input": {}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{i}", "content": "vanilla 12 " * 40}
                ],
            }
        )
    return messages


def test_the_first_request_and_appends_pass() -> None:
    guard = PrefixGuard(strict=True)
    assert guard.check(run(1)).kind == "first"
    assert guard.check(run(2)).kind == "append"
    assert guard.check(run(2)).kind == "append"  # a retry of the same request
    assert [r.ok for r in guard.reports] == [True, True, True]


def test_an_edit_in_the_middle_is_reported_at_its_first_changed_message() -> None:
    guard = PrefixGuard()
    guard.check(run(3))
    edited = copy.deepcopy(run(4))
    edited[4]["content"][0]["content"] = "cleared"
    report = guard.check(edited)
    assert (report.kind, report.part, report.first_changed, report.ok) == (
        "edited",
        "messages",
        4,
        False,
    )


def test_the_lost_tokens_are_the_previous_prompt_from_the_change_on() -> None:
    guard = PrefixGuard()
    previous = run(3)
    guard.check(previous)
    edited = copy.deepcopy(run(4))
    edited[2]["content"][0]["content"] = "x"
    report = guard.check(edited)
    assert report.lost_tokens == PromptCache("any", min_tokens=0).prompt_tokens(
        messages=previous[2:]
    )


def test_strict_mode_refuses_a_middle_edit_with_a_named_error() -> None:
    guard = PrefixGuard(strict=True)
    guard.check(run(3))
    cleared = clear_old_tool_results(run(4), keep_last=1)
    with pytest.raises(MiddleEditError, match="edited at message 2") as error:
        guard.check(cleared)
    assert isinstance(error.value.report, PrefixReport)
    assert guard.check(run(4)).kind == "append"  # the refused request was not remembered


def test_client_side_clearing_before_every_call_is_caught_every_time_it_moves() -> None:
    """Unit A's `clear_old_tool_results` on each call: every new clear is an edit in the middle."""
    guard = PrefixGuard()
    kinds = [guard.check(clear_old_tool_results(run(n), keep_last=2)).kind for n in range(1, 7)]
    assert kinds == ["first", "append", "edited", "edited", "edited", "edited"]


def test_a_tools_or_system_change_is_an_edit_of_the_start() -> None:
    tools = [{"name": "stock", "description": "Stock level.", "input_schema": {}}]
    guard = PrefixGuard()
    guard.check(run(1), tools=tools, system="Be brief.")
    assert guard.check(run(1), tools=tools, system="Be brief!").part == "system"
    assert guard.check(run(1), tools=[*tools, tools[0]], system="Be brief!").part == "tools"


def test_moving_a_cache_marker_and_string_versus_block_content_are_not_edits() -> None:
    guard = PrefixGuard(strict=True)
    first = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    guard.check(first)
    assert (
        guard.check(
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
        ).kind
        == "append"
    )


def test_wholesale_compaction_passes_as_a_replacement() -> None:
    guard = PrefixGuard(strict=True)
    history = run(5)
    guard.check(history)
    summary = "Count the tubs.\n\nProgress so far: 5 stock reads, vanilla 12 each."
    report = guard.check([{"role": "user", "content": summary}])
    assert (report.ok, report.kind, report.first_changed) == (True, "replaced", 0)
    assert report.lost_tokens == PromptCache("any", min_tokens=0).prompt_tokens(messages=history)


def test_server_side_clearing_passes_because_the_client_list_only_grows() -> None:
    reads = [
        {"content": [{"type": "tool_use", "id": f"t{i}", "name": "stock", "input": {"n": i}}]}
        for i in range(5)
    ]
    client = EmulatedClient("claude-sonnet-4-6", [*reads, {"content": "12 tubs."}])
    management = {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 200},
                "keep": {"type": "tool_uses", "value": 1},
            }
        ]
    }
    guard = PrefixGuard(strict=True)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Count the tubs."}]
    cleared = 0
    for _ in range(6):
        guard.check(messages)
        reply = client.beta.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=64,
            messages=messages,
            context_management=management,
        )
        cleared += sum(e["cleared_tool_uses"] for e in reply["context_management"]["applied_edits"])
        messages = [*messages, {"role": "assistant", "content": reply["content"]}]
        if reply["stop_reason"] == "tool_use":
            use = reply["content"][0]
            result = {
                "type": "tool_result",
                "tool_use_id": use["id"],
                "content": "vanilla 12 " * 40,
            }
            messages.append({"role": "user", "content": [result]})
    assert cleared > 0
    assert all(r.ok for r in guard.reports)


def test_check_request_reads_messages_create_arguments() -> None:
    guard = PrefixGuard()
    guard.check_request({"model": "m", "system": "s", "messages": run(1)})
    assert guard.check_request({"model": "m", "system": "s", "messages": run(2)}).kind == "append"


def test_the_guard_rejects_a_malformed_history() -> None:
    with pytest.raises(TypeError, match="message 0"):
        PrefixGuard().check(["hello"])  # type: ignore[list-item]


# Property -------------------------------------------------------------------

words = st.text(alphabet="ab é日🙂\u200b", min_size=1, max_size=8)


@st.composite
def edited_histories(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """A history, the next request with its messages from `at` changed, and `at` (>= 1)."""
    size = draw(st.integers(2, 12))
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": draw(words)} for i in range(size)
    ]
    at = draw(st.integers(1, size - 1))
    later = copy.deepcopy(history)
    later[at]["content"] = later[at]["content"] + draw(words)
    for index in range(at + 1, size):
        if draw(st.booleans()):
            later[index]["content"] = draw(words)
    later += [{"role": "user", "content": draw(words)} for _ in range(draw(st.integers(0, 3)))]
    return history, later, at


@given(edited_histories())
def test_property_an_edit_in_the_middle_is_reported_at_its_first_changed_message(
    case: tuple[list[dict[str, Any]], list[dict[str, Any]], int],
) -> None:
    history, later, at = case
    guard = PrefixGuard()
    guard.check(history)
    report = guard.check(later)
    assert (report.kind, report.first_changed) == ("edited", at)
    assert report.lost_tokens == PromptCache("any", min_tokens=0).prompt_tokens(
        messages=history[at:]
    )


def test_server_side_compaction_passes_the_strict_guard() -> None:
    """The compaction block comes back in a reply the client appends; nothing earlier changes."""

    def big(text: str) -> int:
        return 20_000 if text.startswith("vanilla") else 1

    client = EmulatedClient("claude-sonnet-4-6", [{"content": "ok"}] * 2, counter=big)
    management = {
        "edits": [
            {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
        ]
    }
    guard = PrefixGuard(strict=True)
    messages = run(3)  # 60,000 tokens of results: compacts
    guard.check(messages)
    reply = client.beta.messages.create(
        model="claude-sonnet-4-6", max_tokens=64, messages=messages, context_management=management
    )
    assert reply["content"][0]["type"] == "compaction"
    messages = [*messages, {"role": "assistant", "content": reply["content"]}]
    messages.append({"role": "user", "content": "And mango?"})
    assert guard.check(messages).kind == "append"
    client.beta.messages.create(
        model="claude-sonnet-4-6", max_tokens=64, messages=messages, context_management=management
    )
    assert client.sent[-1]["messages"][0]["content"][0]["type"] == "compaction"
