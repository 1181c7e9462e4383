"""Claude Code session files: the conversation, its sub-agents, its compactions, its calls.

A session file is JSON Lines, one record a line. Records of type `"user"` and
`"assistant"` carry an Anthropic `message`; consecutive assistant records of
one thread with the same message id are one message (Claude Code writes each
block of a reply as a record of its own). Every other record (summaries,
snapshots, progress, system notes) is skipped as a message and counted.

Threads, each named `<session>/<thread>` (`<session>`: the first part of the
`sessionId`, a random UUID):

- `main`: every record of a session file without `isSidechain: true`;
- `sidechain-N`: a sub-agent written inline (`isSidechain: true`): the thread
  of the record its `parentUuid` names, or the Nth new thread of the file
  when that is `null` or names no record read, so sub-agents that ran at the
  same time and wrote their lines interleaved are told apart;
- `agent-<id>`: every record of a sub-agent's own file (`agent-<id>.jsonl`,
  beside the session or under `<session>/subagents/`), whatever its records
  point to (a compaction sub-agent's first records point into the session).

Files are read session by session: each session file, in the order given, then
the sub-agents' files under its `<session>/` folder (which join its session,
whatever id their records carry); sub-agents' files beside the sessions come
last, each joining the one session read, where there is one, else the session
its records name.
Each thread is a `ThreadId`; a sub-agent's carries its type where the files
name it: the `agentType` of its `.meta.json`, else the `subagent_type` of
the `Task` call of its session's main conversation whose prompt it was given
(for one known only from `progress` lines, the call their `parentToolUseID`
names). Its description comes the same way.

Compaction: a `compact_boundary` system record of the main thread, or a user
record with `isCompactSummary` that no boundary announced, starts a new
segment of the main conversation (a `Boundary`); a call's `segment` counts the
boundaries before it.

Calls: usage sits on assistant records at `message.usage`. One API response
is several records with the same `message.id` and `requestId`, the input side
repeated: a call is keyed on both, a record missing its request id joining
the response of its message id read before (two records are two calls only
when they name two different requests); of its copies the one outside a
sidechain wins, else the one with the larger token total, keeping the time
and parent of the first. Error
records (`<synthetic>` model, `isApiErrorMessage`) made no billed call. A
response that carries the API's diagnosis of a cache miss
(`message.diagnostics.cache_miss_reason.type`) gives it to its call as
`provider_reason`.

Sub-agent calls in `progress` lines: a session file copies each sub-agent's
records into `progress` lines (`data.type: "agent_progress"`, `data.agentId`,
the record at `data.message`). A copied call whose message id no file read
records (the sub-agent's own file is missing) is counted on the thread
`agent-<agentId>`, its streamed copies folded as above; one a file records is
a duplicate and left out. Such a sub-agent is a thread too, its messages the
copied records', unless its own file was read.

A bill reads the calls alone (`read(..., messages=False)`): the records are
read through the same shape (`RECORD`) and walked by the same reader, which
then builds no message, checks none, and decodes a message's content only
where a sub-agent's prompt or a `Task` call is looked for; where a message
sits (`Place`) is kept for every record, what its line records (its event)
read again from the line when a rebuild's trigger is looked for there.

A bill's read of many files (`SPLIT_BYTES`, 32 MiB or more, all told) is done on two cores
where a child process can be forked (`_aside.can_fork`): the files, in the
order they are read, are cut in two between two sessions (between two folders
where that is near the middle); a child reads the later part and sends back its
calls (`_packed`) and the rest of what it found; this process, having read the
earlier part, folds each of those calls in the order read, as one pass would.
Where the parts touch so that no merge is exact (a thread in both, a sidechain
whose parent only the earlier part holds, a malformed figure, a line that is
no record), the files are read again in one pass. A bill asks for more
(`read_parts`): each process also works out its own part's figures, its
sessions read alone, as soon as its read ends; where the parts hold whole
sessions and share nothing one pass would join (`_untouched`: no response,
`progress` copy or record in both, no parent only the other holds), the
child's calls are folded in only when the whole read is asked for (`Parts`).
"""

from __future__ import annotations

import codecs
import marshal
import os
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from itertools import accumulate, chain
from pathlib import Path, PurePath
from typing import Any, Generic, TypeVar
from weakref import finalize

from context_budget._aside import SPLIT_BYTES, Frames, aside_frames, can_fork
from context_budget._checks import check_message
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions._packed import packed, unpacked
from context_budget.sessions.records import (
    ABSENT,
    ANY,
    OPTIONAL,
    RAW,
    Shape,
    records,
    undecoded_holds,
    value,
)
from context_budget.sessions.session import (
    Boundary,
    Call,
    PlaceLine,
    Places,
    Session,
    Thread,
    ThreadId,
    ThreadKind,
)
from context_budget.sessions.skips import Skip, bad_usage_line
from context_budget.sessions.text import (
    FileSource,
    Source,
    SourceError,
    as_blocks,
    count_of,
    epoch,
    gc_paused,
    line_spans,
    read_at,
    tally,
)
from context_budget.usage import Usage

__all__ = [
    "RECORD",
    "START_OUTPUT_MOST",
    "Parts",
    "Work",
    "is_agent_file",
    "is_session_record",
    "read",
    "read_parts",
]

T = TypeVar("T")

#: Record types of a Claude Code session file (a first record of another type with a
#: `sessionId`, `uuid` or `leafUuid` is one too).
RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "attachment",
        "ai-title",
    }
)

_MESSAGE = Shape(
    "ClaudeMessage",
    id=ANY,
    model=ANY,
    role=OPTIONAL,
    usage=OPTIONAL,
    diagnostics=ANY,
    stop_reason=ANY,
    content=RAW,
)
#: The record a `progress` line copies from a sub-agent.
_COPIED = Shape("ClaudeCopied", type=ANY, timestamp=OPTIONAL, message=_MESSAGE)
_PROGRESS = Shape("ClaudeProgress", type=ANY, agentId=ANY, message=_COPIED)
#: What the reader reads of a line of a session file: every field it reads, here alone.
RECORD = Shape(
    "ClaudeRecord",
    type=ANY,
    uuid=ANY,
    parentUuid=ANY,
    isSidechain=ANY,
    sessionId=ANY,
    timestamp=ANY,
    requestId=ANY,
    isApiErrorMessage=ANY,
    isCompactSummary=ANY,
    subtype=ANY,
    compactMetadata=ANY,
    parentToolUseID=ANY,
    cwd=ANY,
    message=_MESSAGE,
    data=_PROGRESS,
    content=RAW,
    attachment=RAW,
)
_MESSAGES = (_MESSAGE.cls,)

#: The most output tokens a response's lines record when Claude Code kept only the
#: count its stream began with (the `message_start` event's), never the final one:
#: every line then names no `stop_reason`. Reported for Claude Code 2.1.29
#: (https://github.com/anthropics/claude-code/issues/22671: no line above 29;
#: https://github.com/anthropics/claude-code/issues/25941: mostly 1 or 2); the
#: course's sample sessions (1.0.98) hold such responses too.
START_OUTPUT_MOST = 29


def _started_only(message: Any, usage: Usage) -> bool:
    """True when a response line's output count may be only its stream's first:
    it names no stop reason and counts at most `START_OUTPUT_MOST` tokens."""
    return message.stop_reason is None and usage.output_tokens <= START_OUTPUT_MOST


def is_session_record(record: dict[str, Any]) -> bool:
    """True for a record only Claude Code writes: a known type, or its linking ids."""
    kind = record.get("type")
    known = isinstance(kind, str) and kind in RECORD_TYPES
    return known or bool({"sessionId", "leafUuid", "uuid"} & set(record))


def is_agent_file(name: str) -> bool:
    """True for a sub-agent's own file (`agent-*.jsonl`): its path's last part, as
    `PurePath` names it, starts so."""
    last = name.rpartition("/")[2]  # a bill asks several times of every file: no path built
    if os.altsep is not None or last in ("", ".", ".."):  # `\\`, `dir/`, `dir/.`: as named
        last = PurePath(name).name
    return last.startswith("agent-")


def _short(session: str) -> str:
    """A session id's first dash-separated part (a random UUID's first 8 hex digits)."""
    return session.split("-", 1)[0] or session


class _Names:
    """The name each session's threads carry (`ThreadId.session`): its id's first
    dash-separated part (`_short`), with as many more of its parts as tell it from a
    session named before it in the read, since two ids may share their first 8 hex
    digits. Example: `1af7fc5e-8455-...` -> `1af7fc5e`, then `1af7fc5e-9999-...` ->
    `1af7fc5e-9999`."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}  # session id (or file stem) -> its name
        self.taken: dict[str, str] = {}  # name -> the session it names

    def __call__(self, session: str) -> str:
        held = self.of.get(session)
        if held is not None:
            return held
        parts = session.split("-")
        names = ("-".join(parts[:count]) for count in range(1, len(parts) + 1))
        name = next((n for n in names if n and n not in self.taken), None)
        if name is None:  # every part taken: an id that is another's name
            name = f"{session}#{len(self.of)}"
        self.of[session], self.taken[name] = name, session
        return name

    def clash(self, other: _Names) -> bool:
        """True when `other` names a session of this read otherwise, or gives one of this
        read's names to another session."""
        return any(
            self.of.get(session, name) != name or self.taken.get(name, session) != session
            for session, name in other.of.items()
        )


@dataclass
class _Building:
    """A thread while it is read: who it is, its file and task, its messages and their API ids.

    `count` counts its messages as `_add` joins them, whether or not they are
    built (a bill builds none); `first` is its first message, the prompt a
    sub-agent was given, built in either case.
    """

    id: ThreadId
    file: str
    description: str = ""
    messages: list[Message] = field(default_factory=list)
    ids: list[object] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    problem: Exception | None = None  # a malformed message of a thread read from `progress`
    count: int = 0
    last: tuple[object, object] = (None, None)  # (role, API id) of the last message counted
    first: Message | None = None


@dataclass
class _File:
    """One file being read: its source, its index in the read, session prefix, inline threads."""

    source: Source
    index: int
    prefix: str = ""
    roots: int = 0
    agent: bool = False  # a sub-agent's own file
    session: str | None = None  # a session file's session id, from its records
    key: str = ""  # the reader's key of its own thread (a sub-agent's file) or its main one
    cwd: str = ""  # the working folder its first record names: its calls' project
    starts: array[int] | None = None  # where each line starts in its bytes, as read

    def __post_init__(self) -> None:
        self.agent = is_agent_file(self.source.name)

    def thread(
        self, kind: ThreadKind, index: int = 0, agent: str = "", typed: str = ""
    ) -> ThreadId:
        """The id of a thread of this file's session (`typed`: the sub-agent's type, if known)."""
        return ThreadId(self.prefix, kind, index, agent, typed)

    def where(self, number: int, many: bool) -> str:
        return f"{self.source.name}: line {number}" if many else f"line {number}"


def _usage(usage: Any, where: str) -> Usage:
    """A recorded usage, read by the one usage reader (a missing figure is 0)."""
    return Usage.of(usage, where=f"{where} message.usage", strict=False)


def _figures(
    usage: Any, stamp: Any, where: Callable[[int, bool], str], number: int, many: bool
) -> tuple[Usage, float | None]:
    """A response line's usage and time (`_usage`, `text.epoch`), its line named (`where`)
    only when one of them is refused: the same readers, read again to say where.

    Raises:
        ValueError: what `_usage` or `epoch` raises, naming the line.
    """
    try:
        return Usage.of(usage, strict=False), epoch(stamp, "timestamp")
    except ValueError:
        named = where(number, many)
        return _usage(usage, named), epoch(stamp, f"{named} timestamp")


#: Text that marks a line as an event that changes what the next request starts with.
_EVENTS = (
    ("<task-notification>", "a <task-notification> user line"),
    ("Reconnected to", "an MCP reconnect (the tool list changed)"),
    ("<command-name>/mcp", "an MCP reconnect (the tool list changed)"),
)


#: Attachments that record the tools offered changing: deferred tools added or
#: removed, an MCP server's instructions joining or leaving.
_TOOL_DELTAS = ("deferred_tools_delta", "mcp_instructions_delta")


def _names(value: object) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def _tool_change(attachment: object) -> str:
    """A tool-list attachment as one line naming what it added and removed, or `""`."""
    if not isinstance(attachment, dict) or attachment.get("type") not in _TOOL_DELTAS:
        return ""
    parts = []
    for sign, key in (("+", "addedNames"), ("-", "removedNames")):
        names = _names(attachment.get(key))
        if names:
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            parts.append(f"{sign}{shown}")
    kind = "tools" if attachment["type"] == "deferred_tools_delta" else "MCP servers"
    return f"a tool list change ({kind} {'; '.join(parts)})" if parts else ""


def _event(record: Any) -> str:
    """What a line records that changes the start of the next request, or `""`.

    Read from the first 2,000 characters of the line's text: its message's
    text, or a system line's `content`; or, for an attachment that records
    the tool list changing (`deferred_tools_delta`, `mcp_instructions_delta`),
    the names it added and removed.
    """
    attachment = value(record.attachment) if record.type == "attachment" else None
    if record.type == "attachment" and (change := _tool_change(attachment)):
        return change
    message = record.message
    content = value(message.content if type(message) in _MESSAGES else record.content)
    if isinstance(content, list):
        content = " ".join(
            [str(block.get("text", "")) for block in content if isinstance(block, dict)]
        )
    text = (content if isinstance(content, str) else "")[:2_000]
    if record.type == "attachment":
        text = f"{text} {str(attachment)[:2_000]}"
    for mark, event in _EVENTS:
        if mark in text:
            return event
    return ""


#: What a line gives its `Place` when it cannot be read again: no event, no content.
_NO_LINE: PlaceLine = ("", None, None, False)


def _placed(record: Any) -> PlaceLine:
    """What a line's `Place` reads from it: its event, its message's content (a user or
    assistant line's), when it was written, and whether it is a compaction summary."""
    message = record.message
    kind = record.type
    content = None
    if (kind == "user" or kind == "assistant") and type(message) in _MESSAGES:
        content = value(message.content)
    logged = record.timestamp
    return (
        _event(record),
        content,
        logged if isinstance(logged, str) else None,
        record.isCompactSummary is True,
    )


class _LinePlaces:
    """(file index, line number) -> what the `Place` of that line reads from it (`_placed`),
    the line read again.

    A file read from disk is read again from where the line starts: where the
    read found it (`starts`: file index -> where each line starts in the
    file's bytes, a byte-order mark left out), else where its line feeds are,
    found once per file the first time one of its lines is asked for. A text
    given whole is kept as given.
    """

    def __init__(
        self,
        sources: Sequence[Source | FileSource],
        starts: dict[int, array[int]] | None = None,
    ) -> None:
        self._kept = [
            FileSource(source.name) if isinstance(source, Source) and source.data else source
            for source in sources
        ]
        self._starts = starts or {}
        self._spans: dict[int, tuple[int, array[int]]] = {}  # (skip, where each line feed is)
        self._skips: dict[int, int] = {}  # file index -> the bytes of its byte-order mark

    def __call__(self, index: int, number: int) -> PlaceLine:
        """What line `number` of file `index` gives its `Place`; nothing (no event, no
        content) where the line cannot be read again (the file changed or went since)."""
        kept = self._kept[index]
        try:
            if isinstance(kept, FileSource):
                line = self._from_file(index, kept.name, number)
            else:
                body = kept.data or kept.text.encode("utf-8")
                start, stop = list(line_spans(body))[number - 1]
                line = body[start:stop]
            record = RECORD.decode(line, number)
        except (OSError, IndexError, ValueError):
            return _NO_LINE
        return _placed(record) if type(record) is RECORD.cls else _NO_LINE

    def _from_file(self, index: int, name: str, number: int) -> bytes:
        """Line `number` of the file, read again from where it starts (`text.line_spans`'s
        lines: a carriage return before the line feed left out)."""
        starts = self._starts.get(index)
        if starts is not None and number <= len(starts):
            return self._where_read(index, name, starts, number)
        held = self._spans.get(index)
        if held is None:
            raw = Path(name).read_bytes()
            skip = 3 if raw.startswith(codecs.BOM_UTF8) else 0
            feeds = array("q", map(_AT, _FEED.finditer(raw, skip)))  # where each line ends
            held = self._spans[index] = (skip, feeds)
        skip, feeds = held
        start = feeds[number - 2] + 1 if number > 1 else skip
        line = read_at(name, start, feeds[number - 1] - start if number <= len(feeds) else -1)
        return line[:-1] if line.endswith(b"\r") else line

    def _where_read(self, index: int, name: str, starts: array[int], number: int) -> bytes:
        """Line `number` of the file, from where the read found it starts: to the line
        feed before the next line's start, or to the end of the file for the last."""
        start = starts[number - 1]
        size = starts[number] - 1 - start if number < len(starts) else -1
        skip = self._skips.get(index)
        if skip is None:
            skip = self._skips[index] = 3 if read_at(name, 0, 3) == codecs.BOM_UTF8 else 0
        line = read_at(name, start + skip, size)
        return line[:-1] if line.endswith(b"\r") else line


#: A line feed, and where a match of it starts: how `_LinePlaces` finds where lines end.
_FEED = re.compile(b"\n")
_AT = re.Match.start


def _miss_reason(message: Any) -> str | None:
    """The `type` of the response's `diagnostics.cache_miss_reason`, the API's own
    diagnosis of a cache miss, or None (no diagnosis, or one still pending)."""
    diagnostics = message.diagnostics
    reason = diagnostics.get("cache_miss_reason") if isinstance(diagnostics, dict) else None
    kind = reason.get("type") if isinstance(reason, dict) else None
    return kind if isinstance(kind, str) and 0 < len(kind) <= 64 else None


def _boundary(record: Any, index: int, line: int) -> Boundary:
    metadata = record.compactMetadata
    metadata = metadata if isinstance(metadata, dict) else {}
    trigger = metadata.get("trigger")
    tokens = metadata.get("preTokens")
    return Boundary(
        index,
        line,
        trigger if isinstance(trigger, str) else None,
        tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
    )


def _role(record: Any, message: Any) -> object:
    """A message's role: its own, else its record's type."""
    return record.type if message.role is ABSENT else message.role


def _message(record: Any, message: Any) -> tuple[Message, object]:
    """A user or assistant record's message in this package's shape, and its API id.

    Raises:
        TypeError, ValueError: a message with no content, or a malformed one
            (`check_message`); the caller names its line.
    """
    role = _role(record, message)
    content = value(message.content)
    if content is None:
        raise ValueError(f"the {role} message has no content")
    converted: Message = {"role": role, "content": content}  # type: ignore[typeddict-item,unused-ignore]
    check_message(converted)
    return converted, message.id


def _counted(thread: _Building, role: object, message_id: object) -> bool:
    """Count a message of `thread`; False when it joins the one before (one reply
    written as several records: assistant, the same API id)."""
    last_role, last_id = thread.last
    joins = (
        thread.count > 0
        and role == "assistant"
        and last_role == "assistant"
        and message_id is not None
        and last_id == message_id
    )
    if not joins:
        thread.count += 1
        thread.last = (role, message_id)
    return not joins


def _add(thread: _Building, message: Message, message_id: object) -> None:
    """Add a message to its thread, merging the blocks of one reply written as several records."""
    messages, ids = thread.messages, thread.ids
    merge = (
        messages
        and message["role"] == "assistant"
        and messages[-1]["role"] == "assistant"
        and message_id is not None
        and ids[-1] == message_id
    )
    if merge:
        messages[-1]["content"] = as_blocks(messages[-1]["content"]) + as_blocks(message["content"])
    else:
        messages.append(message)
        ids.append(message_id)


def _begun(
    call: Call, timestamp: float | None, message: str | None, reason: str | None, bound: bool
) -> Call:
    """`call` with the time, parent and provider's miss diagnosis of where its response
    began, and `bound` as `output_lower_bound` (True only while every line of the
    response was one); every other field its own. What `dataclasses.replace` gives, several times
    sooner (a bill folds one response in two so): every field named, in order (a test
    holds the two equal on a call with no field at its default)."""
    return Call.sound(
        call.thread,
        timestamp,
        call.model,
        call.usage,
        call.sidechain,
        call.segment,
        call.recorded_cost,
        message,
        call.file,
        call.project,
        reason,
        bound,
    )


def _better(new: Call, old: Call) -> bool:
    if old.sidechain != new.sidechain:
        return not new.sidechain
    return new.usage.window_tokens > old.usage.window_tokens  # the prompt and the output


#: What a `Task` call said of the sub-agent it started: (description, sub-agent type).
_Asked = tuple[str, str]
#: Where a record was read, for an error to name once there is one: (file, line number,
#: what follows the line's name, e.g. `" (progress)"`).
_Line = tuple["_File", int, str]


class _Tasks:
    """A session's `Task` calls, by the prompt they gave and by their tool-use id."""

    def __init__(self) -> None:
        self.by_prompt: dict[str, _Asked] = {}
        self.by_id: dict[str, _Asked] = {}

    def add(self, content: object) -> None:
        """Note the calls of a main-thread assistant message's content that gave a prompt."""
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tool_input = block.get("input")
            if isinstance(tool_input, dict) and isinstance(tool_input.get("prompt"), str):
                description, kind = tool_input.get("description"), tool_input.get("subagent_type")
                asked = (
                    description if isinstance(description, str) else "",
                    kind if isinstance(kind, str) else "",
                )
                self.by_prompt.setdefault(tool_input["prompt"], asked)
                if isinstance(block.get("id"), str):
                    self.by_id.setdefault(block["id"], asked)


#: What a content holding a call that gives a prompt holds, found in its undecoded bytes.
_PROMPT = re.compile(re.escape(b'"prompt"'))


class _Reader:
    """The files of one read, record by record: threads, boundaries, calls, problems.

    With `messages` False (a bill), no message is built or checked.
    """

    def __init__(self, many: bool, messages: bool) -> None:
        self.many = many
        self.messages = messages
        self.threads: dict[str, _Building] = {}
        self.thread_of: dict[str, str] = {}  # a sidechain record's uuid -> its thread key
        self.skipped: dict[str, int] = {}
        self.calls: list[Call] = []
        self.records: list[Call] = []
        # message id -> (request id or None, index in `calls`) of each response with that id
        self.keyed: dict[str, list[tuple[str | None, int]]] = {}
        self.places: dict[str, tuple[str | None, str, int, int]] = {}
        self.problem: Exception | None = None
        self.bad_lines: list[Skip] = []  # the lines whose usage is refused, their calls left out
        self.names = _Names()
        self.progress: dict[str, Call] = {}  # message id -> a sub-agent call seen in `progress`
        self.started_by: dict[ThreadId, str] = {}  # a `progress` agent -> its Task call's id
        self.tasks: dict[str, _Tasks] = {}  # session (as threads name it) -> its Task calls

    def file(self, file: _File, lines: Iterator[tuple[int, Any]]) -> None:
        places, index, threads, messages = self.places, file.index, self.threads, self.messages
        for number, record in lines:
            if messages and self._copy(record, index):
                continue
            # the thread of the records before this one, as `_key` finds it (its own first
            # step, taken here: a bill reads every record of every file through it)
            key = file.key
            if not key or (not file.agent and record.isSidechain is True):
                key = self._key(file, record, number)
            if not file.cwd and isinstance(record.cwd, str):
                file.cwd = record.cwd  # where the session started: a later `cd` moves no call
            uuid, parent, kind = record.uuid, record.parentUuid, record.type
            parent = parent if isinstance(parent, str) else None
            if isinstance(uuid, str):
                if key[0] == "s":  # a sidechain's record: its children may follow it
                    self.thread_of[uuid] = key
                if isinstance(kind, str):
                    places[uuid] = (parent, kind, index, number)
            message = record.message
            if (kind == "user" or kind == "assistant") and type(message) in _MESSAGES:
                thread = threads[key]
                self._conversation(file, thread, key[0] == "m", number, record, message)
                if kind == "assistant" and message.usage is not ABSENT:
                    self._call(file, thread, key[0] == "m", number, record, message, parent)
            else:
                self._other(key, record, kind, number)
                if kind == "progress" and not file.agent:
                    self._progress(file, number, record)

    def _copy(self, record: Any, index: int) -> bool:
        """Whether `record` is one the file (`index`) already wrote (its uuid and type seen
        before in it): counted as skipped, so that a message written twice is read once."""
        uuid = record.uuid
        held = self.places.get(uuid) if isinstance(uuid, str) else None
        if held is None or held[2] != index or held[1] != record.type:
            return False
        self.skipped["copy"] = self.skipped.get("copy", 0) + 1
        return True

    def _progress(self, file: _File, number: int, record: Any) -> None:
        """A sub-agent's record copied into a `progress` line: its message added to the
        sub-agent's thread, its call held, for `finish` to weigh against the files read."""
        data: Any = record.data
        if type(data) is not _PROGRESS.cls or data.type != "agent_progress":
            return
        inner: Any = data.message
        if type(inner) is not _COPIED.cls or type(inner.message) not in _MESSAGES:
            return
        message = inner.message
        agent = data.agentId
        thread = file.thread("agent", agent=agent if isinstance(agent, str) else "progress")
        task = record.parentToolUseID
        if isinstance(task, str):
            self.started_by.setdefault(thread, task)
        if inner.type == "user" or inner.type == "assistant":
            self._progress_message(file, number, thread, inner, message)
        if inner.type == "assistant":
            self._progress_call(file, number, thread, record, inner, message)

    def _progress_message(
        self, file: _File, number: int, thread: ThreadId, inner: Any, message: Any
    ) -> None:
        """The message of a copied record added to its sub-agent's thread as read from
        `progress` lines; a malformed one noted on that thread, named by its line."""
        key = f"progress:{thread.name}"
        held = self.threads.get(key)
        if held is None:
            held = self.threads[key] = _Building(thread, file.source.name)
        self._join(held, inner, message, (file, number, " (progress)"), True)

    def _join(self, thread: _Building, record: Any, message: Any, line: _Line, own: bool) -> None:
        """Count a message of `thread` and build it where messages are built (or where it is
        the thread's first: the prompt a sub-agent was given); a malformed one noted,
        named by its `line`, on the thread (`own`) or on the read."""
        new = _counted(thread, _role(record, message), message.id)
        if not self.messages and not (new and thread.count == 1):
            return
        noted = thread.problem if own else self.problem
        if noted is not None and self.messages:
            return
        try:
            built, ident = _message(record, message)
        except (TypeError, ValueError) as error:
            if self.messages:
                file, number, suffix = line
                problem = type(error)(f"{file.where(number, self.many)}{suffix}: {error}")
                if own:
                    thread.problem = problem
                else:
                    self.problem = problem
            return
        if thread.count == 1 and new:
            thread.first = built
        if self.messages:
            _add(thread, built, ident)

    def _progress_call(
        self, file: _File, number: int, thread: ThreadId, record: Any, inner: Any, message: Any
    ) -> None:
        """Hold the call of a copied assistant record, its streamed copies folded."""
        ident, model = message.id, message.model
        if not isinstance(ident, str) or message.usage is ABSENT or model == "<synthetic>":
            return
        where = f"{file.where(number, self.many)} (progress)"
        stamp = record.timestamp if inner.timestamp is ABSENT else inner.timestamp
        try:
            usage = _usage(message.usage, where)
            when = epoch(stamp, f"{where} timestamp")
        except ValueError as error:
            self.bad_line(file, number, error)
            return
        model = model if isinstance(model, str) else "unknown"
        bound = _started_only(message, usage)
        call = Call(
            thread,
            when,
            model,
            usage,
            sidechain=True,
            file=file.source.name,
            project=file.cwd,
            output_lower_bound=bound,
        )
        self.hold(ident, call)

    def hold(self, ident: str, call: Call) -> None:
        """Hold a sub-agent's call seen in `progress` lines, or fold it into the one held
        for its message id: the better of the two at the time of the first."""
        old = self.progress.get(ident)
        if old is None:
            self.progress[ident] = call
            return
        bound = old.output_lower_bound and call.output_lower_bound
        if _better(call, old):
            self.progress[ident] = replace(call, timestamp=old.timestamp, output_lower_bound=bound)
        elif old.output_lower_bound and not bound:  # a later copy named how it ended
            self.progress[ident] = replace(old, output_lower_bound=False)

    def finish(self) -> None:
        """Count the sub-agent calls seen only in `progress` lines (their own file missing),
        and keep as threads the sub-agents whose own file was not read.

        A call whose message id a session or sub-agent file recorded is a copy
        and is left out; so is the thread of a sub-agent whose file was read.
        """
        seen = self.keyed
        for ident, call in self.progress.items():
            if ident not in seen:
                self.records.append(call)
                self.calls.append(call)
        own = {held.id for key, held in self.threads.items() if key.startswith("file:")}
        for key in [key for key in self.threads if key.startswith("progress:")]:
            held = self.threads[key]
            if held.id in own:
                del self.threads[key]
            elif held.problem is not None:
                self.problem = self.problem or held.problem

    def _key(self, file: _File, record: Any, number: int) -> str:
        """The thread a record belongs to, started when it is new."""
        if file.key and (file.agent or record.isSidechain is not True):
            return file.key  # the thread of the file's records before this one
        if file.agent:
            key = file.key = f"file:{file.source.name}"
            if key not in self.threads:
                source = file.source
                agent = PurePath(source.name).stem.removeprefix("agent-")
                thread = file.thread("agent", agent=agent, typed=source.agent_type)
                self.threads[key] = _Building(thread, source.name, source.description)
            return key
        if record.isSidechain is not True:
            key = file.key = f"main:{file.prefix}"
            if key not in self.threads:
                self.threads[key] = _Building(file.thread("main"), "")
            return key
        parent = record.parentUuid
        found = self.thread_of.get(parent) if isinstance(parent, str) else None
        if found is not None:
            return found
        file.roots += 1
        key = f"side:{file.source.name}:{number}"
        self.threads[key] = _Building(file.thread("sidechain", file.roots), file.source.name)
        return key

    def _other(self, key: str, record: Any, kind: object, number: int) -> None:
        """A record that is no message: counted as skipped, a compaction boundary noted."""
        if kind == "system" and record.subtype == "compact_boundary" and key[0] == "m":
            thread = self.threads[key]
            thread.boundaries.append(_boundary(record, thread.count, number))
        label = kind if isinstance(kind, str) else "(no type)"
        self.skipped[label] = self.skipped.get(label, 0) + 1

    def _conversation(
        self, file: _File, thread: _Building, main: bool, number: int, record: Any, message: Any
    ) -> None:
        """A user or assistant record's message joined to its `thread` (`main`: a main
        thread); a summary's boundary noted; a main thread's `Task` calls noted."""
        if main and record.isCompactSummary is True:
            announced = thread.boundaries and thread.boundaries[-1].index == thread.count
            if not announced:
                thread.boundaries.append(Boundary(thread.count, number))
        if main and record.type == "assistant":
            self._tasks(thread.id.session, message.content)
        self._join(thread, record, message, (file, number, ""), False)

    def _tasks(self, session: str, content: object) -> None:
        """Note the `Task` calls of a main thread's assistant record (its content decoded
        only when its bytes could hold one)."""
        if undecoded_holds(content, _PROMPT) is False:
            return
        found = self.tasks.get(session)
        if found is None:
            found = self.tasks[session] = _Tasks()
        found.add(value(content))

    def _call(
        self,
        file: _File,
        thread: _Building,
        main: bool,
        number: int,
        record: Any,
        message: Any,
        parent: str | None,
    ) -> None:
        """The call an assistant record with usage made on `thread` (`main`: a main thread),
        kept or folded (`_keep`)."""
        model = message.model
        if model == "<synthetic>" or record.isApiErrorMessage:
            return
        try:
            usage, when = _figures(message.usage, record.timestamp, file.where, number, self.many)
        except ValueError as error:
            self.bad_line(file, number, error)
            return
        call = Call.sound(
            thread.id,
            when,
            model if isinstance(model, str) else "unknown",
            usage,
            record.isSidechain is True,
            len(thread.boundaries) if main else 0,
            None,
            parent,
            file.source.name,
            file.cwd,
            _miss_reason(message),
            _started_only(message, usage),
        )
        self._keep(call, message.id, record.requestId)

    def bad_line(self, file: _File, number: int, error: ValueError) -> None:
        """Note a line whose usage or time is refused (its call left out), named by its file."""
        self.bad_lines.append(bad_usage_line(file.source.name, number, error))

    def _keep(self, call: Call, ident: object, request: object) -> None:
        """Add a call, or fold it into the call of the same response read before."""
        self.records.append(call)
        if not isinstance(ident, str):
            self.calls.append(call)
            return
        index = self._response(ident, request if isinstance(request, str) else None)
        if index is None:
            self.calls.append(call)
            return
        old = self.calls[index]
        bound = old.output_lower_bound and call.output_lower_bound
        if _better(call, old):  # keep where the response began: its time and parent
            same = old.thread is call.thread or old.thread == call.thread
            parent = old.message if same else call.message
            reason = call.provider_reason or old.provider_reason
            self.calls[index] = _begun(call, old.timestamp, parent, reason, bound)
        elif old.output_lower_bound and not bound:  # a later line named how it ended
            self.calls[index] = _begun(old, old.timestamp, old.message, old.provider_reason, False)

    def _response(self, ident: str, request: str | None) -> int | None:
        """The index in `calls` of the response `ident` (of `request`) read before, or None
        after noting a new one (at the end of `calls`).

        Lines of one message id are one response unless both name a request and
        the requests differ: a line without a request id joins the response
        read before (and names its request, if it was not named yet).
        """
        held = self.keyed.get(ident)
        if held is None:
            self.keyed[ident] = [(request, len(self.calls))]
            return None
        for number, (known, index) in enumerate(held):
            if known == request or known is None or request is None:
                if known is None and request is not None:
                    held[number] = (request, index)
                return index
        held.append((request, len(self.calls)))
        return None


def _first_bad(sources: Sequence[Source | FileSource]) -> ValueError | None:
    """The error of the first file in the order given with a line that is no record, named
    by its file when there are several; None when there is none."""
    for given in sources:
        source = given.loaded()  # a file that cannot be read as text raises its own error
        try:
            for _ in records(source, RECORD):
                pass
        except ValueError as error:
            return ValueError(f"{given.name}: {error}" if len(sources) > 1 else str(error))
    return None


def _session_start(lines: Iterator[tuple[int, Any]]) -> tuple[str | None, list[tuple[int, Any]]]:
    """A file's session id (the first record's that names one), and the records read to
    find it, which come before the rest of `lines`."""
    ahead = []
    for number, record in lines:
        ahead.append((number, record))
        if isinstance(record.sessionId, str) and record.sessionId:
            return record.sessionId, ahead
    return None, ahead


def _owner_name(name: str) -> str | None:
    """The session file a sub-agent's file under `<session>/subagents/` belongs to, by its
    path (normalized); None for one beside the sessions (its records name its session)."""
    above, kind = os.path.split(os.path.dirname(os.path.normpath(name)))
    root, session = os.path.split(above)
    if kind != "subagents" or not session:
        return None
    return os.path.join(root, f"{session}.jsonl")


def _owners(sources: Sequence[Source | FileSource]) -> dict[int, int]:
    """Each sub-agent file's index -> the index of the session file its path puts it under,
    where that file is among `sources` (none to look for in a folder of sessions alone)."""
    agents = [is_agent_file(given.name) for given in sources]
    if not any(agents):
        return {}
    sessions = {
        os.path.normpath(given.name): index
        for index, (given, agent) in enumerate(zip(sources, agents, strict=True))
        if not agent
    }
    found = {}
    for index, (given, agent) in enumerate(zip(sources, agents, strict=True)):
        owner = _owner_name(given.name) if agent else None
        if owner is not None and owner in sessions:
            found[index] = sessions[owner]
    return found


def _read_order(sources: Sequence[Source | FileSource]) -> list[int]:
    """The indexes of `sources` in the order they are read: each session file, in the order
    given, followed by the sub-agents' files under its `<session>/` folder (`_owners`);
    then the other sub-agents' files, in the order given."""
    owners = _owners(sources)
    owned: dict[int, list[int]] = {}
    for agent, owner in owners.items():
        owned.setdefault(owner, []).append(agent)
    order = []
    for index, given in enumerate(sources):
        if not is_agent_file(given.name):
            order.append(index)
            order.extend(owned.get(index, ()))
    order.extend(
        k for k, given in enumerate(sources) if is_agent_file(given.name) and k not in owners
    )
    return order


def _files(
    sources: Sequence[Source | FileSource],
    order: Sequence[int] | None = None,
    ids: set[str] | None = None,
    names: _Names | None = None,
) -> Iterator[tuple[_File, Iterator[tuple[int, Any]]]]:
    """The sources one at a time, in `order` (`_read_order` when None), each with its
    records, which are read as the caller walks them.

    Each comes with its prefix, and a session file with its session id. A
    sub-agent's file under a session's folder (`_owners`) joins that session,
    read just before it; one beside the sessions, the one session read where
    there is one, else the session its records name (`ids`: the ids of session
    files read elsewhere before these, added to as these are read). A session file's prefix is its
    name among `names`; a sub-agent's, its session's.
    """
    ids = set() if ids is None else ids  # the session files' ids
    names = _Names() if names is None else names
    owners = _owners(sources)
    sessions: dict[int, str] = {}  # a session file's index -> its session id, once read
    session_files: dict[int, _File] = {}  # a session file's index -> the file, as read
    for index in _read_order(sources) if order is None else order:
        given = sources[index]
        source = given.loaded()  # read now, let go once its records are read
        file = _File(source, index)
        if isinstance(given, FileSource) and not given.blank:  # its bytes are the file's
            file.starts = array("q")
        lines = records(source, RECORD, file.starts)
        own, ahead = _session_start(lines)
        if file.agent and index in owners:
            own = sessions.get(owners[index]) or own
            if owners[index] in session_files:  # its session's project, whatever it names
                file.cwd = session_files[owners[index]].cwd
        elif file.agent:
            own = (next(iter(ids)) if len(ids) == 1 else None) or own
        elif own is not None:
            file.session = sessions[index] = own
            ids.add(own)
        if not file.agent:
            session_files[index] = file
        found = own or PurePath(source.name).stem
        if file.agent:  # its thread is told apart by its file
            file.prefix = names.of.get(found) or _short(found) if found else ""
        else:
            file.prefix = names(found) if found else ""
        yield file, _chained(ahead, lines)


def _chained(
    ahead: list[tuple[int, Any]], rest: Iterator[tuple[int, Any]]
) -> Iterator[tuple[int, Any]]:
    return chain(ahead, rest)


def _one_session(files: list[_File]) -> Exception | None:
    """Several files are one session and its sub-agents: two session files are refused.

    Session files are told apart by the `sessionId` of their records; a
    sub-agent's own file is not checked, whatever id it carries.
    """
    sessions: dict[str, str] = {}  # session id -> the first file naming it
    for file in files:
        if file.session is not None:
            sessions.setdefault(file.session, file.source.name)
    if len(sessions) < 2:
        return None
    named = ", ".join(PurePath(name).name for name in sessions.values())
    return ValueError(
        f"the files hold {len(sessions)} sessions ({named}); "
        "give one session with its sub-agents' files"
    )


def _prompt(message: Message | None) -> str | None:
    """The text of a thread's first message, the prompt it was given, or None."""
    if message is None:
        return None
    content = message["content"]
    if isinstance(content, str):
        return content
    texts = [block["text"] for block in content if block["type"] == "text"]
    return texts[0] if texts else None


def _described(
    threads: list[_Building], tasks: dict[str, _Tasks], started_by: dict[ThreadId, str]
) -> tuple[tuple[Thread, ...], dict[ThreadId, ThreadId]]:
    """The threads, each given the description and sub-agent type of the call of
    its session's main conversation that started it, where its own file did not
    name them; and each thread whose type is known -> its id with the type (the
    sub-agents known from `progress` lines, by the id of their `Task` call, too)."""
    nothing = _Tasks()
    found = []
    for thread in threads:
        asked = tasks.get(thread.id.session, nothing)
        started = asked.by_id.get(started_by.get(thread.id, ""))
        description, kind = asked.by_prompt.get(_prompt(thread.first) or "", started or ("", ""))
        ident = thread.id
        if kind and not ident.agent_type:
            ident = replace(ident, agent_type=kind)
        found.append(Thread(ident, thread.messages, thread.description or description, thread.file))
    typed = {thread.id: thread.id for thread in found if thread.id.agent_type}
    for ident, task in started_by.items():
        kind = tasks.get(ident.session, nothing).by_id.get(task, ("", ""))[1]
        if kind and ident not in typed:
            typed[ident] = replace(ident, agent_type=kind)
    return tuple(found), typed


def _typed(calls: list[Call], typed: dict[ThreadId, ThreadId]) -> tuple[Call, ...]:
    """The calls, each carrying its thread's id as the threads know it (its type found)."""
    if not typed:
        return tuple(calls)
    return tuple(
        call.on_thread(typed[call.thread])
        if call.thread in typed and not call.thread.agent_type
        else call
        for call in calls
    )


def _main(reader: _Reader) -> tuple[_Building | None, list[_Building], Exception | None]:
    """The main thread, the sub-agents' threads, and why there is no conversation, if so."""
    mains = [t for k, t in reader.threads.items() if k.startswith("main:") and t.count]
    others = [t for k, t in reader.threads.items() if not k.startswith("main:") and t.count]
    if mains:
        return mains[0], others, None
    if len(others) == 1:
        return others[0], [], None
    if others:
        return (
            None,
            others,
            ValueError(
                f"no main conversation, only {len(others)} sub-agent threads; "
                "give the session file, or one sub-agent's file"
            ),
        )
    seen = tally(reader.skipped) if reader.skipped else "none"
    total = sum(reader.skipped.values())
    return (
        None,
        [],
        ValueError(
            f"no conversation: {count_of(total, 'record')} ({seen}), "
            "none a user or assistant message"
        ),
    )


def _walk(
    reader: _Reader,
    sources: Sequence[Source | FileSource],
    order: Sequence[int] | None = None,
    ids: set[str] | None = None,
) -> list[_File]:
    """Read the sources into `reader`, one file's records at a time, in `order` (`_files`);
    the files read, their text let go."""
    files = []
    for file, lines in _files(sources, order, ids, reader.names):
        reader.file(file, lines)
        file.source = file.source.emptied()
        files.append(file)
    return files


# ------------------------------------------------------------ reading on two cores

#: How far from the share of bytes it aims at (`_CHILD_SHARE`, as a share of all the
#: bytes) a cut between two folders is taken over a cut inside one: files that share
#: calls (copies of one session's lines in another's file) are most likely in one
#: project's folder, and parts that share calls are joined before their figures are
#: worked out (`_untouched`).
_FOLDER_SLACK = 0.1

#: The share of the bytes the child reads: less than half, as it also packs its calls
#: and this process then unpacks and folds them.
_CHILD_SHARE = 0.45


class _Logged(_Reader):
    """The child's reader: each call kept as read, with the (message id, request id) that
    `_keep` folds it by (None where not a string), and folded too where its part's own
    session is asked for (`folds`); and each sidechain record's parent that no record
    read before named, which the first part may hold."""

    def __init__(self, many: bool, folds: bool) -> None:
        super().__init__(many, False)
        self.folds = folds
        self.asked: list[tuple[str | None, str | None]] = []
        self.unfound: list[str] = []

    def _keep(self, call: Call, ident: object, request: object) -> None:
        if self.folds:
            super()._keep(call, ident, request)
        else:
            self.records.append(call)
        self.asked.append(
            (
                ident if isinstance(ident, str) else None,
                request if isinstance(request, str) else None,
            )
        )

    def _key(self, file: _File, record: Any, number: int) -> str:
        roots = file.roots
        key = super()._key(file, record, number)
        if file.roots != roots and isinstance(record.parentUuid, str):
            self.unfound.append(record.parentUuid)  # a new sidechain: its parent not found
        return key


def _size(given: Source | FileSource) -> int | None:
    """A source's bytes; None when its file cannot be looked at (one pass then names it)."""
    if isinstance(given, FileSource):
        try:
            return os.stat(given.name).st_size
        except OSError:
            return None
    return len(given.data) if given.data else len(given.text)


def _cut(sources: Sequence[Source | FileSource], order: Sequence[int]) -> int | None:
    """How many files of `order`, from its start, this process reads: whole groups of a
    session file and its sub-agents' files (`_read_order`), about (1 - `_CHILD_SHARE`)
    of the bytes, cut between two folders where one is near enough (`_FOLDER_SLACK`);
    None when the read is not split."""
    sizes = [_size(sources[index]) for index in order]
    total = sum(size or 0 for size in sizes)
    if None in sizes or total < SPLIT_BYTES:
        return None
    target = total * (1 - _CHILD_SHARE)
    cuts = [at for at, index in enumerate(order) if at and not is_agent_file(sources[index].name)]
    if not cuts:
        return None
    before = list(accumulate(size or 0 for size in sizes))  # bytes up to and with each file
    off = {at: abs(before[at - 1] - target) for at in cuts}
    folder = [os.path.dirname(os.path.normpath(sources[index].name)) for index in order]
    apart = [at for at in cuts if folder[at] != folder[at - 1] and off[at] <= total * _FOLDER_SLACK]
    return min(apart or cuts, key=off.__getitem__)


def _ids_before(sources: Sequence[Source | FileSource], first: Sequence[int]) -> set[str]:
    """The session ids the files of `first` record, as far as a sub-agent's file read
    after them needs them: all of them, or two once two are found."""
    ids: set[str] = set()
    for index in first:
        own, _ = _session_start(records(sources[index].loaded(), RECORD))
        if own is not None:
            ids.add(own)
        if len(ids) > 1:
            break
    return ids


def _file_row(file: _File) -> tuple[Any, ...]:
    source, starts = file.source, file.starts
    return (
        (source.name, source.description, source.agent_type),
        (file.index, file.prefix, file.roots, file.session, file.key),
        None if starts is None else starts.tobytes(),
    )


def _file(row: tuple[Any, ...]) -> _File:
    (name, description, agent_type), (index, prefix, roots, session, key), starts = row
    file = _File(Source(name, "", description, agent_type), index, prefix, roots)
    file.session, file.key = session, key
    if starts is not None:
        file.starts = array("q")
        file.starts.frombytes(starts)
    return file


def _child(
    sources: Sequence[Source | FileSource],
    first: Sequence[int],
    rest: Sequence[int],
    work: Work[T] | None = None,
) -> Iterator[_Sent[T] | bytes | None]:
    """The steps the child sends (`aside_frames`) on the files of `rest`, read after those
    of `first`: what its reader found besides its calls (`_Sent`), with, given `work`,
    what it gives on their sessions read alone and what tells whether they touch the
    first part's; then, once asked for, its calls, records and places as plain values
    (marshalled). None (the one step) when a file or line stops the read or a usage
    figure is malformed (one pass then names it)."""
    found = _child_read(sources, first, rest, work is not None)
    if found is None:
        yield None
        return
    reader, files = found
    worked = None if work is None else _worked(work, reader, sources, files)
    objects = (reader.threads, reader.progress, reader.started_by, reader.tasks, reader.names)
    yield _Sent(objects, None if worked is None else _touch(reader), worked)
    threads, usages, rows = packed(reader.records)
    plain = (
        threads,
        usages,
        rows,
        reader.asked,
        reader.places,
        reader.unfound,
        reader.skipped,
        [_file_row(file) for file in files],
    )
    yield marshal.dumps(plain)


def _child_read(
    sources: Sequence[Source | FileSource], first: Sequence[int], rest: Sequence[int], folds: bool
) -> tuple[_Logged, list[_File]] | None:
    """The child's reader (`_Logged`) once it has read the files of `rest`, and those
    files; None when a file or line stops the read or a usage figure is malformed."""
    try:
        agents = any(is_agent_file(sources[index].name) for index in rest)
        ids = _ids_before(sources, first) if agents else set()
        reader = _Logged(len(sources) > 1, folds)
        files = _walk(reader, sources, rest, ids)
    except Exception:  # whatever stopped the read, one pass meets it again and names it
        return None
    if reader.bad_lines or reader.problem is not None:
        return None
    return reader, files


def _apart(
    reader: _Reader, threads: dict[str, _Building], unfound: list[str], names: _Names
) -> bool:
    """True when the child's part can be added to `reader` as one pass would read it."""
    if reader.bad_lines or reader.problem is not None or reader.names.clash(names):
        return False
    if not reader.threads.keys().isdisjoint(threads):
        return False
    return not any(parent in reader.thread_of for parent in unfound)


def _joined(reader: _Reader, files: list[_File], answer: _Answer[Any]) -> bool:
    """Add the child's part to `reader` and `files` as one pass reads it; False (nothing
    added) where the parts touch (`_apart`)."""
    threads, _, _, _, names = answer.objects
    plain = marshal.loads(answer.plain)
    unfound = plain[5]  # its sidechains' parents it did not find (`_Logged.unfound`)
    if not _apart(reader, threads, unfound, names):
        return False
    _added(reader, files, answer, plain)
    return True


def _added(reader: _Reader, files: list[_File], answer: _Answer[Any], plain: Any) -> None:
    """Add the child's part (its `plain` values unmarshalled) to `reader` and `files`."""
    threads, progress, started_by, tasks, names = answer.objects
    thread_rows, usages, rows, asked, places, _, skipped, file_rows = plain
    reader.names.of.update(names.of)
    reader.names.taken.update(names.taken)
    reader.threads.update(threads)
    for (ident, request), call in zip(asked, unpacked(thread_rows, usages, rows), strict=True):
        reader._keep(call, ident, request)
    reader.places.update(places)
    for label, count in skipped.items():
        reader.skipped[label] = reader.skipped.get(label, 0) + count
    for ident, call in progress.items():
        reader.hold(ident, call)
    for thread, task in started_by.items():
        reader.started_by.setdefault(thread, task)
    reader.tasks.update(tasks)  # apart: a session's `Task` calls are its main thread's
    files.extend(_file(row) for row in file_rows)


# ------------------------------------------------------------ parts read alone

#: What a part of a bill's read is given to work on: its sessions, read alone as one
#: `Session`, and the index in its calls from which they are the sub-agent calls seen
#: only in `progress` lines (`_Reader.finish` adds them last).
Work = Callable[[Session, int], T]


def _finished(reader: _Reader) -> tuple[_Reader, int]:
    """A copy of `reader` finished (`_Reader.finish`), `reader` left as it is to be joined
    to another part later; and how many calls it held before finishing."""
    done = copy(reader)
    done.records, done.calls, done.threads = (
        list(reader.records),
        list(reader.calls),
        dict(reader.threads),
    )
    held = len(done.calls)
    done.finish()
    return done, held


def _worked(
    work: Work[T], reader: _Reader, sources: Sequence[Source | FileSource], files: list[_File]
) -> tuple[T] | None:
    """(what `work` gives on the part `reader` read, its sessions alone,); None when it
    raised (the whole read then meets what it met)."""
    try:
        done, held = _finished(reader)
        return (work(_session(done, files, sources), held),)
    except Exception:  # the parts are joined and read as one pass reads them
        return None


@dataclass(frozen=True)
class _Touch:
    """What tells whether a part's sessions touch another part's, so that one pass would
    read either otherwise: the hashes of its response ids (`_Reader.keyed`), of its
    record ids (`_Reader.places`), the parents its records name that none of its own
    is, and its sidechains' parents not found in it (`_Logged.unfound`)."""

    keyed: bytes
    places: bytes
    dangling: list[str]
    unfound: list[str]


def _hashes(keys: Iterable[str]) -> bytes:
    return array("q", map(hash, keys)).tobytes()


def _dangling(places: dict[str, tuple[str | None, str, int, int]]) -> list[str]:
    """The parents the records name that are no record of `places`."""
    return [
        place[0] for place in places.values() if place[0] is not None and place[0] not in places
    ]


def _touch(reader: _Logged) -> _Touch:
    return _Touch(
        _hashes(reader.keyed),
        _hashes(reader.places),
        _dangling(reader.places),
        reader.unfound,
    )


def _file_threads(threads: dict[str, _Building], kind: str) -> set[ThreadId]:
    return {held.id for key, held in threads.items() if key.startswith(kind)}


def _untouched(reader: _Reader, answer: _Answer[Any]) -> bool:
    """True when the child's sessions and this process's do not touch: one pass reads
    each part as it was read alone (the child's is a hash apart at worst: then False).

    Besides what `_apart` asks, no response, `progress` copy or record is in both,
    no record names a parent only the other holds, and no sub-agent known from the
    `progress` lines of one has its own file in the other."""
    threads, progress, _, _, names = answer.objects
    touch = answer.touch
    if touch is None or not _apart(reader, threads, touch.unfound, names):
        return False
    ids = set(array("q", touch.keyed)).union(map(hash, progress))  # its responses, copies
    if not ids.isdisjoint(map(hash, reader.keyed)):
        return False
    if not ids.isdisjoint(map(hash, reader.progress)):
        return False
    places = set(array("q", touch.places))
    if not places.isdisjoint(map(hash, reader.places)):
        return False
    if any(parent in reader.places for parent in touch.dangling):
        return False
    if not places.isdisjoint(map(hash, _dangling(reader.places))):
        return False
    own, copied = _file_threads(reader.threads, "file:"), _file_threads(reader.threads, "progress:")
    return own.isdisjoint(_file_threads(threads, "progress:")) and copied.isdisjoint(
        _file_threads(threads, "file:")
    )


@dataclass(frozen=True)
class _Sent(Generic[T]):
    """What the child sends first (`_child`): the objects `_joined` adds as they are, and
    with work asked for, what tells whether its part touches this process's and what
    the work gave (`_worked`)."""

    objects: tuple[
        dict[str, _Building], dict[str, Call], dict[ThreadId, str], dict[str, _Tasks], _Names
    ]
    touch: _Touch | None = None
    worked: tuple[T] | None = None


@dataclass
class _Answer(Generic[T]):
    """The child's part: what it sent first (`_Sent`), and the steps still to take from it
    (`frames`), its calls and records as plain values (`plain`), taken when first asked
    for."""

    sent: _Sent[T]
    frames: Frames[Any]
    _plain: bytes | None = None

    @property
    def objects(self) -> tuple[Any, ...]:
        return self.sent.objects

    @property
    def touch(self) -> _Touch | None:
        return self.sent.touch

    @property
    def plain(self) -> bytes:
        """The child's calls, records and places, marshalled: taken from it now if not yet."""
        if self._plain is None:
            with self.frames:
                self._plain = self.frames.next()
        return self._plain


@dataclass
class _Begun:
    """A read begun in this process: the reader (not yet `finish`ed), the files it read,
    the session ids they recorded, and the indexes of the files still to read here, in
    order (none when the child's part was joined, or is to be: `answer`)."""

    reader: _Reader
    files: list[_File]
    ids: set[str]
    rest: Sequence[int] = ()
    answer: _Answer[Any] | None = None  # the child's part, to join when first asked for
    parts: tuple[Any, Any] | None = None  # work's answers: this process's part, the child's


def _whole_sessions(sources: Sequence[Source | FileSource]) -> bool:
    """True when every sub-agent's file is under its session's folder (`_owners`): each
    part of the read then holds whole sessions."""
    owners = _owners(sources)
    return all(k in owners for k, given in enumerate(sources) if is_agent_file(given.name))


def _read_halves(
    sources: Sequence[Source | FileSource], work: Work[T] | None = None
) -> _Begun | None:
    """The read of a bill's files (`messages=False`) on two cores: this process reads the
    first part while a child reads the rest, whose calls are then joined to this reader,
    as the one-pass read leaves them. Where the parts touch (a file copied into two
    folders, two files of one session cut apart), the child's part is dropped and the
    rest is left for this process to read after its own (`_Begun.rest`): the one pass,
    its first part not read again. None where the read is not split, or this process's
    part stopped on a bad file or line: the caller then reads in one pass, which names it.

    Given `work`, where each part holds whole sessions, each process also does it on its
    own part's sessions read alone; where the parts do not touch (`_untouched`), both
    answers are kept (`_Begun.parts`) and the child's part is joined only when the whole
    read is asked for."""
    if len(sources) < 2 or not can_fork():
        return None
    order = _read_order(sources)
    cut = _cut(sources, order)
    if cut is None:
        return None
    first, rest = order[:cut], order[cut:]
    alone = work if work is not None and _whole_sessions(sources) else None
    frames = aside_frames(lambda: _child(sources, first, rest, alone))
    try:
        begun = _Begun(_Reader(len(sources) > 1, False), [], set(), rest)
        try:
            begun.files = _walk(begun.reader, sources, first, begun.ids)
        except Exception:  # one pass meets it again and names it
            frames.close()
            return None
        mine = None if alone is None else _worked(alone, begun.reader, sources, begun.files)
        sent = frames.next()
    except BaseException:  # an interrupt: the child stopped with this process
        frames.close()
        raise
    if not isinstance(sent, _Sent):  # the child's read stopped: read here after this part's
        frames.close()
        return begun
    answer = _Answer(sent, frames)
    worked = sent.worked
    if mine is not None and worked is not None and _untouched(begun.reader, answer):
        begun.answer, begun.parts, begun.rest = answer, (mine[0], worked[0]), ()
        finalize(answer, frames.close)  # the child, its calls not taken, stopped with it
    elif _joined(begun.reader, begun.files, answer):
        begun.rest = ()
    return begun


def _begin(
    sources: Sequence[Source | FileSource], messages: bool, work: Work[T] | None = None
) -> _Begun:
    """The read begun: on two cores where that can be done (`_read_halves`), else not yet."""
    begun = None if messages else _read_halves(sources, work)
    if begun is None:
        begun = _Begun(_Reader(len(sources) > 1, messages), [], set(), _read_order(sources))
    return begun


def _ended(begun: _Begun, sources: Sequence[Source | FileSource]) -> tuple[_Reader, list[_File]]:
    """The reader of a begun read once every source is read, and the files read: the
    child's part joined where it is still to be, the rest read here."""
    reader, files = begun.reader, begun.files
    answer, begun.answer = begun.answer, None
    if answer is not None:  # parts found apart (`_untouched`) by this reader as it still is
        _added(reader, files, answer, marshal.loads(answer.plain))
    try:
        files += _walk(reader, sources, begun.rest, begun.ids)
    except SourceError:  # a file that cannot be read as text, named
        raise
    except ValueError:  # a line that is no record: named as in the first bad file given
        raise _first_bad(sources) or ValueError("a line that is no record") from None
    reader.finish()
    return reader, files


def _line_places(sources: Sequence[Source | FileSource], files: list[_File]) -> _LinePlaces:
    """The lines of `sources` to read again, where the read found each line of a file."""
    return _LinePlaces(sources, {file.index: file.starts for file in files if file.starts})


def read(sources: Sequence[Source | FileSource], *, messages: bool = True) -> Session:
    """Claude Code files (a session, its sub-agents' files, or a project's) as one `Session`.

    Args:
        sources: the files (a `FileSource` is read when the reader gets to it).
        messages: build the conversation (`inspect`, `Bill.sessions`); a
            bill's read gives False, and its session has no messages.

    Raises:
        ValueError: a line that is not a JSON object, naming it (and its file
            when there are several).
    """
    with gc_paused():
        return _session(*_ended(_begin(sources, messages), sources), sources)


@dataclass
class Parts(Generic[T]):
    """A bill's read in two parts of whole sessions that do not touch, one read by a
    child (`read_parts`): what the work gave on this process's part (`mine`) and on
    the child's (`theirs`), each part's sessions read alone; `whole()` is the read
    of every file, as `read(sources, messages=False)` gives it, the child's part
    joined when it is first asked for."""

    mine: T
    theirs: T
    _begun: _Begun
    _sources: Sequence[Source | FileSource]
    _whole: Session | None = None

    def whole(self) -> Session:
        if self._whole is None:
            with gc_paused():
                self._whole = _session(*_ended(self._begun, self._sources), self._sources)
        return self._whole


def read_parts(sources: Sequence[Source | FileSource], work: Work[T]) -> Parts[T] | Session:
    """A bill's read of Claude Code files (`read(sources, messages=False)`) and `work` done
    on it in two parts where the read is split (`_read_halves`) and the parts do not
    touch: each part's sessions read alone are given to `work` in the process that
    read them (`Work`), and their answers come back as `Parts`. Else the whole read, as
    `read` gives it.

    Raises:
        ValueError: as `read` does.
    """
    with gc_paused():
        begun = _begin(sources, False, work)
        if begun.parts is not None:
            return Parts(begun.parts[0], begun.parts[1], begun, sources)
        return _session(*_ended(begun, sources), sources)


def _session(
    reader: _Reader, files: list[_File], sources: Sequence[Source | FileSource]
) -> Session:
    """The session a finished reader read from `files` (of `sources`)."""
    main, others, empty = _main(reader)
    threads, typed = _described(others, reader.tasks, reader.started_by)
    return Session(
        "claude-code",
        Layers("", [], main.messages if main is not None else []),
        main=main.id if main is not None else (files[0].thread("main") if files else ThreadId()),
        threads=threads,
        boundaries=tuple(main.boundaries) if main is not None else (),
        calls=_typed(reader.calls, typed),
        usage_records=_typed(reader.records, typed),
        skipped=sum(reader.skipped.values()),
        files=tuple(file.source.name for file in files if file.source.name),
        places=Places(reader.places, [s.name for s in sources], _line_places(sources, files)),
        conversation_error=_one_session(files) or reader.problem or empty,
        bad_lines=tuple(reader.bad_lines),
    )
