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

from context_budget import (
    COMPACT_INSTRUCTION,
    AgentRun,
    NotesFile,
    ScriptedClient,
    message_text,
    run_agent,
    scripted_response,
    validate_history,
)

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
