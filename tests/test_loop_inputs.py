"""The loop under hostile hooks, responses and numbers: named errors, copies, untouched inputs.

Each test pins one way a caller's hook, a model's response or a bad number
could reach a request or a caller's data: a head rewritten in strict mode, a
plan editing the caller's tools, an empty restart, a malformed summary, a
block without a type, and the counters' and clearers' numbers.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from context_budget import (
    MiddleEditError,
    NotesFile,
    PrefixGuard,
    clear_tool_uses_langchain,
    loop_steps,
    run_agent,
    track_usage,
)
from context_budget.errors import MalformedResponseError
from context_budget.fakes import ScriptedClient, scripted_response
from context_budget.fakes.emulated import EmulatedClient
from context_budget.harness import AgentRun, AppendOnlyCompaction, ModelCall
from context_budget.scenarios import race_fix
from context_budget.usage import Usage


def _call(number: int, name: str = "read_file", **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{number}", "name": name, "input": tool_input}


def _reads(turns: int, size: int = 100) -> list[Any]:
    script = [
        scripted_response(_call(n, path=f"{n}.py"), input_tokens=size, output_tokens=10)
        for n in range(1, turns + 1)
    ]
    return [*script, scripted_response("done", input_tokens=size, output_tokens=10)]


def _run(client: Any, tmp_path: Path, **options: Any) -> AgentRun:
    notes = NotesFile(tmp_path / "NOTES.md")
    settings: dict[str, Any] = {"context_window": 10**6, "compact_ratio": 0.7, **options}
    return run_agent(
        "go",
        options.pop("tools", race_fix.TOOLS),
        race_fix.tool_impls(notes),
        client=client,
        model="m",
        notes=notes,
        **{key: value for key, value in settings.items() if key != "tools"},
    )


# ---------------------------------------------------------------- strict mode and the head


def test_strict_mode_refuses_a_rewritten_first_message_that_keeps_the_rest(
    tmp_path: Path,
) -> None:
    stamps = iter(range(1, 100))

    def stamp_the_head(history: list[Any]) -> list[Any]:  # a clock in the first message
        return [{"role": "user", "content": f"go (request {next(stamps)})"}, *history[1:]]

    client = ScriptedClient(_reads(3))
    with pytest.raises(MiddleEditError, match="edited at message 0"):
        _run(client, tmp_path, strict=True, edit_history=stamp_the_head)
    assert (
        len(client.requests) == 2
    )  # the third request, the first to keep old messages, never went


def test_the_guard_calls_a_changed_head_with_a_kept_tail_an_edit() -> None:
    talk = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": "step"},
        {"role": "user", "content": "more"},
    ]
    guard = PrefixGuard()
    guard.check(talk)
    report = guard.check([{"role": "user", "content": "other task"}, *talk[1:]])
    assert (report.kind, report.first_changed) == ("edited", 0)
    assert guard.check([{"role": "user", "content": "summary"}]).kind == "replaced"


# ---------------------------------------------------------------- copies the hooks get


def test_a_plan_sees_each_message_copied_once_not_once_per_request(tmp_path: Path) -> None:
    seen: list[Any] = []  # kept alive, so no id is reused

    def watch(request: dict[str, Any]) -> dict[str, Any]:
        seen.extend(request["messages"])
        return request

    turns = 12
    run = _run(ScriptedClient(_reads(turns)), tmp_path, plan=watch)
    assert run.text == "done"
    assert len(seen) == sum(1 + 2 * n for n in range(turns + 1))  # every request, whole
    assert len({id(message) for message in seen}) == 1 + 2 * turns  # each message copied once


def test_a_message_a_plan_marked_in_place_goes_out_unmarked_next_time(tmp_path: Path) -> None:
    def mark_the_last(request: dict[str, Any]) -> dict[str, Any]:
        last = request["messages"][-1]
        if isinstance(last["content"], list):
            last["content"][-1]["cache_control"] = {"type": "ephemeral"}
        return request

    client = ScriptedClient(_reads(3))
    run = _run(client, tmp_path, plan=mark_the_last)
    for request in client.requests:
        marked = [
            index
            for index, message in enumerate(request["messages"])
            if isinstance(message["content"], list)
            and any("cache_control" in block for block in message["content"])
        ]
        assert marked in ([], [len(request["messages"]) - 1])
    assert "cache_control" not in str(run.messages)


def test_an_edit_history_sees_copies_it_may_change_in_place(tmp_path: Path) -> None:
    def vandal(history: list[Any]) -> list[Any]:
        for message in history:
            message["content"] = "EDITED"
        return history

    run = _run(ScriptedClient(_reads(3)), tmp_path, edit_history=vandal)
    assert "EDITED" not in str(run.messages)


def test_a_plan_that_marks_the_last_tool_leaves_the_caller_s_tools_alone(tmp_path: Path) -> None:
    def mark_the_last_tool(request: dict[str, Any]) -> dict[str, Any]:
        request["tools"][-1]["cache_control"] = {"type": "ephemeral"}
        return request

    tools = copy.deepcopy(race_fix.TOOLS)
    client = ScriptedClient(_reads(2))
    _run(client, tmp_path, tools=tools, plan=mark_the_last_tool)
    assert tools == race_fix.TOOLS
    assert client.requests[-1]["tools"][-1]["cache_control"] == {"type": "ephemeral"}


# ---------------------------------------------------------------- the restart after compaction


def _compacting(summary: Any, restart: Any) -> tuple[ScriptedClient, AppendOnlyCompaction]:
    script = [
        scripted_response(_call(1, path="1.py"), input_tokens=300, output_tokens=10),
        summary,
        scripted_response("done", input_tokens=10, output_tokens=1),
    ]
    return ScriptedClient(script), AppendOnlyCompaction("Sum up.", restart)


def test_an_empty_summary_is_refused_and_no_restart_is_sent(tmp_path: Path) -> None:
    client, step = _compacting(
        scripted_response("", input_tokens=10, output_tokens=0),
        lambda summary: [{"role": "user", "content": summary}],
    )
    with pytest.raises(MalformedResponseError, match="summary") as caught:
        _run(client, tmp_path, compaction=step, context_window=400, compact_ratio=0.5)
    assert caught.value.call == 2 and len(client.requests) == 2


def test_an_empty_restart_is_refused_and_never_sent(tmp_path: Path) -> None:
    client, step = _compacting(
        scripted_response("all done so far", input_tokens=10, output_tokens=5), lambda _: []
    )
    with pytest.raises(ValueError, match="restart returned no message"):
        _run(client, tmp_path, compaction=step, context_window=400, compact_ratio=0.5)
    assert len(client.requests) == 2


def test_a_restart_that_opens_with_the_assistant_is_refused(tmp_path: Path) -> None:
    client, step = _compacting(
        scripted_response("so far", input_tokens=10, output_tokens=5),
        lambda summary: [{"role": "assistant", "content": summary}],
    )
    with pytest.raises(ValueError, match="must open with a user message"):
        _run(client, tmp_path, compaction=step, context_window=400, compact_ratio=0.5)
    assert len(client.requests) == 2


def test_a_malformed_summary_response_is_a_named_error(tmp_path: Path) -> None:
    client, step = _compacting(
        {"content": "a bare string", "stop_reason": "end_turn", "usage": Usage(1, 1).as_dict()},
        lambda summary: [{"role": "user", "content": summary}],
    )
    with pytest.raises(MalformedResponseError) as caught:
        _run(client, tmp_path, compaction=step, context_window=400, compact_ratio=0.5)
    assert (caught.value.field, caught.value.call) == ("content", 2)


# ---------------------------------------------------------------- blocks, logs, fakes


@pytest.mark.parametrize("block", [{"text": "no type"}, {"type": 5, "text": "x"}])
def test_a_block_without_a_string_type_is_a_named_error_and_never_sent_back(
    tmp_path: Path, block: dict[str, Any]
) -> None:
    response = scripted_response(_call(1, path="a.py"), input_tokens=1, output_tokens=1)
    response["content"].insert(0, block)
    client = ScriptedClient([response, scripted_response("done", input_tokens=1, output_tokens=1)])
    with pytest.raises(MalformedResponseError) as caught:
        _run(client, tmp_path)
    assert (caught.value.field, caught.value.call) == ("content[0].type", 1)
    assert len(client.requests) == 1


def test_the_log_prints_a_stop_reason_that_is_not_a_string() -> None:
    call = ModelCall(
        number=1,
        kind="turn",
        stop_reason={"odd": 1},  # type: ignore[arg-type]
        usage=Usage(input_tokens=5, output_tokens=1),
        tokens_used=6,
    )
    run = AgentRun("", {"odd": 1}, (call,), (), (), 100.0, "accumulated")  # type: ignore[arg-type]
    assert "{'odd': 1}" in run.log().splitlines()[0]


def test_the_emulated_log_keeps_requests_as_they_were_sent() -> None:
    client = EmulatedClient("claude-sonnet-4-6", [{"content": "a"}, {"content": "b"}])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    client.messages.create(model="claude-sonnet-4-6", max_tokens=8, messages=messages)
    messages[0]["content"] = "changed later"
    messages.append({"role": "assistant", "content": "a"})
    assert client.requests[0]["messages"] == [{"role": "user", "content": "hi"}]


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("counter", "error"),
    [
        (math.nan, TypeError),
        (math.inf, TypeError),
        (-1, ValueError),
        (True, TypeError),
        (1j, TypeError),
        ("3", TypeError),
    ],
)
def test_track_usage_refuses_a_counter_that_is_not_a_count(counter: Any, error: type) -> None:
    with pytest.raises(error, match="tokens_used must be an int >= 0"):
        track_usage(counter, {"input_tokens": 1, "output_tokens": 1})


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"keep": -1}, ValueError, "keep must be an int >= 0, got -1"),
        ({"keep": 2.5}, TypeError, "keep must be an int >= 0, got 2.5"),
        ({"trigger": math.nan}, TypeError, "trigger must be an int >= 0, got nan"),
        ({"trigger": -5}, ValueError, "trigger must be an int >= 0"),
        ({"clear_at_least": True}, TypeError, "clear_at_least must be an int >= 0, got True"),
        ({"prompt_tokens": -1}, ValueError, "prompt_tokens must be an int >= 0"),
    ],
)
def test_clear_tool_uses_langchain_checks_its_numbers(
    options: dict[str, Any], error: type, message: str
) -> None:
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [_call(1, path="a")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
    ]
    with pytest.raises(error, match=message):
        clear_tool_uses_langchain(history, **{"trigger": 0, **options})


def test_loop_steps_refuses_a_count_it_could_never_list() -> None:
    with pytest.raises(ValueError, match="steps must be at most 1,000,000"):
        loop_steps(10**400, growth=1)
    assert len(loop_steps(3, growth=1)) == 3


# ---------------------------------------------------------------- the copies hooks get


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m["content"][0]["input"].update(path="other"),
        lambda m: m["content"][0]["input"].setdefault("extra", 1),
        lambda m: m["content"].append({"type": "text", "text": "x"}),
        lambda m: m["content"][0]["input"]["paths"].sort(reverse=True),
        lambda m: m["content"][0]["input"]["paths"].__iadd__(["c"]),
        lambda m: m.pop("role"),
        lambda m: m["content"].__delitem__(0),
    ],
)
def test_a_copy_changed_anywhere_inside_is_made_again(change: Any) -> None:
    from context_budget._copies import WatchedCopies

    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [_call(1, path="a", paths=["a", "b"])]},
    ]
    pristine = copy.deepcopy(history)
    copies = WatchedCopies()
    first = copies.of(history)
    change(first[1])
    again = copies.of(history)
    assert again == pristine == history
    assert again[0] is first[0] and again[1] is not first[1]  # only the changed one is new


def test_a_watched_copy_copies_and_pickles_as_plain_data() -> None:
    import pickle

    from context_budget._copies import WatchedCopies

    (watched,) = WatchedCopies().of([{"role": "user", "content": [{"type": "text", "text": "a"}]}])
    for made in (copy.deepcopy(watched), copy.copy(watched), pickle.loads(pickle.dumps(watched))):
        assert type(made) is dict and made == watched
    assert type(copy.deepcopy(watched)["content"]) is list
