"""What one read of a session's files yields: the shapes `inspect` and `bill` both use.

A reader turns files into one `Session`: the main conversation as `Layers`,
the sub-agents' `Thread`s, the compaction `Boundary`s that cut the main
conversation into segments, a run's `FinalOutput`, and the API `Call`s the
files recorded, each with its usage as `Usage`, deduplicated the way the
format needs.

A problem that concerns only one use is kept for it: a malformed message
(`conversation_error`) does not stop a bill, a malformed usage figure
(`usage_error`, or a line of `bad_lines`) does not stop `inspect`.
`conversation()` and `billed()` raise what their use cannot do without.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any, Literal

from context_budget._checks import bad_scalar, check_message
from context_budget._values import maker, short_repr
from context_budget.calls import CallRecord, UsageField
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.skips import Skip
from context_budget.usage import Usage

__all__ = [
    "Boundary",
    "Call",
    "FinalOutput",
    "Place",
    "PlaceEntry",
    "PlaceLine",
    "Places",
    "Session",
    "Thread",
    "ThreadId",
    "ThreadKind",
    "chain",
    "checked_layers",
]


#: Who a thread is: the session's main conversation, a sub-agent written inline in a
#: session file, or a sub-agent with its own file (or known from `progress` lines).
ThreadKind = Literal["main", "sidechain", "agent"]
_PARTS = {"main": "main", "sidechain": "sidechain-", "agent": "agent-"}


@dataclass(frozen=True)
class ThreadId:
    """Which conversation of which session a call or a thread belongs to: a value, named once.

    Every reader builds one per thread; the bill's views read its parts, and
    its `name` is the string the bill's `threads` keys, its rebuilds and
    `inspect` show. Two ids are the same thread when their session, kind,
    index and agent are equal; the sub-agent's type is what is known of it,
    not part of who it is.

    Example: `ThreadId("fe5e1c67", "sidechain", index=2).name` is
    `"fe5e1c67/sidechain-2"`; `ThreadId("astropy__astropy-12907").name` is
    `"astropy__astropy-12907/main"`.

    Attributes:
        session: the session as the name shows it: a Claude Code session id's
            first part, a Codex rollout's whole id (its first part is a clock,
            shared by rollouts started the same minute), a trajectory's
            instance id, an event file's name; "" when the files name none.
        kind: `"main"`, `"sidechain"` (a sub-agent written inline in a
            session file) or `"agent"` (a sub-agent's own file, or its calls
            copied into `progress` lines).
        index: a sidechain's number in its file, from 1; 0 for the others.
        agent: an agent's id (its file is `agent-<id>.jsonl`); "" for the others.
        agent_type: the sub-agent's type where the files name it (the
            `subagent_type` of the `Task` call that started it, or the
            `agentType` of its `.meta.json`), e.g. `"Explore"`; "" when unknown
            and for a main thread.
        parent: the session its session was forked from (a Codex fork's
            `forked_from_id`), whose history it starts with; "" for one that
            is no fork.
    """

    session: str = ""
    kind: ThreadKind = "main"
    index: int = 0
    agent: str = ""
    agent_type: str = field(default="", compare=False)
    parent: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        """`<session>/main`, `<session>/sidechain-<index>` or `<session>/agent-<agent>`
        (without `<session>/` when the session is "")."""
        part = _PARTS[self.kind]
        if self.kind == "sidechain":
            part += str(self.index)
        elif self.kind == "agent":
            part += self.agent
        return f"{self.session}/{part}" if self.session else part

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)

    def __hash__(self) -> int:
        # subtle: the bill's views and rebuilds key dicts by the thread of every call;
        # the hash of the fields that say who it is is computed once, and never pickled
        # (a str's hash differs from process to process)
        held: int | None = self.__dict__.get("_hash")
        if held is None:
            held = hash((self.session, self.kind, self.index, self.agent))
            object.__setattr__(self, "_hash", held)
        return held

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state


@dataclass(frozen=True)
class Thread:
    """A conversation of a session: the main one, or a sub-agent's.

    Attributes:
        id: who it is (`ThreadId`); `name` is its name.
        messages: its messages, in this package's shapes.
        description: what the main conversation asked of it (the `Task`
            call's description, or the `description` of its `.meta.json`), or "".
        file: the file it was read from.
    """

    id: ThreadId
    messages: list[Message]
    description: str = ""
    file: str = ""

    @property
    def name(self) -> str:
        """The thread's name, e.g. `fe5e1c67/sidechain-1` (`ThreadId.name`)."""
        return self.id.name


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
            blocks), or None for a line that holds no message; where a bill
            read its files for their calls alone, read from the line when the
            place is first asked for (`Places`).
        logged: when the line was written, as the file records it (an ISO
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
    logged: str | None = None
    summary: bool = False


def chain(places: Mapping[str, Place], start: str | None, steps: int | None = None) -> list[str]:
    """Message ids from `start` back towards its root, `start` first, none twice.

    The walk stops at a root, at an id `places` does not hold, at a loop of
    parents, or after `steps` ids (no limit when None).

    Example: places a <- b <- c (c's parent b, b's parent a): `chain(places, "c")`
    -> `["c", "b", "a"]`.
    """
    # subtle: `Places` walks its dict of parents, no `Place` made (a bill walks many chains)
    parents = places.parents() if isinstance(places, Places) else None
    found: list[str] = []
    seen: set[str] = set()
    node = start
    while node is not None and node not in seen:
        if parents is not None:
            if node not in parents:
                break
            after = parents[node]
        elif node in places:
            after = places[node].parent
        else:
            break
        if steps is not None and len(found) == steps:
            break
        found.append(node)
        seen.add(node)
        node = after
    return found


#: Where a message sits, kept small: (its parent, its role, the index of its file, its line).
PlaceEntry = tuple[str | None, str, int, int]
#: What a `Place` reads from its line: (`event`, `content`, `logged`, `summary`).
PlaceLine = tuple[str, Any, str | None, bool]
_NO_LINE: PlaceLine = ("", None, None, False)


class Places(Mapping[str, Place]):
    """Message id -> `Place`, each made when first asked for, from its line read again.

    A bill keeps where every message of its files sits, to walk from a call
    back through the messages its request carried (`parents`); what a line
    records (its event, its content, when it was written) is needed only for
    the lines a rebuild's trigger is looked for in, or a replay rebuilds a
    request from, so it is read from the line when its `Place` is asked for.

    Args:
        entries: message id -> (parent id, role, file index, line number).
        files: the files' names, by index.
        line: (file index, line number) -> what the `Place` reads from that
            line (`PlaceLine`).
    """

    def __init__(
        self,
        entries: dict[str, PlaceEntry] | None = None,
        files: Sequence[str] = (),
        line: Callable[[int, int], PlaceLine] | None = None,
    ) -> None:
        self._entries: dict[str, PlaceEntry] = entries if entries is not None else {}
        self._files = tuple(files)
        self._names: dict[int, str] = {}  # file index -> the file's name without its folder
        self._line = line
        self._parts: tuple[Places, ...] = ()
        self._parents: dict[str, str | None] | None = None
        self._made: dict[str, Place] = {}

    @classmethod
    def joined(cls, many: Sequence[Mapping[str, Place]]) -> Mapping[str, Place]:
        """The places of several reads as one mapping; an id two reads know takes the later
        read's place, as `dict.update` would give it."""
        parts = [part for part in many if len(part)]
        if len(parts) == 1:
            return parts[0]
        if not all(isinstance(part, Places) for part in parts):
            merged: dict[str, Place] = {}
            for part in parts:
                merged.update(part)
            return merged
        found = cls()
        found._parts = tuple(reversed(parts))  # type: ignore[arg-type]
        return found

    def _owner(self, ident: str) -> Places | None:
        if ident in self._entries:
            return self
        for part in self._parts:
            if ident in part._entries:
                return part
        return None

    def parents(self) -> dict[str, str | None]:
        """Message id -> the id of its parent (None at a root), for every message: what a
        walk along the chains of messages needs, no `Place` made (built once)."""
        held = self._parents
        if held is None:
            held = {}
            for part in reversed((self, *self._parts)):  # the later read's place wins
                held.update((ident, entry[0]) for ident, entry in part._entries.items())
            self._parents = held
        return held

    def parent(self, ident: str) -> str | None:
        """The parent of message `ident`, its `Place` not made (KeyError if unknown)."""
        owner = self._owner(ident)
        if owner is None:
            raise KeyError(ident)
        return owner._entries[ident][0]

    def __getitem__(self, ident: str) -> Place:
        return self.read(ident, keep=True)

    def read(self, ident: str, *, keep: bool = False) -> Place:
        """The `Place` of message `ident`, its line read again unless it was kept; kept (and
        then given to whoever asks for it) with `keep`, as `places[ident]` keeps it.

        A replay reads every line of the files once, and keeps none: their
        contents would otherwise stay in memory as long as the bill does.

        Raises:
            KeyError: an id the files do not hold.
        """
        owner = self._owner(ident)
        if owner is None:
            raise KeyError(ident)
        place = owner._made.get(ident)
        if place is None:
            parent, role, index, line = owner._entries[ident]
            name = owner._names.get(index)
            if name is None:
                name = owner._names[index] = PurePath(owner._files[index]).name
            where = f"{name}:{line}"
            read = owner._line(index, line) if owner._line is not None else _NO_LINE
            place = Place(parent, role, where, line, *read)
            if keep:
                owner._made[ident] = place
        return place

    def __contains__(self, ident: object) -> bool:
        return isinstance(ident, str) and self._owner(ident) is not None

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for part in (self, *self._parts):
            for ident in part._entries:
                if ident not in seen:
                    seen.add(ident)
                    yield ident

    def __len__(self) -> int:
        if not self._parts:
            return len(self._entries)
        return sum(1 for _ in self)


@dataclass(frozen=True, slots=True)
class Call(CallRecord):
    """One API call a saved session recorded: its usage, when, on which model and thread.

    `usage.input_tokens` is only the uncached tail (the provider's own figure
    minus the cached part where the format folds them together).

    Attributes:
        thread: the thread the call belongs to (`ThreadId`), e.g. the one named
            `"fe5e1c67/main"`.
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
        project: the working folder the file recorded for the call's session
            where it started (a Codex rollout's `cwd`, a Claude Code file's
            first `cwd`), or "" when it records none: the bill then takes the
            project from the file's folder.
        provider_reason: the provider's own diagnosis of a cache miss on this
            call, where the response recorded one: the `type` of Anthropic's
            `diagnostics.cache_miss_reason` (`model_changed`, `system_changed`,
            `tools_changed`, `messages_changed`, `previous_message_not_found`,
            `unavailable`), else None.
        output_lower_bound: True where the file kept only the output count
            the response's stream started with, so the real output (and the
            cost) is higher: Claude Code lines that name no `stop_reason`
            and a count no larger than a stream's start gives
            (`claude_code.START_OUTPUT_MOST`); False for every other call.
    """

    thread: ThreadId
    timestamp: float | None
    model: str
    usage: Usage
    sidechain: bool = False
    segment: int = 0
    recorded_cost: float | None = None
    message: str | None = None
    file: str = ""
    project: str = ""
    provider_reason: str | None = None
    output_lower_bound: bool = False

    @classmethod
    def sound(
        cls,
        thread: ThreadId,
        timestamp: float | None,
        model: str,
        usage: Usage,
        sidechain: bool,
        segment: int,
        recorded_cost: float | None,
        message: str | None,
        file: str,
        project: str,
        provider_reason: str | None,
        output_lower_bound: bool = False,
    ) -> Call:
        """`Call(...)` of every field, made as `_values.maker` makes it: for a reader that
        makes one or two a recorded response; nothing here checks a field."""
        return (_MAKE_CALL if cls is Call else maker(cls))(
            thread,
            timestamp,
            model,
            usage,
            sidechain,
            segment,
            recorded_cost,
            message,
            file,
            project,
            provider_reason,
            output_lower_bound,
        )

    def on_thread(self, thread: ThreadId) -> Call:
        """This call moved to `thread`, every other field kept: `replace(call,
        thread=thread)`, made as `sound` makes a call (a read moves every call of a
        sub-agent to its thread's typed id, and a bill every call of a copied file)."""
        if type(self) is not Call:  # a subclass's fields are its own
            return replace(self, thread=thread)
        return _MAKE_CALL(
            thread,
            self.timestamp,
            self.model,
            self.usage,
            self.sidechain,
            self.segment,
            self.recorded_cost,
            self.message,
            self.file,
            self.project,
            self.provider_reason,
            self.output_lower_bound,
        )

    #: Views of `usage` under the names a bill's readers use (tokens).
    input_tokens = UsageField()
    cache_read_input_tokens = UsageField()
    cache_creation_input_tokens = UsageField()
    cache_creation_5m = UsageField("ephemeral_5m_input_tokens")
    cache_creation_1h = UsageField("ephemeral_1h_input_tokens")
    output_tokens = UsageField()


#: Makes a `Call` of every field, in its order (`Call.sound`, `_values.maker`).
_MAKE_CALL = maker(Call)


@dataclass(frozen=True)
class Session:
    """Files of one format read once: the conversation and the calls they hold.

    Attributes:
        format: the format read, one of `FORMATS` but `"auto"`.
        layers: the main conversation's context.
        main: the main thread (`ThreadId`).
        threads: the sub-agent threads, in the order they start.
        boundaries: the compaction boundaries in the main conversation.
        calls: one `Call` per API call, in file order, deduplicated.
        usage_records: one `Call` per usage record, before deduplication.
        skipped: records or events skipped as not messages.
        final: the run's final output, when the file records one.
        files: the files read, session files before sub-agents' files.
        recorded_cost: the total cost the files recorded themselves (USD), or None.
        recorded_tokens: totals the files recorded themselves, or None.
        started: when the session was created, as its files record it (a Codex
            rollout's `session_meta` time), seconds since the epoch; or None.
        places: message id -> `Place`, where the files keep their messages.
        detected: True when the format was told from the file's shape.
        conversation_error: why the files give no conversation, or None.
        usage_error: why the files give no bill, or None.
        bad_lines: the lines whose usage the reader refused (a figure that is
            no count: `"12"`, `true`, `1.5`), each a `Skip` of kind "bad
            line", their calls left out of `calls`; and an OpenHands
            conversation's event files that are no event (a "half-written
            line" for the last).
        read_messages: where the files were read for their calls alone (a
            bill), what reads them again with their conversation; else None.
    """

    format: str
    layers: Layers
    main: ThreadId = ThreadId()
    threads: tuple[Thread, ...] = ()
    boundaries: tuple[Boundary, ...] = ()
    calls: tuple[Call, ...] = ()
    usage_records: tuple[Call, ...] = ()
    skipped: int = 0
    final: FinalOutput | None = None
    files: tuple[str, ...] = ()
    recorded_cost: float | None = None
    recorded_tokens: Mapping[str, int] | None = None
    started: float | None = None
    places: Mapping[str, Place] = field(default_factory=dict, repr=False)
    detected: bool = False
    conversation_error: Exception | None = field(default=None, repr=False, compare=False)
    usage_error: Exception | None = field(default=None, repr=False, compare=False)
    bad_lines: tuple[Skip, ...] = field(default=(), repr=False, compare=False)
    read_messages: Callable[[], Session] | None = field(default=None, repr=False, compare=False)

    def with_messages(self) -> Session:
        """This session with its conversation: itself, where its files were read with it;
        else its files read again for it (its calls, as a bill read them, kept).

        A bill reads the calls alone (`read_messages` then reads the rest).
        """
        if self.read_messages is None:
            return self
        full = self.read_messages()
        return replace(
            self,
            layers=full.layers,
            threads=full.threads,
            boundaries=full.boundaries,
            conversation_error=full.conversation_error,
            read_messages=None,
        )

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
            ValueError: `usage_error`, the first of `bad_lines`, or a session that
                recorded no call with usage.
        """
        if self.usage_error is not None:
            raise self.usage_error
        if self.bad_lines:
            raise ValueError(self.bad_lines[0].reason)
        if not self.calls and self.format == "claude-code":
            raise ValueError("Claude Code session(s) with no assistant line with usage")
        if not self.calls:
            raise ValueError(f"no API call recording usage in this {self.format} file")
        return self


def checked_layers(layers: Layers) -> Layers:
    """The layers, once every message and every string in them is known to be sound.

    Raises:
        ValueError, TypeError: a bad string or message, naming its place.
        TypeError: `layers` is not a `Layers`.
    """
    if not isinstance(layers, Layers):
        raise TypeError(f"layers must be a Layers, got {short_repr(layers)}")
    for where, text in [("system", layers.system)] + [
        (f"pinned record {number}", record) for number, record in enumerate(layers.pinned)
    ]:
        if (problem := bad_scalar(text)) is not None:
            raise ValueError(f"{where}: {problem}")
    for index, message in enumerate(layers.conversation):
        check_message(message, index)
    return layers
