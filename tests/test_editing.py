"""Server-side context editing and compaction, emulated, against Anthropic's docs.

The rules are those of
https://platform.claude.com/docs/en/build-with-claude/context-editing and
https://platform.claude.com/docs/en/build-with-claude/compaction. The last cases contrast
them with LangChain's context-editing middleware (`langchain.agents.middleware.context_editing`),
which keeps a partial clear where the server vetoes one.
"""

from __future__ import annotations

import copy
import itertools
import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import context_budget.editing as editing
from context_budget import (
    PRICES,
    ContextManagementError,
    PrefixGuard,
    PromptCache,
    Usage,
    clear_tool_uses_20250919,
    clear_tool_uses_langchain,
    cost,
    estimate_tokens,
)
from context_budget.editing import PLACEHOLDER
from context_budget.errors import InvalidRequestError
from context_budget.fakes.emulated import EmulatedClient

MODEL = "claude-sonnet-4-6"
CLEAR = "clear_tool_uses_20250919"


def big_results(text: str) -> int:
    """10,000 tokens for a tool result's text (it starts with "R"), the estimate otherwise."""
    return 10_000 if text.startswith("R") else estimate_tokens(text)


def pairs(
    count: int, *, name: str = "read", names: list[str] | None = None
) -> list[dict[str, Any]]:
    """`count` (assistant tool_use, user tool_result) pairs after one user question."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Which service failed most?"}]
    for i in range(count):
        tool = names[i] if names else name
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{i}", "name": tool, "input": {"n": i}}],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"R{i}"}],
            }
        )
    return messages


def edit(**params: Any) -> dict[str, Any]:
    return {"type": CLEAR, "trigger": {"type": "input_tokens", "value": 30_000}, **params}


def keep(n: int) -> dict[str, Any]:
    return {"type": "tool_uses", "value": n}


def at_least(n: int) -> dict[str, Any]:
    return {"type": "input_tokens", "value": n}


def cleared_results(messages: list[dict[str, Any]]) -> list[str]:
    return [
        block["tool_use_id"]
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result" and block["content"] == PLACEHOLDER
    ]


# clearing below and above the trigger ---------------------------------------


def test_below_the_trigger_nothing_is_applied_and_the_prompt_is_unchanged() -> None:
    """Two 10,000-token results do not exceed a 30,000 trigger."""
    history = pairs(2)
    result = clear_tool_uses_20250919(history, edit(keep=keep(0)), counter=big_results)
    assert result.applied_edit() is None
    assert result.messages == history


def test_the_trigger_compares_the_size_before_editing_and_is_strict() -> None:
    history = pairs(3)  # 30,000 + the question's tokens
    size = PromptCache(MODEL, counter=big_results).prompt_tokens(messages=history)
    fired = edit(trigger={"type": "input_tokens", "value": size - 1}, keep=keep(0))
    quiet = edit(trigger={"type": "input_tokens", "value": size}, keep=keep(0))
    assert clear_tool_uses_20250919(history, fired, counter=big_results).cleared_tool_uses == 3
    assert clear_tool_uses_20250919(history, quiet, counter=big_results).cleared_tool_uses == 0


def test_above_the_trigger_the_oldest_are_cleared_and_keep_counts_tool_uses() -> None:
    """6 pairs of 10,000 tokens, keep 3 -> 3 cleared, 3 x (10,000 - placeholder)."""
    history = pairs(6)
    result = clear_tool_uses_20250919(history, edit(keep=keep(3)), counter=big_results)
    assert result.applied_edit() == {
        "type": CLEAR,
        "cleared_tool_uses": 3,
        "cleared_input_tokens": 3 * (10_000 - estimate_tokens(PLACEHOLDER)),
    }
    assert cleared_results(result.messages) == ["t0", "t1", "t2"]


def test_the_placeholder_is_a_parameter() -> None:
    result = clear_tool_uses_20250919(
        pairs(4), edit(keep=keep(1)), counter=big_results, placeholder="[gone]"
    )
    texts = [m["content"][0].get("content") for m in result.messages[2::2]]
    assert texts == ["[gone]", "[gone]", "[gone]", "R3"]
    assert result.cleared_input_tokens == 3 * (10_000 - estimate_tokens("[gone]"))


def test_clearing_never_changes_its_input() -> None:
    history = pairs(6)
    before = copy.deepcopy(history)
    clear_tool_uses_20250919(
        history, edit(keep=keep(1), clear_tool_inputs=True), counter=big_results
    )
    assert history == before


def test_a_trigger_in_tool_uses_counts_the_calls() -> None:
    spec = edit(trigger={"type": "tool_uses", "value": 4}, keep=keep(1))
    assert clear_tool_uses_20250919(pairs(4), spec, counter=big_results).cleared_tool_uses == 0
    assert clear_tool_uses_20250919(pairs(5), spec, counter=big_results).cleared_tool_uses == 4


# clear_at_least and exclude_tools -------------------------------------------


def test_clear_at_least_vetoes_the_whole_edit_when_it_cannot_be_met() -> None:
    """3 results could be cleared (about 30,000 tokens); asking for 40,000 clears none."""
    history = pairs(6)
    result = clear_tool_uses_20250919(
        history, edit(keep=keep(3), clear_at_least=at_least(40_000)), counter=big_results
    )
    assert (result.cleared_tool_uses, result.messages) == (0, history)


def test_a_vetoed_edit_leaves_the_cache_warm() -> None:
    """The vetoed request reads the previous request's whole prompt from the cache."""
    client = EmulatedClient(MODEL, [{"content": "ok"}] * 2, counter=big_results)
    management = {"edits": [edit(keep=keep(3), clear_at_least=at_least(40_000))]}
    history = pairs(6)
    first = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=history,
        cache_control={"type": "ephemeral"},
        betas=["context-management-2025-06-27"],
        context_management=management,
    )
    history = [
        *history,
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "and?"},
    ]
    second = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=history,
        cache_control={"type": "ephemeral"},
        betas=["context-management-2025-06-27"],
        context_management=management,
    )
    assert first["context_management"] == {"applied_edits": []}
    assert second["context_management"] == {"applied_edits": []}
    previous = Usage.of(first)
    assert Usage.of(second).cache_read_input_tokens == previous.prompt_tokens


def test_excluded_tools_are_never_cleared() -> None:
    """`exclude_tools` results survive; the others older than `keep` go."""
    names = ["save_note", "read", "save_note", "read", "read", "read"]
    result = clear_tool_uses_20250919(
        pairs(6, names=names), edit(keep=keep(2), exclude_tools=["save_note"]), counter=big_results
    )
    assert cleared_results(result.messages) == ["t1", "t3"]


def test_clear_tool_inputs_true_or_a_list_empties_the_calls_inputs() -> None:
    names = ["grep", "read", "grep", "read"]
    for spec, emptied in ((True, ["t0", "t1", "t2"]), (["grep"], ["t0", "t2"])):
        result = clear_tool_uses_20250919(
            pairs(4, names=names), edit(keep=keep(1), clear_tool_inputs=spec), counter=big_results
        )
        inputs = {
            b["id"]: b["input"]
            for m in result.messages
            if m["role"] == "assistant"
            for b in m["content"]
        }
        assert [i for i, value in inputs.items() if value == {}] == emptied


# counting tokens with edits -------------------------------------------------


def test_count_tokens_reports_the_original_beside_the_edited_size() -> None:
    """Worked example of the docs: 70,000 before the edit, 25,000 after it."""

    def counter(text: str) -> int:
        return 5_000 if text.startswith("R") else 0

    client = EmulatedClient(MODEL, [], counter=counter, placeholder="")
    management = {"edits": [edit(keep=keep(5))]}
    counted = client.beta.messages.count_tokens(
        model=MODEL, messages=pairs(14), context_management=management
    )
    assert counted == {
        "input_tokens": 25_000,
        "context_management": {"original_input_tokens": 70_000},
    }
    assert client.messages.count_tokens(model=MODEL, messages=pairs(14)) == {"input_tokens": 70_000}


# server-side compaction -----------------------------------------------------


def compact_edit(value: int = 50_000, **params: Any) -> dict[str, Any]:
    return {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": value},
        **params,
    }


def test_a_compaction_trigger_below_50000_is_refused() -> None:
    """The API answers 400."""
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    with pytest.raises(ContextManagementError, match="at least 50,000") as error:
        client.beta.messages.create(
            model=MODEL,
            max_tokens=64,
            messages=pairs(1),
            context_management={"edits": [compact_edit(49_999)]},
        )
    assert error.value.status_code == 400


def test_compaction_at_the_trigger_opens_the_reply_and_bills_every_iteration() -> None:
    """Content = [compaction, text], iterations = [compaction, message], cost = sum."""
    client = EmulatedClient(MODEL, [{"content": "Done.", "output_tokens": 7}], counter=big_results)
    history = pairs(5)  # 50,000 tokens of results: reaches the trigger
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=history,
        betas=["compact-2026-01-12"],
        context_management={"edits": [compact_edit(instructions="Keep the numbers.")]},
    )
    assert [block["type"] for block in reply["content"]] == ["compaction", "text"]
    assert "Keep the numbers." in reply["content"][0]["content"]
    iterations = reply["usage"]["iterations"]
    assert [i["type"] for i in iterations] == ["compaction", "message"]
    assert iterations[0]["input_tokens"] >= 50_000
    top = {k: v for k, v in reply["usage"].items() if k != "iterations"}
    assert top == {k: v for k, v in iterations[1].items() if k != "type"}
    price = PRICES[MODEL]
    total = sum(cost(i, price).total for i in iterations)
    assert cost(reply, price).total == pytest.approx(total)
    assert cost(Usage.of(reply), price).total == pytest.approx(total)  # the record keeps them
    top = Usage.of(reply)
    assert cost(reply, price).total > cost(replace(top, iterations=()), price).total


def test_pause_after_compaction_returns_only_the_compaction_block() -> None:
    client = EmulatedClient(MODEL, [], counter=big_results)
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=pairs(5),
        context_management={"edits": [compact_edit(pause_after_compaction=True)]},
    )
    assert [b["type"] for b in reply["content"]] == ["compaction"]
    assert reply["stop_reason"] == "compaction"


def test_a_later_request_drops_every_block_before_the_compaction_block() -> None:
    """The model reads the compaction block and what follows it, nothing earlier."""
    client = EmulatedClient(
        MODEL, [{"content": "Done."}, {"content": "Again."}], counter=big_results
    )
    management = {"edits": [compact_edit()]}
    history = pairs(5)
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=64, messages=history, context_management=management
    )
    history = [*history, {"role": "assistant", "content": reply["content"]}]
    history.append({"role": "user", "content": "Go on."})
    client.beta.messages.create(
        model=MODEL, max_tokens=64, messages=history, context_management=management
    )
    seen = client.requests[-1]["messages"]
    assert seen[0]["content"][0]["type"] == "compaction"
    assert len(seen) == 2 and seen[1]["content"] == "Go on."
    assert len(history) == 13  # the client's own list keeps everything


# combined edits -------------------------------------------------------------


def test_clear_thinking_must_be_listed_first() -> None:
    """Combined edits with `clear_thinking_20251015` second are refused."""
    client = EmulatedClient(MODEL, [{"content": "ok"}] * 2)
    edits = [
        edit(),
        {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
    ]
    with pytest.raises(ContextManagementError, match="must be the first"):
        client.beta.messages.create(
            model=MODEL, max_tokens=64, messages=pairs(1), context_management={"edits": edits}
        )
    reply = client.beta.messages.create(
        model=MODEL, max_tokens=64, messages=pairs(1), context_management={"edits": edits[::-1]}
    )
    assert reply["context_management"] == {"applied_edits": []}


def test_clear_thinking_drops_all_but_the_last_thinking_turns() -> None:
    turn = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm " * 50, "signature": "s"},
            {"type": "text", "text": "a"},
        ],
    }
    history = [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "q2"}, turn]
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    keep_one = {"type": "thinking_turns", "value": 1}
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=history,
        context_management={"edits": [{"type": "clear_thinking_20251015", "keep": keep_one}]},
    )
    assert reply["context_management"]["applied_edits"] == [
        {"type": "clear_thinking_20251015", "cleared_thinking_turns": 1, "cleared_input_tokens": 50}
    ]
    assert [b["type"] for b in client.requests[0]["messages"][1]["content"]] == ["text"]


@pytest.mark.parametrize(("model", "cleared"), [("claude-sonnet-4-6", 0), ("claude-haiku-4-5", 1)])
def test_clear_thinking_keeps_by_default_what_the_model_keeps(model: str, cleared: int) -> None:
    """Without `keep`: all turns on Opus 4.5+ / Sonnet 4.6+, the last turn on older models."""
    turn = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm " * 50, "signature": "s"},
            {"type": "tool_use", "id": "t", "name": "read", "input": {}},
        ],
    }
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t", "content": "R"}],
    }
    history = [{"role": "user", "content": "q"}, turn, result, {**turn}, result]
    client = EmulatedClient(model, [{"content": "ok"}])
    reply = client.beta.messages.create(
        model=model,
        max_tokens=64,
        messages=history,
        context_management={"edits": [{"type": "clear_thinking_20251015"}]},
    )
    applied = reply["context_management"]["applied_edits"]
    assert [edit["cleared_thinking_turns"] for edit in applied] == ([cleared] if cleared else [])


def test_an_unknown_edit_type_is_refused() -> None:
    client = EmulatedClient(MODEL, [])
    with pytest.raises(ContextManagementError, match="unknown edit type 'clear_all'"):
        client.beta.messages.create(
            model=MODEL,
            max_tokens=64,
            messages=pairs(1),
            context_management={"edits": [{"type": "clear_all"}]},
        )


# the window is the last iteration -------------------------------------------


def test_the_window_is_the_last_message_iteration_not_a_sum_over_iterations() -> None:
    """The docs' example: 63,000 + 270,000 read across iterations is not a 334,400 window."""
    usage = {
        "input_tokens": 63_000,
        "output_tokens": 1_400,
        "cache_read_input_tokens": 270_000,
        "iterations": [{"type": "message", "input_tokens": 63_000, "output_tokens": 1_400}],
    }
    summed = Usage.of(usage).window_tokens
    last = Usage.of(usage["iterations"][-1]).window_tokens
    assert (summed, last) == (334_400, 64_400)


# a veto, not a stop at N ----------------------------------------------------


def test_the_server_vetoes_where_langchain_keeps_a_partial_clear() -> None:
    """The same input, `clear_at_least` 40,000 with 30,000 clearable."""
    history = pairs(6)
    server = clear_tool_uses_20250919(
        history, edit(keep=keep(3), clear_at_least=at_least(40_000)), counter=big_results
    )
    client_side = clear_tool_uses_langchain(
        history, trigger=30_000, keep=3, clear_at_least=40_000, counter=big_results
    )
    assert (server.cleared_tool_uses, client_side.cleared_tool_uses) == (0, 3)


def test_langchain_stops_once_clear_at_least_is_reached_where_the_server_clears_all() -> None:
    history = pairs(6)
    server = clear_tool_uses_20250919(
        history, edit(keep=keep(1), clear_at_least=at_least(15_000)), counter=big_results
    )
    client_side = clear_tool_uses_langchain(
        history, trigger=30_000, keep=1, clear_at_least=15_000, counter=big_results
    )
    assert (server.cleared_tool_uses, client_side.cleared_tool_uses) == (5, 2)
    assert cleared_results(client_side.messages) == []  # LangChain's own "[cleared]"
    assert client_side.messages[2]["content"][0]["content"] == "[cleared]"


# The client ------------------------------------------------------------------


def tool_loop(
    client: EmulatedClient, *, management: dict[str, Any] | None, guard: PrefixGuard
) -> list[dict[str, Any]]:
    """A small agent loop: the model reads 6 files, then answers; tools answer with "R..."."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Summarize the six reports."}]
    tools = [
        {"name": "read", "description": "Read one report.", "input_schema": {"type": "object"}}
    ]
    replies = []
    while True:
        guard.check(messages, tools=tools, system="Be brief.")
        kwargs: dict[str, Any] = {
            "model": MODEL,
            "max_tokens": 256,
            "system": "Be brief.",
            "tools": tools,
            "messages": messages,
            "cache_control": {"type": "ephemeral"},
        }
        if management is not None:
            reply = client.beta.messages.create(
                betas=["context-management-2025-06-27"], context_management=management, **kwargs
            )
        else:
            reply = client.messages.create(**kwargs)
        replies.append(reply)
        messages = [*messages, {"role": "assistant", "content": reply["content"]}]
        if reply["stop_reason"] != "tool_use":
            return replies
        results = [
            {"type": "tool_result", "tool_use_id": b["id"], "content": f"R{b['input']['n']}"}
            for b in reply["content"]
            if b["type"] == "tool_use"
        ]
        messages = [*messages, {"role": "user", "content": results}]


def scripted_reads(count: int) -> list[dict[str, Any]]:
    reads = [
        {"content": [{"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"n": i}}]}
        for i in range(count)
    ]
    return [*reads, {"content": "Done: auth failed most."}]


def test_the_client_answers_in_the_api_shape_and_runs_a_tool_loop() -> None:
    client = EmulatedClient(MODEL, scripted_reads(6), counter=big_results)
    replies = tool_loop(client, management=None, guard=PrefixGuard(strict=True))
    assert [r["stop_reason"] for r in replies] == ["tool_use"] * 6 + ["end_turn"]
    assert set(replies[0]) == {
        "id",
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
        "context_management",
    }
    assert replies[-1]["content"] == [{"type": "text", "text": "Done: auth failed most."}]
    # from the second call on, each call reads the whole prompt of the one before
    for earlier, later in itertools.pairwise(replies[1:]):
        assert Usage.of(later).cache_read_input_tokens == Usage.of(earlier).prompt_tokens
    assert Usage.of(replies[1]).cache_read_input_tokens == 0  # call 1 was below 1,024 tokens


def test_server_side_clearing_passes_the_strict_guard_and_rebuilds_the_cache() -> None:
    """The client's list only grows; each clear moves the cut and rewrites the cache after it."""
    client = EmulatedClient(MODEL, scripted_reads(6), counter=big_results)
    management = {"edits": [edit(keep=keep(2))]}
    replies = tool_loop(client, management=management, guard=PrefixGuard(strict=True))
    applied = [r["context_management"]["applied_edits"] for r in replies]
    assert applied[:3] == [[], [], []]  # 30,000 is first exceeded with 3 results in
    assert [a[0]["cleared_tool_uses"] for a in applied[3:]] == [1, 2, 3, 4]
    writes = [Usage.of(r).cache_creation_input_tokens for r in replies[3:]]
    assert all(w > 10_000 for w in writes)  # the rewritten tail, results included


def test_non_beta_create_refuses_context_management_like_the_sdk() -> None:
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    with pytest.raises(TypeError, match="context_management"):
        client.messages.create(
            model=MODEL, max_tokens=1, messages=pairs(1), context_management={"edits": []}
        )
    with pytest.raises(ValueError, match="claude-opus-4-6"):
        client.messages.create(model="claude-opus-4-6", max_tokens=1, messages=pairs(1))


def test_a_scripted_responder_that_runs_out_says_so() -> None:
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    client.messages.create(model=MODEL, max_tokens=1, messages=pairs(1))
    with pytest.raises(IndexError, match="call 2"):
        client.messages.create(model=MODEL, max_tokens=1, messages=pairs(1))


def test_a_function_responder_sees_the_edited_prompt() -> None:
    seen: list[list[dict[str, Any]]] = []

    def model(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request["messages"])
        return {"content": "ok"}

    client = EmulatedClient(MODEL, model, counter=big_results)
    client.beta.messages.create(
        model=MODEL,
        max_tokens=1,
        messages=pairs(6),
        context_management={"edits": [edit(keep=keep(3))]},
    )
    assert cleared_results(seen[0]) == ["t0", "t1", "t2"]


# Property ---------------------------------------------------------------------


@st.composite
def tool_histories(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A run of tool pairs with results of varied sizes (some errors), and a clearing edit."""
    count = draw(st.integers(0, 10))
    names = draw(
        st.lists(st.sampled_from(["read", "grep", "save_note"]), min_size=count, max_size=count)
    )
    history = pairs(count, names=names) if count else pairs(0)
    for index in range(2, len(history), 2):
        block = history[index]["content"][0]
        block["content"] = "R" * draw(st.integers(0, 3)) + draw(
            st.sampled_from(["", "é", "🙂", "x" * 90])
        )
        if draw(st.integers(0, 9)) == 0:
            block["is_error"] = True
    spec = edit(
        trigger={"type": "input_tokens", "value": draw(st.integers(0, 60_000))},
        keep=keep(draw(st.integers(0, 4))),
        clear_at_least=at_least(draw(st.integers(0, 40_000))),
        exclude_tools=draw(st.sampled_from([[], ["save_note"]])),
        clear_tool_inputs=draw(st.sampled_from([False, True, ["grep"]])),
    )
    return history, spec


@given(tool_histories())
def test_property_cleared_tokens_are_exactly_what_the_prompt_lost(
    case: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    history, spec = case
    before = copy.deepcopy(history)
    result = clear_tool_uses_20250919(history, spec, counter=big_results)
    count = PromptCache(MODEL, counter=big_results).prompt_tokens
    assert history == before
    assert count(messages=history) - count(messages=result.messages) == result.cleared_input_tokens
    assert (
        result.cleared_input_tokens >= spec["clear_at_least"]["value"]
        or result.cleared_tool_uses == 0
    )
    errors = [
        b
        for m in result.messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("is_error")
    ]
    assert all(b["content"] != PLACEHOLDER for b in errors)
    trusted = clear_tool_uses_20250919(history, spec, counter=big_results, checked=True)
    assert trusted == result  # checked messages skip their check, and nothing else


def test_messages_the_caller_checked_are_not_checked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`checked=True` (a replay's own requests) passes over the messages' check, the one
    cost that grows with the history at every request; without it they are checked."""
    looked: list[int] = []
    monkeypatch.setattr(editing, "check_messages", lambda messages: looked.append(len(messages)))
    clear_tool_uses_20250919(pairs(2), edit(), counter=big_results, checked=True)
    assert looked == []
    clear_tool_uses_20250919(pairs(2), edit(), counter=big_results)
    assert looked == [5]


# Parameters of the wrong shape, and LangChain's skips -------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"keep": {"type": "input_tokens", "value": 3}}, "keep must be {'type': 'tool_uses'"),
        ({"keep": 3}, r"keep must be \{'type': 'tool_uses', 'value': N\}, got 3"),
        ({"keep": keep(-1)}, r"keep.value must be an int >= 0, got -1"),
        ({"keep": keep(True)}, r"keep.value must be an int >= 0, got True"),
        ({"clear_at_least": {"type": "input_tokens", "value": "9"}}, "got '9'"),
        ({"trigger": {"type": "input_tokens"}}, r"trigger.value must be an int >= 0, got None"),
        ({"trigger": {"type": "turns", "value": 2}}, "trigger must be {'type': 'input_tokens'"),
        ({"clear_tool_inputs": "yes"}, "clear_tool_inputs must be a bool or a list, got 'yes'"),
    ],
    ids=[
        "keep-wrong-type",
        "keep-bare-int",
        "keep-negative",
        "keep-bool",
        "at-least-text",
        "trigger-without-value",
        "trigger-unknown-type",
        "inputs-text",
    ],
)
def test_a_parameter_of_the_wrong_shape_is_refused_naming_it(
    params: dict[str, Any], message: str
) -> None:
    with pytest.raises(ContextManagementError, match=message):
        clear_tool_uses_20250919(pairs(4), edit(**params), counter=big_results)


def test_langchain_below_its_trigger_returns_an_unchanged_copy() -> None:
    history = pairs(2)
    result = clear_tool_uses_langchain(history, trigger=30_000, keep=0, counter=big_results)
    assert (result.cleared_tool_uses, result.cleared_input_tokens) == (0, 0)
    assert result.messages == history and result.messages is not history


def test_langchain_skips_excluded_and_already_cleared_results() -> None:
    history = pairs(4, names=["save_note", "read", "read", "read"])
    once = clear_tool_uses_langchain(
        history, trigger=0, keep=1, exclude_tools=["save_note"], counter=big_results
    )
    texts = [m["content"][0]["content"] for m in once.messages[2::2]]
    assert texts == ["R0", "[cleared]", "[cleared]", "R3"]
    again = clear_tool_uses_langchain(
        once.messages, trigger=0, keep=1, exclude_tools=["save_note"], counter=big_results
    )
    assert (again.cleared_tool_uses, again.messages) == (0, once.messages)


def test_langchain_keep_counts_results_in_their_order_an_orphan_one_included() -> None:
    """LangChain keeps the last `keep` tool messages, whatever they answer: an orphan
    result (its call trimmed away) counts toward `keep`, and results answered out of
    the calls' order are kept in their own order. Both were once read call by call."""
    orphan = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "gone"}]}
    history = [*pairs(1), orphan]
    result = clear_tool_uses_langchain(history, trigger=0, keep=1, counter=big_results)
    assert cleared_results_of(result.messages, "[cleared]") == ["t0"]  # the orphan is kept
    calls = [{"type": "tool_use", "id": f"t{i}", "name": "read", "input": {"n": i}} for i in (0, 1)]
    answers = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"R{i}"} for i in (1, 0)]
    crossed = [
        {"role": "user", "content": "Which failed?"},
        {"role": "assistant", "content": calls},
        {"role": "user", "content": answers},
    ]
    result = clear_tool_uses_langchain(crossed, trigger=0, keep=1, counter=big_results)
    assert cleared_results_of(result.messages, "[cleared]") == ["t1"]  # t0's result came last


def test_langchain_passes_over_a_result_whose_call_is_not_in_the_turn_before() -> None:
    """LangChain looks for a result's call in the nearest assistant message before it."""
    history = pairs(2)
    history[3:5] = [history[3], {"role": "assistant", "content": "thinking aloud"}, history[4]]
    result = clear_tool_uses_langchain(history, trigger=0, keep=0, counter=big_results)
    assert cleared_results_of(result.messages, "[cleared]") == ["t0"]


@st.composite
def parallel_rounds(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rounds of parallel calls, each answered in one user turn in any order."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Which failed?"}]
    number = 0
    for _ in range(draw(st.integers(0, 4))):
        ids = [f"t{number + i}" for i in range(draw(st.integers(1, 3)))]
        number += len(ids)
        calls = [{"type": "tool_use", "id": i, "name": "read", "input": {}} for i in ids]
        order = draw(st.permutations(ids))
        answers = [{"type": "tool_result", "tool_use_id": i, "content": f"R{i}"} for i in order]
        history += [{"role": "assistant", "content": calls}, {"role": "user", "content": answers}]
    return history


@given(parallel_rounds(), st.integers(0, 5))
def test_property_langchain_never_clears_one_of_the_last_keep_results(
    history: list[dict[str, Any]], kept: int
) -> None:
    """The last `keep` results in the history's order are kept, however the calls ran."""
    result = clear_tool_uses_langchain(history, trigger=0, keep=kept, counter=big_results)
    order = [b["tool_use_id"] for m in history[2::2] for b in m["content"]]
    cleared = cleared_results_of(result.messages, "[cleared]")
    assert cleared == order[: max(0, len(order) - kept)]


def cleared_results_of(messages: list[dict[str, Any]], placeholder: str) -> list[str]:
    return [
        block["tool_use_id"]
        for message in messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result" and block.get("content") == placeholder
    ]


def test_langchain_clear_tool_inputs_empties_the_inputs_and_counts_them() -> None:
    history = pairs(3)
    result = clear_tool_uses_langchain(
        history, trigger=0, keep=1, clear_tool_inputs=True, counter=big_results
    )
    inputs = [m["content"][0]["input"] for m in result.messages[1::2]]
    assert inputs == [{}, {}, {"n": 2}]
    per_input = estimate_tokens('read {"n":0}') - estimate_tokens("read {}")
    assert result.cleared_input_tokens == 2 * (10_000 - estimate_tokens("[cleared]") + per_input)
    count = PromptCache(MODEL, counter=big_results).prompt_tokens
    assert count(messages=history) - count(messages=result.messages) == result.cleared_input_tokens


@pytest.mark.parametrize("keep_spec", ["all", {"type": "all"}])
def test_clear_thinking_keeping_all_turns_changes_nothing(keep_spec: object) -> None:
    turn = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm " * 50, "signature": "s"},
            {"type": "text", "text": "a"},
        ],
    }
    history = [{"role": "user", "content": "q"}, turn, {"role": "user", "content": "q2"}, turn]
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    reply = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=history,
        context_management={"edits": [{"type": "clear_thinking_20251015", "keep": keep_spec}]},
    )
    assert reply["context_management"] == {"applied_edits": []}
    assert client.requests[0]["messages"] == history


@pytest.mark.parametrize("management", [{"edits": {}}, {}, [{"type": CLEAR}], "clear"])
def test_context_management_without_an_edits_list_is_refused(management: object) -> None:
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    with pytest.raises(ContextManagementError, match=r"context_management must be \{'edits'"):
        client.beta.messages.create(
            model=MODEL, max_tokens=64, messages=pairs(1), context_management=management
        )
    assert client.requests == []


# Pre-warming, thinking keep, the veto, malformed input ----------------------------


def test_max_tokens_0_prewarms_the_cache_without_a_reply() -> None:
    """The docs: empty content, stop_reason "max_tokens", full usage, no output billed."""
    asked: list[dict[str, Any]] = []

    def model(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        return {"content": "Hello."}

    client = EmulatedClient(MODEL, model, counter=big_results)
    request = {
        "model": MODEL,
        "system": "Be brief.",
        "messages": pairs(2),
        "cache_control": {"type": "ephemeral"},
    }
    warm = client.messages.create(max_tokens=0, **request)
    assert (warm["content"], warm["stop_reason"]) == ([], "max_tokens")
    assert warm["usage"]["output_tokens"] == 0
    assert warm["usage"]["cache_creation_input_tokens"] > 20_000
    assert asked == []
    assert cost(warm, PRICES[MODEL]).output == 0
    real = client.messages.create(max_tokens=64, **request)
    assert real["content"] == [{"type": "text", "text": "Hello."}]
    assert Usage.of(real).cache_read_input_tokens == Usage.of(warm).prompt_tokens
    assert len(asked) == 1


def test_prewarming_does_not_use_up_a_scripted_reply() -> None:
    client = EmulatedClient(MODEL, [{"content": "first"}])
    messages = [{"role": "user", "content": "hi"}]
    client.messages.create(model=MODEL, max_tokens=0, messages=messages)
    reply = client.messages.create(model=MODEL, max_tokens=8, messages=messages)
    assert reply["content"] == [{"type": "text", "text": "first"}]


@pytest.mark.parametrize(
    "extra",
    [
        {"stream": True},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        {"output_config": {"format": {"type": "json_schema", "schema": {}}}},
        {"tool_choice": {"type": "any"}},
        {"tool_choice": {"type": "tool", "name": "read"}},
    ],
    ids=["stream", "thinking", "format", "any", "tool"],
)
def test_prewarming_refuses_what_the_api_refuses(extra: dict[str, Any]) -> None:
    client = EmulatedClient(MODEL, [])
    with pytest.raises(InvalidRequestError, match="max_tokens: 0"):
        client.messages.create(model=MODEL, max_tokens=0, messages=pairs(1), **extra)


@pytest.mark.parametrize(("value", "error"), [(-1, InvalidRequestError), ("8", TypeError)])
def test_a_bad_max_tokens_is_named(value: object, error: type[Exception]) -> None:
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    with pytest.raises(error, match="max_tokens"):
        client.messages.create(model=MODEL, max_tokens=value, messages=pairs(1))


def test_clear_thinking_keeps_at_least_one_turn() -> None:
    """The docs: `thinking_turns` N must be > 0 (keep "all" to keep everything)."""
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    keep = {"type": "thinking_turns", "value": 0}
    with pytest.raises(ContextManagementError, match=r"keep.value must be an int >= 1, got 0"):
        client.beta.messages.create(
            model=MODEL,
            max_tokens=8,
            messages=pairs(1),
            context_management={"edits": [{"type": "clear_thinking_20251015", "keep": keep}]},
        )


def ok_results(count: int) -> list[dict[str, Any]]:
    """`count` tool pairs whose results are the two letters "ok"."""
    history = pairs(count)
    for message in history[2::2]:
        message["content"][0]["content"] = "ok"
    return history


def test_without_clear_at_least_there_is_no_veto_even_when_clearing_grows_the_prompt() -> None:
    """6 results of "ok", keep 3: the 3 oldest are cleared although the placeholder is longer."""
    history = ok_results(6)
    spec = {"trigger": {"type": "input_tokens", "value": 0}, "keep": keep(3)}
    result = clear_tool_uses_20250919(history, spec)
    assert result.cleared_tool_uses == 3
    grew = 3 * (estimate_tokens(PLACEHOLDER) - estimate_tokens("ok"))
    assert result.cleared_input_tokens == -grew
    count = PromptCache(MODEL).prompt_tokens
    assert count(messages=history) - count(messages=result.messages) == -grew
    vetoed = clear_tool_uses_20250919(history, {**spec, "clear_at_least": at_least(0)})
    assert vetoed.cleared_tool_uses == 0  # with clear_at_least, the edit must win tokens


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: clear_tool_uses_20250919([], "x"), TypeError, "edit must be a dict"),  # type: ignore[arg-type]
        (
            lambda: clear_tool_uses_20250919(pairs(2), {"exclude_tools": "memory"}),
            ContextManagementError,
            "exclude_tools must be a list of tool names, got 'memory'",
        ),
        (
            lambda: clear_tool_uses_20250919(pairs(2), {"clear_tool_inputs": ["read", 3]}),
            ContextManagementError,
            "clear_tool_inputs must be a list of tool names",
        ),
        (
            lambda: clear_tool_uses_20250919(pairs(2), {}, prompt_tokens=float("nan")),  # type: ignore[arg-type]
            TypeError,  # a count of the wrong type, as everywhere
            "prompt_tokens must be an int >= 0, got nan",
        ),
        (
            lambda: clear_tool_uses_20250919(
                pairs(2), {"keep": {"type": "tool_uses", "value": DEEP}}
            ),
            ContextManagementError,
            "keep.value must be an int >= 0, got {'k': {'k': {'k': {...}}}}",
        ),
    ],
    ids=["edit-str", "exclude-str", "inputs-int", "prompt-nan", "keep-deep"],
)
def test_malformed_clearing_input_raises_a_named_error(
    call: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as raised:
        call()
    assert words in str(raised.value)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"kep": keep(0)}, "unknown parameter 'kep'"),
        ({"type": "compact_20260112"}, "type must be 'clear_tool_uses_20250919'"),
    ],
    ids=["misspelt-keep", "another-edit"],
)
def test_a_misspelt_parameter_or_another_edit_is_refused_not_ignored(
    params: dict[str, Any], words: str
) -> None:
    """A typo (`kep`) would otherwise clear with the default keep of 3, silently; the API
    refuses a parameter it does not know, and so does the emulation."""
    with pytest.raises(ContextManagementError, match=re.escape(words)):
        clear_tool_uses_20250919(pairs(4), edit(**params), counter=big_results)


@pytest.mark.parametrize("placeholder", [None, 3, b"[cleared]"])
def test_a_placeholder_that_is_not_text_is_named(placeholder: Any) -> None:
    fired = edit(keep=keep(0))
    for call in (
        lambda: clear_tool_uses_20250919(pairs(2), fired, placeholder=placeholder),
        lambda: clear_tool_uses_langchain(pairs(2), trigger=0, placeholder=placeholder),
    ):
        with pytest.raises(TypeError, match=r"placeholder must be a str, got "):
            call()


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"exclude_tools": "reader"}, "exclude_tools must be a list of tool names, got 'reader'"),
        ({"exclude_tools": None}, "exclude_tools must be a list of tool names, got None"),
        ({"exclude_tools": ["read", 3]}, "exclude_tools must be a list of tool names"),
        ({"clear_tool_inputs": "no"}, "clear_tool_inputs must be True or False, got 'no'"),
    ],
    ids=["exclude-str", "exclude-none", "exclude-int", "inputs-str"],
)
def test_langchain_parameters_of_the_wrong_type_are_named(
    params: dict[str, Any], words: str
) -> None:
    """A tool name given as a string is no list of names: read as one, `"reader"` would
    exclude the tool `read` (a substring), and `"no"` would clear the inputs."""
    with pytest.raises(TypeError, match=re.escape(words)):
        clear_tool_uses_langchain(pairs(2), trigger=0, keep=0, **params)


def _deep(levels: int) -> Any:
    value: Any = {}
    for _ in range(levels):
        value = {"k": value}
    return value


DEEP = _deep(10_000)


@pytest.mark.parametrize(
    ("reply", "error", "words"),
    [
        ("ok", TypeError, "reply 1 must be a dict"),
        ({"content": 3}, TypeError, "reply 1: message 0 has content of type int"),
        ({"content": [{"type": "tool_use", "id": "t"}]}, ValueError, "reply 1: message 0, block 0"),
        ({"content": "ok", "output_tokens": "9"}, ValueError, "output_tokens must be an int"),
        ({"content": "ok", "stop_reason": 1}, TypeError, "stop_reason must be a str"),
    ],
    ids=["str", "content-int", "tool-use-no-name", "output-text", "stop-int"],
)
def test_a_malformed_reply_is_named(reply: Any, error: type[Exception], words: str) -> None:
    client = EmulatedClient(MODEL, [reply])
    with pytest.raises(error, match=re.escape(words)):
        client.messages.create(model=MODEL, max_tokens=8, messages=pairs(1))


def test_a_malformed_compaction_edit_is_named() -> None:
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    for extra, words in (
        ({"instructions": ["a"]}, "instructions: must be a str"),
        ({"pause_after_compaction": "yes"}, "pause_after_compaction: must be a bool"),
    ):
        with pytest.raises(ContextManagementError, match=words):
            client.beta.messages.create(
                model=MODEL,
                max_tokens=8,
                messages=pairs(1),
                context_management={"edits": [compact_edit(**extra)]},
            )


@pytest.mark.parametrize(
    ("edit_given", "words"),
    [
        ({"type": "clear_thinking_20251015", "kep": "all"}, "clear_thinking_20251015: unknown"),
        (
            {"type": "compact_20260112", "pause": True},
            "compact_20260112: unknown parameter 'pause'",
        ),
        ({"type": CLEAR, "excluded_tools": ["save_note"]}, "unknown parameter 'excluded_tools'"),
    ],
    ids=["thinking-kep", "compact-pause", "clear-excluded"],
)
def test_the_emulated_server_refuses_a_misspelt_parameter_of_any_edit(
    edit_given: dict[str, Any], words: str
) -> None:
    """A misspelt key once left that edit's default in force: `pause` for
    `pause_after_compaction` compacted without pausing, unsaid."""
    client = EmulatedClient(MODEL, [{"content": "ok"}])
    with pytest.raises(ContextManagementError, match=re.escape(words)):
        client.beta.messages.create(
            model=MODEL,
            max_tokens=8,
            messages=pairs(1),
            context_management={"edits": [edit_given]},
        )


def test_an_error_about_a_deep_value_is_short() -> None:
    client = EmulatedClient(MODEL, [])
    with pytest.raises(ContextManagementError) as raised:
        client.beta.messages.create(
            model=MODEL, max_tokens=8, messages=pairs(1), context_management=DEEP
        )
    assert len(str(raised.value)) < 200
    with pytest.raises(ValueError, match="got model=") as wrong:
        client.messages.create(model=DEEP, max_tokens=8, messages=pairs(1))
    assert len(str(wrong.value)) < 200


def test_an_unknown_edit_type_that_is_deep_is_named_briefly() -> None:
    client = EmulatedClient(MODEL, [])
    with pytest.raises(ContextManagementError, match="unknown edit type") as raised:
        client.beta.messages.create(
            model=MODEL,
            max_tokens=8,
            messages=pairs(1),
            context_management={"edits": [{"type": DEEP}]},
        )
    assert len(str(raised.value)) < 300


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"trigger": 0}, "trigger must be {'type': 'input_tokens', 'value': N}, got 0"),
        ({"trigger": {}}, "trigger must be {'type': 'input_tokens', 'value': N}, got {}"),
        ({"trigger": []}, "trigger must be {'type': 'input_tokens', 'value': N}, got []"),
        ({"exclude_tools": ""}, "exclude_tools must be a list of tool names, got ''"),
        ({"exclude_tools": 0}, "exclude_tools must be a list of tool names, got 0"),
        ({"exclude_tools": False}, "exclude_tools must be a list of tool names, got False"),
    ],
    ids=["trigger-0", "trigger-empty", "trigger-list", "exclude-blank", "exclude-0", "exclude-no"],
)
def test_a_parameter_that_is_empty_or_zero_is_named_not_taken_as_the_default(
    params: dict[str, Any], words: str
) -> None:
    """`"trigger": 0` is no trigger the API takes; read as left out, it cleared at the
    default 100,000 tokens, unsaid, where a caller meant to clear at once."""
    with pytest.raises(ContextManagementError, match=re.escape(words)):
        clear_tool_uses_20250919(pairs(4), {**params}, counter=big_results)


def test_a_thinking_edit_whose_keep_is_none_keeps_the_models_own_default() -> None:
    """`keep: None` is a keep left out: the model's own preservation (every turn on a model
    that keeps all thinking), not one turn."""
    turns: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number in range(3):
        turns.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": f"plan {number}", "signature": "s"},
                    {"type": "text", "text": f"step {number}"},
                ],
            }
        )
        turns.append({"role": "user", "content": f"next {number}"})
    management = {"edits": [{"type": "clear_thinking_20251015", "keep": None}]}
    left_out = {"edits": [{"type": "clear_thinking_20251015"}]}
    for model in ("claude-opus-4-6", "claude-sonnet-4-5"):
        answers = []
        for asked in (management, left_out):
            client = EmulatedClient(model, [{"content": "ok"}])
            client.beta.messages.create(
                model=model,
                max_tokens=16,
                messages=turns,
                betas=["context-management-2025-06-27"],
                context_management=asked,
            )
            answers.append(client.requests[-1]["messages"])
        assert answers[0] == answers[1], model


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"responder": {"content": "hi"}}, TypeError, "responder must be a list of replies"),
        ({"responder": "hi"}, TypeError, "responder must be a list of replies"),
        ({"responder": None}, TypeError, "responder must be a list of replies"),
        ({"placeholder": 5}, TypeError, "placeholder must be a str, got 5"),
        ({"summarizer": "short"}, TypeError, "summarizer must be a function"),
        ({"cache": "warm"}, TypeError, "cache must be a PromptCache or None, got 'warm'"),
    ],
    ids=["one-reply-dict", "a-string", "none", "placeholder", "summarizer", "cache"],
)
def test_the_emulated_server_names_a_bad_argument_when_made(
    arguments: dict[str, Any], error: type[Exception], words: str
) -> None:
    """As a scripted client does: one reply given as the list (a dict) failed at the first
    call with KeyError 0, None with "object of type 'NoneType' has no len()", a string
    replied letter by letter, and a bad placeholder, summarizer or cache at the call
    that first used it."""
    given: dict[str, Any] = {"responder": [{"content": "ok"}], **arguments}
    with pytest.raises(error, match=re.escape(words)):
        EmulatedClient(MODEL, **given)
