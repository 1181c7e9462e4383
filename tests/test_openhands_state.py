"""An OpenHands 1.x conversation folder (`base_state.json` and `events/`) bills the calls its
state counted, at the times its events give, and reads its events as the conversation.

The real folder is a three-call `gpt-4o-mini` conversation the agent SDK's
own repository saved (`tests/fixtures/transcripts/openhands-conversation/`);
its state keeps each call's usage and the cost LiteLLM gave it, which the bill
must give again. The other cases change a copy of it.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openhands_files import CONVERSATION

from context_budget.bills import read_bill
from context_budget.cli import main
from context_budget.conversations import load_transcript
from context_budget.sessions import Session, openhands_state, read_paths, read_text
from context_budget.sessions.detect import detect_format
from context_budget.sessions.skips import Skip

STATE = CONVERSATION / "base_state.json"


def _state() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(STATE.read_text(encoding="utf-8"))
    return data


def _records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = _state()["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    return records


def _copy(tmp_path: Path, state: dict[str, Any] | None = None) -> Path:
    """A copy of the conversation folder, its state replaced by `state` when given."""
    folder = tmp_path / CONVERSATION.name
    shutil.copytree(CONVERSATION, folder)
    if state is not None:
        (folder / "base_state.json").write_text(json.dumps(state), encoding="utf-8")
    return folder


def _time(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_the_real_conversation_bills_what_its_state_counted_and_cost() -> None:
    skipped: list[Skip] = []
    sessions = read_paths([CONVERSATION.parent], skipped=skipped)
    assert skipped == []  # the event files are read with their state, not as sessions
    bill = read_bill(CONVERSATION.parent)
    records = _records()
    assert len(bill.calls) == len(records) == 3
    tokens = bill.tokens()
    assert tokens["input"] + tokens["cache_read"] == sum(r["prompt_tokens"] for r in records)
    assert tokens["cache_read"] == sum(r["cache_read_tokens"] for r in records)
    assert tokens["output"] == sum(r["completion_tokens"] for r in records)
    kept = _state()["stats"]["usage_to_metrics"]["agent"]["accumulated_cost"]
    assert bill.recorded_cost == kept
    assert bill.cost().total == pytest.approx(kept, abs=1e-9)  # gpt-4o-mini's list rates
    assert list(bill.threads) == [f"{CONVERSATION.name}/main"]
    assert len(sessions) == 1


def test_each_call_has_the_time_of_the_event_its_response_made() -> None:
    events = [json.loads(p.read_text()) for p in sorted((CONVERSATION / "events").glob("*.json"))]
    made: dict[str, str] = {}
    for event in events:
        made.setdefault(event.get("llm_response_id"), event["timestamp"])
    bill = read_bill(STATE)
    assert [call.timestamp for call in bill.calls] == [
        _time(made[record["response_id"]]) for record in _records()
    ]


def _blocks(layers: Any, kind: str) -> list[dict[str, Any]]:
    """The blocks of one type in the conversation's messages, in order."""
    return [
        block
        for message in layers.conversation
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == kind
    ]


def test_the_events_are_the_conversation() -> None:
    layers = load_transcript(STATE)
    assert layers.system.startswith("You are OpenHands agent")
    roles = [message["role"] for message in layers.conversation]
    assert roles == ["user", "assistant", "user", "assistant", "user", "user", "assistant"]
    used = [block["id"] for block in _blocks(layers, "tool_use")]
    answered = [block["tool_use_id"] for block in _blocks(layers, "tool_result")]
    assert used == answered == ["call_KaQ0kUcBb5tbMzhxbIx9dvoZ", "call_HhojVstik9LFNxVlLTgV0iIA"]
    assert detect_format(STATE.read_text())[0] == "openhands"


def test_a_state_file_alone_still_bills_its_calls_at_the_times_of_their_costs(
    tmp_path: Path,
) -> None:
    alone = tmp_path / "base_state.json"
    alone.write_bytes(STATE.read_bytes())
    bill = read_bill(alone)
    costs = _state()["stats"]["usage_to_metrics"]["agent"]["costs"]
    assert [call.timestamp for call in bill.calls] == [cost["timestamp"] for cost in costs]
    with pytest.raises(ValueError, match="no events folder"):
        load_transcript(alone)


def test_another_model_of_the_conversation_is_a_thread_of_its_own(tmp_path: Path) -> None:
    state = _state()
    metrics = state["stats"]["usage_to_metrics"]
    summary = {"model": "claude-sonnet-4-5", "prompt_tokens": 9000, "completion_tokens": 300}
    summary |= {"cache_read_tokens": 6000, "cache_write_tokens": 2000, "response_id": "r-1"}
    metrics["condenser"] = {
        "model_name": "claude-sonnet-4-5",
        "accumulated_cost": 0.01,
        "token_usages": [summary],
    }
    bill = read_bill(_copy(tmp_path, state))
    condenser = [call for call in bill.calls if call.thread.agent == "condenser"]
    assert [call.thread.name for call in condenser] == [f"{CONVERSATION.name}/agent-condenser"]
    usage = condenser[0].usage
    assert (usage.input_tokens, usage.cache_read_input_tokens) == (1000, 6000)
    assert usage.cache_creation_input_tokens == 2000  # Anthropic's writes, 5-minute ones
    assert condenser[0].timestamp is None  # no event names its response, no cost pairs it
    assert bill.recorded_cost == pytest.approx(0.01 + metrics["agent"]["accumulated_cost"])


def test_a_bad_usage_record_stops_the_bill_naming_it(tmp_path: Path) -> None:
    state = _state()
    state["stats"]["usage_to_metrics"]["agent"]["token_usages"][1]["prompt_tokens"] = -5
    with pytest.raises(ValueError, match=r"usage_to_metrics\.agent\.token_usages\[1\]"):
        read_bill(_copy(tmp_path, state))


def test_a_half_written_last_event_is_left_out_and_the_calls_billed(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    last = sorted((folder / "events").glob("event-*.json"))[-1]
    last.write_text(last.read_text()[:40], encoding="utf-8")
    assert len(read_bill(folder).calls) == 3
    with pytest.warns(UserWarning, match=f"1 half-written line \\({last.name}\\)"):
        layers = load_transcript(folder / "base_state.json")
    assert [message["role"] for message in layers.conversation][-1] == "user"


def test_inspect_names_the_half_written_last_event_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the bill named it, but inspect read the conversation a message short and said
    # nothing: "6 messages (1 other event skipped)" and `skipped: []` in its JSON
    folder = _copy(tmp_path)
    last = sorted((folder / "events").glob("event-*.json"))[-1]
    last.write_text(last.read_text()[:40], encoding="utf-8")
    assert main(["inspect", str(folder), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert f"1 half-written line ({last.name}); the rest is read" in captured.err
    report = json.loads(captured.out)
    assert report["messages"] == 6
    assert [skip["file"] for skip in report["skipped"]] == [str(last)]
    skipped: list[Skip] = []  # load_transcript said nothing either
    assert len(load_transcript(folder, skipped=skipped).conversation) == 6
    assert [(skip.kind, skip.file) for skip in skipped] == [("half-written line", str(last))]


def test_inspect_names_the_state_file_that_is_no_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a state file cut short (copied while OpenHands rewrote it) was said of the folder:
    # "<folder>: not valid JSON: ...", no file named
    folder = _copy(tmp_path)
    state = folder / "base_state.json"
    state.write_text(state.read_text()[:300], encoding="utf-8")
    assert main(["inspect", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"context-budget: error: {state}: not valid")


def test_a_broken_event_file_is_named_not_counted_as_another_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An event file that is no JSON (a disk full, a copy cut short) was counted among the
    'other events skipped': inspect read the conversation a message short and said
    nothing, and the bill, --strict too, never named it."""
    folder = _copy(tmp_path)
    events = sorted((folder / "events").glob("event-*.json"))
    events[2].write_text("{", encoding="utf-8")
    bill = read_bill(folder)
    assert [(skip.kind, skip.file) for skip in bill.skipped] == [("bad line", str(events[2]))]
    assert len(bill.calls) == 3
    with pytest.raises(ValueError, match=f"{events[2].name}: not an event: "):
        read_bill(folder, strict=True)
    assert main(["inspect", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{events[2].name}: not an event: " in err
    events[2].write_text(events[3].read_text(encoding="utf-8"), encoding="utf-8")
    events[-1].write_text("{", encoding="utf-8")  # the last one, still being written
    bill = read_bill(folder)
    assert [(skip.kind, skip.file) for skip in bill.skipped] == [
        ("half-written line", str(events[-1]))
    ]


def test_event_files_beside_their_state_are_read_by_it_and_alone_are_named_skips(
    tmp_path: Path,
) -> None:
    flat = tmp_path / "chosen"  # the files as a page's file picker leaves them: side by side
    flat.mkdir()
    (flat / "base_state.json").write_bytes(STATE.read_bytes())
    events = sorted((CONVERSATION / "events").glob("event-*.json"))
    for event in events:
        (flat / event.name).write_bytes(event.read_bytes())
    skipped: list[Skip] = []
    [session] = read_paths([flat], skipped=skipped)
    assert skipped == [] and len(session.calls) == 3
    assert session.layers == load_transcript(STATE)  # the same conversation as in its folder
    (flat / "base_state.json").unlink()  # events with no state: named, none billed
    with pytest.raises(ValueError, match="an OpenHands conversation's event: read with"):
        read_paths([flat])


def _with_events(tmp_path: Path, events: list[Any], state: dict[str, Any] | None = None) -> Path:
    """A conversation folder of `state` (the real one's by default) and these events."""
    folder = tmp_path / "conversation"
    (folder / "events").mkdir(parents=True)
    (folder / "base_state.json").write_text(json.dumps(state or _state()), encoding="utf-8")
    for number, event in enumerate(events):
        name = f"event-{number:05d}-e{number}.json"
        (folder / "events" / name).write_text(json.dumps(event), encoding="utf-8")
    return folder / "base_state.json"


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"id": "e", "timestamp": "2026-02-05T11:24:45", "source": "agent", "kind": kind} | fields


def test_errors_and_refusals_answer_their_tool_calls_and_other_events_are_counted(
    tmp_path: Path,
) -> None:
    call = {"id": "c1", "name": "terminal", "arguments": "{}"}
    events = [
        _event(
            "MessageEvent",
            llm_message={"role": "user", "content": [{"type": "text", "text": "go"}]},
        ),
        _event("ActionEvent", tool_call_id="c1", tool_call=call, llm_response_id="r1"),
        _event(
            "ActionEvent", tool_call_id="c2", tool_call=call | {"id": "c2"}, llm_response_id="r1"
        ),
        _event("AgentErrorEvent", tool_call_id="c1", error="no such tool"),
        _event("UserRejectObservation", tool_call_id="c2", rejection_reason="not that"),
        _event("ConversationStateUpdateEvent", key="stats"),
        _event("PauseEvent"),
        _event("CondensationRequest", tool_call_id="c1"),  # a call id, but no result
        [1, 2],  # an event file that holds no object
    ]
    path = _with_events(tmp_path, events)
    (path.parent / "events" / "event-x-notes.json").write_text("{}")  # no index: first
    session = _read(path)
    messages = session.layers.conversation
    assert [len(m["content"]) for m in messages if m["role"] == "assistant"] == [2]  # one reply
    results = [block["content"] for block in _blocks(session.layers, "tool_result")]
    assert results == ["no such tool", "not that"]
    assert session.skipped == 5  # state update, pause, request, the list, an object of no kind


def _read(path: Path) -> Session:
    return read_text(path.read_text(encoding="utf-8"), "auto", str(path))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda m: m.update(agent=3), "usage_to_metrics.agent: expected an object"),
        (lambda m: m["agent"].update(token_usages="x"), "token_usages and costs must be lists"),
        (lambda m: m["agent"]["token_usages"].insert(0, 7), r"token_usages\[0\]: expected an"),
        (lambda m: m["agent"].update(accumulated_cost="x"), "accumulated_cost: a cost must"),
    ],
)
def test_a_malformed_state_stops_the_bill_naming_the_field(
    tmp_path: Path, change: Any, named: str
) -> None:
    state = _state()
    change(state["stats"]["usage_to_metrics"])
    with pytest.raises(ValueError, match=named):
        read_bill(_copy(tmp_path, state))


def test_openai_writes_and_a_bad_conversation_are_read_as_such(tmp_path: Path) -> None:
    state = _state()
    state["stats"]["usage_to_metrics"]["agent"]["token_usages"][0]["cache_write_tokens"] = 1000
    bad = _event("MessageEvent", llm_message={"role": "user", "content": 5})
    session = _read(_with_events(tmp_path, [bad], state))
    assert session.calls[0].usage.cache_creation_input_tokens == 1000  # OpenAI's writes
    assert "events (openhands)" in str(session.conversation_error)
    with pytest.raises(ValueError, match="expected an OpenHands conversation state"):
        openhands_state.read({"agent": {}}, "")


def test_reads_counted_apart_from_the_prompt_are_read_so(tmp_path: Path) -> None:
    state = _state()
    record = state["stats"]["usage_to_metrics"]["agent"]["token_usages"][0]
    record |= {"prompt_tokens": 120, "cache_read_tokens": 5000, "cache_write_tokens": 300}
    usage = read_bill(_copy(tmp_path, state)).calls[0].usage
    assert (usage.input_tokens, usage.cache_read_input_tokens) == (120, 5000)
    assert usage.cache_creation_input_tokens == 300


def test_inspect_takes_the_conversation_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(CONVERSATION), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["format"], report["messages"]) == ("openhands", 7)


@pytest.mark.parametrize("command", ["inspect", "bill", "whatif"])
def test_a_conversations_events_folder_names_the_folder_to_give(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # inspect said "no .jsonl file (no Claude Code session)", bill "8 files that are no
    # session": neither said that the conversation's folder reads them
    assert main([command, str(CONVERSATION / "events")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"an OpenHands conversation's events folder: give {CONVERSATION}" in err


def test_load_transcript_reads_a_conversations_folder_as_inspect_does() -> None:
    # inspect read the folder through its state file; load_transcript said it held no
    # .jsonl file, and of its events folder the same
    assert load_transcript(CONVERSATION) == load_transcript(STATE)
    with pytest.raises(ValueError, match=r"events folder: give .*, the conversation's folder"):
        load_transcript(CONVERSATION / "events")
