"""What one read of a session's files yields: the shapes `inspect` and `bill` both use.

A reader turns files into one `Session`: the main conversation as `Layers`,
the sub-agents' `Thread`s, the compaction `Boundary`s that cut the main
conversation into segments, a run's `FinalOutput`, and the API `Call`s the
files recorded, each with its usage as `Usage`, deduplicated the way the
format needs.

A problem that concerns only one use is kept for it: a malformed message
(`conversation_error`) does not stop a bill, a malformed usage figure
(`usage_error`) does not stop `inspect`. `conversation()` and `billed()` raise
what their use cannot do without.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from context_budget._checks import bad_scalar, check_message
from context_budget.calls import CallRecord, UsageField
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.usage import Usage, rule_fields

__all__ = [
    "Boundary",
    "Call",
    "FinalOutput",
    "Place",
    "Session",
    "Thread",
    "chain",
    "checked_layers",
    "recorded_usage",
]


@dataclass(frozen=True)
class Thread:
    """A conversation of a session: the main one, or a sub-agent's.

    Attributes:
        name: `<session>/main`, `<session>/sidechain-N` for the Nth sub-agent
            written inline in a session file, or `<session>/agent-<id>` for a
            sub-agent's own file (`<session>`: the session id's first part, or
            the whole id where that part is not unique, as in a Codex rollout).
        messages: its messages, in this package's shapes.
        description: what the main conversation asked of it (the `Task`
            call's description, or the `description` of its `.meta.json`), or "".
        file: the file it was read from.
    """

    name: str
    messages: list[Message]
    description: str = ""
    file: str = ""


@dataclass(frozen=True)
class Boundary:
    """A compaction boundary: where a new segment of the main conversation starts.

    Attributes:
        index: the index, in the main conversation, of the segment's first message.
        line: the boundary's line in the file (1-based).
        trigger: what started the compaction (`"auto"`, `"manual"`), or None.
        pre_tokens: the tokens before compaction, as the file records them, or None.
    """

    index: int
    line: int
    trigger: str | None = None
    pre_tokens: int | None = None


@dataclass(frozen=True)
class FinalOutput:
    """A run's final output, which is not a turn (mini-swe-agent's `role: "exit"`).

    Attributes:
        status: the exit status the run recorded, e.g. `"Submitted"`.
        text: the submission (a diff), or the message's content when there is none.
    """

    status: str
    text: str


@dataclass(frozen=True)
class Place:
    """Where one saved message sits: its parent, its role, its line.

    Attributes:
        parent: the id of the message before it, None at a root.
        role: the line's type (`user`, `assistant`, `system`).
        where: `file:line` (1-based line number).
        line: the line number alone, or None when unknown.
        event: what the line records that changes a request's start, in a
            few words (`"a <task-notification> user line"`, `"an MCP
            reconnect"`, `"a tool list change"`), or `""` for an ordinary line.
        content: the line's message content as recorded (a str or a list of
            blocks, shared with the conversation, not copied), or None for a
            line that holds no message.
        written: when the line was written, as the file records it (an ISO
            time), or None; `sessions.text.epoch` reads it.
        summary: True for a compaction summary (`isCompactSummary`): the
            message a compacted conversation starts from.
    """

    parent: str | None
    role: str
    where: str
    line: int | None = None
    event: str = ""
    content: Any = field(default=None, repr=False, compare=False)
    written: str | None = None
    summary: bool = False


def chain(places: Mapping[str, Place], start: str | None, steps: int | None = None) -> list[str]:
    """Message ids from `start` back towards its root, `start` first, none twice.

    The walk stops at a root, at an id `places` does not hold, at a loop of
    parents, or after `steps` ids (no limit when None).

    Example: places a <- b <- c (c's parent b, b's parent a): `chain(places, "c")`
    -> `["c", "b", "a"]`.
    """
    found: list[str] = []
    seen: set[str] = set()
    node = start
    while node is not None and node in places and node not in seen:
        if steps is not None and len(found) == steps:
            break
        found.append(node)
        seen.add(node)
        node = places[node].parent
    return found


@dataclass(frozen=True)
class Call(CallRecord):
    """One API call a saved session recorded: its usage, when, on which model and thread.

    `usage.input_tokens` is only the uncached tail (the provider's own figure
    minus the cached part where the format folds them together).

    Attributes:
        thread: the `Thread` the call belongs to, e.g. `"fe5e1c67/main"`.
        timestamp: when the call was recorded, seconds since the Unix epoch
            (UTC); None when the file has no time.
        model: the model id as recorded (dated, e.g. `claude-sonnet-4-20250514`).
        usage: the call's tokens by kind, the 5-minute / 1-hour split of the
            writes included.
        sidechain: True for a sub-agent's call.
        segment: how many compaction boundaries of its thread lie before it.
        recorded_cost: the cost in USD the file itself recorded for this call
            (mini-swe-agent's `extra.cost`), or None.
        message: the id of the last message the request carried, where the
            file keeps its messages (Claude Code's `parentUuid`), else None.
        file: the file the call was read from, as given ("" when unknown).
    """

    thread: str
    timestamp: float | None
    model: str
    usage: Usage
    sidechain: bool = False
    segment: int = 0
    recorded_cost: float | None = None
    message: str | None = None
    file: str = ""

    #: Views of `usage` under the names a bill's readers use (tokens).
    input_tokens = UsageField()
    cache_read_input_tokens = UsageField()
    cache_creation_input_tokens = UsageField()
    cache_creation_5m = UsageField("ephemeral_5m_input_tokens")
    cache_creation_1h = UsageField("ephemeral_1h_input_tokens")
    output_tokens = UsageField()


def recorded_usage(
    input_tokens: int, read: int, five: int, hour: int, output: int, source: Any = None
) -> Usage:
    """A recorded call's `Usage` from its five figures (tokens), the write split kept.

    `source`, the recorded usage object, gives the fields the price rules read
    (`speed`, `inference_geo`, web-search requests, `iterations`; see
    `usage.rule_fields`), so that the bill applies them.
    """
    rules = {} if source is None else rule_fields(source)
    if not rules:  # the usual call: the token counts alone, given in `Usage`'s order
        return Usage(input_tokens, output, five + hour, read, five, hour)
    return Usage(
        **rules,
        input_tokens=input_tokens,
        output_tokens=output,
        cache_creation_input_tokens=five + hour,
        cache_read_input_tokens=read,
        ephemeral_5m_input_tokens=five,
        ephemeral_1h_input_tokens=hour,
    )


@dataclass(frozen=True)
class Session:
    """Files of one format read once: the conversation and the calls they hold.

    Attributes:
        format: the format read, one of `FORMATS` but `"auto"`.
        layers: the main conversation's context.
        main: the main thread's name (`Thread.name`).
        threads: the sub-agent threads, in the order they start.
        boundaries: the compaction boundaries in the main conversation.
        calls: one `Call` per API call, in file order, deduplicated.
        usage_records: one `Call` per usage record, before deduplication.
        skipped: records or events skipped as not messages.
        final: the run's final output, when the file records one.
        files: the files read, session files before sub-agents' files.
        recorded_cost: the total cost the files recorded themselves (USD), or None.
        recorded_tokens: totals the files recorded themselves, or None.
        places: message id -> `Place`, where the files keep their messages.
        detected: True when the format was told from the file's shape.
        conversation_error: why the files give no conversation, or None.
        usage_error: why the files give no bill, or None.
    """

    format: str
    layers: Layers
    main: str = "main"
    threads: tuple[Thread, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    calls: tuple[Call, ...] = ()
    usage_records: tuple[Call, ...] = ()
    skipped: int = 0
    final: FinalOutput | None = None
    files: tuple[str, ...] = ()
    recorded_cost: float | None = None
    recorded_tokens: Mapping[str, int] | None = None
    places: Mapping[str, Place] = field(default_factory=dict, repr=False)
    detected: bool = False
    conversation_error: Exception | None = field(default=None, repr=False, compare=False)
    usage_error: Exception | None = field(default=None, repr=False, compare=False)

    def conversation(self) -> Session:
        """This session, once it is known to hold a sound conversation in every thread.

        Raises:
            ValueError, TypeError: `conversation_error`, or a bad message or
                string, naming its place.
        """
        if self.conversation_error is not None:
            raise self.conversation_error
        checked_layers(self.layers)
        for thread in self.threads:
            checked_layers(Layers("", [], thread.messages))
        return self

    def billed(self) -> Session:
        """This session, once its usage is known to be sound and to record a call.

        Raises:
            ValueError: `usage_error`, or a session that recorded no call with usage.
        """
        if self.usage_error is not None:
            raise self.usage_error
        if not self.calls and self.format == "claude-code":
            raise ValueError("Claude Code session(s) with no assistant line with usage")
        if not self.calls:
            raise ValueError(f"a {self.format} file with no API call recording usage")
        return self


def checked_layers(layers: Layers) -> Layers:
    """The layers, once every message and every string in them is known to be sound.

    Raises:
        ValueError, TypeError: a bad string or message, naming its place.
    """
    for where, text in [("system", layers.system)] + [
        (f"pinned record {number}", record) for number, record in enumerate(layers.pinned)
    ]:
        if (problem := bad_scalar(text)) is not None:
            raise ValueError(f"{where}: {problem}")
    for index, message in enumerate(layers.conversation):
        check_message(message, index)
    return layers
