"""Claude Code session files: the main conversation, its sub-agents' threads, its compactions.

A session file is JSON Lines, one record a line. Records of type `"user"` and
`"assistant"` carry an Anthropic `message`; consecutive assistant records of
one thread with the same message id are one message (Claude Code writes each
block of a reply as a record of its own). Every other record (summaries,
snapshots, progress, system notes) is skipped and counted.

Threads stay apart. A record with `isSidechain: true` belongs to a sub-agent:
the thread of the record its `parentUuid` names, or a new thread when that is
`null` (or names no record read), so sub-agents that ran at the same time and
wrote their lines interleaved are told apart. Every other record belongs to
the main conversation. A sub-agent's own file (`agent-<id>.jsonl`, beside the
session or under `<session>/subagents/`) holds one such thread.

A `compact_boundary` system record, or a user record with `isCompactSummary`
that no boundary announced, starts a new segment of the main conversation: a
`Boundary` says where.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget._transcripts._common import (
    Boundary,
    Thread,
    as_blocks,
    count_of,
    json_lines,
    tally,
)
from context_budget.messages import Message

_MAIN = ""  # the key of the main conversation among the threads


@dataclass(frozen=True)
class File:
    """One file to read: its name (as given), its text, and a description (a `.meta.json`'s)."""

    name: str
    text: str
    description: str = ""


@dataclass
class _Building:
    """A thread while it is read: its name, file and task, its messages and their API ids."""

    name: str
    file: str
    description: str = ""
    messages: list[Message] = field(default_factory=list)
    ids: list[object] = field(default_factory=list)


def _new_thread(file: File, line: int, first_in_file: bool) -> _Building:
    """A sub-agent thread starting at `line` of `file`, named for its file or its line.

    A sub-agent's own file names its first thread (`agent-<id>`), and gives it
    the file's description; any other thread is named for the line it starts at.
    """
    if not _is_agent_file(file.name):
        return _Building(f"sidechain at line {line}", file.name)
    stem = PurePath(file.name).stem
    if first_in_file:
        return _Building(stem, file.name, file.description)
    return _Building(f"{stem}, sidechain at line {line}", file.name)


@dataclass(frozen=True)
class _Session:
    """What the files held: the main conversation, the threads, boundaries, records skipped."""

    messages: list[Message]
    threads: tuple[Thread, ...]
    boundaries: tuple[Boundary, ...]
    skipped: int


def _is_agent_file(name: str) -> bool:
    return PurePath(name).name.startswith("agent-")


def _session_id(records: list[tuple[int, dict[str, Any]]]) -> str | None:
    for _, record in records:
        if isinstance(record.get("sessionId"), str):
            return str(record["sessionId"])
    return None


def _check_one_session(
    files: Sequence[File], parsed: list[list[tuple[int, dict[str, Any]]]]
) -> None:
    """Several files are one session and its sub-agents: refuse two session files.

    Session files are told apart by the `sessionId` of their records; a
    sub-agent's own file (`agent-*.jsonl`) is not checked, whatever id it carries.
    """
    sessions: dict[str, str] = {}  # session id -> the first file naming it
    for file, records in zip(files, parsed, strict=True):
        session = None if _is_agent_file(file.name) else _session_id(records)
        if session is not None:
            sessions.setdefault(session, file.name)
    if len(sessions) > 1:
        named = ", ".join(PurePath(name).name for name in sessions.values())
        raise ValueError(
            f"the files hold {len(sessions)} sessions ({named}); "
            "give one session with its sub-agents' files"
        )


def read_claude_code(files: Sequence[File]) -> _Session:
    """The main conversation and the threads of Claude Code files; ValueError names the line."""
    parsed = []
    for file in files:
        try:
            parsed.append(json_lines(file.text))
        except ValueError as error:
            raise ValueError(f"{file.name}: {error}" if len(files) > 1 else str(error)) from None
    if len(files) > 1:
        _check_one_session(files, parsed)
    threads: dict[str, _Building] = {_MAIN: _Building("main", "")}
    thread_of: dict[str, str] = {}  # record uuid -> thread key
    boundaries: list[Boundary] = []
    skipped: dict[str, int] = {}
    for file, records in zip(files, parsed, strict=True):
        started = False  # has this file started a thread yet
        for number, record in records:
            key = _thread_key(record, thread_of)
            if key is None:  # a sub-agent's first record
                key = f"{file.name}:{number}"
                threads[key] = _new_thread(file, number, not started)
                started = True
            if isinstance(record.get("uuid"), str):
                thread_of[record["uuid"]] = key
            where = f"line {number}" if len(files) == 1 else f"{file.name}: line {number}"
            kind = record.get("type")
            main = threads[_MAIN].messages
            if key == _MAIN and kind == "system" and record.get("subtype") == "compact_boundary":
                boundaries.append(_boundary(record, len(main), number))
            if kind not in ("user", "assistant") or not isinstance(record.get("message"), dict):
                label = kind if isinstance(kind, str) else "(no type)"
                skipped[label] = skipped.get(label, 0) + 1
                continue
            summary = key == _MAIN and record.get("isCompactSummary") is True
            if summary and (not boundaries or boundaries[-1].index != len(main)):
                boundaries.append(Boundary(len(main), number))
            _add(threads[key], record, where)
    main = threads.pop(_MAIN).messages
    built = [
        Thread(thread.name, thread.messages, thread.description, thread.file)
        for thread in threads.values()
        if thread.messages
    ]
    if not main and not built:
        seen = tally(skipped) if skipped else "none"
        total = sum(skipped.values())
        raise ValueError(
            f"no conversation: {count_of(total, 'record')} ({seen}), "
            "none a user or assistant message"
        )
    if not main:
        if len(built) > 1:
            raise ValueError(
                f"no main conversation, only {len(built)} sub-agent threads; "
                "give the session file, or one sub-agent's file"
            )
        return _Session(built[0].messages, (), (), sum(skipped.values()))
    return _Session(main, tuple(_described(built, main)), tuple(boundaries), sum(skipped.values()))


def _thread_key(record: dict[str, Any], thread_of: dict[str, str]) -> str | None:
    """The thread a record belongs to; None when it starts a new sub-agent thread."""
    if record.get("isSidechain") is not True:
        return _MAIN
    parent = record.get("parentUuid")
    key = thread_of.get(parent) if isinstance(parent, str) else None
    return key if key is not None and key != _MAIN else None


def _boundary(record: dict[str, Any], index: int, line: int) -> Boundary:
    metadata = record.get("compactMetadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    trigger = metadata.get("trigger")
    tokens = metadata.get("preTokens")
    return Boundary(
        index,
        line,
        trigger if isinstance(trigger, str) else None,
        tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
    )


def _add(thread: _Building, record: dict[str, Any], where: str) -> None:
    """Add a user or assistant record's message to its thread, merging a reply's blocks."""
    message = record["message"]
    role = message.get("role", record["type"])
    content = message.get("content")
    if content is None:
        raise ValueError(f"{where}: the {role} message has no content")
    converted: Message = {"role": role, "content": content}
    try:
        check_message(converted)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{where}: {error}") from None
    message_id = message.get("id")
    messages, ids = thread.messages, thread.ids
    merge = (
        messages
        and role == "assistant"
        and messages[-1]["role"] == "assistant"
        and message_id is not None
        and ids[-1] == message_id
    )
    if merge:
        messages[-1]["content"] = as_blocks(messages[-1]["content"]) + as_blocks(content)
    else:
        messages.append(converted)
        ids.append(message_id)


def _prompt(messages: list[Message]) -> str | None:
    """The text of a thread's first message, the prompt it was given, or None."""
    content = messages[0]["content"]
    if isinstance(content, str):
        return content
    texts = [block["text"] for block in content if block["type"] == "text"]
    return texts[0] if texts else None


def _described(threads: list[Thread], main: list[Message]) -> list[Thread]:
    """The threads, each given the description of the main conversation's call that started it."""
    asked: dict[str, str] = {}  # prompt -> description, from the main conversation's Task calls
    for message in main:
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            tool_input = block.get("input") if block["type"] == "tool_use" else None
            if isinstance(tool_input, dict) and isinstance(tool_input.get("prompt"), str):
                description = tool_input.get("description")
                if isinstance(description, str):
                    asked.setdefault(tool_input["prompt"], description)
    described = []
    for thread in threads:
        description = thread.description or asked.get(_prompt(thread.messages) or "", "")
        described.append(Thread(thread.name, thread.messages, description, thread.file))
    return described
