"""Properties of run_agent over generated scripted runs.

A run is a list of turns, each asking for 0 to 3 tools (0 ends the run) with
its own usage; a compaction request is answered with a short summary whatever
its place. Every turn's usage is below the threshold, so a compaction always
makes room and the storm guard stays out of the way.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from context_budget import NotesFile, PrefixGuard, message_text, run_agent, validate_history
from context_budget.errors import ContextBudgetError
from context_budget.fakes import ScriptedClient, scripted_response
from context_budget.harness import COMPACT_INSTRUCTION, AgentRun

_NOTES = NotesFile(Path(tempfile.mkdtemp()) / "NOTES.md")
Turn = tuple[int, int, int]  # (tool calls, input tokens, output tokens)


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[Turn], int, float, str]:
    window = draw(st.integers(1_000, 20_000))
    ratio = draw(st.floats(0.3, 0.95))
    most = max(2, int(window * ratio) - 1)
    usage = st.tuples(st.integers(1, 3), st.integers(1, most), st.integers(0, most))
    turns = draw(st.lists(usage, max_size=12))
    turns = [(calls, inp, min(out, most - inp)) for calls, inp, out in turns]
    turns.append((0, draw(st.integers(1, most - 1)), 1))
    return turns, window, ratio, draw(st.sampled_from(["accumulated", "window"]))


def _play(turns: list[Turn], window: int, ratio: float, measure: str) -> tuple[AgentRun, list[Any]]:
    queue = list(turns)
    ids = iter(range(1_000_000))

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        if message_text(request["messages"][0]).startswith(COMPACT_INSTRUCTION):
            return scripted_response("summary", input_tokens=1, output_tokens=1)
        calls, inp, out = queue.pop(0)
        blocks = [
            {"type": "tool_use", "id": f"t{next(ids)}", "name": "probe", "input": {}}
            for _ in range(calls)
        ]
        return scripted_response("step", *blocks, input_tokens=inp, output_tokens=out)

    client = ScriptedClient(respond)
    run = run_agent(
        "go",
        [],
        {"probe": lambda _: "ok"},
        client=client,
        model="m",
        context_window=window,
        compact_ratio=ratio,
        notes=_NOTES,  # never written: read back empty at each restart
        measure=measure,  # type: ignore[arg-type]
    )
    return run, client.requests


@given(runs())
def test_the_counter_overshoots_the_threshold_by_at_most_one_call(
    case: tuple[list[Turn], int, float, str],
) -> None:
    run, _ = _play(*case)
    before = 0  # the counter going into each call
    for call in run.calls:
        if call.kind == "compaction":
            before = 0
            continue
        assert before < run.threshold, "a call went out over the threshold"
        grew = call.usage.input_tokens + call.usage.output_tokens
        one_call = grew if run.measure == "accumulated" else call.usage.window_tokens
        assert call.tokens_used - run.threshold < one_call
        before = call.tokens_used


@given(runs())
def test_every_compaction_is_followed_by_a_window_of_one_message(
    case: tuple[list[Turn], int, float, str],
) -> None:
    run, requests = _play(*case)
    for number in run.compactions:
        assert len(requests[number]["messages"]) == 1  # request number + 1, from 0
    assert len(run.compactions) == sum(
        message_text(r["messages"][0]).startswith(COMPACT_INSTRUCTION) for r in requests
    )


@given(runs())
def test_no_request_carries_an_orphaned_tool_result(
    case: tuple[list[Turn], int, float, str],
) -> None:
    _, requests = _play(*case)
    for request in requests:
        assert validate_history(request["messages"]) == []


# Hostile responses ---------------------------------------------------------------

IDS = st.sampled_from(["t1", "t2", "t3"])  # a small pool, so ids repeat


@st.composite
def hostile_blocks(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "tool_use", "server_tool_use", "thinking"]))
    if kind == "text":
        return {"type": "text", "text": draw(st.sampled_from(["", "ok", " ", "é🙂"]))}
    if kind == "tool_use":
        block = {"type": "tool_use", "id": draw(IDS), "name": "probe", "input": {"n": 1}}
        for key in draw(st.lists(st.sampled_from(["id", "name", "input"]), max_size=1)):
            del block[key]
        return block
    if kind == "server_tool_use":
        return {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}
    return {"type": "thinking", "thinking": "hm", "signature": "s"}


REASONS = st.sampled_from(["tool_use", "end_turn", "pause_turn", "max_tokens", "refusal", None])


@st.composite
def hostile_scripts(draw: st.DrawFn) -> list[dict[str, Any]]:
    script = []
    for _ in range(draw(st.integers(1, 8))):
        blocks = draw(st.lists(hostile_blocks(), max_size=3))
        response = scripted_response(*blocks, input_tokens=1, output_tokens=1)
        response["stop_reason"] = draw(REASONS)
        script.append(response)
    return script


@given(hostile_scripts())
def test_property_hostile_responses_end_the_run_or_raise_a_named_error_never_send_empty(
    script: list[dict[str, Any]],
) -> None:
    client = ScriptedClient(script)
    try:
        run = run_agent(
            "go",
            [],
            {"probe": lambda tool_input: tool_input.pop("n")},
            client=client,
            model="m",
            context_window=10**6,
            compact_ratio=0.5,
            notes=_NOTES,
            strict=True,
        )
    except ContextBudgetError:
        run = None
    for request in client.requests:
        for message in request["messages"]:
            assert message["content"], "an empty turn went out"
            if isinstance(message["content"], list):
                assert all(b.get("text") != "" for b in message["content"])
        assert validate_history(request["messages"]) == []
        uses = [
            b
            for m in request["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b["type"] == "tool_use"
        ]
        assert all(b["input"] == {"n": 1} for b in uses)  # the tool's pop changed no call
    if run is not None:
        assert all(message["content"] for message in run.messages)


@given(runs(), st.booleans())
def test_property_the_loop_s_guard_reports_what_a_fresh_guard_reports_on_the_requests(
    case: tuple[list[Turn], int, float, str], edit: bool
) -> None:
    """The loop tells its guard which part of the history it left untouched; that is the truth."""
    turns, window, ratio, measure = case
    queue = list(turns)
    ids = iter(range(1_000_000))

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        if message_text(request["messages"][0]).startswith(COMPACT_INSTRUCTION):
            return scripted_response("summary", input_tokens=1, output_tokens=1)
        calls, inp, out = queue.pop(0)
        blocks = [
            {"type": "tool_use", "id": f"t{next(ids)}", "name": "probe", "input": {}}
            for _ in range(calls)
        ]
        return scripted_response("step", *blocks, input_tokens=inp, output_tokens=out)

    client = ScriptedClient(respond)
    guard = PrefixGuard()
    run = run_agent(
        "go",
        [],
        {"probe": lambda _: "ok"},
        client=client,
        model="m",
        context_window=window,
        compact_ratio=ratio,
        notes=_NOTES,
        measure=measure,  # type: ignore[arg-type]
        guard=guard,
        edit_history=(lambda history: history[:1] + history[3:]) if edit else None,
    )
    fresh = PrefixGuard()
    after_compaction = set(run.compactions)  # the request after compaction n has index n
    # the loop declares its restarts, and without a hook also that there was none
    declared = None if edit else False
    expected = [
        fresh.check_request(request, restart=True if index in after_compaction else declared)
        for index, request in enumerate(client.requests)
        if not message_text(request["messages"][0]).startswith(COMPACT_INSTRUCTION)
    ]
    assert guard.reports == expected
