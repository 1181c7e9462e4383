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

Session files are read before sub-agents' files, in whatever order given.
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
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.session import (
    Boundary,
    Call,
    Place,
    Session,
    Thread,
    ThreadId,
    ThreadKind,
)
from context_budget.sessions.text import (
    Source,
    as_blocks,
    count_of,
    epoch,
    gc_paused,
    json_lines,
    tally,
)
from context_budget.usage import Usage

__all__ = ["is_agent_file", "is_session_record", "read"]

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


def is_session_record(record: dict[str, Any]) -> bool:
    """True for a record only Claude Code writes: a known type, or its linking ids."""
    kind = record.get("type")
    known = isinstance(kind, str) and kind in RECORD_TYPES
    return known or bool({"sessionId", "leafUuid", "uuid"} & set(record))


def is_agent_file(name: str) -> bool:
    """True for a sub-agent's own file (`agent-*.jsonl`)."""
    return PurePath(name).name.startswith("agent-")


def _short(session: str) -> str:
    """A session id's first dash-separated part (a random UUID's first 8 hex digits)."""
    return session.split("-", 1)[0] or session


@dataclass
class _Building:
    """A thread while it is read: who it is, its file and task, its messages and their API ids."""

    id: ThreadId
    file: str
    description: str = ""
    messages: list[Message] = field(default_factory=list)
    ids: list[object] = field(default_factory=list)
    boundaries: list[Boundary] = field(default_factory=list)
    problem: Exception | None = None  # a malformed message of a thread read from `progress`


@dataclass
class _File:
    """One file being read: its source, records, session prefix and inline threads."""

    source: Source
    records: list[tuple[int, dict[str, Any]]]
    prefix: str
    roots: int = 0
    base: str = ""  # the file's name without its folders
    agent: bool = False  # a sub-agent's own file
    session: str | None = None  # a session file's session id, from its records

    def __post_init__(self) -> None:
        self.base = PurePath(self.source.name).name
        self.agent = is_agent_file(self.source.name)

    def thread(
        self, kind: ThreadKind, index: int = 0, agent: str = "", typed: str = ""
    ) -> ThreadId:
        """The id of a thread of this file's session (`typed`: the sub-agent's type, if known)."""
        return ThreadId(self.prefix, kind, index, agent, typed)

    def where(self, number: int, many: bool) -> str:
        return f"{self.source.name}: line {number}" if many else f"line {number}"


def _session_id(records: list[tuple[int, dict[str, Any]]]) -> str | None:
    for _, record in records:
        if isinstance(record.get("sessionId"), str) and record["sessionId"]:
            return str(record["sessionId"])
    return None


def _usage(usage: Any, where: str) -> Usage:
    """A recorded usage, read by the one usage reader (a missing figure is 0)."""
    return Usage.of(usage, where=f"{where} message.usage", strict=False)


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


def _event(record: dict[str, Any]) -> str:
    """What a line records that changes the start of the next request, or `""`.

    Read from the first 2,000 characters of the line's text: its message's
    text, or a system line's `content`; or, for an attachment that records
    the tool list changing (`deferred_tools_delta`, `mcp_instructions_delta`),
    the names it added and removed.
    """
    if record.get("type") == "attachment" and (change := _tool_change(record.get("attachment"))):
        return change
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else record.get("content")
    if isinstance(content, list):
        content = " ".join(
            [str(block.get("text", "")) for block in content if isinstance(block, dict)]
        )
    text = (content if isinstance(content, str) else "")[:2_000]
    if record.get("type") == "attachment":
        text = f"{text} {str(record.get('attachment'))[:2_000]}"
    for mark, event in _EVENTS:
        if mark in text:
            return event
    return ""


def _place(
    file: _File, number: int, record: dict[str, Any], kind: str, parent: str | None
) -> Place:
    """Where a line with an id sits: its parent and line, its message and when it was written."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    logged = record.get("timestamp")
    return Place(
        parent,
        kind,
        f"{file.base}:{number}",
        number,
        _event(record),
        content if kind in ("user", "assistant") else None,
        logged if isinstance(logged, str) else None,
        record.get("isCompactSummary") is True,
    )


def _miss_reason(message: dict[str, Any]) -> str | None:
    """The `type` of the response's `diagnostics.cache_miss_reason`, the API's own
    diagnosis of a cache miss, or None (no diagnosis, or one still pending)."""
    diagnostics = message.get("diagnostics")
    reason = diagnostics.get("cache_miss_reason") if isinstance(diagnostics, dict) else None
    kind = reason.get("type") if isinstance(reason, dict) else None
    return kind if isinstance(kind, str) and 0 < len(kind) <= 64 else None


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


def _message(record: dict[str, Any], message: dict[str, Any]) -> tuple[Message, object]:
    """A user or assistant record's message in this package's shape, and its API id.

    Raises:
        TypeError, ValueError: a message with no content, or a malformed one
            (`check_message`); the caller names its line.
    """
    role = message.get("role", record["type"])
    content = message.get("content")
    if content is None:
        raise ValueError(f"the {role} message has no content")
    converted: Message = {"role": role, "content": content}
    check_message(converted)
    return converted, message.get("id")


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


def _better(new: Call, old: Call) -> bool:
    if old.sidechain != new.sidechain:
        return not new.sidechain
    return new.prompt_tokens + new.usage.output_tokens > old.prompt_tokens + old.usage.output_tokens


class _Reader:
    """The files of one read, record by record: threads, boundaries, calls, problems."""

    def __init__(self, many: bool) -> None:
        self.many = many
        self.threads: dict[str, _Building] = {}
        self.thread_of: dict[str, str] = {}  # record uuid -> thread key
        self.skipped: dict[str, int] = {}
        self.calls: list[Call] = []
        self.records: list[Call] = []
        # message id -> (request id or None, index in `calls`) of each response with that id
        self.keyed: dict[str, list[tuple[str | None, int]]] = {}
        self.places: dict[str, Place] = {}
        self.problem: Exception | None = None
        self.usage_problem: Exception | None = None
        self.progress: dict[str, Call] = {}  # message id -> a sub-agent call seen in `progress`
        self.started_by: dict[ThreadId, str] = {}  # a `progress` agent -> its Task call's id

    def file(self, file: _File) -> None:
        for number, record in file.records:
            key = self._key(file, record, number)
            uuid, parent, kind = record.get("uuid"), record.get("parentUuid"), record.get("type")
            parent = parent if isinstance(parent, str) else None
            if isinstance(uuid, str):
                self.thread_of[uuid] = key
                if isinstance(kind, str):
                    self.places[uuid] = _place(file, number, record, kind, parent)
            message = record.get("message")
            if kind in ("user", "assistant") and isinstance(message, dict):
                self._conversation(file, key, number, record, message)
                if kind == "assistant" and "usage" in message:
                    self._call(file, key, number, record, message, parent)
            else:
                self._other(key, record, kind, number)
                if kind == "progress" and not file.agent:
                    self._progress(file, number, record)

    def _progress(self, file: _File, number: int, record: dict[str, Any]) -> None:
        """A sub-agent's record copied into a `progress` line: its message added to the
        sub-agent's thread, its call held, for `finish` to weigh against the files read."""
        data = record.get("data")
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            return
        inner = data.get("message")
        message = inner.get("message") if isinstance(inner, dict) else None
        if not isinstance(inner, dict) or not isinstance(message, dict):
            return
        agent = data.get("agentId")
        thread = file.thread("agent", agent=agent if isinstance(agent, str) else "progress")
        task = record.get("parentToolUseID")
        if isinstance(task, str):
            self.started_by.setdefault(thread, task)
        if inner.get("type") in ("user", "assistant"):
            self._progress_message(file, number, thread, inner, message)
        if inner.get("type") == "assistant":
            self._progress_call(file, number, thread, record, inner, message)

    def _progress_message(
        self,
        file: _File,
        number: int,
        thread: ThreadId,
        inner: dict[str, Any],
        message: dict[str, Any],
    ) -> None:
        """The message of a copied record added to its sub-agent's thread as read from
        `progress` lines; a malformed one noted on that thread, named by its line."""
        key = f"progress:{thread.name}"
        held = self.threads.get(key)
        if held is None:
            held = self.threads[key] = _Building(thread, file.source.name)
        if held.problem is not None:
            return
        try:
            _add(held, *_message(inner, message))
        except (TypeError, ValueError) as error:
            held.problem = type(error)(f"{file.where(number, self.many)} (progress): {error}")

    def _progress_call(
        self,
        file: _File,
        number: int,
        thread: ThreadId,
        record: dict[str, Any],
        inner: dict[str, Any],
        message: dict[str, Any],
    ) -> None:
        """Hold the call of a copied assistant record, its streamed copies folded."""
        ident, model = message.get("id"), message.get("model")
        if not isinstance(ident, str) or "usage" not in message or model == "<synthetic>":
            return
        where = f"{file.where(number, self.many)} (progress)"
        try:
            usage = _usage(message["usage"], where)
            when = epoch(inner.get("timestamp", record.get("timestamp")), f"{where} timestamp")
        except ValueError as error:
            self.usage_problem = self.usage_problem or error
            return
        model = model if isinstance(model, str) else "unknown"
        call = Call(thread, when, model, usage, sidechain=True, file=file.source.name)
        old = self.progress.get(ident)
        if old is None or _better(call, old):
            self.progress[ident] = call if old is None else replace(call, timestamp=old.timestamp)

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

    def _key(self, file: _File, record: dict[str, Any], number: int) -> str:
        """The thread a record belongs to, started when it is new."""
        if file.agent:
            key = f"file:{file.source.name}"
            if key not in self.threads:
                source = file.source
                agent = PurePath(source.name).stem.removeprefix("agent-")
                thread = file.thread("agent", agent=agent, typed=source.agent_type)
                self.threads[key] = _Building(thread, source.name, source.description)
            return key
        if record.get("isSidechain") is not True:
            key = f"main:{file.prefix}"
            if key not in self.threads:
                self.threads[key] = _Building(file.thread("main"), "")
            return key
        parent = record.get("parentUuid")
        found = self.thread_of.get(parent) if isinstance(parent, str) else None
        if found is not None and found.startswith("side:"):
            return found
        file.roots += 1
        key = f"side:{file.source.name}:{number}"
        self.threads[key] = _Building(file.thread("sidechain", file.roots), file.source.name)
        return key

    def _other(self, key: str, record: dict[str, Any], kind: object, number: int) -> None:
        """A record that is no message: counted as skipped, a compaction boundary noted."""
        boundary = kind == "system" and record.get("subtype") == "compact_boundary"
        if boundary and key.startswith("main:"):
            thread = self.threads[key]
            thread.boundaries.append(_boundary(record, len(thread.messages), number))
        label = kind if isinstance(kind, str) else "(no type)"
        self.skipped[label] = self.skipped.get(label, 0) + 1

    def _conversation(
        self, file: _File, key: str, number: int, record: dict[str, Any], message: dict[str, Any]
    ) -> None:
        """A user or assistant record's message added to its thread; a summary's boundary noted."""
        thread = self.threads[key]
        if record.get("isCompactSummary") is True and key.startswith("main:"):
            announced = thread.boundaries and thread.boundaries[-1].index == len(thread.messages)
            if not announced:
                thread.boundaries.append(Boundary(len(thread.messages), number))
        if self.problem is None:
            try:
                _add(thread, *_message(record, message))
            except (TypeError, ValueError) as error:
                where = file.where(number, self.many)
                self.problem = type(error)(f"{where}: {error}")

    def _call(
        self,
        file: _File,
        key: str,
        number: int,
        record: dict[str, Any],
        message: dict[str, Any],
        parent: str | None,
    ) -> None:
        """The call an assistant record with usage made, kept or folded (`_keep`)."""
        model = message.get("model")
        errored = model == "<synthetic>" or record.get("isApiErrorMessage")
        if errored or self.usage_problem is not None:
            return
        where = file.where(number, self.many)
        try:
            usage = _usage(message["usage"], where)
            when = epoch(record.get("timestamp"), f"{where} timestamp")
        except ValueError as error:
            self.usage_problem = error
            return
        thread = self.threads[key]
        call = Call(
            thread=thread.id,
            timestamp=when,
            model=model if isinstance(model, str) else "unknown",
            usage=usage,
            sidechain=record.get("isSidechain") is True,
            segment=len(thread.boundaries) if key.startswith("main:") else 0,
            message=parent,
            file=file.source.name,
            provider_reason=_miss_reason(message),
        )
        self._keep(call, message.get("id"), record.get("requestId"))

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
        if _better(call, old):  # keep where the response began: its time and parent
            parent = old.message if old.thread == call.thread else call.message
            reason = call.provider_reason or old.provider_reason
            self.calls[index] = replace(
                call, timestamp=old.timestamp, message=parent, provider_reason=reason
            )

    def _response(self, ident: str, request: str | None) -> int | None:
        """The index in `calls` of the response `ident` (of `request`) read before, or None
        after noting a new one (at the end of `calls`).

        Lines of one message id are one response unless both name a request and
        the requests differ: a line without a request id joins the response
        read before (and names its request, if it was not named yet).
        """
        held = self.keyed.setdefault(ident, [])
        for number, (known, index) in enumerate(held):
            if known == request or known is None or request is None:
                if known is None and request is not None:
                    held[number] = (request, index)
                return index
        held.append((request, len(self.calls)))
        return None


def _records(source: Source, sources: Sequence[Source]) -> list[tuple[int, dict[str, Any]]]:
    """A source's records; ValueError names the bad line (and its file when there are several).

    The error is the one of the first bad file in the order given, whichever
    file was being read when one was found.
    """
    try:
        return json_lines(source.text)
    except ValueError:
        for given in sources:
            try:
                json_lines(given.text)
            except ValueError as error:
                named = f"{given.name}: {error}" if len(sources) > 1 else str(error)
                raise ValueError(named) from None
        raise


def _files(sources: Sequence[Source]) -> Iterator[_File]:
    """The sources parsed one at a time, session files first (in the order given).

    Each comes with its prefix, and a session file with its session id. A
    sub-agent's file joins the session given with it: every session file is
    parsed before it, so their ids are known by then.
    """
    ids: set[str] = set()  # the session files' ids
    for source in sorted(sources, key=lambda given: is_agent_file(given.name)):
        file = _File(source, _records(source, sources), "")
        own = _session_id(file.records)
        if file.agent:
            own = (next(iter(ids)) if len(ids) == 1 else None) or own
        elif own is not None:
            file.session = own
            ids.add(own)
        found = own or PurePath(source.name).stem
        file.prefix = _short(found) if found else ""
        yield file


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


def _prompt(messages: list[Message]) -> str | None:
    """The text of a thread's first message, the prompt it was given, or None."""
    content = messages[0]["content"]
    if isinstance(content, str):
        return content
    texts = [block["text"] for block in content if block["type"] == "text"]
    return texts[0] if texts else None


#: What a `Task` call said of the sub-agent it started: (description, sub-agent type).
_Asked = tuple[str, str]


def _asked(main: list[Message]) -> tuple[dict[str, _Asked], dict[str, _Asked]]:
    """The main conversation's `Task` calls, by prompt and by tool-use id."""
    by_prompt: dict[str, _Asked] = {}
    by_id: dict[str, _Asked] = {}
    for message in main:
        if message["role"] != "assistant" or isinstance(message["content"], str):
            continue
        for block in message["content"]:
            tool_input = block.get("input") if block["type"] == "tool_use" else None
            if isinstance(tool_input, dict) and isinstance(tool_input.get("prompt"), str):
                description, kind = tool_input.get("description"), tool_input.get("subagent_type")
                asked = (
                    description if isinstance(description, str) else "",
                    kind if isinstance(kind, str) else "",
                )
                by_prompt.setdefault(tool_input["prompt"], asked)
                if isinstance(block.get("id"), str):
                    by_id.setdefault(block["id"], asked)
    return by_prompt, by_id


def _described(
    threads: list[_Building], mains: list[_Building], started_by: dict[ThreadId, str]
) -> tuple[tuple[Thread, ...], dict[ThreadId, ThreadId]]:
    """The threads, each given the description and sub-agent type of the call of
    its session's main conversation that started it, where its own file did not
    name them; and each thread whose type is known -> its id with the type (the
    sub-agents known from `progress` lines, by the id of their `Task` call, too)."""
    asked = {main.id.session: _asked(main.messages) for main in mains}
    nothing: tuple[dict[str, _Asked], dict[str, _Asked]] = ({}, {})
    found = []
    for thread in threads:
        by_prompt, by_id = asked.get(thread.id.session, nothing)
        started = by_id.get(started_by.get(thread.id, ""))
        description, kind = by_prompt.get(_prompt(thread.messages) or "", started or ("", ""))
        ident = thread.id
        if kind and not ident.agent_type:
            ident = replace(ident, agent_type=kind)
        found.append(Thread(ident, thread.messages, thread.description or description, thread.file))
    typed = {thread.id: thread.id for thread in found if thread.id.agent_type}
    for ident, task in started_by.items():
        kind = asked.get(ident.session, nothing)[1].get(task, ("", ""))[1]
        if kind and ident not in typed:
            typed[ident] = replace(ident, agent_type=kind)
    return tuple(found), typed


def _typed(calls: list[Call], typed: dict[ThreadId, ThreadId]) -> tuple[Call, ...]:
    """The calls, each carrying its thread's id as the threads know it (its type found)."""
    if not typed:
        return tuple(calls)
    return tuple(
        replace(call, thread=typed[call.thread])
        if call.thread in typed and not call.thread.agent_type
        else call
        for call in calls
    )


def _main(reader: _Reader) -> tuple[_Building | None, list[_Building], Exception | None]:
    """The main thread, the sub-agents' threads, and why there is no conversation, if so."""
    mains = [t for k, t in reader.threads.items() if k.startswith("main:") and t.messages]
    others = [t for k, t in reader.threads.items() if not k.startswith("main:") and t.messages]
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


def read(sources: Sequence[Source]) -> Session:
    """Claude Code files (a session, its sub-agents' files, or a project's) as one `Session`.

    Raises:
        ValueError: a line that is not a JSON object, naming it (and its file
            when there are several).
    """
    files = []
    with gc_paused():
        reader = _Reader(len(sources) > 1)
        for file in _files(sources):  # one file's records held at a time
            reader.file(file)
            file.records = []
            files.append(file)
        reader.finish()
    main, others, empty = _main(reader)
    messages = main.messages if main is not None else []
    mains = [t for k, t in reader.threads.items() if k.startswith("main:") and t.messages]
    threads, typed = _described(others, mains, reader.started_by)
    return Session(
        "claude-code",
        Layers("", [], messages),
        main=main.id if main is not None else (files[0].thread("main") if files else ThreadId()),
        threads=threads,
        boundaries=tuple(main.boundaries) if main is not None else (),
        calls=_typed(reader.calls, typed),
        usage_records=_typed(reader.records, typed),
        skipped=sum(reader.skipped.values()),
        files=tuple(file.source.name for file in files if file.source.name),
        places=reader.places,
        conversation_error=_one_session(files) or reader.problem or empty,
        usage_error=reader.usage_problem,
    )
