"""load_transcript: the formats, detection, threads, and the real fixtures."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import context_budget.sessions.text as text_module
from context_budget import (
    FORMATS,
    Layers,
    budget_report,
    estimate_tokens,
    message_tokens,
    validate_history,
)
from context_budget.conversations import load_transcript
from context_budget.sessions import Session, Source, read_sources, read_text
from context_budget.sessions.text import (
    SourceError,
    check_utf8,
    decode,
    read_at,
    read_source,
    session_files,
)


def _parse(text: str, format: str = "auto") -> Session:
    """A file's text read through the session reader, its conversation checked."""
    return read_text(text, format).conversation()


def _parse_files(files: list[Source], format: str = "auto") -> Session:
    return read_sources(files, format).conversation()


def _folder(folder: Path, format: str = "auto") -> Session:
    return _parse_files([read_source(path) for path in session_files(folder)], format)


FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
#: The three MIT sessions ship once, with the chapter that reads them (its SOURCES
#: file gives their origin and licence).
PROJECT = Path(__file__).resolve().parents[1] / "docs" / "measured" / "sessions" / "sample-project"
BIG = PROJECT / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
MEDIUM = PROJECT / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
SMALL = PROJECT / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
COMPACTED = FIXTURES / "synthetic" / "claude-code-compacted"
ROLLOUT = FIXTURES / "synthetic" / "codex_rollout.jsonl"
TRAJECTORY = FIXTURES / "mini-swe-agent" / "astropy__astropy-12907.traj.json"
EVENTS = sorted((FIXTURES / "openhands").glob("*.json"))


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


def test_a_sidechain_file_reads_as_its_thread(tmp_path: Path) -> None:
    # a sub-agent's own file: every record a sidechain, one thread from its null parent
    text = records(
        user_record("find the bug") | {"isSidechain": True, "parentUuid": None, "uuid": "a"},
        assistant_record("m", use("t1"), sidechain=True) | {"parentUuid": "a", "uuid": "b"},
        user_record([result("t1")]) | {"isSidechain": True, "parentUuid": "b", "uuid": "c"},
    )
    path = write(tmp_path, "agent-1234.jsonl", text)
    assert len(load_transcript(path).conversation) == 3
    assert len(load_transcript(str(path), "claude-code").conversation) == 3
    assert _parse(text).threads == ()


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
    # a regression: tool_calls were once ignored and a real trajectory was under-counted
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
        ('{"type": "user", "message": {"role": "user", "content": "hi"}}', "claude-code"),
        (
            '{"type": "response_item", "payload": {"type": "message", "role": "user", '
            '"content": [{"type": "input_text", "text": "hi"}]}}',
            "codex",
        ),
        (
            '{"trajectory_format": "mini-swe-agent-1.1", "messages": '
            '[{"role": "user", "content": "hi"}]}',
            "mini-swe-agent",
        ),
        (
            '[{"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}}]',
            "openhands",
        ),
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


def test_formats_are_the_documented_eight() -> None:
    assert FORMATS == (
        "auto",
        "messages",
        "layers",
        "claude-code",
        "codex",
        "mini-swe-agent",
        "openhands",
        "openai",
    )


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


def test_a_claude_code_line_with_a_huge_number_is_read_by_what_the_reader_reads() -> None:
    huge = "9" * 5000
    text = records(user_record("q")) + '{"type": "user", "n": ' + huge + "}\n"
    assert [m["content"] for m in _parse(text).layers.conversation] == ["q"]  # `n` is not read
    message = '{"role": "user", "content": ' + huge + "}"
    text = records(user_record("q")) + '{"type": "user", "message": ' + message + "}\n"
    with pytest.raises((TypeError, ValueError), match=r"^line 2: "):  # the content, named
        _parse(text)


def test_a_claude_code_line_that_is_not_an_object_is_named() -> None:
    text = records(user_record("q")) + "[1, 2]\n"
    with pytest.raises(ValueError, match=r"^line 2: expected a record \(an object\), found a list"):
        _parse(text)
    with pytest.raises(ValueError, match=r"^line 1: expected a record .* found a string"):
        _parse('"hello"\n', "claude-code")


def test_an_openai_refusal_is_kept_as_the_assistants_text() -> None:
    # a refusal (the message's `refusal` field, or a content part of that type) was read
    # as an empty message: its words left out of the count
    messages = [
        {"role": "user", "content": "Write the exploit."},
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {"role": "user", "content": "Then explain it."},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "Not that either."}]},
    ]
    conversation = _parse(json.dumps(messages), "openai").layers.conversation
    assert conversation[1] == {"role": "assistant", "content": "I can't help with that."}
    assert conversation[3] == {"role": "assistant", "content": "Not that either."}


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
            r"message 1 has role 'robot'",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": None}]},
            TypeError,
            r"message 1, block 0 \(text\) has 'text' of type NoneType",
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
    # message 0 is a system message: the file's index is named, and only it (the
    # conversation's, one less, was named beside it)
    messages = [{"role": "system", "content": "s"}, message]
    with pytest.raises(error, match=f"^{fragment}") as raised:
        _parse(json.dumps(messages), "openai")
    assert "message 0" not in str(raised.value)


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


@pytest.mark.parametrize("mark", [b"", b"\xef\xbb\xbf"], ids=["no mark", "a byte-order mark"])
def test_a_line_that_is_not_utf8_is_named_by_its_byte_in_the_file(
    tmp_path: Path, mark: bytes
) -> None:
    """The offset counts every byte of the file, a byte-order mark too (the mark used to
    be left out of it, so the message named a byte of the mark)."""
    path = tmp_path / "later.jsonl"
    good = '{"type":"user","message":{"role":"user","content":"café ☕"}}\n'.encode()
    raw = mark + good + b'{"type":"user","message":{"role":"user","content":"caf\xe9"}}\n'
    path.write_bytes(raw)
    at = raw.index(b"\xe9")
    named = rf"later\.jsonl: not UTF-8 text \(byte 0xe9 at offset {at}\)$"
    with pytest.raises(ValueError, match=named):
        load_transcript(path)
    with pytest.raises(SourceError, match=named):
        read_source(path)  # as a bill reads each file
    with pytest.raises(ValueError, match=rf"not UTF-8 text \(byte 0xe9 at offset {at}\)$"):
        decode(raw, "later.jsonl")


@pytest.mark.parametrize("bytes_read", [True, False], ids=["msgspec", "json"])
def test_a_file_is_checked_and_read_alike_whichever_decoder_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bytes_read: bool
) -> None:
    """Where msgspec reads the bytes, the text is checked line by line and made only when
    read; where `json` reads the text, decoding it checks it: the same text, the same
    error."""
    monkeypatch.setattr(text_module, "_BYTES_READ", bytes_read)
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_bytes(b"\xef\xbb\xbf" + '{"a":"caf\u00e9 \u2615"}\n{"b":1}\n'.encode())
    bad.write_bytes(b'{"a":1}\n{"b":"caf\xe9"}\n')
    assert read_source(good).text == '{"a":"caf\u00e9 \u2615"}\n{"b":1}\n'
    with pytest.raises(
        SourceError, match=r"bad\.jsonl: not UTF-8 text \(byte 0xe9 at offset 17\)$"
    ):
        read_source(bad)


_PIECES = (b"a", b"\n", b"\r\n", b"\xc3\xa9", b"\xf0\x9f\xa7\xa9", b"\xff", b"\xc3", b"\x80")
_PIECES += (b"\xe2\x82", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\xf4\x90\x80\x80", b"\xc0\xaf")


@given(st.lists(st.sampled_from(_PIECES), max_size=14), st.booleans())
def test_checking_line_by_line_finds_what_decoding_the_whole_file_finds(
    pieces: list[bytes], marked: bool
) -> None:
    """`check_utf8` decodes only the lines that are not ASCII, each alone: it refuses the
    bytes `decode` refuses, naming the same byte at the same offset."""
    raw = (b"\xef\xbb\xbf" if marked else b"") + b"".join(pieces)
    try:
        decode(raw, "f")
        whole = None
    except ValueError as error:
        whole = str(error)
    try:
        check_utf8(raw, "f")
        lines = None
    except ValueError as error:
        lines = str(error)
    assert lines == whole


def test_a_byte_order_mark_is_not_part_of_the_json(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'[{"role": "user", "content": "hi"}]')
    assert load_transcript(path).conversation == [{"role": "user", "content": "hi"}]


# ---------------------------------------------------------------- claude code threads


def sidechain(record: dict[str, Any], uuid: str, parent: str | None) -> dict[str, Any]:
    return record | {"isSidechain": True, "uuid": uuid, "parentUuid": parent}


def test_sub_agents_are_kept_out_of_the_main_conversation() -> None:
    # a bug: 775 KB of inline sub-agent records were merged into the main conversation,
    # reported as 71,357 tokens with 10 broken pairs
    layers = load_transcript(BIG)
    assert len(layers.conversation) == 23
    assert budget_report(layers)["total"] == 5_972
    assert validate_history(layers.conversation) == []


@pytest.mark.parametrize("path", [BIG, MEDIUM, SMALL], ids=lambda path: path.name[:8])
def test_every_real_session_has_no_broken_pair_in_any_thread(path: Path) -> None:
    transcript = _parse(path.read_text(encoding="utf-8"))
    assert validate_history(transcript.layers.conversation) == []
    for thread in transcript.threads:
        assert validate_history(thread.messages) == [], thread.name


def test_the_inline_threads_are_named_with_the_task_that_started_them() -> None:
    transcript = _parse(BIG.read_text(encoding="utf-8"))
    assert [(t.name, len(t.messages), t.description) for t in transcript.threads] == [
        ("fe5e1c67/sidechain-1", 18, "Build TODO components"),
        ("fe5e1c67/sidechain-2", 68, "Setup Next.js project"),
        ("fe5e1c67/sidechain-3", 80, "Create data models"),
        ("fe5e1c67/sidechain-4", 50, "Implement state management"),
        ("fe5e1c67/sidechain-5", 106, "Create main page integration"),
    ]
    # every user and assistant record is in exactly one thread: none lost, none twice
    lines = [json.loads(line) for line in BIG.read_text(encoding="utf-8").splitlines()]
    side_ids = {
        r["message"].get("id") for r in lines if r.get("isSidechain") and r["type"] == "assistant"
    }
    read_ids = {
        block["id"]
        for thread in transcript.threads
        for message in thread.messages
        if message["role"] == "assistant"
        for block in message["content"]
        if block["type"] == "tool_use"
    }
    side_uses = {
        block["id"]
        for r in lines
        if r.get("isSidechain") and r["type"] == "assistant"
        for block in r["message"]["content"]
        if block["type"] == "tool_use"
    }
    assert read_ids == side_uses and len(side_ids) > 5


def test_interleaved_sub_agents_are_told_apart_by_their_parents() -> None:
    # two sub-agents running at once write their lines interleaved
    text = records(
        user_record("go") | {"uuid": "m1", "parentUuid": None},
        sidechain(user_record("agent A"), "a1", None),
        sidechain(user_record("agent B"), "b1", None),
        sidechain(assistant_record("ma", use("ta")), "a2", "a1"),
        sidechain(assistant_record("mb", use("tb")), "b2", "b1"),
        sidechain(user_record([result("tb")]), "b3", "b2"),
        sidechain(user_record([result("ta")]), "a3", "a2"),
        assistant_record("m2", {"type": "text", "text": "both done"}) | {"parentUuid": "m1"},
    )
    transcript = _parse(text)
    assert transcript.layers.conversation[0]["content"] == "go"
    assert len(transcript.layers.conversation) == 2
    a, b = transcript.threads
    assert a.messages[0]["content"] == "agent A"
    assert b.messages[0]["content"] == "agent B"
    assert (
        [m["role"] for m in a.messages]
        == [m["role"] for m in b.messages]
        == [
            "user",
            "assistant",
            "user",
        ]
    )
    assert b.messages[2]["content"][0]["tool_use_id"] == "tb"
    assert validate_history(a.messages) == validate_history(b.messages) == []
    assert (a.name, b.name) == ("sidechain-1", "sidechain-2")


def test_a_folder_gives_the_session_and_its_subagents_folder() -> None:
    # the sub-agent's task comes from the .meta.json beside its file
    transcript = _folder(COMPACTED, "auto")
    assert [(t.name, len(t.messages), t.description) for t in transcript.threads] == [
        ("0d9b6c1e/agent-a7c41f2", 5, "Map total changes")
    ]
    layers = load_transcript(COMPACTED)
    assert layers.conversation == transcript.layers.conversation
    assert validate_history(layers.conversation) == []
    assert validate_history(transcript.threads[0].messages) == []


def test_a_compaction_boundary_starts_a_segment_and_says_where() -> None:
    session = next(COMPACTED.glob("*.jsonl"))
    transcript = _parse(session.read_text(encoding="utf-8"))
    (boundary,) = transcript.boundaries
    assert (boundary.index, boundary.line, boundary.trigger, boundary.pre_tokens) == (
        8,
        14,
        "manual",
        15_342,
    )
    summary = transcript.layers.conversation[boundary.index]
    assert summary["content"].startswith("This session is being continued")
    # the tool search's result, a tool_reference block, is read and paired
    reference = transcript.layers.conversation[4]["content"][0]["content"][0]
    assert reference == {"type": "tool_reference", "tool_name": "mcp__ci__run_tests"}


def test_a_compact_summary_without_a_boundary_still_starts_a_segment() -> None:
    text = records(
        user_record("q"),
        assistant_record("m1", {"type": "text", "text": "a"}),
        user_record("Summary: q was asked.") | {"isCompactSummary": True},
        assistant_record("m2", {"type": "text", "text": "b"}),
    )
    assert [(b.index, b.line) for b in _parse(text).boundaries] == [(2, 3)]


def test_a_real_project_folder_of_three_sessions_is_refused_naming_them() -> None:
    with pytest.raises(ValueError, match=r"^the files hold 3 sessions \(1af7fc5e-.*\); give one"):
        load_transcript(PROJECT)


def test_a_session_with_its_agent_files_names_each_thread() -> None:
    paths = [MEDIUM, *sorted(PROJECT.glob("agent-*.jsonl"))]
    transcript = _parse_files([Source(p.name, p.read_text(encoding="utf-8")) for p in paths])
    assert [(t.name, len(t.messages)) for t in transcript.threads] == [
        ("5c0375b4/sidechain-1", 6),
        ("5c0375b4/sidechain-2", 14),
        ("5c0375b4/agent-test-hash-123", 2),
        ("5c0375b4/agent-test-hash-456", 2),
    ]
    assert transcript.files == tuple(p.name for p in paths)


def test_records_with_no_conversation_are_refused_saying_what_was_seen() -> None:
    with pytest.raises(
        ValueError,
        match=r"^no conversation: 3 records \(summary 2, file-history-snapshot 1\), none a user",
    ):
        _parse(
            records(
                {"type": "summary", "summary": "s"},
                {"type": "file-history-snapshot"},
                {"type": "summary", "summary": "t"},
            )
        )
    with pytest.raises(ValueError, match=r"^no main conversation, only 2 sub-agent threads"):
        _parse(
            records(sidechain(user_record("a"), "a", None), sidechain(user_record("b"), "b", None))
        )


def test_a_line_of_another_file_is_named_with_its_file() -> None:
    files = [Source("s.jsonl", records(user_record("q"))), Source("agent-1.jsonl", "{bad\n")]
    with pytest.raises(ValueError, match=r"^agent-1\.jsonl: line 1: not valid JSON"):
        _parse_files(files)
    with pytest.raises(ValueError, match="not as openai"):
        _parse_files(files, "openai")


# ---------------------------------------------------------------- codex


def test_a_codex_rollout_is_read_not_taken_for_an_empty_claude_code_session() -> None:
    # a bug: a rollout was read as a Claude Code session with 0 messages, exit 0
    transcript = _parse(ROLLOUT.read_text(encoding="utf-8"))
    assert (transcript.format, transcript.detected, transcript.skipped) == ("codex", True, 9)
    layers = transcript.layers
    assert layers.system.startswith("You are Codex") and "<permissions" in layers.system
    roles = [
        (m["role"], [b["type"] for b in m["content"]] if isinstance(m["content"], list) else "text")
        for m in layers.conversation
    ]
    assert roles == [
        ("user", "text"),
        ("user", "text"),
        ("assistant", ["thinking", "tool_use"]),
        ("user", ["tool_result"]),
        ("assistant", ["tool_use"]),  # the reasoning kept only encrypted has no text
        ("user", ["tool_result"]),
        ("assistant", ["text"]),
    ]
    assert layers.conversation[4]["content"][0]["input"]["input"].startswith("*** Begin Patch")
    assert validate_history(layers.conversation) == []


def test_a_codex_rollout_with_no_conversation_is_refused() -> None:
    meta = {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}
    count = {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count"}}
    with pytest.raises(ValueError, match=r"^a Codex rollout with no conversation: 2 lines"):
        _parse(records(meta, count))
    with pytest.raises(ValueError, match=r"^no conversation: 2 records \(event_msg 1, session"):
        _parse(records(meta, count), "claude-code")


# ---------------------------------------------------------------- mini-swe-agent


def test_a_mini_swe_agent_trajectory_ends_in_its_final_output_not_a_turn() -> None:
    # a bug: the last message, role "exit", made the trajectory unreadable
    raw = json.loads(TRAJECTORY.read_text(encoding="utf-8"))
    transcript = _parse(TRAJECTORY.read_text(encoding="utf-8"))
    assert (transcript.format, transcript.detected) == ("mini-swe-agent", True)
    conversation = transcript.layers.conversation
    assert len(conversation) == len(raw["messages"]) - 2  # the system message and the exit
    assert transcript.final is not None
    assert (transcript.final.status, transcript.final.text) == (
        "Submitted",
        raw["info"]["submission"],
    )
    assert (
        sum(m["role"] == "assistant" for m in conversation)
        == raw["info"]["model_stats"]["api_calls"]
    )
    assert validate_history(conversation) == []


def test_an_exit_message_before_the_end_is_refused() -> None:
    trajectory = {
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [{"role": "exit", "content": "x"}, {"role": "user", "content": "q"}],
    }
    with pytest.raises(ValueError, match=r"^message 0 has role 'exit'.* not the last of the 2"):
        _parse(json.dumps(trajectory))


# ---------------------------------------------------------------- openhands


@pytest.mark.parametrize("path", EVENTS, ids=lambda path: path.stem)
def test_real_openhands_events_read_one_reply_per_model_response(path: Path) -> None:
    events = json.loads(path.read_text(encoding="utf-8"))
    transcript = _parse(path.read_text(encoding="utf-8"))
    assert (transcript.format, transcript.detected) == ("openhands", True)
    conversation = transcript.layers.conversation
    responses = {
        e["tool_call_metadata"]["model_response"]["id"]
        for e in events
        if (e.get("tool_call_metadata") or {}).get("model_response")
    }
    spoken = [e for e in events if e["source"] == "agent" and e.get("action") == "message"]
    plain = [e for e in spoken if not (e.get("tool_call_metadata") or {}).get("model_response")]
    assert sum(m["role"] == "assistant" for m in conversation) == len(responses) + len(plain)
    observed = [
        e
        for e in events
        if "observation" in e and (e.get("tool_call_metadata") or {}).get("tool_call_id")
    ]
    results = [
        b
        for m in conversation
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    assert len(results) == len(observed)
    assert validate_history(conversation) == []
    assert len(conversation) + transcript.skipped == len(events)


def test_events_with_no_conversation_are_refused() -> None:
    events = [{"id": 0, "source": "environment", "observation": "agent_state_changed"}]
    with pytest.raises(
        ValueError,
        match=r"^OpenHands events with no conversation: 1 event \(agent_state_changed 1\)",
    ):
        _parse(json.dumps(events))


# ---------------------------------------------------------------- generated sessions


def link(chain: list[dict[str, Any]], record: dict[str, Any]) -> None:
    """Append `record` to a thread's chain, its parent the chain's last record."""
    head = chain[0]
    parent = chain[-1]["uuid"] if len(chain) > 1 else None
    uuid = f"{head['thread']}-{len(chain)}"
    chain.append(record | {"isSidechain": head["side"], "uuid": uuid, "parentUuid": parent})


@st.composite
def interleaved_session(draw: st.DrawFn) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """Sub-agent threads (each a list of records, in order) and one interleaving of them.

    Thread 0 is the main conversation. Each thread opens with a prompt whose
    parent is null, then rounds of an assistant reply (one record per block:
    text, then one or more parallel calls, all with one message id) and a user
    record per result; the records of all threads are then shuffled, each
    thread's own order kept, as parallel sub-agents write them.
    """
    count = draw(st.integers(1, 4))
    threads = []
    for number in range(count):
        side = number > 0
        chain: list[dict[str, Any]] = [{"thread": number, "side": side}]  # dropped below

        link(chain, user_record(draw(st.text("ab é\u2028😀", min_size=1, max_size=8))))
        for round_number in range(draw(st.integers(0, 3))):
            calls = [f"t{number}-{round_number}-{n}" for n in range(draw(st.integers(1, 3)))]
            message_id = f"msg-{number}-{round_number}"
            text = {"type": "text", "text": "checking"}
            link(chain, assistant_record(message_id, text, sidechain=side))
            for call_id in calls:
                link(chain, assistant_record(message_id, use(call_id), sidechain=side))
            for call_id in calls:
                link(chain, user_record([result(call_id)]))
        threads.append(chain[1:])
    order = draw(st.permutations([n for n, chain in enumerate(threads) for _ in chain]))
    cursors = [0] * count
    lines = []
    for thread in order:
        lines.append(threads[thread][cursors[thread]])
        cursors[thread] += 1
    return threads, lines


@given(interleaved_session())
def test_interleaved_threads_read_back_as_each_was_written(
    session: tuple[list[list[dict[str, Any]]], list[dict[str, Any]]],
) -> None:
    threads, lines = session

    def raw(*lines: dict[str, Any]) -> str:
        # as a JavaScript writer leaves them: U+2028 and emoji unescaped inside strings
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)

    transcript = _parse(raw(*lines))
    alone = [_parse(raw(*chain)).layers.conversation for chain in threads]
    assert transcript.layers.conversation == alone[0]
    # the threads come in the order they start in the file
    starts = sorted(range(1, len(threads)), key=lambda n: lines.index(threads[n][0]))
    assert [thread.messages for thread in transcript.threads] == [alone[n] for n in starts]
    for messages in alone:
        assert validate_history(messages) == []


@pytest.mark.parametrize(
    "record",
    [
        {
            "type": "user",
            "isSidechain": True,
            "parentUuid": 5,
            "uuid": ["x"],
            "message": {"content": "q"},
        },
        {
            "type": "user",
            "isSidechain": "true",
            "parentUuid": {"a": 1},
            "message": {"content": "q"},
        },
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"preTokens": True}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": [1]},
    ],
    ids=["odd-ids", "sidechain-as-text", "pre-tokens-a-boolean", "metadata-a-list"],
)
def test_odd_linking_fields_never_crash_the_reader(record: dict[str, Any]) -> None:
    transcript = _parse(records(user_record("first"), record, user_record("last")))
    assert transcript.layers.conversation[0]["content"] == "first"
    assert all(boundary.pre_tokens is None for boundary in transcript.boundaries)


@pytest.mark.parametrize(
    ("payload", "error", "fragment"),
    [
        (
            {"type": "message", "role": "user", "content": 5},
            TypeError,
            "line 1: content is a number",
        ),
        (
            {"type": "message", "role": None, "content": "x"},
            ValueError,
            "line 1 (codex): message 0",
        ),
        ({"type": "function_call", "name": "ls", "arguments": "{}"}, TypeError, "'id' of type"),
    ],
    ids=["content-a-number", "no-role", "call-without-id"],
)
def test_a_bad_codex_item_names_its_line(
    payload: dict[str, Any], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=re.escape(fragment)):
        _parse(records({"timestamp": "t", "type": "response_item", "payload": payload}))


def test_a_line_separator_inside_a_string_is_not_a_line_end() -> None:
    # a bug: U+2028, which JavaScript writers leave unescaped, split a record in two
    text = json.dumps(user_record("one\u2028two\x85three\x0cfour"), ensure_ascii=False) + "\r\n"
    assert "\u2028" in text
    layers = _parse(text).layers
    assert layers.conversation == [{"role": "user", "content": "one\u2028two\x85three\x0cfour"}]


def test_an_exit_message_with_nulls_gives_an_empty_status_not_none() -> None:
    trajectory = {
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "exit", "content": None, "extra": {"exit_status": None, "submission": None}},
        ],
    }
    final = _parse(json.dumps(trajectory)).final
    assert final is not None and (final.status, final.text) == ("", "")


def test_an_agent_file_with_an_id_of_its_own_still_joins_the_session() -> None:
    agent = records(sidechain(user_record("look") | {"sessionId": "agent-own"}, "a", None))
    session = records(user_record("q") | {"sessionId": "s1"})
    transcript = _parse_files([Source("s1.jsonl", session), Source("agent-9.jsonl", agent)])
    assert [t.name for t in transcript.threads] == ["s1/agent-9"]
    with pytest.raises(ValueError, match=r"^the files hold 2 sessions \(s1\.jsonl, s2\.jsonl\)"):
        _parse_files(
            [Source("s1.jsonl", session), Source("s2.jsonl", session.replace('"s1"', '"s2"'))]
        )


@pytest.mark.parametrize("reads", ["os.pread", "open"])
@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 200_001])
def test_a_files_bytes_are_read_whole_or_from_where_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int, reads: str
) -> None:
    if reads == "open":  # a system without `os.pread`
        monkeypatch.delattr(os, "pread", raising=False)
    path = tmp_path / "f.jsonl"
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path.write_bytes(data)
    assert read_at(path) == data == path.read_bytes()
    assert read_at(path, size // 2) == data[size // 2 :]
    assert read_at(path, 1, 3) == data[1:4] and read_at(path, size + 5, 3) == b""
    with pytest.raises(IsADirectoryError):
        read_at(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_at(tmp_path / "missing.jsonl")


def test_an_empty_path_is_refused_not_read_as_the_folder_one_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Path("")` is `.`: an unset variable read every session under the working folder
    (here one that holds a session), as `read_bill` refuses to."""
    shutil.copy(SMALL, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert load_transcript(".").conversation  # the folder itself is read
    with pytest.raises(ValueError, match=r"^an empty path names no file or folder"):
        load_transcript("")


def test_an_error_of_one_file_names_the_file(tmp_path: Path) -> None:
    """A loop over files got `line 11: not valid JSON` and no word of which file (a line
    broken in the middle, here: a half-written last line is read without)."""
    live = tmp_path / "live.jsonl"
    lines = SMALL.read_text(encoding="utf-8").splitlines()
    live.write_text("\n".join([*lines[:10], '{"type":"assistant","mess', *lines[10:]]), "utf-8")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(live))}: line 11: not valid JSON"):
        load_transcript(live)
    empty = tmp_path / "empty.json"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(empty))}: the file is empty$"):
        load_transcript(empty)


_LIVE = (
    Path(__file__).resolve().parent.parent
    / "docs/measured/sessions/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
)


@pytest.mark.parametrize("given", ["file", "folder"])
def test_a_live_session_reads_without_its_half_written_last_line(
    tmp_path: Path, given: str
) -> None:
    """A session being written ends in a half-written line: it was an error for the file."""
    whole = _LIVE.read_text(encoding="utf-8")
    path = tmp_path / _LIVE.name
    path.write_text(whole + '{"parentUuid":"x","type":"assistant","message":{"id":"m', "utf-8")
    lines = whole.count("\n") + 1
    named = path if given == "file" else tmp_path
    with pytest.warns(UserWarning, match=rf"1 half-written line \({_LIVE.name}:{lines}\)"):
        layers = load_transcript(named)
    assert layers == load_transcript(_LIVE)
    noted: list[Any] = []
    assert load_transcript(named, skipped=noted) == layers
    assert [(skip.kind, skip.line) for skip in noted] == [("half-written line", lines)]
    with pytest.raises(TypeError, match="skipped must be a list"):
        load_transcript(named, skipped=())  # type: ignore[arg-type]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_or_a_link_to_nothing_in_a_folder_is_named(tmp_path: Path) -> None:
    """Both were left out of a folder's read without a word."""
    (tmp_path / _LIVE.name).write_bytes(_LIVE.read_bytes())
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "moved.jsonl").symlink_to(tmp_path / "gone.jsonl")
    with pytest.warns(UserWarning, match=r"2 files that are no session \(moved\.jsonl, pipe"):
        layers = load_transcript(tmp_path)
    assert layers == load_transcript(_LIVE)
    noted: list[Any] = []
    load_transcript(tmp_path, skipped=noted)
    assert [(skip.kind, skip.place) for skip in noted] == [
        ("not a session", "moved.jsonl"),
        ("not a session", "pipe.jsonl"),
    ]
    (tmp_path / _LIVE.name).unlink()
    with pytest.raises(ValueError, match=r"moved\.jsonl: a symbolic link to .*gone\.jsonl"):
        load_transcript(tmp_path)


def test_a_broken_line_in_the_middle_of_a_transcript_is_still_an_error(tmp_path: Path) -> None:
    lines = _LIVE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / _LIVE.name
    path.write_text("\n".join([*lines[:3], '{"type":"ass', *lines[3:]]) + "\n", "utf-8")
    with pytest.raises(ValueError, match="line 4: not valid JSON"):
        load_transcript(path, skipped=[])


@pytest.mark.parametrize(
    ("text", "found"),
    [('[{"role": "user", "content": "hi"}]', "a list"), ('{"info": {}}', "an object without")],
    ids=["a-list", "no-messages"],
)
def test_a_file_that_is_no_trajectory_says_what_was_found(text: str, found: str) -> None:
    with pytest.raises(ValueError, match=rf"\(an object with messages\), found {found}"):
        _parse(text, "mini-swe-agent")
