"""The session readers' edges: what each format refuses, and what each face says about it.

A problem with the conversation stops `load_transcript`, not the bill; a
problem with the usage stops `read_bill`, not `load_transcript`; a file in no
shape stops both, naming the place.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_budget.bills import Bill, read_bill
from context_budget.cli import main
from context_budget.conversations import load_transcript
from context_budget.sessions import (
    Source,
    codex,
    read_paths,
    read_sources,
    read_text,
    session_files,
    text,
)
from context_budget.sessions.text import (
    FormatError,
    description,
    dollars,
    epoch,
    json_lines,
    kind_of,
    loads_json,
    read_source,
    split_lines,
    strict_json,
)

SESSIONS = Path(__file__).resolve().parents[1] / "docs" / "measured" / "sessions"
OPENHANDS = SESSIONS / "openhands" / "basic_gui_mode.json"
TRAJECTORY = SESSIONS / "mini-swe-agent" / "astropy__astropy-12907.traj.json"


def _json(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = json.loads(OPENHANDS.read_text(encoding="utf-8"))
    return events


def _first_response(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(
        e["tool_call_metadata"]["model_response"]
        for e in events
        if isinstance(e.get("tool_call_metadata"), dict)
        and "model_response" in e["tool_call_metadata"]
    )


# ---------------------------------------------------------------- openhands


def test_openhands_refuses_what_is_no_event_list() -> None:
    with pytest.raises(ValueError, match="expected a list of OpenHands events, found an object"):
        read_text('{"source": "user"}', "openhands")
    with pytest.raises(TypeError, match="event 1 has type a number"):
        read_text('[{"source": "user", "action": "message"}, 5]', "openhands")


def test_a_bad_openhands_usage_stops_the_bill_not_the_conversation(tmp_path: Path) -> None:
    events = _events()
    _first_response(events)["usage"]["prompt_tokens"] = -3
    path = _json(tmp_path, "events.json", events)
    assert load_transcript(path).conversation
    with pytest.raises(ValueError, match=r"events\.json: event \d+ model_response\.usage"):
        read_bill(path)


def test_a_bad_openhands_message_stops_the_conversation_not_the_bill(tmp_path: Path) -> None:
    events = _events()
    _first_response(events)["choices"][0]["message"]["content"] = 7
    path = _json(tmp_path, "events.json", events)
    with pytest.raises(TypeError, match=r"event \d+ \(openhands\)"):
        load_transcript(path)
    assert len(read_bill(path).calls) == len(read_bill(OPENHANDS).calls)


def test_openhands_running_costs_add_up_run_by_run(tmp_path: Path) -> None:
    events = _events()
    assert read_bill(OPENHANDS).recorded_cost is None  # the shipped list records none
    spent = [0.004, 0.009, 0.009, 0.002, 0.005]  # a second run starts at 0.002
    for event, total in zip(events[1:], spent, strict=False):
        event["llm_metrics"] = {"accumulated_cost": total, "costs": []}
    bill = read_bill(_json(tmp_path, "events.json", events))
    assert bill.recorded_cost == pytest.approx(0.009 + 0.005)
    events[1]["llm_metrics"]["accumulated_cost"] = "free"
    with pytest.raises(ValueError, match=r"event 1 llm_metrics\.accumulated_cost: a cost must"):
        read_bill(_json(tmp_path, "events.json", events))


def test_openhands_events_of_no_message_are_skipped_and_counted() -> None:
    events = [
        {"source": "user", "action": "message", "args": {"content": "hi"}},
        {"source": "agent", "observation": "run", "content": "x"},  # no call id
        {"source": "agent", "action": "run", "tool_call_metadata": {"model_response": {}}},
        {"source": "environment", "observation": "agent_state_changed"},
    ]
    session = read_text(json.dumps(events), "openhands")
    assert len(session.layers.conversation) == 1
    assert session.skipped == 3


# ---------------------------------------------------------------- mini-swe-agent


def test_mini_swe_agent_refuses_a_trajectory_without_messages() -> None:
    with pytest.raises(ValueError, match="an object without a messages list"):
        read_text('{"messages": 3}', "mini-swe-agent")
    with pytest.raises(ValueError, match=r"messages\), found a list"):
        read_text("[]", "mini-swe-agent")


def test_a_trajectory_without_timestamps_takes_each_response_s_created_time() -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    answers = [m for m in data["messages"] if m["role"] == "assistant"]
    recorded = [m["extra"]["timestamp"] for m in answers]
    for number, message in enumerate(answers):  # as mini-swe-agent 1.x wrote them
        del message["extra"]["timestamp"]
        message["extra"]["response"]["created"] = 1_763_511_061 + number
    answers[1]["extra"]["response"]["created"] = 0  # no time given: none taken
    answers[2]["extra"]["response"]["created"] = "1763511063"  # not a number: none taken
    answers[4]["extra"]["response"]["created"] = 1_763_511_065_000  # milliseconds: none taken
    answers[3]["extra"]["timestamp"] = recorded[3]  # a time of its own comes first
    calls = read_text(json.dumps(data), "mini-swe-agent").calls  # in the order recorded
    assert [call.timestamp for call in calls[:6]] == [
        1_763_511_061.0,
        None,
        None,
        epoch(recorded[3], "timestamp"),
        None,
        1_763_511_066.0,
    ]


@pytest.mark.parametrize("where", ["call", "run"])
def test_a_cost_that_is_not_a_number_of_dollars_stops_the_bill(tmp_path: Path, where: str) -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    if where == "call":
        next(m for m in data["messages"] if m["role"] == "assistant")["extra"]["cost"] = "free"
    else:
        data["info"]["model_stats"]["instance_cost"] = -1
    path = _json(tmp_path, "t.traj.json", data)
    with pytest.raises(ValueError, match="a cost must be a number of USD from 0, below"):
        read_bill(path)
    assert load_transcript(path).conversation


def test_a_cost_too_large_names_the_limit_it_passed() -> None:
    # "a cost must be a number >= 0 (USD), got 1e+30" named no limit 1e+30 breaks
    with pytest.raises(ValueError, match=r"^extra\.cost: .* below 1,000,000,000,000, got 1e\+30$"):
        dollars(1e30, "extra.cost")
    assert dollars(0, "x") == 0.0 and dollars(999_999_999_999.5, "x") == 999_999_999_999.5


def test_an_assistant_message_without_usage_is_no_call(tmp_path: Path) -> None:
    data = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    first = next(m for m in data["messages"] if m["role"] == "assistant")
    del first["extra"]["response"]["usage"]
    path = _json(tmp_path, "t.traj.json", data)
    assert len(read_bill(path).calls) == len(read_bill(TRAJECTORY).calls) - 1


# ---------------------------------------------------------------- codex


def _rollout(*payloads: tuple[str, dict[str, Any]]) -> str:
    lines = [{"timestamp": "2026-03-02T09:00:00Z", "type": "session_meta", "payload": {}}]
    lines += [{"timestamp": "2026-03-02T09:00:01Z", "type": t, "payload": p} for t, p in payloads]
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_codex_outputs_and_other_items_are_kept_as_they_come() -> None:
    text = _rollout(
        ("response_item", {"type": "message", "role": "user", "content": [{"text": "ls"}]}),
        ("response_item", {"type": "function_call", "call_id": "c1", "name": "shell"}),
        ("response_item", {"type": "web_search_call", "action": {"query": "x"}}),
        ("response_item", {"type": "function_call_output", "call_id": "c1", "output": {}}),
        (
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "c2", "output": {"content": "ok"}},
        ),
        ("turn_context", "not an object"),  # type: ignore[arg-type]
    )
    conversation = read_text(text, "codex").layers.conversation
    assert conversation[1]["content"][1] == {"type": "web_search_call", "action": {"query": "x"}}
    assert [m["content"][0]["content"] for m in conversation[2:]] == ["{}", "ok"]


def test_a_codex_item_with_a_role_and_no_type_is_a_message() -> None:
    said = [{"type": "input_text", "text": "Add rate limiting"}]
    answer = [{"type": "output_text", "text": "Rate limits added."}]
    user = {"role": "user", "content": said}  # no "type": a message, as the API reads it
    text = _rollout(
        ("response_item", user), ("response_item", {"role": "assistant", "content": answer})
    )
    conversation = read_text(text, "codex").layers.conversation
    assert conversation == [
        {"role": "user", "content": "Add rate limiting"},
        {"role": "assistant", "content": [{"type": "text", "text": "Rate limits added."}]},
    ]
    assert "type" not in user  # the item read is left as it was


def _said(role: str, text: str) -> tuple[str, dict[str, Any]]:
    kind = "output_text" if role == "assistant" else "input_text"
    return "response_item", {
        "type": "message",
        "role": role,
        "content": [{"type": kind, "text": text}],
    }


def _total(sent: int, cached: int, output: int) -> tuple[str, dict[str, Any]]:
    usage = {"input_tokens": sent, "cached_input_tokens": cached, "output_tokens": output}
    return "event_msg", {"type": "token_count", "info": {"total_token_usage": usage}}


#: A rollout compacted after its second call (line 9): the third call reads nothing cached.
_COMPACTED = _rollout(
    ("turn_context", {"model": "gpt-5-codex"}),
    _said("user", "Fix the parser. " * 2_000),
    _said("assistant", "Done: the parser reads the header."),
    _total(20_000, 0, 500),
    _said("user", "Now the tests."),
    _said("assistant", "The tests pass."),
    _total(41_000, 19_000, 900),
    ("compacted", {"message": "The parser and its tests were fixed."}),
    _said("user", "Add a changelog line."),
    _said("assistant", "Added."),
    _total(44_000, 19_000, 1_000),
)


def _json_of(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return json.loads(out.getvalue())  # type: ignore[no-any-return]


def test_a_codex_compaction_starts_a_segment_and_names_the_rebuild(tmp_path: Path) -> None:
    # a `compacted` line was counted as one more skipped record: `inspect` showed one
    # segment, and the bill named the rebuild after it a changed prefix
    path = tmp_path / "rollout.jsonl"
    path.write_text(_COMPACTED, encoding="utf-8")
    session = read_text(_COMPACTED, "codex")
    assert [(b.index, b.line) for b in session.boundaries] == [(4, 9)]
    assert session.layers.conversation[4] == {
        "role": "user",
        "content": "The parser and its tests were fixed.",
    }
    assert [call.segment for call in read_bill(path).calls] == [0, 0, 1]
    assert [(r.call, r.cause) for r in read_bill(path).rebuilds()] == [(3, "compaction")]
    report = _json_of(["inspect", "--json", str(path)])
    assert [(s["first"], s["messages"], s["line"]) for s in report["segments"]] == [
        (0, 4, None),
        (4, 3, 9),
    ]
    assert report["skipped_records"] == 5  # the meta, the turn context and the totals


def test_a_replayed_codex_request_after_a_compaction_leaves_the_old_messages_out(
    tmp_path: Path,
) -> None:
    # the replay sent the whole history again after a compaction: it read from the cache
    # what the bill paid in full, and said the messages exceed the prompt call 3 recorded
    path = tmp_path / "rollout.jsonl"
    path.write_text(_COMPACTED, encoding="utf-8")
    replayed = _json_of(["whatif", "--json", str(path)])
    assert replayed["rebuilds"] == {"compaction": 1}
    assert 3 not in [departure["call"] for departure in replayed["departures"]]


@pytest.mark.parametrize(
    ("usage", "said"),
    [
        ("lots", "total_token_usage must be an object"),
        (
            {"input_tokens": 5, "cached_input_tokens": 9, "output_tokens": 1},
            r"cached \(9\) .* exceed input_tokens \(5\)",
        ),
    ],
)
def test_a_bad_codex_total_is_a_line_strict_refuses(
    tmp_path: Path, usage: object, said: str
) -> None:
    text = _rollout(
        ("response_item", {"type": "message", "role": "user", "content": [{"text": "ls"}]}),
        ("event_msg", {"type": "token_count", "info": {"total_token_usage": usage}}),
    )
    path = tmp_path / "rollout.jsonl"
    path.write_text(text, encoding="utf-8")
    assert load_transcript(path).conversation
    with pytest.raises(ValueError, match=said):
        read_bill(path, strict=True)
    with pytest.raises(ValueError, match=rf"rollout\.jsonl: line 3 .*{said}"):
        read_bill(path)


#: A rollout as the Codex CLI wrote them before `session_meta` (mid 2025): a bare header,
#: `record_type` markers and bare items, no `payload` and no usage. Our own lines, in the
#: shape third-party readers of such files test (e.g. codex-history-list's legacy case).
_LEGACY = [
    {"id": "c27a914d-0000-4000-8000-000000000001", "timestamp": "2025-08-20T13:20:47.060Z",
     "instructions": "Be brief.", "git": {"branch": "main"}},
    {"record_type": "state"},
    {"type": "message", "id": None, "role": "user",
     "content": [{"type": "input_text", "text": "list the files"}]},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
    {"type": "function_call", "id": "fc_1", "name": "shell",
     "arguments": "{\"command\": [\"ls\"]}", "call_id": "call_1"},
    {"type": "function_call_output", "call_id": "call_1", "output": "a.txt\nb.txt\n"},
    {"record_type": "state"},
    {"type": "message", "id": None, "role": "assistant",
     "content": [{"type": "output_text", "text": "Two files."}]},
]  # fmt: skip


def test_a_rollout_from_before_session_meta_is_read_as_codex(tmp_path: Path) -> None:
    # such a file was "JSON Lines of objects in no known format": `inspect` refused it, and
    # a bill named each one in ~/.codex/sessions "a file that is no session"
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in _LEGACY)
    folder = tmp_path / "sessions" / "2025" / "08" / "20"
    folder.mkdir(parents=True)
    path = folder / "rollout-2025-08-20T13-20-47-c27a914d.jsonl"
    path.write_text(text, encoding="utf-8")
    session = read_text(text, "auto")
    assert session.format == "codex"
    assert session.main.session == _LEGACY[0]["id"]
    assert session.layers.system == "Be brief."
    assert [m["role"] for m in session.layers.conversation] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert session.layers.conversation[1]["content"][0]["name"] == "shell"
    assert session.calls == ()
    from_file = codex.read(read_source(path))  # its bytes, as a bill reads them (msgspec)
    assert from_file.layers == session.layers
    skipped: list[Any] = []
    assert read_paths([tmp_path / "sessions"], "auto", skipped) == []
    assert [(skip.kind, skip.file) for skip in skipped] == [("empty rollout", str(path))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["inspect", str(path)]) == 0
    assert "a Codex rollout" in out.getvalue()


# ---------------------------------------------------------------- claude code, detection


def test_a_first_record_without_a_type_but_a_session_id_is_claude_code() -> None:
    text = (
        json.dumps({"sessionId": "abc", "leafUuid": "x"})
        + "\n"
        + json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}})
        + "\n"
    )
    assert read_text(text).format == "claude-code"


def test_an_assistant_line_without_a_message_id_is_a_call_of_its_own() -> None:
    usage = {"input_tokens": 1, "output_tokens": 1}
    lines = [
        {"type": "assistant", "message": {"role": "assistant", "content": "a", "usage": usage}},
        {"type": "assistant", "message": {"role": "assistant", "content": "b", "usage": usage}},
    ]
    session = read_text("".join(json.dumps(line) + "\n" for line in lines))
    assert len(session.calls) == 2


def test_a_sub_agent_that_starts_with_a_tool_result_has_no_prompt_to_match() -> None:
    sidechain = {"isSidechain": True, "parentUuid": None, "uuid": "s1"}
    lines = [
        {"type": "user", "message": {"role": "user", "content": "go"}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "image"}]}, **sidechain},
    ]
    session = read_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [(t.name, t.description) for t in session.threads] == [("sidechain-1", "")]


def test_one_source_read_as_several_is_read_as_one() -> None:
    source = Source("a.json", '[{"role": "user", "content": "hi"}]')
    assert read_sources([source]).format == "messages"


# ---------------------------------------------------------------- files and times


def test_what_is_neither_a_file_nor_a_folder_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file or a folder"):
        read_paths([fifo])


def test_a_path_that_cannot_be_looked_at_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"

    def refuse(target: object, *args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "stat", refuse)
    with pytest.raises(ValueError, match=r"s\.jsonl: permission denied"):
        read_paths([path])


def test_a_file_that_fails_to_read_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(path: Path) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(text, "read_at", broken)
    with pytest.raises(ValueError, match="cannot read it: Input/output error"):
        read_source(tmp_path / "s.jsonl")


def test_a_meta_file_that_is_not_json_gives_no_description(tmp_path: Path) -> None:
    agent = tmp_path / "agent-1.jsonl"
    (tmp_path / "agent-1.meta.json").write_text("{not json", encoding="utf-8")
    assert description(agent) == ""


@pytest.mark.parametrize("value", [10**400, [2026], "2026-13-01"])
def test_a_time_of_no_calendar_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="line 3 timestamp"):
        epoch(value, "line 3 timestamp")
    assert epoch("2026-01-01T00:00:00", "t") == epoch("2026-01-01T00:00:00Z", "t")


def test_a_bill_checks_its_arguments() -> None:
    bill = read_bill(OPENHANDS)
    with pytest.raises(TypeError, match="index must be an int"):
        bill.call_cost("1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"index must be 1\.\."):
        bill.call_cost(0)
    with pytest.raises(TypeError, match="format must be a str"):
        read_bill(OPENHANDS, format=None)  # type: ignore[arg-type]
    assert isinstance(bill, Bill)


def test_a_usage_field_is_read_from_a_record_not_its_class() -> None:
    from context_budget.sessions import Call

    with pytest.raises(AttributeError, match="output_tokens is read from a record's usage"):
        _ = Call.output_tokens


def test_inspect_names_a_sub_folder_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from context_budget.cli import main

    (tmp_path / "s.jsonl").write_text('{"type": "user", "message": {"content": "hi"}}\n')
    (tmp_path / "locked").mkdir()
    scandir = os.scandir

    def refuse(path: Any = ".") -> Any:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    assert main(["inspect", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "locked: cannot read the folder: permission denied" in err


def test_a_response_id_that_is_not_a_string_is_no_key(tmp_path: Path) -> None:
    events = _events()
    _first_response(events)["id"] = ["not", "a", "key"]
    path = _json(tmp_path, "events.json", events)
    assert len(read_bill(path).calls) >= len(read_bill(OPENHANDS).calls)
    assert load_transcript(path).conversation


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)
_AROUND = st.sampled_from(["", " ", "\t", "\r", "\ufeff", "x", ",", "]", "}", " 1", "\u00a0"])
_LINE = (
    st.tuples(
        _AROUND, st.dictionaries(st.text(max_size=4), _JSON_VALUES) | _JSON_VALUES, _AROUND
    ).map(lambda parts: parts[0] + json.dumps(parts[1]) + parts[2])
    | st.text(max_size=12)
    | st.sampled_from(["", " ", "\r", '{"a": 1', '"b"}'])
)


def _line_by_line(text: str) -> list[tuple[int, dict[str, Any]]]:
    """The records as cutting the text into lines and reading each with `loads_json` gives."""
    records = []
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not valid JSON: {error.msg}") from None
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
        if not isinstance(record, dict):
            raise ValueError(
                f"line {number}: expected a record (an object), found {kind_of(record)}"
            )
        records.append((number, record))
    return records


def _outcome(read: Any, text: str) -> tuple[str, str]:
    try:
        return "records", repr(read(text))
    except ValueError as error:
        return type(error).__name__, str(error)


@given(st.lists(_LINE, max_size=5), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", "\n"]))
def test_json_lines_reads_each_line_as_cutting_it_out_and_reading_it_would(
    lines: list[str], separator: str, end: str
) -> None:
    text = separator.join(lines) + end
    assert _outcome(json_lines, text) == _outcome(_line_by_line, text)


@pytest.mark.parametrize(
    ("given", "same_as"),
    [
        ("2026-03-01t10:00:00z", "2026-03-01T10:00:00Z"),
        ("2026-03-01t10:00:00.25+05:30", "2026-03-01T10:00:00.25+05:30"),
        ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
        ("2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.5Z"),
    ],
)
def test_a_time_rfc_3339_allows_is_read(given: str, same_as: str) -> None:
    """RFC 3339 allows a lower-case `t` and `z`, and a leap second (`:60`, read as the
    instant POSIX time gives it: the next minute's first)."""
    assert epoch(given, "t") == epoch(same_as, "t")


@pytest.mark.parametrize("value", ["2026-03-01T10:00:61Z", "2026-03-01T10:60:00Z", "t10:00:60"])
def test_a_second_of_60_is_a_leap_second_and_no_other_is(value: str) -> None:
    with pytest.raises(ValueError, match="not an ISO time"):
        epoch(value, "t")


@pytest.mark.parametrize("text", [None, 5, b"[]", ["[]"]], ids=["none", "int", "bytes", "list"])
def test_read_text_refuses_what_is_no_text_naming_it(text: Any) -> None:
    # None was read as an empty file, 5 failed inside the detector on a missing method
    with pytest.raises(TypeError, match=r"^text must be a str \(a file's text\), got "):
        read_text(text)


@pytest.mark.parametrize(
    "sources", [None, "abc", [None], ["a.jsonl"]], ids=["none", "str", "none-in", "path-in"]
)
def test_read_sources_refuses_what_is_no_list_of_sources_naming_it(sources: Any) -> None:
    with pytest.raises(TypeError, match=r"^sources must be a list of Source, got "):
        read_sources(sources)


def test_read_sources_refuses_no_source_at_all() -> None:
    # an empty list was read as a Claude Code session of no file: no message, no call,
    # no error, as if a session had been found empty
    with pytest.raises(ValueError, match=r"^sources must hold one Source at least, got \[\]$"):
        read_sources([])


def test_read_paths_reads_one_path_as_read_bill_does_and_refuses_what_is_no_path() -> None:
    # one path given as a string was read letter by letter: "d: no such file or folder"
    folder = Path(__file__).parent / "fixtures" / "transcripts" / "openhands"
    one = read_paths(str(folder))
    assert [s.calls for s in one] == [s.calls for s in read_paths([folder])]
    assert one and read_paths(folder) is not None
    for bad in (None, 5, [None], [5]):
        with pytest.raises(TypeError, match=r"^paths must be a path or a list of paths, got "):
            read_paths(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("detect_format", (12345,), "text must be a str (a file's text), got 12345"),
        ("detect_format", (None,), "text must be a str (a file's text), got None"),
        ("checked_layers", (None,), "layers must be a Layers, got None"),
        ("decode", (None, "a.json"), "raw must be the file's bytes, got None"),
        ("agent_meta", (None,), "path must be a path, got None"),
        ("description", (12345,), "path must be a path, got 12345"),
        # a half-written last line was read, then noted with skipped.extend: a tuple (or
        # a string) failed there, on a missing attribute, after the reading
        (
            "read_text",
            ('{"a": 1}\n{"half', "auto", "s.jsonl", ()),
            "skipped must be a list or None, got tuple",
        ),
        (
            "read_sources",
            ([Source("s.jsonl", '{"half')], "auto", "no"),
            "skipped must be a list or None, got str",
        ),
        # a name of None failed inside pathlib, the argument unnamed
        ("read_text", ("[]", "auto", None), "name must be a str (the file's name), got None"),
    ],
)
def test_the_sessions_helpers_name_a_wrong_argument(
    name: str, arguments: tuple[Any, ...], said: str
) -> None:
    # each failed on a missing attribute (`'int' object has no attribute 'isspace'`), or,
    # given None for a file's text, said "the file is empty"
    import context_budget.sessions as sessions

    with pytest.raises(TypeError, match=f"^{re.escape(said)}$"):
        getattr(sessions, name)(*arguments)


def test_a_sub_agents_task_is_read_beside_a_path_given_as_a_string() -> None:
    folder = Path(__file__).parent / "fixtures" / "transcripts" / "synthetic"
    agent = next(folder.rglob("agent-*.jsonl"))
    assert description(str(agent)) == description(agent) != ""


def test_json_cut_inside_a_string_is_named_with_one_at() -> None:
    """A session's only line cut inside a string (a file chosen while its agent writes
    its first line) was 'Unterminated string starting at at line 1, column 8'."""
    with pytest.raises(FormatError) as raised:
        strict_json('{"type": "us')
    assert str(raised.value) == (
        "not valid JSON: Unterminated string starting at line 1, column 10"
    )
    with pytest.raises(FormatError, match=r"^not valid JSON: Expecting value at line 2, column 1$"):
        strict_json("\nx")


@pytest.mark.parametrize("folder", [None, 5, b"docs"])
def test_session_files_refuses_what_is_no_path_naming_it(folder: object) -> None:
    """`session_files(None)` raised os.walk's own words, naming neither the argument nor
    what it should be."""
    with pytest.raises(TypeError, match=r"^folder must be a path, got "):
        session_files(folder)  # type: ignore[arg-type]
