"""load_transcript: the four formats, detection, and the real fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_budget import (
    FORMATS,
    Layers,
    budget_report,
    estimate_tokens,
    load_transcript,
    message_tokens,
    validate_history,
)
from context_budget.transcripts import _parse

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def records(*lines: dict[str, Any]) -> str:
    return "\n".join(json.dumps(line) for line in lines) + "\n"


def assistant_record(message_id: str, *blocks: dict[str, Any], sidechain: bool = False) -> dict:
    message = {"id": message_id, "role": "assistant", "content": list(blocks)}
    return {"type": "assistant", "isSidechain": sidechain, "message": message}


def user_record(content: Any) -> dict:
    return {"type": "user", "message": {"role": "user", "content": content}}


def use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": "a.py"}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "print('hi')"}


# ---------------------------------------------------------------- claude code


def test_records_of_one_api_message_are_one_message(tmp_path: Path) -> None:
    text = records(
        {"type": "summary", "summary": "s", "leafUuid": "u"},
        user_record("read a.py and b.py"),
        assistant_record("msg_1", {"type": "thinking", "thinking": "two reads", "signature": ""}),
        assistant_record("msg_1", use("t1")),
        assistant_record("msg_1", use("t2")),
        user_record([result("t1")]),
        user_record([result("t2")]),
        {"type": "file-history-snapshot", "snapshot": {}},
        assistant_record("msg_2", {"type": "text", "text": "Both print hi."}),
    )
    transcript = _parse(text)
    assert (transcript.format, transcript.detected, transcript.skipped) == ("claude-code", True, 2)
    roles = [message["role"] for message in transcript.layers.conversation]
    assert roles == ["user", "assistant", "user", "user", "assistant"]
    merged = transcript.layers.conversation[1]["content"]
    assert [block["type"] for block in merged] == ["thinking", "tool_use", "tool_use"]
    assert validate_history(transcript.layers.conversation) == []


def test_a_sidechain_file_reads_the_same_way(tmp_path: Path) -> None:
    text = records(
        user_record("find the bug"),
        assistant_record("m", use("t1"), sidechain=True),
        user_record([result("t1")]),
    )
    path = write(tmp_path, "agent-1234.jsonl", text)
    assert len(load_transcript(path).conversation) == 3
    assert len(load_transcript(str(path), "claude-code").conversation) == 3


def test_a_bad_claude_code_line_is_named(tmp_path: Path) -> None:
    text = records(user_record("q")) + "{not json\n"
    with pytest.raises(ValueError, match="line 2: not valid JSON"):
        _parse(text)
    with pytest.raises(ValueError, match="line 1: the user message has no content"):
        _parse(records({"type": "user", "message": {"role": "user"}}))
    with pytest.raises(TypeError, match=r"line 1: message, block 0 \(tool_use\) has 'input'"):
        _parse(records(assistant_record("m", use("t1") | {"input": "x"})))


# ---------------------------------------------------------------- openai


def test_tool_calls_are_converted_and_counted() -> None:
    # issue 7: tool_calls were ignored and a real trajectory was under-counted
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "ls -la"}'},
    }
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "List the files."}]},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py\nb.py"},
        {"role": "assistant", "content": "Two files."},
    ]
    layers = _parse(json.dumps({"messages": messages})).layers
    assert layers.system == "You are a helpful assistant.\n\nBe brief."
    use_block = layers.conversation[1]["content"][0]
    assert use_block == {
        "type": "tool_use",
        "id": "call_1",
        "name": "bash",
        "input": {"command": "ls -la"},
    }
    # counted by hand: the name, a space and the compact JSON input, plus framing
    assert (
        message_tokens(layers.conversation[1]) == estimate_tokens('bash {"command":"ls -la"}') + 5
    )
    assert layers.conversation[2]["content"][0]["tool_use_id"] == "call_1"
    assert validate_history(layers.conversation) == []


def test_a_tool_message_with_a_wrong_id_is_a_broken_pair() -> None:
    call = {"id": "call_1", "function": {"name": "bash", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_9", "content": "done"},
    ]
    problems = validate_history(_parse(json.dumps(messages)).layers.conversation)
    assert [(p.index, p.problem) for p in problems] == [
        (1, "unanswered call"),
        (2, "orphan result"),
    ]


def test_arguments_that_are_not_a_json_object_are_kept_as_text() -> None:
    call = {"id": "c", "function": {"name": "bash", "arguments": "ls -la"}}
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [call]}]
    block = _parse(json.dumps(messages)).layers.conversation[1]["content"][0]
    assert block["input"] == {"arguments": "ls -la"}


def test_a_tool_message_without_an_id_stays_shorthand() -> None:
    messages = [{"role": "user", "content": "go"}, {"role": "tool", "name": "bash", "content": "x"}]
    layers = _parse(json.dumps({"messages": messages})).layers
    assert layers.conversation[1] == {"role": "tool", "content": "x", "name": "bash"}


def test_a_bad_openai_message_is_named() -> None:
    with pytest.raises(TypeError, match="message 1, tool call 0: expected a tool call"):
        _parse(
            json.dumps(
                [{"role": "system", "content": "s"}, {"role": "assistant", "tool_calls": [7]}]
            )
        )


# ---------------------------------------------------------------- detection and errors


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"role": "user", "content": "hi"}]', "messages"),
        ('{"conversation": []}', "layers"),
        ('{"system": "s", "conversation": []}', "layers"),
        ('{"messages": []}', "openai"),
        ('[{"role": "system", "content": "s"}]', "openai"),
        ('[{"role": "tool", "tool_call_id": "c", "content": "x"}]', "openai"),
        ('{"type": "summary", "summary": "s"}', "claude-code"),
    ],
)
def test_auto_detection_picks_the_format(text: str, expected: str) -> None:
    transcript = _parse(text)
    assert (transcript.format, transcript.detected) == (expected, True)


def test_an_unknown_shape_is_one_line_naming_what_was_expected() -> None:
    with pytest.raises(ValueError, match=r"expected a list of messages.*found a number"):
        _parse("42")
    with pytest.raises(ValueError, match="format must be one of auto, messages"):
        _parse("[]", "yaml")
    with pytest.raises(TypeError, match="path must be a str or a Path"):
        load_transcript(42)  # type: ignore[arg-type]


def test_formats_are_the_documented_five() -> None:
    assert FORMATS == ("auto", "messages", "layers", "claude-code", "openai")


# ---------------------------------------------------------------- the real fixtures


def test_the_real_claude_code_session_reads_without_a_broken_pair() -> None:
    layers = load_transcript(FIXTURES / "claude_code_session.jsonl")
    assert isinstance(layers, Layers) and len(layers.conversation) == 7
    assert validate_history(layers.conversation) == []
    # a hand count of message 1: its text, then the Write call as name and compact JSON
    text = (
        "I'll create that function for you.\n"
        'Write {"content":"def hello():\\n    return \'Hello, World!\'\\n",'
        '"file_path":"/project/hello.py"}'
    )
    assert message_tokens(layers.conversation[1]) == -(-len(text) // 4) + 5 == 38


def test_the_real_mini_swe_agent_trajectory_reads_as_openai() -> None:
    path = FIXTURES / "mini_swe_agent_github_issue.traj.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    layers = load_transcript(path)
    assert layers.system == raw[0]["content"]
    assert [m["content"] for m in layers.conversation] == [m["content"] for m in raw[1:]]
    report = budget_report(layers)
    assert report["conversation"] == sum(estimate_tokens(m["content"]) + 5 for m in raw[1:])


# ---------------------------------------------------------------- odd shapes and records


def test_json_nested_too_deeply_is_refused_as_a_value_error_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for format in ("auto", "messages", "openai"):
        with pytest.raises(ValueError, match="the JSON is nested too deeply to read"):
            _parse(deep, format)


def test_a_forced_format_refuses_the_other_top_level_shape() -> None:
    with pytest.raises(ValueError, match=r"^expected a list of messages, found an object$"):
        _parse('{"conversation": []}', "messages")
    with pytest.raises(ValueError, match=r"expected an object with system, .* found a list$"):
        _parse("[]", "layers")
    with pytest.raises(ValueError, match=r"^the object has no 'messages' list$"):
        _parse('{"conversation": []}', "openai")
    with pytest.raises(ValueError, match=r"^expected a list of messages, found an object$"):
        _parse('{"messages": {"role": "user"}}')  # detected as openai


def test_claude_code_line_numbers_count_the_blank_lines() -> None:
    text = records(user_record("q")) + "\n   \n" + '{"type": "user", "message": [1}\n'
    with pytest.raises(ValueError, match=r"^line 4: not valid JSON"):
        _parse(text)
    blank_between = records(user_record("q")) + "\n" + records(user_record("again"))
    layers = _parse(blank_between).layers
    assert [m["content"] for m in layers.conversation] == ["q", "again"]


def test_a_claude_code_line_with_a_huge_number_is_named() -> None:
    text = records(user_record("q")) + '{"type": "user", "n": ' + "9" * 5000 + "}\n"
    with pytest.raises(ValueError, match=r"^line 2: a number has more than 4,300 digits"):
        _parse(text)


def test_a_claude_code_line_that_is_not_an_object_is_named() -> None:
    text = records(user_record("q")) + "[1, 2]\n"
    with pytest.raises(ValueError, match=r"^line 2: expected a record \(an object\), found a list"):
        _parse(text)
    with pytest.raises(ValueError, match=r"^line 1: expected a record .* found a string"):
        _parse('"hello"\n', "claude-code")


def test_openai_text_parts_are_joined_line_by_line() -> None:
    parts = [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}]
    messages = [
        {"role": "system", "content": parts},
        {"role": "user", "content": None},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "text"}]},
    ]
    layers = _parse(json.dumps(messages)).layers
    assert layers.system == "Be brief.\nBe kind."
    assert layers.conversation == [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "ok\n"},
    ]


@pytest.mark.parametrize(
    ("message", "error", "fragment"),
    [
        (
            {"role": "assistant", "content": ["plain"]},
            TypeError,
            "message 1, part 0: expected a text part, found a string",
        ),
        (
            {"role": "assistant", "content": [{"type": "text", "text": 3}]},
            TypeError,
            "message 1, part 0: expected a text part, found an object",
        ),
        (
            {"role": "tool", "tool_call_id": "c", "content": 5},
            TypeError,
            "message 1: content is a number, not a string or a list of parts",
        ),
        (
            {"role": "user", "content": 5},
            TypeError,
            "message 1: content is a number, not a string or a list of parts",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"text": "b"}]},
            TypeError,
            "message 1, part 1: expected a part with a 'type'",
        ),
        (7, TypeError, "message 1 has type a number, not an object"),
        (
            {"role": "assistant", "tool_calls": {"id": "c"}},
            TypeError,
            "message 1: tool_calls is an object, not a list",
        ),
        (
            {"role": "robot", "content": "beep"},
            ValueError,
            r"message 1 \(openai\): message 0 has role 'robot'",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": None}]},
            TypeError,
            r"message 1 \(openai\): message 0, block 0 \(text\) has 'text' of type NoneType",
        ),
    ],
    ids=[
        "part-not-an-object",
        "text-not-a-string",
        "tool-content-a-number",
        "user-content-a-number",
        "part-without-type",
        "message-not-an-object",
        "tool-calls-not-a-list",
        "unknown-role",
        "user-text-part-not-a-string",
    ],
)
def test_a_bad_openai_message_names_its_place_in_the_file(
    message: Any, error: type[Exception], fragment: str
) -> None:
    # message 0 is a system message: the file's index is named, not the conversation's
    messages = [{"role": "system", "content": "s"}, message]
    with pytest.raises(error, match=f"^{fragment}"):
        _parse(json.dumps(messages), "openai")


def test_openai_tool_call_arguments_become_the_tool_use_input() -> None:
    calls = [
        {"id": "c1", "function": {"name": "ls", "arguments": "  "}},
        {"id": "c2", "function": {"name": "ls", "arguments": "[1, 2]"}},
        {"id": "c3", "function": {"name": "ls", "arguments": {"path": "."}}},
        {"id": "c4", "function": {"name": "ls"}},
    ]
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls}]
    blocks = _parse(json.dumps(messages)).layers.conversation[1]["content"]
    assert [block["input"] for block in blocks] == [
        {},  # blank arguments: no arguments
        {"arguments": "[1, 2]"},  # JSON, but not an object: kept as text
        {"path": "."},  # already an object
        {},
    ]
    assert [block["id"] for block in blocks] == ["c1", "c2", "c3", "c4"]


def test_an_assistant_text_beside_tool_calls_is_a_text_block_first() -> None:
    call = {"id": "c1", "function": {"name": "ls", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Listing.", "tool_calls": [call]},
    ]
    content = _parse(json.dumps(messages)).layers.conversation[1]["content"]
    assert content == [
        {"type": "text", "text": "Listing."},
        {"type": "tool_use", "id": "c1", "name": "ls", "input": {}},
    ]


def test_a_file_that_is_not_utf8_names_the_byte_and_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    raw = '[{"role": "user", "content": "caf\xe9"}]'.encode("latin-1")
    path.write_bytes(raw)
    where = rf"latin1\.json: not UTF-8 text \(byte 0xe9 at offset {raw.index(0xE9)}\)$"
    with pytest.raises(ValueError, match=where):
        load_transcript(path)


def test_a_byte_order_mark_is_not_part_of_the_json(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'[{"role": "user", "content": "hi"}]')
    assert load_transcript(path).conversation == [{"role": "user", "content": "hi"}]
