"""The rule of 2026: the guard that spots an edit anywhere but the end of the history."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import MiddleEditError, PrefixGuard, PromptCache, clear_old_tool_results
from context_budget.fakes.emulated import EmulatedClient
from context_budget.history import PrefixReport


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


def test_a_negative_kept_is_refused_not_reported_as_an_edit_at_message_minus_one() -> None:
    """`kept=-1` made a strict guard refuse a plain append as edited "at message -1"."""
    guard = PrefixGuard(strict=True)
    guard.check(run(1))
    with pytest.raises(ValueError, match=r"^kept must be an int >= 0, got -1$"):
        guard.check(run(2), kept=-1)
    assert guard.check(run(2)).kind == "append"


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"kept": 1.5}, TypeError, "kept must be an int >= 0, got 1.5"),
        ({"kept": 1, "changed": None}, TypeError, "changed must be message indexes, got None"),
        ({"kept": 1, "changed": ["0"]}, TypeError, "changed must be message indexes, got ['0']"),
        ({"tools": "read"}, TypeError, "tools must be a list of tool definitions, got 'read'"),
        ({"tools": ["read"]}, TypeError, "tools[0] must be a dict, got 'read'"),
        ({"restart": "no"}, TypeError, "restart must be True, False or None, got 'no'"),
    ],
    ids=["kept-float", "changed-none", "changed-text", "tools-str", "tools-names", "restart-str"],
)
def test_a_check_argument_of_the_wrong_type_is_named(
    arguments: dict[str, Any], error: type[Exception], words: str
) -> None:
    """Each was taken as it came: tools as the letters of a name, "no" as a restart."""
    guard = PrefixGuard()
    guard.check(run(1))
    with pytest.raises(error, match=re.escape(words)):
        guard.check(run(2), **arguments)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"strict": "no"}, "strict must be True or False, got 'no'"),
        ({"counter": "tokens"}, "counter must be callable (str -> int), got 'tokens'"),
    ],
    ids=["strict-str", "counter-str"],
)
def test_a_guard_setting_of_the_wrong_type_is_named_when_made(
    arguments: dict[str, Any], words: str
) -> None:
    """`strict="no"` once made a strict guard, and a counter that is no function failed
    only at the first edit it had to weigh."""
    with pytest.raises(TypeError, match=re.escape(words)):
        PrefixGuard(**arguments)


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
    assert client.requests[-1]["messages"][0]["content"][0]["type"] == "compaction"


# A declared restart ---------------------------------------------------------


def test_a_declared_restart_is_replaced_even_when_it_keeps_the_first_message() -> None:
    history = run(3)
    guard = PrefixGuard(strict=True)
    guard.check(history)
    report = guard.check(history[:1], restart=True)
    assert (report.ok, report.kind, report.first_changed) == (True, "replaced", 1)
    assert report.lost_tokens == PromptCache("any", min_tokens=0).prompt_tokens(
        messages=history[1:]
    )
    guard.check(history)
    with pytest.raises(MiddleEditError, match="edited at message 1"):
        guard.check(history[:1])  # undeclared, the same request is an edit


def test_a_declared_restart_still_sees_a_change_of_system_or_tools() -> None:
    guard = PrefixGuard(strict=True)
    guard.check(run(2), system="Be brief.")
    with pytest.raises(MiddleEditError, match="edited at system"):
        guard.check_request({"system": "Be long.", "messages": run(1)}, restart=True)


# Hashing once, and what the snapshot must still catch ------------------------


def test_a_change_in_place_to_a_message_already_checked_is_caught() -> None:
    history = run(3)
    guard = PrefixGuard()
    guard.check(history)
    history[4]["content"][0]["content"] = "cleared"
    history.append({"role": "assistant", "content": "12 tubs."})
    report = guard.check(history)
    assert (report.kind, report.first_changed) == ("edited", 4)


@pytest.mark.parametrize(("old", "new"), [(1, True), (1, 1.0), (0.0, -0.0), (True, 1), (2, 2.0)])
def test_numbers_equal_in_python_but_printed_differently_are_an_edit(old: Any, new: Any) -> None:
    history = run(2)
    history[1]["content"][0]["input"] = {"n": old}
    guard = PrefixGuard()
    guard.check(history)
    history[1]["content"][0]["input"]["n"] = new
    assert guard.check(history).first_changed == 1


def test_a_moved_marker_on_an_old_message_is_still_an_append() -> None:
    history = run(2)
    guard = PrefixGuard(strict=True)
    guard.check(history)
    marked = copy.deepcopy(history)
    marked[1]["content"][0]["cache_control"] = {"type": "ephemeral"}
    assert guard.check([*marked, {"role": "assistant", "content": "ok"}]).kind == "append"
    del marked[1]["content"][0]["cache_control"]
    assert guard.check([*marked, {"role": "assistant", "content": "ok"}]).kind == "append"


def test_each_message_is_hashed_once_over_a_run_of_appends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from context_budget import prefix_guard as module

    hashed: list[object] = []
    real = module._fingerprint
    monkeypatch.setattr(module, "_fingerprint", lambda value: hashed.append(value) or real(value))
    guard = PrefixGuard(strict=True)
    tools = [{"name": "stock", "description": "Stock level.", "input_schema": {"minimum": 0}}]
    for count in range(1, 41):
        guard.check(run(count), tools=tools, system="Be brief.")  # fresh objects each time
    # 81 messages, plus tools and system once: not the 1,680 of hashing every request whole
    assert len(hashed) == len(run(40)) + 2


# The guard against a plain re-hash of every request --------------------------


def _reference(previous: dict[str, Any] | None, request: dict[str, Any]) -> tuple[Any, ...]:
    """The report of the definition: hash every part of both requests, compare."""
    from context_budget.prefix_guard import _fingerprint

    if previous is None:
        return ("first", None, None, 0)
    tokens = PromptCache("any", min_tokens=0).prompt_tokens
    system = [{"type": "text", "text": request["system"]}]
    old_system = [{"type": "text", "text": previous["system"]}]
    if _fingerprint(system) != _fingerprint(old_system):
        lost = tokens(system=old_system, messages=previous["messages"])
        return ("edited", "system", None, lost)
    new = [_fingerprint(m) for m in request["messages"]]
    old = [_fingerprint(m) for m in previous["messages"]]
    same = 0
    while same < min(len(new), len(old)) and new[same] == old[same]:
        same += 1
    if same == len(old):
        return ("append", None, None, 0)
    # a new head with a later old message kept after it (in its place, or moved up when the
    # oldest turns were dropped) is an edit, not a new history
    kept_tail = same == 0 and any(a == b for a in new for b in old[1:])
    kind = "replaced" if request["restart"] or (same == 0 and not kept_tail) else "edited"
    return (kind, "messages", same, tokens(messages=previous["messages"][same:]))


scalars = st.one_of(
    st.integers(-2, 2), st.booleans(), st.sampled_from([0.0, -0.0, 1.0, 2.5]), words
)


@st.composite
def request_sequences(draw: st.DrawFn) -> list[tuple[str, Any]]:
    steps = st.one_of(
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("edit"), st.integers(0, 40)),
        st.tuples(st.just("number"), st.tuples(st.integers(0, 40), scalars)),
        st.tuples(st.just("marker"), st.integers(0, 40)),
        st.tuples(st.just("copy"), st.just(None)),
        st.tuples(st.just("truncate"), st.integers(0, 40)),
        st.tuples(st.just("slide"), st.integers(1, 40)),
        st.tuples(st.just("restart"), words),
        st.tuples(st.just("system"), st.sampled_from(["Be brief.", "Be brief!"])),
    )
    return draw(st.lists(steps, min_size=1, max_size=12))


@given(request_sequences())
def test_property_the_guard_reports_what_a_full_re_hash_reports(
    steps: list[tuple[str, Any]],
) -> None:
    guard = PrefixGuard()
    history: list[dict[str, Any]] = run(1)
    system, previous = "Be brief.", None
    for number, (kind, value) in enumerate(steps):
        restart = False
        if kind == "append":
            for _ in range(value):
                role = "assistant" if history[-1]["role"] == "user" else "user"
                history.append({"role": role, "content": f"step {number}"})
        elif kind == "edit":
            history[value % len(history)]["content"] = f"edited {number}"
        elif kind == "number":
            at, scalar = value
            message = history[at % len(history)]
            content = message["content"]
            if isinstance(content, list) and content[0].get("name") == "n":
                content[0]["input"]["v"] = scalar  # in place: the snapshot must see it
            else:
                message["content"] = [
                    {"type": "tool_use", "id": "n", "name": "n", "input": {"v": scalar}}
                ]
        elif kind == "marker":
            message = history[value % len(history)]
            if isinstance(message["content"], str):
                message["content"] = [{"type": "text", "text": message["content"]}]
            message["content"][-1]["cache_control"] = {"type": "ephemeral"}
        elif kind == "copy":
            history = copy.deepcopy(history)
        elif kind == "truncate":
            history = history[: 1 + value % len(history)]
        elif kind == "slide":
            history = history[value % len(history) :]  # the oldest turns dropped
        elif kind == "restart":
            history, restart = [{"role": "user", "content": value}], True
        else:
            system = value
        request = {"system": system, "messages": history, "restart": restart}
        expected = _reference(previous, request)
        report = guard.check(history, system=system, restart=True if restart else None)
        got = (report.kind, report.part, report.first_changed, report.lost_tokens)
        assert got == expected
        previous = copy.deepcopy(request)


@pytest.mark.parametrize("messages", [{}, "", 0, False])
def test_a_requests_messages_empty_of_another_type_are_named(messages: object) -> None:
    """`check_request({"messages": {}})` passed as a first request of no messages, where
    `check({})` names the dict; a request with messages left out is still none."""
    with pytest.raises(TypeError, match="messages must be a list of dicts"):
        PrefixGuard().check_request({"messages": messages})
    assert PrefixGuard().check_request({}).kind == "first"
