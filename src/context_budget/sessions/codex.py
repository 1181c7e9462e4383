"""Codex CLI rollouts (`rollout-*.jsonl`): the conversation, and the calls its totals record.

Every line is `{"timestamp", "type", "payload"}`. The conversation is in the
`response_item` lines, items of the OpenAI Responses API:

- a `message`: `developer` and `system` ones go to the system layer (with the
  `session_meta` line's `base_instructions`), joined by blank lines; `user`
  and `assistant` ones are messages, their text parts joined by newlines;
- `reasoning`: its summary's text, a `thinking` block (reasoning kept only
  encrypted has no text to count and is left out);
- `function_call` and `custom_tool_call`: a `tool_use` (the call's `call_id`,
  its name, its arguments as for OpenAI tool calls; a custom call's text input
  as `{"input": text}`); `function_call_output` and `custom_tool_call_output`:
  a user message with the `tool_result` for its `call_id`;
- any other item (a shell or web search call) is kept as a block of its own,
  counted by its JSON.

Consecutive assistant items are one assistant message, as they are one reply.
`session_meta`, `turn_context` and `event_msg` lines are skipped as messages.

Compaction: a `compacted` line (its `payload.message` the summary Codex
wrote) starts a new segment of the conversation, as a Claude Code
`compact_boundary` does: a `Boundary` at the next message, the summary a user
message (as Codex sends it after the kept user messages), and every later
call's `segment` one higher, so a bill names the rebuild that follows it.

The calls are in `event_msg` lines whose `payload.type` is `token_count`, at
`payload.info.total_token_usage` (cumulative over the session). A call is one
rise of the cumulative total: its tokens are the difference from the previous
total (an event that repeats the total is not a call). A total below the one
before it (any field lower) is a reset: the totals count again from zero, and
that call's tokens are the new total itself. `input_tokens`
includes the cached ones, so the uncached tail is `input_tokens -
cached_input_tokens`. A total that also counts `cache_write_input_tokens`
(GPT-5.6 and later charge for them) has those inside `input_tokens` too: they
become the call's cache writes and leave the uncached tail; without one, the
call wrote nothing. The model is the latest `turn_context` line's, the
project the first `session_meta`'s `cwd`. The thread is `<session id>/main`,
the whole id: Codex ids are time-ordered (UUIDv7), so their first part is
shared by every rollout started in the same minute or so.

A rollout written before `session_meta` existed (the Codex CLI of mid 2025)
starts with a bare header, `{"id", "timestamp", "instructions", "git", ...}`
with no `type`; then come `{"record_type": "state"}` markers and the items
themselves, bare, with no `payload` around them and no time of their own.
Such a file is read as the header's `session_meta` and each item's
`response_item` (the markers skipped): its conversation, and no call, as it
recorded no usage.

A fork starts with its own `session_meta` carrying `forked_from_id` (its
creation at its `timestamp`), then copies its parent's history before its own
turns: the parent's turns and `token_count` events, with or without the
parent's `session_meta`, either keeping their times or stamped anew from the
fork's creation on as they are written (over a second or more). The copies
move the cumulative total on; each rise is a usage record, but only the
fork's own are calls. What the fork's own lines tell: before its first own
turn, a rise stamped no later than its creation is a copy; and where turns are
named by UUIDv7 ids (`turn_context` and `task_started` carry a `turn_id`
minted when the turn began), a turn minted before the creation is a copied
one, so every rise before the first turn minted after it is a copy. Across
files, `without_replays` leaves out the copies those lines cannot tell, by
the parent's cumulative totals (or, without the parent, what sibling forks
all start with). The session id is the first `session_meta`'s, and so are
the instructions; the thread's `parent` is the id it was forked from.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget._json import canonical_json
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.openai_chat import text_of, tool_input
from context_budget.sessions.records import ANY, RAW, Shape, records, value
from context_budget.sessions.session import Boundary, Call, Session, ThreadId
from context_budget.sessions.skips import Skip, bad_usage_line
from context_budget.sessions.text import (
    BLANK,
    Source,
    count_of,
    epoch,
    json_lines,
    line_spans,
    line_value,
    tally,
)
from context_budget.usage import Usage

__all__ = ["LINE", "RECORD_TYPES", "is_rollout", "read", "without_replays"]

#: The record types of a rollout; a file whose first record has one of them is a rollout.
RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)

_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "cache_write_input_tokens")
#: The thread of a call read before the rollout's id is known for sure (a fork names its own).
_UNNAMED = ThreadId()


#: The keys of the header of a rollout written before `session_meta` (`id` and
#: `timestamp` always): the Codex CLI's session metadata of mid 2025.
_LEGACY_HEADER = frozenset(
    {"id", "timestamp", "instructions", "git", "cwd", "originator", "cli_version"}
)


def _is_legacy_header(record: dict[str, Any]) -> bool:
    """True for the first line of a rollout written before `session_meta`: an `id` and a
    `timestamp` (strings), no `type`, and no key a header of then did not have."""
    return (
        isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
        and record.keys() <= _LEGACY_HEADER
    )


def is_rollout(record: dict[str, Any]) -> bool:
    """True when a file's first record is a rollout's: a Codex record type and a `payload`,
    or the bare header of a rollout written before `session_meta`."""
    kind = record.get("type")
    if isinstance(kind, str) and kind in RECORD_TYPES and "payload" in record:
        return True
    return _is_legacy_header(record)


def _output_text(output: object) -> str:
    """A call's output as text: a string, or the `content` of an object, else its JSON."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return str(output["content"])
    return canonical_json(output)


def _assistant_block(item: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The block an assistant-side item becomes; None for one with nothing to count."""
    kind = item.get("type")
    if kind == "message":
        return {"type": "text", "text": text_of(item.get("content"), where)}
    if kind == "reasoning":
        summary = item.get("summary") or []
        text = text_of(summary, f"{where}, summary") if isinstance(summary, list) else ""
        return {"type": "thinking", "thinking": text} if text else None
    if kind == "function_call":
        arguments = item.get("arguments", "")
        return {
            "type": "tool_use",
            "id": item.get("call_id"),
            "name": item.get("name"),
            "input": tool_input(arguments),
        }
    if kind == "custom_tool_call":
        return {
            "type": "tool_use",
            "id": item.get("call_id"),
            "name": item.get("name"),
            "input": {"input": item.get("input", "")},
        }
    return dict(item)


def _item_message(item: dict[str, Any], conversation: list[Message], where: str) -> Message | None:
    """The message a `response_item` gives (the last one, grown, for an assistant item).

    An item with a role and no type is a message, as the Responses API reads its
    input items."""
    role = item.get("role")
    if "type" not in item and role is not None:
        item = {**item, "type": "message"}
    if item.get("type") == "message" and role != "assistant":
        return {"role": role, "content": text_of(item.get("content"), where)}
    if item.get("type") in _OUTPUTS:
        result = {
            "type": "tool_result",
            "tool_use_id": item.get("call_id"),
            "content": _output_text(item.get("output")),
        }
        return {"role": "user", "content": [result]}
    block = _assistant_block(item, where)
    if block is None:
        return None
    last = conversation[-1] if conversation else None
    if last is not None and last["role"] == "assistant":
        last["content"].append(block)
        return last
    return {"role": "assistant", "content": [block]}


class _Reading:
    """A rollout's lines read so far: the conversation, the calls, the problems."""

    def __init__(self, name: str, messages: bool) -> None:
        self.messages = messages  # read the conversation too (a bill reads the calls alone)
        self.session = PurePath(name).stem or "rollout"
        self.model = "unknown"
        self.system: list[str] = []
        self.conversation: list[Message] = []
        self.rises: list[Call] = []  # one per rise of the cumulative total, copies included
        self.copied: list[bool] = []  # for each rise: a fork's copy of its parent's history
        self.last = (0, 0, 0, 0)
        # what the runs of totals before a reset added up to
        self.before: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.writes_recorded = False  # a total counted `cache_write_input_tokens`
        self.skipped: dict[str, int] = {}
        self.problem: Exception | None = None
        self.usage_problem: Exception | None = None
        self.bad_lines: list[Skip] = []  # the lines whose usage is refused, their calls left out
        self.name = name
        self.metas = 0
        self.created: float | None = None  # the rollout's creation, seconds since the epoch
        self.parent = ""  # the rollout a fork was forked from
        self.own_turn = False  # a fork's own first turn was seen: its copied history is over
        self.named_turns = False  # a fork's copied turns carry ids minted before its creation
        self.cwd = ""  # the working folder the rollout ran in
        self.boundaries: list[Boundary] = []  # where each `compacted` line cut the conversation
        self.segment = 0  # the `compacted` lines read so far

    def line(self, number: int, record: Any) -> None:
        kind = record.type
        if kind == "response_item" and not self.messages:
            return  # a message or a tool call: the conversation, which a bill does not read
        payload = value(record.payload)
        if not isinstance(payload, dict):
            payload = None
        if kind == "session_meta" and payload is not None:
            try:
                self._meta(number, record, payload)
            except ValueError as error:  # a fork's creation time that is not a time
                self.usage_problem = self.usage_problem or error
        elif kind == "turn_context" and payload is not None:
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
            self._turn(payload.get("turn_id"))
        elif kind == "event_msg" and payload is not None and self.usage_problem is None:
            if payload.get("type") == "task_started":
                self._turn(payload.get("turn_id"))
            try:
                self._tokens(number, record, payload)
            except ValueError as error:  # the next total's rise takes this call in
                self.bad_lines.append(bad_usage_line(self.name, number, error))
        elif kind == "compacted" and payload is not None:
            self._compacted(number, payload)
            return
        if kind != "response_item" or payload is None:
            label = kind if isinstance(kind, str) else "(no type)"
            self.skipped[label] = self.skipped.get(label, 0) + 1
        elif self.problem is None:
            try:
                self._item(number, payload)
            except (TypeError, ValueError) as error:
                self.problem = type(error)(f"line {number} (codex): {error}")

    def _meta(self, number: int, record: Any, payload: dict[str, Any]) -> None:
        self.metas += 1
        if self.metas > 1:  # a fork's copy of its parent's metadata
            return
        if isinstance(payload.get("id"), str) and payload["id"]:
            self.session = payload["id"]
        if isinstance(payload.get("cwd"), str):
            self.cwd = payload["cwd"]
        created = payload.get("timestamp", record.timestamp)
        if payload.get("forked_from_id"):
            self.parent = str(payload["forked_from_id"])
            self.created = epoch(created, f"line {number} session_meta timestamp")
        else:  # a rollout that is no fork: its creation is only told, never relied on
            with contextlib.suppress(ValueError):
                self.created = epoch(created, "session_meta timestamp")
        instructions = payload.get("base_instructions")
        if isinstance(instructions, dict) and isinstance(instructions.get("text"), str):
            self.system.append(instructions["text"])

    def _compacted(self, number: int, payload: dict[str, Any]) -> None:
        """A compaction: a new segment, starting with its summary where the line keeps one."""
        self.segment += 1
        if not self.messages:
            return
        self.boundaries.append(Boundary(len(self.conversation), number))
        summary = payload.get("message")
        if isinstance(summary, str) and summary.strip() and self.problem is None:
            self.conversation.append({"role": "user", "content": summary})

    def _item(self, number: int, item: dict[str, Any]) -> None:
        where = f"line {number}"
        if item.get("type") == "message" and item.get("role") in ("developer", "system"):
            self.system.append(text_of(item.get("content"), where))
            return
        message = _item_message(item, self.conversation, where)
        if message is None:
            return
        check_message(message, len(self.conversation))
        if not self.conversation or message is not self.conversation[-1]:
            self.conversation.append(message)

    def _tokens(self, number: int, record: Any, payload: dict[str, Any]) -> None:
        """A `token_count` event's rise of the cumulative total, as a call."""
        info = payload.get("info")
        if (
            payload.get("type") != "token_count"
            or not isinstance(info, dict)
            or info.get("total_token_usage") is None
        ):
            return
        where = f"line {number}"
        usage = info["total_token_usage"]
        read = Usage.of(usage, where=f"{where} total_token_usage", strict=False)
        total = (
            read.prompt_tokens,
            read.cache_read_input_tokens,
            read.output_tokens,
            read.cache_creation_input_tokens,
        )  # in `_FIELDS`' order, each in Codex's own sense
        self.writes_recorded = self.writes_recorded or _FIELDS[3] in usage
        delta = tuple(now - before for now, before in zip(total, self.last, strict=True))
        if any(part < 0 for part in delta):  # a reset: the totals count again from 0
            (a, b, c, d), (e, f, g, h) = self.before, self.last
            self.before, delta = (a + e, b + f, c + g, d + h), total
        if not any(delta):
            return
        self.last = total
        rise = Usage.of(dict(zip(_FIELDS, delta, strict=True)), where=f"{where} token_count rise")
        when = epoch(record.timestamp, f"{where} timestamp")
        self.rises.append(
            Call.sound(
                _UNNAMED, when, self.model, rise, False, self.segment, None, None, "", "", None
            )
        )
        self.copied.append(self._replayed(when))

    def _turn(self, turn: object) -> None:
        """A turn starts: in a fork, one whose id was minted at or after the fork's creation
        is the fork's own first turn; one minted before it, a copied turn of its parent."""
        if not self.parent or self.own_turn or self.created is None:
            return
        minted = _minted(turn)
        if minted is None:
            return
        if minted >= round(self.created * 1000):
            self.own_turn = True
        else:
            self.named_turns = True

    def _replayed(self, when: float | None) -> bool:
        """True for a fork's copy of a parent call, as the fork's own lines tell it.

        Before the fork's own first turn, a rise stamped no later than the fork's
        creation is a copy (copies that keep their parent's times); so is any
        rise, whatever its time, once copied turns named by their ids were seen
        (copies stamped anew as they are written, up to seconds after the
        creation): the fork's own first turn, named the same way, ends them.
        """
        if not self.parent or self.own_turn:
            return False
        return when is None or self.created is None or when <= self.created or self.named_turns


def _minted(turn: object) -> int | None:
    """The millisecond (since the epoch) a UUIDv7 turn id was minted at; None for another id.

    Example: `"019a7c2e-8f10-7d3a-9a51-2b7c0e4d1a01"` -> `0x019a7c2e8f10`.
    """
    if not isinstance(turn, str) or len(turn) != 36 or turn[14] != "7" or turn[8] != "-":
        return None
    try:
        return int(turn[:8] + turn[9:13], 16)
    except ValueError:
        return None


def _recorded(reading: _Reading) -> dict[str, int]:
    """The last cumulative total by field; the write count only where the file kept one."""
    summed = (a + b for a, b in zip(reading.before, reading.last, strict=True))
    recorded = dict(zip(_FIELDS, summed, strict=True))
    if not reading.writes_recorded:
        del recorded[_FIELDS[3]]
    return recorded


#: What the reader reads of a line of a rollout: the payload is decoded where it is read.
LINE = Shape("CodexLine", timestamp=ANY, type=ANY, payload=RAW)


class _Bare:
    """A line of a rollout written before `session_meta`, as `LINE` reads a later one."""

    __slots__ = ("payload", "timestamp", "type")

    def __init__(self, timestamp: object, kind: str, payload: dict[str, Any] | None) -> None:
        self.timestamp, self.type, self.payload = timestamp, kind, payload


def _starts_bare(source: Source) -> bool:
    """True when the first record of `source` is the bare header of a rollout written before
    `session_meta` (False for a first line that is no JSON object: the reader names it)."""
    text = source.text
    for number, (start, stop) in enumerate(line_spans(text), start=1):
        try:
            first = line_value(text[start:stop], number, long_numbers=True)
        except ValueError:
            return False
        if first is not BLANK:
            return isinstance(first, dict) and _is_legacy_header(first)
    return False


def _bare_lines(source: Source) -> Iterator[tuple[int, _Bare]]:
    """The lines of a rollout written before `session_meta`, each as the line of a later
    rollout that holds the same: the header (the first) a `session_meta`, its
    `instructions` the base instructions; a `record_type` marker a line of that kind; any
    other an item."""
    for at, (number, record) in enumerate(json_lines(source.text)):
        if at == 0:
            meta = {key: value for key, value in record.items() if key != "instructions"}
            if isinstance(record.get("instructions"), str):
                meta["base_instructions"] = {"text": record["instructions"]}
            yield number, _Bare(record["timestamp"], "session_meta", meta)
        elif "type" not in record and "record_type" in record:
            yield number, _Bare(None, str(record["record_type"]), None)
        else:
            yield number, _Bare(record.get("timestamp"), "response_item", record)


def _lines(source: Source) -> Iterator[tuple[int, Any]]:
    """The lines of a rollout as `LINE` reads them; those of one written before
    `session_meta` as `_bare_lines` gives them (known at its first line, which has no
    `type` and no `payload`)."""
    lines = records(source, LINE)
    for number, record in lines:
        bare = record.type is None and value(record.payload) is None  # type: ignore[attr-defined]
        if bare and _starts_bare(source):  # either decoder: msgspec keeps a missing RAW as null
            yield from _bare_lines(source)
            return
        yield number, record
        break
    yield from lines


def read(source: Source, *, messages: bool = True) -> Session:
    """A rollout as a `Session`.

    Args:
        source: the rollout.
        messages: read the conversation too; a bill's read gives False, and
            its session has no messages.

    Raises:
        ValueError: a line that is not a JSON object, naming it.
    """
    name = source.name
    reading = _Reading(name, messages)
    for number, record in _lines(source):
        reading.line(number, record)
    thread = ThreadId(reading.session, parent=reading.parent)
    cwd = reading.cwd
    rises = tuple(
        Call.sound(
            thread, c.timestamp, c.model, c.usage, False, c.segment, None, None, "", cwd, None
        )
        for c in reading.rises
    )
    calls = tuple(rise for rise, copied in zip(rises, reading.copied, strict=True) if not copied)
    problem = reading.problem
    if problem is None and not reading.conversation and messages:
        problem = ValueError(
            f"a Codex rollout with no conversation: "
            f"{count_of(sum(reading.skipped.values()), 'line')} ({tally(reading.skipped)}), "
            "no response_item message or call"
        )
    return Session(
        "codex",
        Layers("\n\n".join(reading.system), [], reading.conversation),
        main=thread,
        boundaries=tuple(reading.boundaries),
        calls=calls,
        usage_records=rises,
        skipped=sum(reading.skipped.values()),
        files=(name,) if name else (),
        recorded_tokens=_recorded(reading),
        started=reading.created,
        conversation_error=problem,
        usage_error=reading.usage_problem,
        bad_lines=tuple(reading.bad_lines),
    )


#: A cumulative total: (input tokens, cached ones, output, cache writes).
_Total = tuple[int, int, int, int]


def _totals(session: Session) -> list[tuple[Call, _Total]]:
    """Each rise of a rollout (`usage_records`, copies included) with the cumulative total
    after it, in file order: the totals the file recorded, summed back from the rises."""
    found = []
    sent = cached = output = written = 0
    for rise in session.usage_records:
        usage = rise.usage
        sent += usage.prompt_tokens
        cached += usage.cache_read_input_tokens
        output += usage.output_tokens
        written += usage.cache_creation_input_tokens
        found.append((rise, (sent, cached, output, written)))
    return found


def _within(total: _Total, bound: _Total) -> bool:
    return all(part <= most for part, most in zip(total, bound, strict=True))


def _at_fork(parent: Session, fork: Session) -> _Total:
    """The parent's cumulative total when the fork was created (its last one, when the
    fork records no creation time)."""
    reached: _Total = (0, 0, 0, 0)
    created = fork.started
    for rise, total in _totals(parent):
        if created is not None and rise.timestamp is not None and rise.timestamp > created:
            break
        reached = total
    return reached


def _shared(forks: list[Session]) -> _Total:
    """The last cumulative total every one of `forks` starts with, the same from the first:
    the history of their common parent they all copied ((0, 0, 0, 0) when there is none)."""
    runs = [[total for _, total in _totals(fork)] for fork in forks]
    reached: _Total = (0, 0, 0, 0)
    for totals in zip(*runs, strict=False):
        if any(total != totals[0] for total in totals):
            break
        reached = totals[0]
    return reached


def without_replays(sessions: Sequence[Session]) -> list[Session]:
    """The sessions, each Codex fork's calls that copy its parent's history left out.

    A fork starts with its parent's history. Where the parent is among the
    sessions, a rise of the fork whose cumulative total is at or below the
    parent's when the fork was created is a copy; where it is not, the
    cumulative totals that two or more forks of it start with are (the
    parent's history each of them copied). What the fork's own lines tell
    (`_Reading._replayed`) was left out already. A fork left with no call is
    kept, with none: the caller names it.
    """
    rollouts = {s.main.session: s for s in sessions if s.format == "codex"}
    siblings: dict[str, list[Session]] = {}
    for session in rollouts.values():
        if session.main.parent and session.main.parent not in rollouts:
            siblings.setdefault(session.main.parent, []).append(session)
    found = []
    for session in sessions:
        parent = session.main.parent if session.format == "codex" else ""
        if parent in rollouts:
            bound = _at_fork(rollouts[parent], session)
        elif len(siblings.get(parent, ())) > 1:
            bound = _shared(siblings[parent])
        else:
            found.append(session)
            continue
        copies = {id(rise) for rise, total in _totals(session) if _within(total, bound)}
        calls = tuple(call for call in session.calls if id(call) not in copies)
        found.append(session if len(calls) == len(session.calls) else replace(session, calls=calls))
    return found
