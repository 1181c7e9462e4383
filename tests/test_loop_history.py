"""The loop's history between requests: what strict mode refuses, what a hook sends, what it costs.

Three promises of `run_agent` and `AgentLoop`, each pinned by a test that failed
before the loop kept it:

- strict mode refuses every change to a message already sent, at the start of
  the history too (a window that drops the oldest turns leaves the next request
  opening with a tool result whose call is gone);
- an edit a caller makes to `loop.messages` between two steps is seen: refused
  in strict mode, and otherwise sent as it now stands, hooks or not;
- with a hook and a guard together, the check compares only what each request
  adds (and what a hook or the caller changed), not the whole history.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget import MiddleEditError, PrefixGuard, validate_history
from context_budget.fakes import ScriptedClient, scripted_response
from context_budget.harness import AgentConfig, AgentLoop

_TOOLS = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]
_IMPLS = {"read_file": lambda call: f"contents of {call.get('path')}"}


def _call(number: int) -> dict[str, Any]:
    path = f"{number}.py"
    return {"type": "tool_use", "id": f"t{number}", "name": "read_file", "input": {"path": path}}


def _reads(turns: int) -> list[Any]:
    """`turns` responses that each read one file, then the answer."""
    script = [scripted_response(_call(n), input_tokens=10, output_tokens=1) for n in range(turns)]
    return [*script, scripted_response("done", input_tokens=10, output_tokens=1)]


def _loop(client: ScriptedClient, **settings: Any) -> AgentLoop:
    config = AgentConfig(
        _TOOLS,
        _IMPLS,
        client=client,
        model="m",
        context_window=10**6,
        compact_ratio=None,
        **settings,
    )
    return AgentLoop(config, "Read the files.")


def _run(client: ScriptedClient, **settings: Any) -> Any:
    return _loop(client, **settings).run()


# ---------------------------------------------------------------- a window that drops the oldest


def _last_three(history: list[Any]) -> list[Any]:
    """A sliding window: the three newest messages (the oldest turns dropped)."""
    return history[-3:]


def test_strict_mode_refuses_a_window_that_drops_the_oldest_turns() -> None:
    client = ScriptedClient(_reads(3))
    with pytest.raises(MiddleEditError) as caught:
        _run(client, strict=True, edit_history=_last_three)
    report = caught.value.report
    assert (report.kind, report.part, report.first_changed) == ("edited", "messages", 0)
    assert report.lost_tokens > 0
    # the request that would have opened with an orphan tool result never went out
    assert len(client.requests) == 2
    assert all(validate_history(request["messages"]) == [] for request in client.requests)


def test_a_reporting_guard_in_the_loop_calls_the_dropped_turns_an_edit() -> None:
    guard = PrefixGuard()
    run = _run(ScriptedClient(_reads(3)), guard=guard, edit_history=_last_three)
    assert run.text == "done"
    assert [report.kind for report in guard.reports] == ["first", "append", "edited", "edited"]


def test_the_guard_alone_calls_a_history_without_its_oldest_turns_an_edit() -> None:
    history = [{"role": "user", "content": "Read the files."}]
    for n in range(3):
        history += [
            {"role": "assistant", "content": [_call(n)]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}"}]},
        ]
    guard = PrefixGuard()
    guard.check(history)
    assert guard.check(history[2:]).kind == "edited"  # opens with an orphan tool result
    assert guard.check([{"role": "user", "content": "A fresh start."}]).kind == "replaced"


def test_a_declared_restart_and_a_declared_edit_are_taken_at_the_caller_s_word() -> None:
    old = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    new = [{"role": "user", "content": "c"}]
    for restart, kind in ((None, "replaced"), (True, "replaced"), (False, "edited")):
        guard = PrefixGuard()
        guard.check(old)
        assert guard.check(new, restart=restart).kind == kind


# ---------------------------------------------------------------- edits between steps

#: Ways a caller can change messages the loop has already sent: name -> the edit.
EDITS: dict[str, Callable[[list[Any]], None]] = {
    "an input in place": lambda m: m[1]["content"][0]["input"].update(path="other.py"),
    "a text in place": lambda m: m[0].update(content="Read other files."),
    "a message replaced": lambda m: m.__setitem__(0, {"role": "user", "content": "Other."}),
    "a block appended in place": lambda m: m[2]["content"].append(
        {"type": "text", "text": "and more"}
    ),
}


def _two_rounds(loop: AgentLoop, edit: Callable[[list[Any]], None]) -> None:
    """Two rounds by the loop's steps, with `edit` made to its history between them."""
    loop.ask()
    loop.run_tools()
    loop.ask()
    loop.run_tools()
    edit(loop.messages)
    loop.ask()


@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("hook", ["none", "plan", "edit_history"])
def test_strict_mode_refuses_an_edit_made_between_steps(name: str, hook: str) -> None:
    hooks = {
        "none": {},
        "plan": {"plan": lambda request: request},
        "edit_history": {"edit_history": lambda history: history},
    }[hook]
    client = ScriptedClient(_reads(3))
    loop = _loop(client, strict=True, **hooks)
    with pytest.raises(MiddleEditError) as caught:
        _two_rounds(loop, EDITS[name])
    assert caught.value.report.kind == "edited"
    assert len(client.requests) == 2


@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("hook", ["none", "plan", "edit_history", "both"])
def test_an_edit_made_between_steps_is_sent_as_it_now_stands(name: str, hook: str) -> None:
    def mark_the_newest(request: dict[str, Any]) -> dict[str, Any]:
        newest = request["messages"][-1]
        if isinstance(newest["content"], list):
            newest["content"][-1]["cache_control"] = {"type": "ephemeral"}
        return request

    hooks: dict[str, Any] = {
        "none": {},
        "plan": {"plan": mark_the_newest},
        "edit_history": {"edit_history": lambda history: history},
        "both": {"plan": mark_the_newest, "edit_history": lambda history: list(history)},
    }[hook]
    guard = PrefixGuard()
    client = ScriptedClient(_reads(3))
    loop = _loop(client, guard=guard, **hooks)
    _two_rounds(loop, EDITS[name])
    sent = client.requests[-1]["messages"]
    expected = [dict(message) for message in loop.messages]
    for message in sent:  # the plan's marker aside, what went out is the history as edited
        for block in message["content"] if isinstance(message["content"], list) else []:
            block.pop("cache_control", None)
    assert sent == expected
    assert guard.reports[-1].kind == "edited"


def test_a_whole_new_history_given_between_steps_is_an_edit_unless_it_only_grows() -> None:
    client = ScriptedClient(_reads(3))
    loop = _loop(client, strict=True, plan=lambda request: request)
    loop.ask()
    loop.run_tools()
    loop.messages = [dict(message) for message in loop.messages]  # equal: still an append
    loop.ask()
    loop.run_tools()
    loop.messages = loop.messages[2:]  # the oldest turn dropped
    with pytest.raises(MiddleEditError):
        loop.ask()


def test_the_loop_s_history_holds_its_own_copy_of_what_a_caller_appends() -> None:
    client = ScriptedClient(_reads(1))
    loop = _loop(client, plan=lambda request: request)
    loop.ask()
    loop.run_tools()
    note = {"type": "text", "text": "Check the tests too."}
    message = loop.messages[-1]
    message["content"].append(note)
    note["text"] = "changed after it was added"
    loop.ask()
    assert client.requests[-1]["messages"][-1]["content"][-1]["text"] == "Check the tests too."


# ---------------------------------------------------------------- what the check costs


def _compared(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(messages not compared again, messages sent) for every check of a guard from now on."""
    from context_budget import prefix_guard as module

    seen: list[tuple[int, int]] = []
    real = module._common_prefix

    def counting(messages: Any, snapshots: list[Any], start: int) -> int:
        seen.append((start, len(messages)))
        return real(messages, snapshots, start)

    monkeypatch.setattr(module, "_common_prefix", counting)
    return seen


def _mark_the_newest(request: dict[str, Any]) -> dict[str, Any]:
    newest = request["messages"][-1]
    if isinstance(newest["content"], list):
        newest["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {**request, "cache_control": {"type": "ephemeral"}}


def _mark_the_oldest(history: list[Any]) -> list[Any]:
    """An edit in place, of the copy the loop hands out: a marker on the first message."""
    first = history[0]
    if isinstance(first["content"], str):
        first["content"] = [{"type": "text", "text": first["content"]}]
    first["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return history


@pytest.mark.parametrize(
    "hooks",
    [
        {},
        {"plan": _mark_the_newest},
        {"edit_history": lambda history: history},
        {"edit_history": _mark_the_oldest, "plan": _mark_the_newest},
    ],
    ids=["no hook", "plan", "edit_history", "both"],
)
def test_with_hooks_the_guard_compares_only_what_each_request_adds(
    monkeypatch: pytest.MonkeyPatch, hooks: dict[str, Any]
) -> None:
    seen = _compared(monkeypatch)
    run = _run(ScriptedClient(_reads(30)), strict=True, **hooks)
    assert run.text == "done" and len(seen) == 31
    # each request adds two messages, and the plan's marked message is compared once more
    assert all(sent - start <= 3 for start, sent in seen[1:]), seen


# ---------------------------------------------------------------- against a guard that compares all


def _strip_markers(value: Any) -> Any:
    """`value` without its markers, a message's string content as one text block."""
    if isinstance(value, dict):
        out = {k: _strip_markers(v) for k, v in value.items() if k != "cache_control"}
        if "role" in out and isinstance(out["content"], str):
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(value, list):
        return [_strip_markers(item) for item in value]
    return value


def _mark_the_first(request: dict[str, Any]) -> dict[str, Any]:
    """A plan that marks the first message in place, on every request."""
    first = request["messages"][0]
    if isinstance(first["content"], str):
        first["content"] = [{"type": "text", "text": first["content"]}]
    first["content"][0]["cache_control"] = {"type": "ephemeral"}
    return request


#: Hooks whose requests carry the history as it stands, markers aside: name -> settings.
MARKING_HOOKS: dict[str, dict[str, Any]] = {
    "none": {},
    "plan, the newest marked": {"plan": _mark_the_newest},
    "plan, the first marked": {"plan": _mark_the_first},
    "edit_history, the same list": {"edit_history": lambda history: history},
    "edit_history, a new list": {"edit_history": list, "plan": _mark_the_newest},
}


def _change(loop: AgentLoop, kind: str, at: int, number: int) -> None:
    """One change a caller makes to the loop's history between two steps."""
    history = loop.messages
    message = history[at % len(history)]
    content = message["content"]
    if kind == "text":
        message["content"] = f"changed {number}"
    elif kind == "block" and isinstance(content, list):
        content.append({"type": "text", "text": f"added {number}"})
    elif kind == "input" and isinstance(content, list) and content[-1]["type"] == "tool_use":
        content[-1]["input"]["path"] = f"changed {number}"
    elif kind == "replace":
        history[at % len(history)] = {**message, "content": f"replaced {number}"}
    elif kind == "slide" and len(history) > 3:
        loop.messages = history[2:]


@given(
    st.sampled_from(sorted(MARKING_HOOKS)),
    st.lists(
        st.one_of(
            st.none(),
            st.tuples(
                st.sampled_from(["text", "block", "input", "replace", "slide"]),
                st.integers(0, 30),
            ),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_property_the_loop_s_guard_reports_what_a_guard_comparing_everything_reports(
    hook: str, changes: list[tuple[str, int] | None]
) -> None:
    """The loop vouches for the messages it need not compare; a fresh guard compares them all."""
    client = ScriptedClient(_reads(len(changes)))
    guard = PrefixGuard()
    loop = _loop(client, guard=guard, **MARKING_HOOKS[hook])
    loop.ask()
    expected_sent = [_strip_markers(copy.deepcopy(list(loop.messages)))]
    for number, change in enumerate(changes):
        loop.run_tools()
        if change is not None:
            _change(loop, *change, number)
        expected_sent.append(_strip_markers(copy.deepcopy(list(loop.messages))))
        loop.ask()
    fresh = PrefixGuard()
    declared = None if MARKING_HOOKS[hook] else False
    expected = [fresh.check_request(request, restart=declared) for request in client.requests]
    assert guard.reports == expected
    assert [_strip_markers(request["messages"]) for request in client.requests] == expected_sent


def _drop_a_turn_in_place(history: list[Any]) -> list[Any]:
    """An edit of the list it is given, in place: the first turn goes once there are two."""
    if len(history) > 5:
        del history[1:3]
    return history


def _remind_in_place(history: list[Any]) -> list[Any]:
    """An edit of the list it is given, in place: a reminder after the newest message."""
    history.append({"role": "assistant", "content": "(reminder: be brief)"})
    return history


@pytest.mark.parametrize("hook", [_drop_a_turn_in_place, _remind_in_place])
def test_a_hook_that_changes_the_list_it_is_given_is_compared_where_it_did(hook: Any) -> None:
    guard = PrefixGuard()
    client = ScriptedClient(_reads(4))
    run = _run(client, guard=guard, edit_history=hook)
    assert run.text == "done"
    fresh = PrefixGuard()
    assert guard.reports == [fresh.check_request(r, restart=None) for r in client.requests]
    assert "edited" in {report.kind for report in guard.reports}
    assert all("(reminder" not in str(message) for message in run.messages)  # not the loop's


def test_strict_mode_refuses_a_turn_a_hook_drops_in_place() -> None:
    client = ScriptedClient(_reads(4))
    with pytest.raises(MiddleEditError) as caught:
        _run(client, strict=True, edit_history=_drop_a_turn_in_place)
    assert caught.value.report.first_changed == 1
